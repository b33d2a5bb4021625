"""`python -m benchmarks.mutants`: make each mutant of ``mutant_list`` and check its tests fail.

The working tree's files (tracked, and new ones not ignored) are copied once to a temporary
folder, so the tree itself is never changed and uncommitted work is what is tested. First the
named tests run on the copy unchanged: they must pass, or a "killed" would mean nothing. Then
each mutant in turn is written into the copy, its tests run (``pytest -x -q``, with the copy's
``src`` first on the path), and the file is put back. A mutant is killed when its tests fail;
it survives when they pass. The exit status is non-zero if any survives, if any mutant's
original text is not found exactly once (the list has rotted), or if the tests fail unchanged.

    python -m benchmarks.mutants                  # every mutant (about ten minutes)
    python -m benchmarks.mutants --only NAME ...  # some, by name
    python -m benchmarks.mutants --list           # the names, and why each matters
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.mutant_list import MUTANTS, ROOT, Mutant, problems

TIMEOUT_SECONDS = 900  # per mutant; a mutant that hangs its tests counts as caught, and says so


def _copy_tree(target: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet committed is listed too
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _pytest(copy: Path, tests: Sequence[str]) -> tuple[str, float]:
    """("passed" | "failed" | "error" | "timeout", seconds) of the tests run on ``copy``."""
    env = dict(os.environ, PYTHONPATH=str(copy / "src"), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=copy, env=env, capture_output=True, timeout=TIMEOUT_SECONDS
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - started
    seconds = time.monotonic() - started
    if done.returncode == 0:
        return "passed", seconds
    if done.returncode == 1:
        return "failed", seconds
    sys.stderr.write(done.stdout.decode(errors="replace")[-3000:])
    return "error", seconds


def _check_the_copy_is_imported(copy: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(copy / "src"))
    where = subprocess.run(
        [sys.executable, "-c", "import nrf; print(nrf.__file__)"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not Path(where).is_relative_to(copy):
        raise SystemExit(f"the copy's nrf is not the one imported ({where}): nothing would test")


def run(mutants: Sequence[Mutant]) -> int:
    """Make each mutant and run its tests; 0 when every one was killed."""
    rotten = [p for m in mutants for p in problems(m)]
    for problem in rotten:
        print(f"ROTTEN   {problem}")
    if rotten:
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nrf-mutants-") as temp:
        copy = Path(temp)
        _copy_tree(copy)
        _check_the_copy_is_imported(copy)
        every_test = sorted({t for m in mutants for t in m.tests})
        outcome, seconds = _pytest(copy, every_test)
        print(f"baseline {outcome} in {seconds:.0f} s ({len(every_test)} test arguments)")
        if outcome != "passed":
            print("the named tests must pass on the unchanged tree first")
            return 2
        survived = []
        for mutant in mutants:
            path = copy / mutant.file
            original = path.read_text(encoding="utf-8")
            path.write_text(original.replace(mutant.original, mutant.mutated), encoding="utf-8")
            try:
                outcome, seconds = _pytest(copy, mutant.tests)
            finally:
                path.write_text(original, encoding="utf-8")
            verdict = {"failed": "killed", "timeout": "killed (timed out)"}.get(outcome)
            if verdict is None:
                verdict = "SURVIVED" if outcome == "passed" else "ERROR (tests did not run)"
                survived.append(mutant.name)
            print(f"{verdict:<20} {mutant.name} ({seconds:.0f} s): {mutant.why}", flush=True)
    total = time.monotonic() - started
    killed = len(mutants) - len(survived)
    print(f"{killed} of {len(mutants)} mutants killed in {total / 60:.1f} min")
    for name in survived:
        print(f"not killed: {name}")
    return 1 if survived else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args(argv)
    chosen = list(MUTANTS)
    if args.only:
        unknown = set(args.only) - {m.name for m in MUTANTS}
        if unknown:
            parser.error(f"no mutant named {', '.join(sorted(unknown))}")
        chosen = [m for m in MUTANTS if m.name in args.only]
    if args.list:
        for mutant in chosen:
            print(f"{mutant.name}: {mutant.file}: {mutant.why}")
        return 0
    return run(chosen)


if __name__ == "__main__":
    raise SystemExit(main())
