"""`python -m benchmarks.old_vs_new BUNDLE --old REV`: two versions alternated in one process.

The batch's CPU moves by ±10 % between runs on a shared machine, more than most changes are
worth. This loads the code at REV (``git archive``, renamed to the package ``nrf_old``) beside
the working tree's ``nrf`` and alternates them in one process, so the machine's load hits both
alike: CPU (``process_time``) per 245-site batch and per component (reading reference data,
land-use pieces, majority zones, the rest of each site's assessment), and per small and random
site. Both versions must give the same run (compared as text) or the figures are not printed.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from benchmarks.workload import BNW, SMALL, random_sites, real_sites

RANDOM_SEED = 20261125  # benchmarks.run's
QUOTE_DATE = date(2026, 11, 26)  # every batch prices its levies on this day
_IMPORTS = [
    (re.compile(r"\bnrf\."), "nrf_old."),
    (re.compile(r"^import nrf$", re.MULTILINE), "import nrf_old"),
    (re.compile(r"^from nrf import", re.MULTILINE), "from nrf_old import"),
]


def old_package(rev: str, into: Path) -> None:
    """``src/nrf`` at ``rev``, written to ``into/nrf_old`` with its imports renamed."""
    tar = subprocess.run(
        ["git", "archive", "--format=tar", rev, "src/nrf"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    (into / "src" / "nrf").rename(into / "nrf_old")
    for path in (into / "nrf_old").rglob("*.py"):
        text = path.read_text()
        for pattern, replacement in _IMPORTS:
            text = pattern.sub(replacement, text)
        path.write_text(text)


def _import(root: str, name: str) -> ModuleType:
    module = __import__(f"{root}.{name}", fromlist=["_"])
    return module


def version(root: str, bundle: Path, sites: dict[str, list[Any]]) -> dict[str, Any]:
    """One version's objects: its repository, use case, rules and its own Development copies."""
    model = _import(root, "domain.model")
    repo = _import(root, "adapters.boundary_data.geopackage_boundary_data").GeoPackageBoundaryData(
        bundle
    )
    assessment = _import(root, "domain.assessment")
    rules_module = _import(root, "domain.rules")
    copies = {
        k: [model.Development(**attrs.asdict(d, recurse=False)) for d in v]
        for k, v in sites.items()
    }
    return {
        "root": root,
        "repo": repo,
        "use": assessment.AssessDevelopments(repo, map),
        "assess_site": assessment.assess_site,
        "land_use_pieces": _import(root, "domain.land_use").land_use_pieces,
        "majority_value": _import(root, "domain.majority").majority_value,
        "rules": rules_module.rule_set_named(rules_module.DEFAULT_RULE_SET),
        "rule_set_named": rules_module.rule_set_named,
        "sites": copies,
    }


def read_batch(repo: Any, boundaries: list[Any]) -> object:
    """The repository's batch read where it has one (issue 32), else one read per site."""
    if hasattr(repo, "references_for"):
        return repo.references_for(boundaries)
    return [repo.reference_for(b) for b in boundaries]


def components(v: dict[str, Any]) -> dict[str, Callable[[], object]]:
    repo, rules, bnw = v["repo"], v["rules"], v["sites"]["bnw"]
    lookups = repo.lookups()
    refs = [repo.reference_for(d.boundary) for d in bnw]

    def land_use() -> None:
        for d, r in zip(bnw, refs, strict=True):
            v["land_use_pieces"](d.boundary, r.coefficients, r.nn_catchments, 1.0, rules)

    def majority() -> None:
        for d, r in zip(bnw, refs, strict=True):
            for zones in (r.wwtw_catchments, r.lpa_boundaries, r.subcatchments):
                v["majority_value"](d.boundary, zones)

    def small() -> None:
        for _ in range(100):
            v["use"](v["sites"]["small"], rules, QUOTE_DATE)

    return {
        "batch": lambda: v["use"](bnw, rules, QUOTE_DATE),
        "reading reference data": lambda: [repo.reference_for(d.boundary) for d in bnw],
        "reading reference data, one batch": lambda: read_batch(repo, [d.boundary for d in bnw]),
        "assess_site (reference data already read)": lambda: [
            v["assess_site"](d, r, lookups, rules, QUOTE_DATE)
            for d, r in zip(bnw, refs, strict=True)
        ],
        "land-use pieces": land_use,
        "majority zones": majority,
        "small site x100": small,
        "random sites, one job each (sum)": lambda: [
            v["use"]([d], rules, QUOTE_DATE) for d in v["sites"]["random"]
        ],
    }


