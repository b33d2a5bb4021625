"""How the worker ends: one set of exit codes for the supervisor and the worker process."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """0 after a clean stop, 2 for bad configuration, 3 after a fatal error (not restarted)."""

    CLEAN = 0
    CONFIG = 2
    FATAL = 3
