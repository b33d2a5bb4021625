"""A process that stops first stops accepting: each connection it took is served, none dropped.

gunicorn's processes share one listening socket. hypercorn stopped accepting only a few turns
of its event loop after being told to stop, and then waited for the connections whose tasks had
started: one accepted in those turns, or just before, had none yet. It was left out of the
drain, its task cancelled when the loop closed, and the client's connection closed unanswered
(``RemoteDisconnected``) whenever a worn process was replaced under load. Now the process stops
accepting first (new connections wait in the kernel's queue for a sibling), and lets the loop
turn until every connection it did accept has its task, which hypercorn's drain then serves.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable

# Turns of the event loop from accepting a connection to its task running: the accept starts a
# task that makes the transport, which queues connection_made, which starts the connection's
# task. Each step runs in the turn after the one that queued it (the loop's ready queue is first
# in, first out), so after three more turns every accepted connection has its task; one more
# turn is a margin that costs nothing.
CONNECTION_START_TURNS = 4


async def stop_accepting(sockets: Iterable[socket.socket]) -> None:
    """Stop taking connections on ``sockets`` in this process, then wait until each one it took
    has its task (only then may hypercorn's drain begin). The sockets stay open: a sibling
    process still accepts on them."""
    loop = asyncio.get_running_loop()
    for sock in sockets:
        loop.remove_reader(sock.fileno())
    for _ in range(CONNECTION_START_TURNS):
        await asyncio.sleep(0)
