"""`--help` of every `nrf` command gives an example and the exit codes."""

from __future__ import annotations

import pytest

from nrf.entrypoints import exit_codes
from nrf.entrypoints.cli import build_parser
from nrf.entrypoints.help_text import OWN_EXIT_CODES, subcommands

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
    if path in OWN_EXIT_CODES or path in ("bundle build", "bundle check"):
        # Commands whose codes mean something else state their own table, and only it.
        assert "  0 " in codes and "  1    failure" not in codes
    else:
        for code, meaning in exit_codes.MEANINGS:
            assert f"  {code:<4} {meaning}" in codes


def test_commands_with_their_own_codes_say_what_they_mean() -> None:
    helps = {path: parser.format_help() for path, parser in subcommands(build_parser())}
    assert "4    the bundle is synthetic" in helps["worker"]
    assert "1    something needs a person" in helps["status"]
    assert "5  the quality gate failed" in helps["bundle build"]


def test_assess_help_documents_the_new_options() -> None:
    text = dict(subcommands(build_parser()))["assess"].format_help()
    for option in ("--layer", "--crs", "--max-sites", ".levy.csv", "NRF_MAX_SITES_PER_JOB"):
        assert option in text
