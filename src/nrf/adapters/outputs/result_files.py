"""Write assessment results as CSV, JSON or GeoJSON, all-or-nothing."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import shapely

from nrf.adapters.outputs import legacy_csv
from nrf.domain.errors import NrfError
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun
from nrf.domain.serialization import unstructure

SYNTHETIC_NOTICE = (
    "SYNTHETIC DEMONSTRATION DATA: these figures come from a made-up reference bundle "
    "and must not be used for any real levy or planning decision."
)
SUFFIXES = (".csv", ".json", ".geojson")


def result_document(run: AssessmentRun) -> dict[str, Any]:
    """The full typed results as plain JSON-ready data."""
    doc: dict[str, Any] = {}
    if run.provenance.synthetic_data:
        doc["notice"] = SYNTHETIC_NOTICE
    doc.update(unstructure(run))
    return doc


def geojson_document(run: AssessmentRun, developments: Sequence[Development]) -> dict[str, Any]:
    """Results with each site's boundary (EPSG:27700, declared in a ``crs`` member)."""
    boundaries = {d.rlb_id: d.boundary for d in developments}
    features = []
    for status, items in (("assessed", run.sites), ("out_of_scope", run.out_of_scope)):
        for item in items:
            properties = {"status": status, **unstructure(item)}
            geometry = shapely.geometry.mapping(boundaries[item.site.rlb_id])
            features.append({"type": "Feature", "properties": properties, "geometry": geometry})
    features.sort(key=lambda f: f["properties"]["site"]["rlb_id"])
    doc = result_document(run)
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}},
        **{k: v for k, v in doc.items() if k in ("notice", "provenance", "levy_total")},
        "features": features,
    }


def csv_sidecar(run: AssessmentRun) -> str:
    """What the legacy CSV (31 fixed columns) cannot hold: provenance and out-of-scope sites."""
    sidecar = {"provenance": unstructure(run.provenance)}
    if run.provenance.synthetic_data:
        sidecar["notice"] = SYNTHETIC_NOTICE
    sidecar["out_of_scope"] = unstructure(run.out_of_scope)
    return json.dumps(sidecar, indent=2) + "\n"


def render(path: Path, run: AssessmentRun, developments: Sequence[Development]) -> dict[Path, str]:
    """Every file to write for ``path``, by its extension; a CSV gets a provenance sidecar."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return {
            path: legacy_csv.render(run.sites),
            path.with_suffix(".provenance.json"): csv_sidecar(run),
        }
    if suffix == ".json":
        return {path: json.dumps(result_document(run), indent=2) + "\n"}
    if suffix == ".geojson":
        return {path: json.dumps(geojson_document(run, developments)) + "\n"}
    raise NrfError(
        "unsupported_output_type",
        f"cannot write {path.name}: the output must end in {', '.join(SUFFIXES)}",
    )


def write_all(files: Mapping[Path, str]) -> list[Path]:
    """Write every file to a temporary name first, then rename: never a half-written set."""
    staged: list[tuple[str, Path]] = []
    try:
        for target, text in files.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            staged.append((tmp, target))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        for tmp, target in staged:
            os.replace(tmp, target)
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [target for _, target in staged]


def job_files(run: AssessmentRun, developments: Sequence[Development]) -> dict[str, bytes]:
    """The files a queue job stores: full JSON results (with geometry) and the legacy CSV."""
    return {
        "result.json": (json.dumps(result_document(run), indent=2) + "\n").encode(),
        "result.geojson": (json.dumps(geojson_document(run, developments)) + "\n").encode(),
        "result.csv": legacy_csv.render(run.sites).encode(),
        "result.provenance.json": csv_sidecar(run).encode(),
    }
