"""GDAL reads a user's file in a forked child, under a deadline and a memory ceiling.

GDAL cannot be interrupted from Python, and what it allocates stays in the process that asked,
so every GDAL call on a user's file runs in a child forked for that read: the child lowers its
address-space limit (RLIMIT_AS) to its size at the fork plus ``max_read_memory_bytes`` (an
allocation past it fails: ``read_too_large``) and its CPU limit (RLIMIT_CPU) to the deadline, a
backstop should the parent die first; the parent waits at most ``max_read_seconds`` for each
answer, then kills the child (``read_timed_out``). Answers are plain data (field names, arrays,
WKB) or the child's InvalidInput; temporary files stay with the parent, so a killed child
leaves nothing behind; the child is killed with the thread that forked it (Linux), so a
parent killed mid-read leaves no reader running (its files: ``read_folders``). No GDAL call
runs in the parent, so no other thread of it can hold one of GDAL's locks across the fork;
nor does the child write log lines (another thread may have held stderr's lock at the fork):
its records go to the parent to write. What GDAL, PROJ or SQLite print to the child's stderr
themselves (text from the file: a CRS definition holding a JSON line forged access-log lines)
goes to an unlinked temporary file, which the parent logs as one record, ``reader_stderr``,
cut to ``STDERR_BYTES``. Cost: a fork and the rows' trip through a pipe (docs/security.md).
Without fork or ``resource`` (Windows), the read runs inline.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from typing import IO, Any, NoReturn, TypeVar

from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import MIB, InputLimits

try:
    import resource
except ImportError:  # Windows: no resource limits, no fork
    resource = None  # type: ignore[assignment]

_T = TypeVar("_T")
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
STDERR_BYTES = 2000  # of the child's stderr, logged
log = logging.getLogger("nrf.boundary")
_OUT_OF_MEMORY = 3  # the child's exit code when an allocation failed before it could say so
_FORKS = hasattr(os, "fork") and resource is not None


def bounded_call(fn: Callable[..., _T], *args: Any, limits: InputLimits) -> _T:
    """``fn(*args)``, run in a child under ``limits``' read deadline and memory ceiling."""
    if not _FORKS:
        return fn(*args)
    for result in _answers(fn, args, limits, stream=False):
        return result
    raise AssertionError("the child ended without an answer")  # _answers raises first


def bounded_items(fn: Callable[..., Iterable[_T]], *args: Any, limits: InputLimits) -> Iterator[_T]:
    """The items of ``fn(*args)``, produced by one child; the deadline applies to each."""
    if not _FORKS:
        return iter(fn(*args))
    return _answers(fn, args, limits, stream=True)


def _answers(
    fn: Callable[..., Any], args: tuple[Any, ...], limits: InputLimits, *, stream: bool
) -> Iterator[Any]:
    with tempfile.TemporaryFile() as errors:  # the child's stderr, unlinked already
        try:
            yield from _child_answers(fn, args, limits, stream, errors)
        finally:
            _log_stderr(errors)


def _child_answers(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    limits: InputLimits,
    stream: bool,
    errors: IO[bytes],
) -> Iterator[Any]:
    receive, send = Pipe(duplex=False)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        _die_with(parent)
        receive.close()
        os.dup2(errors.fileno(), 2)
        _child(fn, args, limits, stream, send)
    send.close()
    child = _Child(pid)
    try:
        while True:
            if not receive.poll(limits.max_read_seconds):
                raise timed_out(limits)
            try:
                kind, payload = receive.recv()
            except EOFError:
                raise child.died(limits) from None
            if kind == "logs":
                for record in payload:
                    logging.getLogger(record.name).handle(record)
            elif kind == "end":
                return
            elif kind == "item":
                yield payload
                if not stream:
                    return
            elif kind == "invalid":
                raise InvalidInput(payload)
            elif kind == "memory":
                raise too_large(limits)
            else:
                raise payload
    finally:
        receive.close()
        child.end()


