"""The composition roots: a shared core container and one small root per process."""
