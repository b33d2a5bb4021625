"""Use cases: they take typed requests and talk to the world only through ports."""
