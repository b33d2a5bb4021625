"""The synthetic national bundle, generated once with the core's generator and cached."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from nrf.adapters.boundary_data.bundle_digest import file_sha256
from nrf.bundles.synthetic_bundle import DEFAULT_SEED, generate_bundle


def cached_bundle(cache: Path, polygons: int, seed: int = DEFAULT_SEED) -> tuple[Path, dict]:
    """(path, metadata) of the bundle for ``polygons``; generated with progress if missing."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = f"synthetic-{polygons}" if seed == DEFAULT_SEED else f"synthetic-{polygons}-s{seed}"
    path, meta_path = cache / f"{stem}.gpkg", cache / f"{stem}.json"
    if path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("size") == path.stat().st_size:
            print(f"bundle: cached {path} ({meta['polygons']:,} polygons)", file=sys.stderr)
            return path, meta
    started = time.perf_counter()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= 2 or done == total:
            last[0] = now
            rate = done / max(now - started, 1e-9)
            print(
                f"\rbundle: {done:,}/{total:,} polygons, {now - started:.0f} s ({rate:,.0f}/s)",
                end="\n" if done == total or not sys.stderr.isatty() else "",
                file=sys.stderr,
                flush=True,
            )

    generated = generate_bundle(path, polygons, seed=seed, progress=progress)
    seconds = time.perf_counter() - started
    # Hash now, so the timed runs find the digest sidecar and never hash 1.4 GB themselves.
    hash_started = time.perf_counter()
    file_sha256(path)
    meta = {
        "polygons": generated.coefficient_count,
        "extent": list(generated.extent),
        "seed": seed,
        "size": path.stat().st_size,
        "generate_seconds": round(seconds, 1),
        "hash_seconds": round(time.perf_counter() - hash_started, 2),
    }
    meta_path.write_text(json.dumps(meta, indent=1))
    print(f"bundle: wrote {path} in {seconds:.1f} s", file=sys.stderr)
    return path, meta
