"""Clock: the system's."""
