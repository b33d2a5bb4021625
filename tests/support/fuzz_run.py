"""`scripts/fuzz`: each target fuzzed for a time budget (atheris when installed, else seeded
random mutation); findings and figures go to fuzz.json and fuzz.md. Exit 1 on any finding."""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_COV = re.compile(r"cov: (\d+) ft: (\d+) corp: (\d+)")


def _child(target: str, seconds: int, corpus: Path, findings: Path, max_len: int) -> None:
    """Inside the atheris process: coverage-guided fuzzing of one target."""
    import atheris

    with atheris.instrument_imports(include=["nrf"]):
        from support import fuzz_targets

    def test_one(data: bytes) -> None:
        problem = fuzz_targets.run_one(target, data)
        if problem is not None:
            with findings.open("a") as out:
                out.write(json.dumps(problem) + "\n")

    for i, seed in enumerate(fuzz_targets.seeds(target)):
        (corpus / f"seed-{i}").write_bytes(seed)
    flags = [
        f"-max_total_time={seconds}",
        "-rss_limit_mb=2048",
        "-timeout=60",
        f"-max_len={max_len}",
        f"-artifact_prefix={findings.parent}/{target}-",
        "-print_final_stats=1",
    ]
    atheris.Setup([sys.argv[0], *flags, str(corpus)], test_one)
    atheris.Fuzz()


def _atheris(target: str, seconds: int, work: Path, max_len: int) -> dict[str, Any]:
    corpus, findings = work / f"corpus-{target}", work / f"findings-{target}.jsonl"
    corpus.mkdir()
    argv = [
        sys.executable,
        "-m",
        "support.fuzz_run",
        "--child",
        target,
        "--seconds",
        str(seconds),
        "--work",
        str(work),
        "--max-len",
        str(max_len),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, check=False, timeout=seconds + 300
    )
    runs = _DONE.findall(done.stderr)
    coverage = _COV.findall(done.stderr)
    crashes = sorted(p.name for p in work.glob(f"{target}-*"))
    lines = findings.read_text().splitlines() if findings.exists() else []
    found = [json.loads(line) for line in lines]
    return {
        "engine": "atheris (libFuzzer, coverage-guided)",
        "inputs": int(runs[-1][0]) if runs else None,
        "seconds": int(runs[-1][1]) if runs else seconds,
        "coverage_edges": int(coverage[-1][0]) if coverage else None,
        "corpus": int(coverage[-1][2]) if coverage else None,
        "exit_code": done.returncode,
        "process_crashes": crashes,
        "stderr_tail": done.stderr[-1500:] if done.returncode else "",
        "findings": found,
    }


def _mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        choice, at = rng.random(), rng.randrange(len(out) + 1)
        if choice < 0.3 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif choice < 0.5:
            marks = b'[]{},:"0123456789.-eE'
            out[at:at] = bytes(rng.choice(marks) for _ in range(rng.randint(1, 8)))
        elif choice < 0.7:
            del out[at : at + rng.randint(1, 64)]
        elif choice < 0.85:
            out = out[:at]  # truncated
        else:
            chunk = out[at : at + rng.randint(1, 32)]
            out[at:at] = chunk * rng.randint(1, 50)
    return bytes(out)


def _random(target: str, seconds: int, seed: int) -> dict[str, Any]:
    from support import fuzz_targets

    rng, pool = random.Random(seed), fuzz_targets.seeds(target)
    found, inputs, deadline = [], 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        data = (
            rng.randbytes(rng.randint(0, 512))
            if rng.random() < 0.1
            else _mutate(rng, rng.choice(pool))
        )
        inputs += 1
        problem = fuzz_targets.run_one(target, data)
        if problem is not None:
            found.append(problem)
    return {
        "engine": f"seeded random mutation (seed {seed})",
        "inputs": inputs,
        "seconds": seconds,
        "findings": found,
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        "## Fuzz run (`scripts/fuzz`)",
        "",
        f"`{report['command']}` on {report['machine']}, {report['started_at']}.",
        "",
        "| target | engine | inputs | seconds | coverage edges | findings |",
        "|---|---|---|---|---|---|",
    ]
    for name, result in report["targets"].items():
        count = len(result["findings"]) + len(result.get("process_crashes", []))
        lines.append(
            f"| {name} | {result['engine']} | {result['inputs']} | {result['seconds']} | "
            f"{result.get('coverage_edges', '')} | {count} |"
        )
    lines.append("")
    for name, result in report["targets"].items():
        for finding in result["findings"][:5]:
            lines.append(f"- {name}: {finding['kind']}: `{finding['detail'][:200]}`")
    lines += [
        "",
        "Every input ended in a valid result or an error with a known code."
        if report["ok"]
        else "**Findings above: see fuzz.json.**",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/fuzz", description=__doc__)
    parser.add_argument("--seconds", type=int, default=60, help="per target")
    parser.add_argument("--targets", default="message,geojson,zip,zip_path,gpkg,kml")
    parser.add_argument("--engine", choices=["auto", "atheris", "random"], default="auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-len", type=int, default=1 << 20)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--work", default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="nrf-fuzz-"))
    if args.child:
        _child(
            args.child,
            args.seconds,
            work / f"corpus-{args.child}",
            work / f"findings-{args.child}.jsonl",
            args.max_len,
        )
        return 0
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401

            engine = "atheris"
        except ImportError:
            engine = "random"
    targets = {}
    for target in args.targets.split(","):
        print(f"fuzzing {target} for {args.seconds} s ({engine})", file=sys.stderr, flush=True)
        if engine == "atheris":
            targets[target] = _atheris(target, args.seconds, work, args.max_len)
        else:
            targets[target] = _random(target, args.seconds, args.seed)
    ok = all(
        not r["findings"] and not r.get("process_crashes") and r.get("exit_code", 0) == 0
        for r in targets.values()
    )
    report = {
        "command": "scripts/fuzz " + " ".join(sys.argv[1:]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "targets": targets,
        "ok": ok,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "fuzz.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "fuzz.md").write_text(render(report))
    print(render(report))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
