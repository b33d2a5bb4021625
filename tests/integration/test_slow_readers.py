"""A client that asks for a large answer and never reads it is cut off at the send deadline.

hypercorn waits for a client to take each write for as long as the client stays connected, so
one that stops reading holds the answer in the server's memory indefinitely. Here the deadline is
set to 1 s (``NRF_API_SEND_TIMEOUT_SECONDS``); the answer, a 24 MiB stored report, is far more
than the kernel's socket buffers (the client's receive buffer set to 16 KiB, the server's send
buffer at most 4 MiB) and hypercorn's 64 KiB can hold, so the server must wait on the client.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.domain.jobs import JobRecord, JobStatus
from support.api_server import KEY, Server, running_server, serve_env

REPORT_BYTES = 24 * 1024 * 1024
DEADLINE = 1.0
# Nothing is read for this long: eight deadlines leave room for a busy machine.
HOLD_SECONDS = 8 * DEADLINE


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("slow-readers")
    results = folder / "results"
    report = b"<html>" + b"x" * (REPORT_BYTES - 13) + b"</html>"
    record = JobRecord(job_id="big-report", status=JobStatus.SUCCEEDED, finished_at=1.0)
    LocalResultStore(results).save("big-report", {"result.html": report}, record)
    env = serve_env(results, NRF_API_SEND_TIMEOUT_SECONDS=str(DEADLINE))
    with running_server(env, folder / "serve.log") as running:
        yield running


def received_before_the_end(sock: socket.socket) -> tuple[int, bool]:
    """(bytes read, whether the server reset the connection) until it ends or resets."""
    sock.settimeout(30)
    total = 0
    try:
        while chunk := sock.recv(1 << 20):
            total += len(chunk)
    except ConnectionResetError:
        return total, True
    return total, False


def test_a_client_that_never_reads_its_answer_is_cut_off(server: Server) -> None:
    request = (
        f"GET /v1/jobs/big-report HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n"
        f"x-api-key: {KEY}\r\n\r\n"
    ).encode()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(request)
        time.sleep(HOLD_SECONDS)  # the slow reader: nothing taken
        assert server.request("GET", "/health", timeout=10).status == 200
        total, reset = received_before_the_end(sock)
    # Cut off: what the buffers held, never the whole 24 MiB report.
    assert total < REPORT_BYTES, (total, reset)


def test_a_client_that_reads_gets_the_whole_answer(server: Server) -> None:
    # The control: the same answer, read at once, arrives whole within the deadline.
    answer = server.request(
        "GET", "/v1/jobs/big-report", headers={"x-api-key": KEY, "Accept": "text/html"}
    )
    assert answer.status == 200 and len(answer.body) == REPORT_BYTES
