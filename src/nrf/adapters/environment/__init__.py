"""Settings read from the environment, parsed and checked once at the edge."""
