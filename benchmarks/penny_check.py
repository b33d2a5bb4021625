"""`python -m benchmarks.penny_check --old REV [--reference-data BUNDLE] [SITES]`: every figure
of `nrf assess` at 2 dp, the code at REV against the working tree, under every rule set.

A shortcut that moves an area in its last bits (issue 20) must not move any figure by a
penny. Both trees assess the same file (default: the 245 Broads & Wensum samples) in their
own process; every number of the two JSON documents is compared as printed to 2 dp, and
anything else exactly. Prints each difference with both exact values; exits 1 if any.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "src/nrf/data/samples/defra-rlb-samples/BnW_cleaned_110925"
RULE_SETS = ("iat-2025-09", "iat-2025-10", "iat-2026-04")
# Members that differ between any two runs or revisions by design: not figures.
IGNORED = {"software_version", "made_at"}


def old_tree(rev: str, folder: Path) -> Path:
    """The ``src`` folder of ``rev``, unpacked under ``folder`` (git archive)."""
    archive = folder / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), rev, "src"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "old", filter="data")
    return folder / "old" / "src"


def assess(
    src: Path | None, sites: Path, rules: str, out: Path, bundle: str | None
) -> dict[str, object]:
    env = {**os.environ}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    command = [sys.executable, "-m", "nrf.entrypoints.cli", "assess", str(sites)]
    command += ["--rules", rules, "--output", str(out), "--max-sites", "1000000"]
    command += ["--reference-data", bundle] if bundle else []
    subprocess.run(command, env=env, check=True, stderr=subprocess.DEVNULL)
    document: dict[str, object] = json.loads(out.read_text())
    return document


def differences(old: object, new: object, where: str = "") -> Iterator[str]:
    if isinstance(old, float | int) and isinstance(new, float | int) and not isinstance(old, bool):
        if f"{old:.2f}" != f"{new:.2f}":
            yield f"{where}: {old!r} -> {new!r}"
    elif isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if key not in IGNORED:
                yield from differences(old.get(key), new.get(key), f"{where}.{key}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for n, (a, b) in enumerate(zip(old, new, strict=True)):
            yield from differences(a, b, f"{where}[{n}]")
    elif old != new:
        yield f"{where}: {old!r} -> {new!r}"


def count_items(document: dict[str, object], key: str) -> int:
    items = document.get(key)
    return len(items) if isinstance(items, list) else 0


def count_numbers(value: object) -> int:
    if isinstance(value, dict):
        return sum(count_numbers(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_numbers(v) for v in value)
    return int(isinstance(value, float | int) and not isinstance(value, bool))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="?", type=Path, default=SAMPLES)
    parser.add_argument("--old", required=True, help="git revision to compare with")
    parser.add_argument("--reference-data", metavar="BUNDLE")
    args = parser.parse_args()
    found = 0
    with tempfile.TemporaryDirectory(prefix="penny-") as temp:
        folder = Path(temp)
        src = old_tree(args.old, folder)
        for rules in RULE_SETS:
            old = assess(src, args.sites, rules, folder / "old.json", args.reference_data)
            new = assess(None, args.sites, rules, folder / "new.json", args.reference_data)
            moved = list(differences(old, new))
            found += len(moved)
            print(
                f"{rules}: {count_items(new, 'sites')} sites in scope, "
                f"{count_items(new, 'out_of_scope')} out; "
                f"{count_numbers(new):,} numbers compared at 2 dp; {len(moved)} differ"
            )
            for line in moved:
                print("  " + line)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
