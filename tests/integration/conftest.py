"""Fixtures for integration tests: real servers on loopback, started by the tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.moto_server import MotoServer


@pytest.fixture(scope="session")
def moto_server() -> Iterator[MotoServer]:
    """One moto server for the session; use ``aws`` to get it freshly reset."""
    server = MotoServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def aws(moto_server: MotoServer) -> MotoServer:
    """The moto server with no queues, buckets or identities left by earlier tests."""
    moto_server.reset()
    return moto_server


@pytest.fixture
def fake_notify() -> Iterator[FakeNotifyServer]:
    with running_fake_notify() as server:
        yield server
