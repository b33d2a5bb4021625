"""The supervisor's and the health server's root: the shared-memory heartbeat and a gate.

Both live as long as the task, so neither imports the core (it pulls in the geo stack,
~140 MB a process): the supervisor creates the segment and owns its lifetime, the health
server attaches to it by name and answers behind its own connection gate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore

if TYPE_CHECKING:
    from nrf.adapters.http_server.gate import Gate


def created_heartbeat() -> SharedMemoryHeartbeatStore:
    """A new segment, for the supervisor to hand to each worker process it starts."""
    return SharedMemoryHeartbeatStore.create()


def attached_heartbeat(name: str) -> SharedMemoryHeartbeatStore:
    """The supervisor's segment, read by the health server."""
    return SharedMemoryHeartbeatStore.attach(name)


def health_gate(app: Any) -> Gate:
    """The health app behind its connection gate, with the health server's small limits
    (imported here: the supervisor, which needs only the heartbeat, never loads asyncio)."""
    from nrf.adapters.http_server.gate import Gate
    from nrf.adapters.http_server.limits import HEALTH_LIMITS

    return Gate(app, HEALTH_LIMITS)
