"""Write assessment results as CSV, JSON or GeoJSON, all-or-nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from nrf.adapters.atomic_files import create_temporary
from nrf.adapters.outputs import flat_geojson, json_stream, legacy_csv, levy_csv
from nrf.adapters.outputs.csv_lines import Ticker, csv_lines
from nrf.adapters.outputs.output_names import SUFFIXES, OutputNotWritable, output_paths
from nrf.adapters.outputs.spooled_run import in_order
from nrf.domain.errors import NrfError
from nrf.domain.levy_text import levy_sum
from nrf.domain.model import Development
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.results import AssessmentRun
from nrf.domain.serialization import unstructure

SYNTHETIC_NOTICE = (
    "SYNTHETIC DEMONSTRATION DATA: these figures come from a made-up reference bundle "
    "and must not be used for any real levy or planning decision."
)
# Stand-ins for the sidecar's two long lists, written an item at a time.
LEVY_RECORDS: Any = object()
OUT_OF_SCOPE: Any = object()


def stamp_member(stamp: OutputStamp | None) -> dict[str, Any]:
    """``{"stamp": {...}}`` for a document: when (UTC, ISO 8601), from what, for which quote."""
    if stamp is None:
        return {}
    made = {"made_at": stamp.made_at.isoformat(), "input": stamp.input_name}
    return {"stamp": {**made, "reference": stamp.reference}}


def result_document(run: AssessmentRun, stamp: OutputStamp | None = None) -> dict[str, Any]:
    """The full typed results as plain JSON-ready data, stamped when a stamp is given."""
    doc: dict[str, Any] = {}
    if run.provenance.synthetic_data:
        doc["notice"] = SYNTHETIC_NOTICE
    doc.update(stamp_member(stamp))
    doc.update(unstructure(run))
    return doc


def levy_record_items(run: AssessmentRun) -> Iterator[dict[str, Any]]:
    """Per site, everything that priced its levy, or the refusal (code and words), one at a
    time in input order (a spooled run is read as it goes)."""
    for s in in_order(run.sites):
        yield {
            "rlb_id": s.site.rlb_id,
            "id": s.site.id,
            "pricing": unstructure(s.pricing),
            "levy_refusal": unstructure(s.levy_refusal),
            "excluded_areas": list(s.excluded_areas),
        }


def levy_totals(run: AssessmentRun) -> dict[str, Any]:
    """The quoted levies added up (excluding VAT, VAT, including VAT) and how many were refused."""
    total = levy_sum(run.sites)
    return {
        "amount_excluding_vat": str(total.excluding_vat),
        "vat": str(total.vat),
        "amount_including_vat": str(total.including_vat),
        "quoted": total.quoted,
        "refused": total.refused,
    }


def _geojson_head(run: AssessmentRun, stamp: OutputStamp | None, bng: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"type": "FeatureCollection"}
    if bng:  # RFC 7946 has no crs member; a British National Grid copy must say what it is
        doc["crs"] = flat_geojson.CRS_MEMBER
    if run.provenance.synthetic_data:
        doc["notice"] = SYNTHETIC_NOTICE
    doc.update(stamp_member(stamp))
    doc["provenance"] = unstructure(run.provenance)
    doc["levy"] = levy_totals(run)
    return doc


def geojson_document(
    run: AssessmentRun,
    developments: Sequence[Development],
    stamp: OutputStamp | None = None,
    *,
    bng: bool = False,
) -> dict[str, Any]:
    """Results with each site's boundary: RFC 7946 (WGS 84, no ``crs`` member), or with
    ``bng`` in EPSG:27700 as assessed, declared in a ``crs`` member."""
    features = list(flat_geojson.features(run, developments, bng=bng))
    return {**_geojson_head(run, stamp, bng), "features": features}


def csv_sidecar(run: AssessmentRun, stamp: OutputStamp | None = None) -> str:
    """What the legacy CSV (31 fixed columns) cannot hold: when and from what it was made,
    provenance, what priced each site's levy (or why it was refused) and out-of-scope sites."""
    return "".join(csv_sidecar_text(run, stamp))


def csv_sidecar_text(run: AssessmentRun, stamp: OutputStamp | None = None) -> Iterator[str]:
    """``csv_sidecar`` in pieces, a levy record or out-of-scope site at a time (the same
    text as one ``json.dumps``)."""
    sidecar: dict[str, Any] = {}
    if run.provenance.synthetic_data:
        sidecar["notice"] = SYNTHETIC_NOTICE
    sidecar.update(stamp_member(stamp))
    sidecar["provenance"] = unstructure(run.provenance)
    sidecar["levy"] = LEVY_RECORDS
    sidecar["levy_totals"] = levy_totals(run)
    sidecar["out_of_scope"] = OUT_OF_SCOPE
    members = list(sidecar.items())
    for number, (key, value) in enumerate(members):
        yield ("{" if number == 0 else ",") + f"\n  {json.dumps(key)}: "
        if value is LEVY_RECORDS:
            yield from _listed(levy_record_items(run))
        elif value is OUT_OF_SCOPE:
            yield from _listed(unstructure(item) for item in in_order(run.out_of_scope))
        else:
            yield json_stream.nested(value, 1)
    yield "\n}\n"


