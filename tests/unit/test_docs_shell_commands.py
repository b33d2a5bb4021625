"""Every shell command README.md and docs/ show is run by a test, or excepted here with why.

The inventory is support/doc_commands.py (every line of every shell code block, and command
lines in unlabelled ones). A command a document adds is in neither table below, and fails
until a test runs it or the exception is written down; an entry whose command has left the
documents fails too, so neither table outlives what it lists.
"""

from __future__ import annotations

import ast

import pytest
from test_docs_commands import subparser

from nrf.entrypoints.cli import build_parser
from support.doc_commands import ROOT, DocCommand, doc_commands, program

_SERVE = (
    "NRF_API_KEYS=change-me-to-a-long-random-key NRF_ALLOW_SYNTHETIC_DATA=true .venv/bin/nrf serve"
)
_CURL = (
    "curl -s -H 'x-api-key: change-me-to-a-long-random-key' "
    "-H 'Content-Type: application/geo+json' --data-binary "
    "@src/nrf/data/samples/defra-rlb-samples/BnW_small_under_1_hectare_geojson/"
    "BnW_small_under_1_hectare.geojson http://127.0.0.1:8080/v1/quotes"
)
_API_EXAMPLE = "tests/integration/test_docs_api_examples.py::test_the_api_example_runs_as_written"

# Command -> the test that reads it from the document and runs it as written.
RUN_BY = {
    "scripts/demo": "tests/integration/test_docs_demo.py::test_scripts_demo_runs_as_readme_shows",
    _SERVE: _API_EXAMPLE,
    f"{_SERVE} --bind 127.0.0.1:8080": _API_EXAMPLE,
    _CURL: _API_EXAMPLE,
}
# Command -> why no test runs it.
NOT_RUN = {
    "scripts/test": "what CI runs (.ci/run ends in `exec scripts/test`): the whole suite, so a "
    "test running it would run itself",
    ".venv/bin/nrf assess SITES [--reference-data BUNDLE.gpkg] [--rules NAME] [--output PATH] "
    "[--processes N] [--layer NAME] [--crs EPSG:27700] [--max-sites N] "
    "[--quote-date YYYY-MM-DD] [--columns MAP] [--dwellings N] [--reference TEXT]": "a synopsis "
    "(placeholders, not a command): each option is checked below, and "
    "test_cli_assess runs `nrf assess` on the samples",
    "nrf bundle build iat_input/ --output nrf-2026.11.1.gpkg --version 2026.11.1 --levy-charges "
    "levy_charges.csv --inflation-index inflation_index.csv [--vat-rate 0.20] "
    "[--levy-rounding round_total|per_unit] --default-occupancy 2.4 --default-water-usage 120 "
    "[--previous nrf-2026.10.1.gpkg] [--manifest sources.toml]": "needs Defra's delivery "
    "(iat_input/), which is not in the repository: each option is checked below, "
    "test_bundle_build builds from a made-up delivery",
    "nrf bundle diff OLD.gpkg NEW.gpkg [--sites FILE ...] [--rules NAME] [--json]": "a synopsis "
    "(placeholders): each option is checked below, test_bundle_diff runs the diff",
    "nrf bundle publish national-2026.07.gpkg s3://nrf-reference-data/bundles/": "needs an AWS "
    "account and its bucket: test_docs_commands parses it as written, and "
    "test_bundle_publish_gate publishes bundles to moto's S3",
    "nrf worker (supervisor: signals, shared state, restarts)": "not a command: the top line of "
    "worker.md's process tree",
}
COMMANDS = doc_commands()


def test_the_inventory_finds_the_commands_the_docs_show() -> None:
    shown = {c.command for c in COMMANDS}
    assert {"scripts/demo", "scripts/test", _CURL} <= shown
    assert {c.doc for c in COMMANDS} >= {"README.md", "docs/api.md", "docs/reference-data.md"}


@pytest.mark.parametrize("shown", COMMANDS, ids=[f"{c.doc}: {c.command[:60]}" for c in COMMANDS])
def test_each_command_is_run_by_a_test_or_excepted_with_a_reason(shown: DocCommand) -> None:
    listed = (shown.command in RUN_BY) + (shown.command in NOT_RUN)
    assert listed == 1, (
        f"{shown.doc} shows `{shown.command}`: run it in a test and add it to RUN_BY, or add "
        "it to NOT_RUN with the reason (and not both)"
    )


def test_no_entry_outlives_its_command() -> None:
    shown = {c.command for c in COMMANDS}
    assert set(RUN_BY) - shown == set()
    assert set(NOT_RUN) - shown == set()
    assert all(len(reason) > 20 for reason in NOT_RUN.values())


@pytest.mark.parametrize("node", sorted(set(RUN_BY.values())))
def test_each_running_test_exists_and_reads_the_documents(node: str) -> None:
    path, name = node.split("::")
    source = (ROOT / path).read_text(encoding="utf-8")
    functions = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    assert name in functions, node
    docs = {c.doc for c in COMMANDS if RUN_BY.get(c.command) == node}
    for doc in docs:  # it takes the command from the document, not from a copy of its own
        assert doc in source, (node, doc)


def test_scripts_test_is_what_ci_runs() -> None:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert commands[-1] == "exec scripts/test"


def test_each_nrf_exception_names_only_options_its_command_has() -> None:
    # A synopsis wrapped over lines is read whole here (test_docs_commands reads a line).
    excepted = [c for c in NOT_RUN if program(c).endswith("nrf") and "(" not in c]
    assert len(excepted) == 4
    for command in excepted:
        words = command.split()[1:]
        parser = subparser(build_parser(), list(words))
        options = {o for a in parser._actions for o in a.option_strings}
        flags = {w.strip("[]").split("=")[0] for w in words if w.strip("[").startswith("--")}
        assert flags <= options, (command, flags - options)
