"""The container with fakes: a test drives the worker's own wiring, never a copy of it.

``wired`` is ``build_container`` with some providers overridden by fixed objects, so a use
case a test builds has exactly the collaborators the worker's has, fakes in place of ports.
"""

from __future__ import annotations

from dependency_injector import providers

from nrf.entrypoints.container import Container, build_container
from nrf.entrypoints.settings import WorkerSettings


def wired(settings: WorkerSettings | None = None, **fakes: object) -> Container:
    """A fresh container from ``settings``, each named provider fixed to its fake."""
    container = build_container(settings=settings)
    for name, fake in fakes.items():
        provider = getattr(container, name)  # a misspelt name fails here, not silently
        provider.override(providers.Object(fake))
    return container
