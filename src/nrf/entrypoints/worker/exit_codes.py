"""How the worker ends: the supervisor's and the worker process's numbers, from the one table."""

from __future__ import annotations

from enum import IntEnum

from nrf.entrypoints.exit_codes import EXIT_FATAL, EXIT_OK, EXIT_USAGE


class ExitCode(IntEnum):
    """0 after a clean stop, 2 for bad configuration, 3 after a fatal error (not restarted)."""

    CLEAN = EXIT_OK
    CONFIG = EXIT_USAGE
    FATAL = EXIT_FATAL
