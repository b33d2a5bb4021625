"""Entrypoints: the CLI, the worker processes, the quote API, the health app and their roots."""