def _listed(items: Iterable[Any]) -> Iterator[str]:
    """A list member's text, an item at a time (``[]`` when empty), as indent-2 JSON does."""
    position = -1
    for position, item in enumerate(items):
        yield ("[" if position == 0 else ",") + "\n    " + json_stream.nested(item, 2)
    yield "[]" if position < 0 else "\n  ]"


def geojson_text(
    run: AssessmentRun,
    developments: Iterable[Development],
    progress: Callable[[int, int], None] | None = None,
    stamp: OutputStamp | None = None,
    *,
    bng: bool = False,
) -> Iterator[str]:
    """The GeoJSON document's text, a feature at a time (the same text as json.dumps of
    geojson_document, plus a newline): a county's results never sit in memory as one string."""
    head = json.dumps(_geojson_head(run, stamp, bng))
    yield head[:-1] + ', "features": ['
    features = flat_geojson.features(run, developments, progress, bng=bng)
    for number, feature in enumerate(features):
        yield (", " if number else "") + json.dumps(feature)
    yield "]}\n"


def files_for(
    path: Path,
    run: AssessmentRun,
    developments: Iterable[Development],
    progress: Callable[[int, int], None] | None = None,
    stamp: OutputStamp | None = None,
) -> dict[Path, str | Iterable[str]]:
    """Every file to write for ``path``, by its extension.

    A CSV is the legacy 31-column table, unchanged for the tools that read it, with the levy
    table a planner opens in Excel (``.levy.csv``) and a provenance sidecar beside it.
    """
    suffix = path.suffix.lower()
    notice = SYNTHETIC_NOTICE if run.provenance.synthetic_data else None
    if suffix == ".csv":
        legacy, levy, provenance = output_paths(path)
        tick = Ticker(progress, total=1 + len(run.sites) + levy_csv.row_count(run))
        return {
            legacy: csv_lines(legacy_csv.rows(run.sites), "\n", tick),
            levy: levy_csv.lines(levy_csv.table_rows(run, notice, stamp), tick),
            provenance: csv_sidecar_text(run, stamp),
        }
    if suffix == ".json":
        return {path: json_stream.result_text(run, notice, progress, stamp_member(stamp))}
    if suffix == ".geojson":
        # NAME.bng.geojson asks for the British National Grid copy; any other, RFC 7946.
        bng = path.name.lower().endswith(".bng.geojson")
        return {path: geojson_text(run, developments, progress, stamp, bng=bng)}
    raise NrfError(
        "unsupported_output_type",
        f"cannot write {path.name}: the output must end in {', '.join(SUFFIXES)}",
    )


def write_all(files: Mapping[Path, str | Iterable[str]]) -> list[Path]:
    """Write every file to a temporary name first, then rename: never a half-written set.

    Files get the permissions of any file the user creates (0666 less the umask); any
    operating-system refusal becomes OutputNotWritable, naming the file and the reason.
    """
    staged: list[tuple[Path, Path]] = []
    target = next(iter(files), Path())
    try:
        for target, text in files.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = create_temporary(target.parent, target.name)
            staged.append((tmp, target))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.writelines([text] if isinstance(text, str) else text)
        for tmp, target in staged:
            os.replace(tmp, target)
    except OSError as exc:
        raise OutputNotWritable(target, _reason(exc)) from None
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [target for _, target in staged]


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileExistsError | NotADirectoryError) and exc.filename:
        return f"{str(exc.filename)!r} is a file, not a folder"
    if isinstance(exc, PermissionError):
        # On Windows a file open in Excel cannot be replaced: the usual cause there.
        return f"{exc.strerror or exc} (no permission, or the file is open in another program)"
    return exc.strerror or str(exc)


def job_files(
    run: AssessmentRun, developments: Sequence[Development], stamp: OutputStamp | None = None
) -> dict[str, bytes]:
    """The files a queue job stores: full JSON results (with geometry), the legacy CSV, the
    levy table and the provenance sidecar, all stamped alike."""
    notice = SYNTHETIC_NOTICE if run.provenance.synthetic_data else None
    geojson = geojson_document(run, developments, stamp)
    bng = geojson_document(run, developments, stamp, bng=True)
    return {
        "result.json": (json.dumps(result_document(run, stamp), indent=2) + "\n").encode(),
        "result.geojson": (json.dumps(geojson) + "\n").encode(),
        "result.bng.geojson": (json.dumps(bng) + "\n").encode(),
        "result.csv": legacy_csv.render(run.sites).encode(),
        "result.levy.csv": levy_csv.render(run, notice, stamp).encode(),
        "result.provenance.json": csv_sidecar(run, stamp).encode(),
    }