def _die_with(parent: int) -> None:
    """In the child: be killed when the thread that forked it ends (Linux's PR_SET_PDEATHSIG),
    so a parent killed mid-read leaves no reader running; a parent gone already, exit. Where
    prctl is missing (macOS) the CPU limit is the backstop."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _log_stderr(errors: IO[bytes]) -> None:
    """Log what the child printed to its stderr as data: one record, its length bounded."""
    size = errors.seek(0, os.SEEK_END)
    if not size:
        return
    errors.seek(0)
    text = errors.read(STDERR_BYTES).decode("utf-8", "replace")
    log.warning("reader_stderr", extra={"text": text, "bytes": size})


class _Child:
    """A forked reader's process id, killed and reaped exactly once."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None

    def end(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._wait()

    def died(self, limits: InputLimits) -> InvalidInput:
        """Why the child closed its pipe without an answer."""
        code = self._wait()
        if code == -signal.SIGXCPU:
            return timed_out(limits)
        if code == _OUT_OF_MEMORY:
            return too_large(limits)
        message = f"the file stopped the reader (exit {code}); it is damaged or not a boundary file"
        return InvalidInput([Problem(code="unreadable_file", message=message)])

    def _wait(self) -> int:
        try:
            _, status = os.waitpid(self.pid, 0)
            self.status = os.waitstatus_to_exitcode(status)
        except ChildProcessError:  # reaped by someone else: its status is lost
            self.status = -1
        return self.status


def timed_out(limits: InputLimits) -> InvalidInput:
    message = f"reading the file took over {limits.max_read_seconds:g} s; a boundary file "
    message += "reads in well under a second"
    return InvalidInput([Problem(code="read_timed_out", message=message)])


def too_large(limits: InputLimits) -> InvalidInput:
    mib = limits.max_read_memory_bytes / MIB
    message = f"reading the file needed over {mib:,.0f} MiB of memory; a boundary file within "
    message += "the limits needs far less"
    return InvalidInput([Problem(code="read_too_large", message=message)])


class _Kept(logging.Handler):
    """The child's log records, kept for the parent to write."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg, record.args = record.getMessage(), None  # the arguments may not pickle
        record.exc_info = None
        self.records.append(record)


def _keep_logs() -> _Kept:
    kept = _Kept()
    for logger in logging.Logger.manager.loggerDict.values():
        if isinstance(logger, logging.Logger):
            logger.handlers = []
    logging.root.handlers = [kept]
    return kept


def _child(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    limits: InputLimits,
    stream: bool,
    send: Connection,
) -> NoReturn:
    code = 0
    kept = _keep_logs()
    try:
        _limit_self(limits)
        result = fn(*args)
        for item in result if stream else [result]:
            _send(send, kept, "item", item)
            _limit_cpu(limits)  # the deadline again, for the next item
        _send(send, kept, "end", None)
    except InvalidInput as error:
        code = _say(send, kept, "invalid", list(error.problems))
    except MemoryError:
        code = _OUT_OF_MEMORY
        _say(send, kept, "memory", None)
    except BaseException as error:  # whatever failed is the parent's to raise
        code = _say(send, kept, "error", error)
        if code:  # the error itself would not pickle
            problem = RuntimeError(f"{type(error).__name__}: {error}")
            code = _say(send, kept, "error", problem)
    finally:
        os._exit(code)


def _send(send: Connection, kept: _Kept, kind: str, payload: object) -> None:
    """Send the log records kept so far (a record that would not pickle is lost, not the
    answer), then one answer."""
    records, kept.records = kept.records, []
    if records:
        with contextlib.suppress(Exception):
            send.send(("logs", records))
    send.send((kind, payload))


def _say(send: Connection, kept: _Kept, kind: str, payload: object) -> int:
    """Send one last answer; 0, or 1 if it could not be sent (the parent sees the pipe close)."""
    try:
        _send(send, kept, kind, payload)
        return 0
    except BaseException:
        return _OUT_OF_MEMORY if kind == "memory" else 1


def _limit_self(limits: InputLimits) -> None:
    assert resource is not None
    page = os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * page
    except OSError:  # no /proc (macOS, which does not enforce RLIMIT_AS anyway)
        size = 0
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + limits.max_read_memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (_within(cap, hard), hard))
    _limit_cpu(limits)


def _limit_cpu(limits: InputLimits) -> None:
    """CPU seconds used so far plus the deadline, plus one: SIGXCPU if a read outlives it."""
    assert resource is not None
    used = resource.getrusage(resource.RUSAGE_SELF)
    seconds = int(used.ru_utime + used.ru_stime + limits.max_read_seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (_within(seconds, hard), hard))


def _within(soft: int, hard: int) -> int:
    assert resource is not None
    return soft if hard == resource.RLIM_INFINITY else min(soft, hard)
