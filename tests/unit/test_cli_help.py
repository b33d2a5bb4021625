"""`--help` of every `nrf` command gives an example and the exit codes."""

from __future__ import annotations

import signal

import pytest

from nrf.entrypoints import exit_codes
from nrf.entrypoints.cli import build_parser
from nrf.entrypoints.help_text import subcommands
from nrf.entrypoints.worker.exit_codes import ExitCode

COMMANDS = [path for path, _ in subcommands(build_parser())]


def test_the_walk_finds_the_commands() -> None:
    assert {"", "assess", "bundle", "bundle generate", "worker", "submit"} <= set(COMMANDS)


@pytest.mark.parametrize("path", COMMANDS)
def test_every_command_has_an_example_and_the_exit_codes(
    path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args([*path.split(), "--help"])
    assert caught.value.code == 0
    text = capsys.readouterr().out
    assert "example:\n  " in text, f"no example for {path!r}"
    codes = text[text.index("exit codes:") :]
    assert codes.count("exit codes:") == 1, f"{path!r} states its codes twice"
    for code in (0, 1, 2, 130):  # every command can end with these
        assert f"\n  {code:<4} " in codes


def codes_listed(path: str) -> list[int]:
    help_text = dict(subcommands(build_parser()))[path].format_help()
    section = help_text[help_text.index("exit codes:") :]
    return [int(line.split()[0]) for line in section.splitlines()[1:] if line[2:3].isdigit()]


def test_each_command_lists_only_the_codes_it_can_end_with() -> None:
    # The bundle build alone reads a delivery (6) and catches SIGTERM (143); build and check
    # run the quality gate (5); nobody else lists those.
    assert codes_listed("bundle build") == [0, 1, 2, 3, 4, 5, 6, 7, 130, 143]
    assert codes_listed("bundle check") == [0, 1, 2, 3, 4, 5, 7, 130]
    assert codes_listed("assess") == [0, 1, 2, 3, 4, 7, 130]
    assert codes_listed("worker") == [0, 1, 2, 3, 4, 7, 130]


def test_one_number_one_meaning() -> None:
    # Before the one table, 5 was "cannot write" for assess and "QC failed" for bundle build.
    numbers = [row.code for row in exit_codes.TABLE]
    assert len(numbers) == len(set(numbers))
    assert exit_codes.EXIT_CANNOT_WRITE == 7 and exit_codes.EXIT_QC_FAILED == 5
    # The worker's and the API's numbers are the table's: 0 clean, 2 config, 3 fatal.
    assert [int(code) for code in ExitCode] == [0, 2, 3]


def test_sigterm_is_128_plus_15() -> None:
    assert exit_codes.EXIT_TERMINATED == 128 + signal.SIGTERM == 143


def test_commands_say_what_their_codes_mean() -> None:
    helps = {path: parser.format_help() for path, parser in subcommands(build_parser())}
    assert "NRF_ALLOW_SYNTHETIC_DATA is not true" in helps["worker"]
    assert "something needs a person" in helps["status"]
    assert "5    the quality gate failed" in helps["bundle build"]


def test_assess_help_documents_the_new_options() -> None:
    text = dict(subcommands(build_parser()))["assess"].format_help()
    for option in ("--layer", "--crs", "--max-sites", ".levy.csv", "NRF_MAX_SITES_PER_JOB"):
        assert option in text
