"""The exit codes of every `nrf` command: one table, so scripts and `--help` agree."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INVALID_INPUT = 3
EXIT_BAD_REFERENCE = 4
EXIT_CANNOT_WRITE = 5
EXIT_INTERRUPTED = 130

MEANINGS = (
    (EXIT_OK, "success"),
    (EXIT_ERROR, "failure (a message on stderr says what and why)"),
    (EXIT_USAGE, "bad arguments or options; nothing was done"),
    (EXIT_INVALID_INPUT, "the input cannot be assessed; every problem is listed"),
    (EXIT_BAD_REFERENCE, "the reference bundle is unusable"),
    (EXIT_CANNOT_WRITE, "an output file cannot be written (folder, permissions, disk)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); nothing was written"),
)

# Error codes whose exit status is not the general failure.
BY_ERROR_CODE = {
    "broken_bundle": EXIT_BAD_REFERENCE,
    "cannot_write_output": EXIT_CANNOT_WRITE,
}


def table() -> str:
    """The exit codes as the closing section of `--help`."""
    return "exit codes:\n" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in MEANINGS)
