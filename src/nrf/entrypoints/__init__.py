"""Entrypoints: the CLI, the worker processes and the composition root."""
