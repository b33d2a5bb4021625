"""The exit codes of every `nrf` command: one table, one meaning a number, so scripts agree.

Each command's `--help` lists the rows that apply to it, drawn from this table; the worker's
supervisor, `nrf serve`, the bundle and ops commands take their numbers from here too.
"""

from __future__ import annotations

from attrs import frozen

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INVALID_INPUT = 3
EXIT_BAD_REFERENCE = 4
EXIT_QC_FAILED = 5
EXIT_UNREADABLE_SOURCE = 6
EXIT_CANNOT_WRITE = 7
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM (15), what a shell reports for a process it killed

# The services (started by an orchestrator, not a person) read 3 and 4 for what they were
# given at start: the queue, the bundle, its digest, the port. Not restarted on either.
EXIT_FATAL = EXIT_INVALID_INPUT
EXIT_SYNTHETIC_REFUSED = EXIT_BAD_REFERENCE

BUILDS = ("bundle build", "bundle check")


@frozen
class ExitRow:
    """One number, its meaning, and the commands it is listed for (empty: every command)."""

    code: int
    meaning: str
    commands: tuple[str, ...] = ()

    def applies_to(self, path: str) -> bool:
        return not self.commands or path in self.commands


TABLE = (
    ExitRow(EXIT_OK, "success (status: all is well; worker, serve: stopped cleanly)"),
    ExitRow(
        EXIT_ERROR,
        "failure, or (status, housekeep) something needs a person: stderr says what and why",
    ),
    ExitRow(EXIT_USAGE, "bad arguments, options or configuration; every problem is named"),
    ExitRow(
        EXIT_INVALID_INPUT,
        "what the command was given cannot be used: the boundaries (every problem listed);"
        "\n       worker, serve: the queue, bundle, digest or port (see the log's code)",
    ),
    ExitRow(
        EXIT_BAD_REFERENCE,
        "the reference bundle is refused: unreadable; worker, serve: synthetic"
        "\n       and NRF_ALLOW_SYNTHETIC_DATA is not true",
    ),
    ExitRow(
        EXIT_QC_FAILED, "the quality gate failed; nothing was written (see BUNDLE.qc.md)", BUILDS
    ),
    ExitRow(
        EXIT_UNREADABLE_SOURCE,
        "the delivery cannot be read (missing, corrupt or non-UTF-8 file, layer or column, a"
        "\n       layer without a CRS, no default occupancy, a bad manifest); nothing written",
        ("bundle build",),
    ),
    ExitRow(EXIT_CANNOT_WRITE, "an output cannot be written (folder, permissions, disk full)"),
    ExitRow(EXIT_INTERRUPTED, "interrupted (Ctrl-C); nothing was written"),
    ExitRow(EXIT_TERMINATED, "stopped by SIGTERM; nothing was written", ("bundle build",)),
)

# Error codes whose exit status is not the general failure.
BY_ERROR_CODE = {
    "broken_bundle": EXIT_BAD_REFERENCE,
    "cannot_write_output": EXIT_CANNOT_WRITE,
}


def help_section(path: str = "") -> str:
    """The exit codes that command ``path`` can end with, as the closing section of `--help`."""
    rows = [row for row in TABLE if row.applies_to(path)]
    return "exit codes:\n" + "\n".join(f"  {row.code:<4} {row.meaning}" for row in rows)
