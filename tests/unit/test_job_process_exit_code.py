"""exit_code: a dead job process whose exit code reads None once is still told apart."""

from __future__ import annotations

import signal

import pytest

from nrf.entrypoints.worker.job_processes import exit_code


class LateReapedProcess:
    """A process already dead whose first ``exitcode`` reads lose the waitpid race (None)."""

    def __init__(self, code: int, unknown_reads: int) -> None:
        self._code, self._unknown = code, unknown_reads
        self.joins: list[float | None] = []

    @property
    def exitcode(self) -> int | None:
        if self._unknown:
            self._unknown -= 1
            return None
        return self._code

    def join(self, timeout: float | None = None) -> None:
        self.joins.append(timeout)


class RunningProcess:
    exitcode = None

    def join(self, timeout: float | None = None) -> None:
        pass


@pytest.mark.parametrize("unknown_reads", [0, 1, 3])
def test_the_code_of_a_process_reaped_by_the_pools_thread_is_read_once_known(
    unknown_reads: int,
) -> None:
    process = LateReapedProcess(-signal.SIGKILL, unknown_reads)
    assert exit_code(process, seconds=30) == -signal.SIGKILL
    assert len(process.joins) == unknown_reads + 1


def test_a_process_still_running_at_the_deadline_has_no_code() -> None:
    assert exit_code(RunningProcess(), seconds=0.01) is None
