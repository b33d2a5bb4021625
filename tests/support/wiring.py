"""A process's root with fakes: a test drives that process's own wiring, never a copy of it.

``wired`` builds a root (roots/) as its process does, with some providers overridden by fixed
objects, so a use case a test builds has exactly the collaborators the process's has, fakes
in place of ports.
"""

from __future__ import annotations

from typing import TypeVar

from dependency_injector import providers

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.roots.core import Core, build

Root = TypeVar("Root", bound=Core)


def wired(root: type[Root], settings: WorkerSettings | None = None, **fakes: object) -> Root:
    """A fresh ``root`` from ``settings``, each named provider fixed to its fake."""
    container = build(root, settings=settings)
    for name, fake in fakes.items():
        provider = getattr(container, name)  # a misspelt name fails here, not silently
        provider.override(providers.Object(fake))
    return container
