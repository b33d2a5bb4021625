"""Every limit on a connection, in one record: what a client may hold, and for how long.

A connection costs a file descriptor and a few kB while it waits in the event loop; a thread is
lent only to a request whose headers and body have both arrived within their deadlines.
docs/security.md lists each limit and what exceeding it returns.
"""

from __future__ import annotations

from attrs import frozen

KIB = 1024
MIB = 1024 * KIB


@frozen(kw_only=True)
class HttpLimits:
    """Limits of one server; the defaults are the quote API's."""

    # A connection has this long to send a whole request line and headers, counted from the
    # moment it opens (or its previous answer was sent); then it is closed. Also the keep-alive.
    header_seconds: float = 10.0
    # Request line plus headers; over it the answer is 431.
    max_header_bytes: int = 16 * KIB
    # The whole body must arrive within this time of the headers (408 otherwise).
    body_seconds: float = 30.0
    # The body is counted as it arrives, chunked or not: one byte over is 413 at once.
    max_body_bytes: int = 50 * MIB
    # A client has this long to take each write of an answer off the server (the kernel's
    # buffers and hypercorn's); one that stops reading is cut off and its answer dropped.
    send_seconds: float = 60.0
    # Threads lent to requests that may compute (POST) and to cheap reads (GET /health ...):
    # quotes queueing for the CPU never make /health wait for a thread.
    work_threads: int = 4
    read_threads: int = 2
    # A process is replaced (gracefully, by gunicorn) after the app answered this many requests,
    # plus up to the jitter, or once its resident memory passes the RSS limit: what a hostile
    # request leaves behind (PROJ's cache, a fragmented heap) goes with it. Only one process is
    # replaced at a time (replacements.py), so another always serves.
    max_requests: int = 1000
    max_requests_jitter: int = 100
    max_rss_bytes: int = 1024 * MIB
    # Connections the kernel queues before the event loop accepts them.
    backlog: int = 2048
    # How often the process checks its RSS and tells gunicorn it is alive.
    check_seconds: float = 1.0
    # gunicorn replaces a process that has not said it is alive for this long; a process asked
    # to stop has this long to finish the requests it holds.
    silent_seconds: int = 30
    graceful_seconds: int = 10


HEALTH_LIMITS = HttpLimits(
    header_seconds=5.0,
    max_header_bytes=8 * KIB,
    body_seconds=5.0,
    max_body_bytes=0,
    send_seconds=5.0,
    work_threads=1,
    read_threads=2,
    max_requests=100_000,
    max_requests_jitter=1000,
    max_rss_bytes=256 * MIB,
    graceful_seconds=5,
)
"""The worker's health server: GETs only, answered from shared memory."""
