"""Every command README.md and docs/ write inline in prose is run by a test or excepted with why.

test_docs_shell_commands does this for code blocks; a reader copies `scripts/bench --polygons
5460000 --no-naive` from a sentence just as well. Benchmarks, soaks and fuzzing are excepted
as a family (each takes minutes, and tests never time anything), but what each names must
exist: the script or module, and every ``--option`` it is given.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from test_docs_shell_commands import NOT_RUN as BLOCK_NOT_RUN
from test_docs_shell_commands import RUN_BY as BLOCK_RUN_BY

from support.doc_commands import ROOT, DocCommand, inline_commands, program

_FRESH = (
    "tests/integration/test_sample_delivery_fresh_install.py::"
    "test_scripts_bench_build_writes_and_builds_a_delivery_on_a_fresh_install"
)
_DEMO = "tests/integration/test_docs_demo.py::test_scripts_demo_runs_as_readme_shows"

# Command -> the test that reads it from the document and runs it.
RUN_BY = {
    "scripts/demo FOLDER": _DEMO,
    "scripts/bench-build --polygons N [--work DIR] [--keep]": _FRESH,
}
_IMAGE = "needs docker; tests marked image run the image scripts/test builds with it"
_WINDOWS = "Windows (the py launcher); test_cli_without_posix runs nrf assess without POSIX"
# Command -> why no test runs it.
NOT_RUN = {
    "scripts/image": "builds the Docker image: " + _IMAGE,
    "pytest -m image": "selects the image tests: a test running pytest would run tests",
    "scripts/test -m 'not image'": "the whole suite but the image tests: it would run itself",
    "scripts/bootstrap": "makes the ./.venv every test runs in, so every test run follows it",
    "uv sync --frozen": "the install scripts/bootstrap makes with the pinned uv (scripts/uv); "
    "test_sample_delivery_fresh_install makes one so",
    ".ci/run": "CI's entry: it ends in `exec scripts/test`, the whole suite",
    "scripts/uv lock": "rewrites uv.lock from the package index; test_packaging fails while "
    "the lock is stale",
    "scripts/uv": "names the pinned uv; each of its commands shown is listed on its own",
    "py -m pip install uv": _WINDOWS,
    "py -m uv sync --frozen": _WINDOWS,
    "python -m nrf assess ...": "a fragment (`...`): test_iso_times_and_counts runs "
    "`python -m nrf` and test_cli_assess runs `nrf assess`",
    "docker stop": "named as what benchmarks.image_stop measures: " + _IMAGE,
    ".venv/bin/pip install 'psycopg[binary]'": "installs the benchmark's PostGIS client from "
    "the package index (scripts/bench installs the bench extra itself)",
    "apt-get install -y postgresql-15-postgis-3": "installs Debian's PostGIS as root, for the "
    "benchmark (scripts/bench does it when it can)",
    'python3 -c "while True: pass"': "a CPU hog that never ends: how a busy machine was made "
    "for a benchmark figure",
    "UV_PROJECT_ENVIRONMENT=... scripts/uv sync --frozen --extra demo": "a placeholder (...): "
    "the install whose memory was measured; test_sample_delivery_fresh_install runs "
    "`scripts/uv sync --frozen` into a new environment",
    "aws cloudformation deploy ... --parameter-overrides NotifyTemplateCompleted=<id>": "needs "
    "an AWS account; test_deploy_template checks the template with cfn-lint and moto",
    "aws s3 presign s3://<bucket>/<prefix>/<job id>/result.html --expires-in 604800": "needs "
    "an AWS account; test_email_links_moto fetches the worker's presigned links from moto",
    "curl https://<host>/ready": "needs a deployed service (<host>); test_health_app asks a "
    "local /ready",
    "aws s3 cp": "names the AWS CLI in passing; nrf bundle publish uploads, tested on moto",
    ".venv/bin/pip install atheris": "installs the optional fuzzing engine from the package "
    "index; scripts/fuzz runs without it (--engine random)",
    "pytest -s tests/integration/test_hostile_clients.py": "a test file: the suite runs it",
    "curl -F boundary=@x -F api_key=...": "placeholders (x, ...): test_api_form posts the "
    "form's fields in process, test_browser_report through a browser",
}
# A program whose commands are measurements: minutes long on a national-size bundle, figures
# that depend on the machine. benchmarks.run --quick and bundle_build (5,000 polygons) run in
# test_benchmark_quick, so the code behind them never rots.
MEASURES = {
    "scripts/bench": "benchmarks/run.py",
    "scripts/bench-api": "benchmarks/api_load.py",
    "scripts/bench-build": "benchmarks/bundle_build.py",
    "scripts/load": "benchmarks/load_run.py",
    "scripts/soak": "tests/support/soak.py",
    "scripts/fuzz": "tests/support/fuzz_run.py",
    "python -m benchmarks": "",  # the module the command names
    "/usr/bin/time": "",  # GNU time around a benchmark; no options of ours
}
COMMANDS = inline_commands()


def family(command: str) -> str:
    """``python -m benchmarks`` for any benchmark module, else the program."""
    words = [w for w in command.split() if "=" not in w or w.startswith("-")]
    if words[:2] in (["python", "-m"], ["python3", "-m"]):
        return "python -m " + words[2].split(".")[0]
    return program(command)


def source_of(command: str) -> Path:
    """The file a measuring command runs."""
    words = command.split()
    if family(command) == "python -m benchmarks":
        return ROOT / (words[words.index("-m") + 1].replace(".", "/") + ".py")
    return ROOT / MEASURES[family(command)]


def test_the_inventory_finds_commands_written_in_prose() -> None:
    shown = {c.command for c in COMMANDS}
    assert "scripts/bench --polygons 5460000 --no-naive" in shown  # docs/benchmark.md
    assert "python -m benchmarks.penny_check --old a01759d" in shown
    assert not any(program(c).endswith("nrf") for c in shown)  # test_docs_commands' own


@pytest.mark.parametrize("shown", COMMANDS, ids=[f"{c.doc}: {c.command[:60]}" for c in COMMANDS])
def test_each_inline_command_is_run_by_a_test_or_excepted_with_a_reason(shown: DocCommand) -> None:
    tables = (RUN_BY, NOT_RUN, BLOCK_RUN_BY, BLOCK_NOT_RUN)
    listed = sum(shown.command in table for table in tables)
    assert listed == 1 or (listed == 0 and family(shown.command) in MEASURES), (
        f"{shown.doc} writes `{shown.command}`: run it in a test and add it to RUN_BY, or add "
        "it to NOT_RUN with the reason"
    )


def test_no_entry_outlives_its_command() -> None:
    shown = {c.command for c in COMMANDS}
    assert set(RUN_BY) - shown == set()
    assert set(NOT_RUN) - shown == set()
    assert set(MEASURES) - {family(c) for c in shown} == set()
    assert all(len(reason) > 20 for reason in NOT_RUN.values())


@pytest.mark.parametrize(
    "shown",
    [c for c in COMMANDS if family(c.command) in MEASURES and c.command not in RUN_BY],
    ids=lambda c: c.command[:70],
)
def test_each_measuring_command_names_a_script_module_and_options_that_exist(
    shown: DocCommand,
) -> None:
    words = shown.command.split()
    if family(shown.command) == "/usr/bin/time":
        assert words[1:2] in ([], ["-v"]) and Path("/usr/bin/time").name == "time"
        return
    if program(shown.command).startswith("scripts/"):
        script = ROOT / program(shown.command)
        assert script.is_file(), shown.command
        module = source_of(shown.command).relative_to(ROOT).with_suffix("")
        runs = ".".join(module.parts[1:] if module.parts[0] == "tests" else module.parts)
        assert f"-m {runs} " in script.read_text(encoding="utf-8"), (shown.command, runs)
    source = source_of(shown.command)
    assert source.is_file(), (shown.doc, shown.command)
    text = source.read_text(encoding="utf-8")
    for word in words:
        flag = word.strip("[]").split("=")[0]
        if re.fullmatch(r"--[a-z][a-z0-9-]*", flag):
            assert f'"{flag}"' in text, f"{shown.doc}: `{shown.command}`: {flag} is not in {source}"


@pytest.mark.parametrize("node", sorted(set(RUN_BY.values())))
def test_each_running_test_exists_and_reads_the_documents(node: str) -> None:
    path, name = node.split("::")
    source = (ROOT / path).read_text(encoding="utf-8")
    functions = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    assert name in functions, node
    for doc in {c.doc for c in COMMANDS if RUN_BY.get(c.command) == node}:
        assert doc in source, (node, doc)
