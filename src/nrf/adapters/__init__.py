"""Adapters: the ports of the domain implemented with real technologies."""