def same_to_the_penny(versions: dict[str, Any]) -> None:
    """Exit unless both versions give every figure of the 245 and the random sites the same
    at 2 dp under every rule set (``benchmarks.penny_check.differences``); print the count."""
    from benchmarks.penny_check import count_numbers, differences
    from nrf.domain.rules import RULE_SETS
    from nrf.domain.serialization import unstructure

    compared = 0
    for rules in sorted(RULE_SETS):
        for batch in ("bnw", "random"):
            docs = [
                unstructure(v["use"](v["sites"][batch], v["rule_set_named"](rules), QUOTE_DATE))
                for v in (versions["old"], versions["new"])
            ]
            moved = list(differences(docs[0], docs[1]))
            if moved:
                sys.exit(f"{rules} {batch}: figures differ at 2 dp: " + "; ".join(moved[:20]))
            compared += count_numbers(docs[1])
    print(f"same at 2 dp: {compared:,} numbers (245 + random sites x {len(RULE_SETS)} rule sets)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--old", required=True, help="git revision of the old code")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--random", type=int, default=100)
    parser.add_argument(
        "--penny",
        action="store_true",
        help="accept runs that differ below 2 dp (the 245 and the random sites, checked "
        "under every rule set) instead of requiring the same run to the last bit",
    )
    args = parser.parse_args()
    # The benchmark's random sites when the bundle has its generation record beside it.
    meta = args.bundle.with_suffix(".json")
    extent = json.loads(meta.read_text())["extent"] if meta.is_file() else None
    with tempfile.TemporaryDirectory() as tmp:
        old_package(args.old, Path(tmp))
        sys.path.insert(0, tmp)
        sites = {"small": real_sites(*SMALL), "bnw": real_sites(*BNW)}
        sites["random"] = random_sites(args.random, RANDOM_SEED, extent) if extent else []
        versions = {"old": version("nrf_old", args.bundle, sites)}
        versions["new"] = version("nrf", args.bundle, sites)
        if args.penny:
            same_to_the_penny(versions)
        else:
            runs = {
                k: repr(v["use"](v["sites"]["bnw"], v["rules"], QUOTE_DATE))
                for k, v in versions.items()
            }
            if runs["old"].replace("nrf_old.", "nrf.") != runs["new"]:
                sys.exit("the two versions give different runs: no figures")
        work = {k: components(v) for k, v in versions.items()}
        cpu: dict[str, dict[str, list[float]]] = {k: {} for k in versions}
        for i in range(args.repeats + 1):
            for name in ("old", "new") if i % 2 == 0 else ("new", "old"):
                for part, fn in work[name].items():
                    started = time.process_time()
                    fn()
                    if i:  # the first round warms both up
                        spent = (time.process_time() - started) * 1000
                        cpu[name].setdefault(part, []).append(spent)
    medians = {k: {p: round(statistics.median(t), 2) for p, t in v.items()} for k, v in cpu.items()}
    print(json.dumps({"old": args.old, "cpu_ms": medians}, indent=1))
    print("| component (CPU ms, median) | old | new | change |\n|---|---|---|---|")
    for part, old_ms in medians["old"].items():
        new_ms = medians["new"][part]
        print(f"| {part} | {old_ms:.1f} | {new_ms:.1f} | {100 * (new_ms / old_ms - 1):+.1f} % |")


if __name__ == "__main__":
    main()
