"""`nrf bundle build` of a fixture delivery in Defra's layout gives a hand-made bundle's figures."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from shapely.geometry import box

from nrf.adapters.boundary_data import bundle_digest
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.boundary_data.geopackage_schema import COEFFICIENT_LAYER
from nrf.adapters.boundary_data.small_layers import SMALL_LAYERS
from nrf.adapters.boundary_data.validation_record import trusted_layers
from nrf.adapters.outputs.result_files import result_document
from nrf.bundles.geopackage_writer import Layer, Table
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import Development
from nrf.domain.rules import RULE_SETS
from nrf.entrypoints.cli import main
from support.delivery import (
    COLS,
    ROWS,
    FixtureData,
    build_command,
    coefficient_value,
    write_delivery,
)
from support.geopackages import write_geopackage
from support.reference import QUOTE_DATE

X0, Y0 = 600_000, 300_000


def build(tmp_path: Path, data: FixtureData, *extra: str, manifest: bool = True) -> int:
    paths = write_delivery(tmp_path / "iat_input", data)
    args = build_command(
        tmp_path / "iat_input", paths, tmp_path / "out.gpkg", "2026.11.1", manifest=manifest
    )
    return main([*args, *extra])


def qc(tmp_path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tmp_path / "out.qc.json").read_text())
    return data


def site(
    rlb_id: int, x0: int, y0: int, x1: int, y1: int, dwellings: int, category: str = "housing"
):
    boundary = box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)
    return Development(
        rlb_id=rlb_id,
        id=f"s{rlb_id}",
        name=f"Site {rlb_id}",
        dwelling_category=category,
        source="test",
        dwellings=dwellings,
        boundary=boundary,
    )


SITES = [
    site(1, 200, 200, 450, 400, 10),  # Alpha, works 11307
    site(2, 1400, 500, 1600, 700, 25),  # straddles Alpha / Beta, works 1065
    site(3, 2600, 1200, 2900, 1500, 60),  # Beta, served by no works: fallback 141
    site(4, 1700, 1100, 1900, 1300, 5, "Hotel"),  # a category row
    site(5, 300, 400, 500, 600, 8),  # covers the "n/a" coefficient cell (3, 4)
    site(6, 2450, 450, 2600, 600, 12),  # the NULL-P cell (25, 5), across 1065 / no works
    site(7, 3100, 100, 3300, 300, 4),  # outside both catchments, works 10416: wastewater only
    site(8, 3600, 100, 3800, 300, 4),  # outside catchments and works: package plant
]


def hand_made_bundle(path: Path) -> Path:
    """The same delivery, cleaned by hand and written with GeoPackageWriter."""
    data = FixtureData()
    cells = [(c, r) for r in range(ROWS) for c in range(COLS)]
    values = [coefficient_value(c, r) for c, r in cells]
    n_text = [None if v[0] == "n/a" else float(str(v[0])) for v in values]
    layers = [
        Layer(
            name="nn_catchments",
            columns=[("n2k_site_name", "TEXT"), ("edp_id", "INTEGER")],
            geometries=[g for g, *_ in data.nn],
            attributes={"n2k_site_name": ["Alpha SAC", "Beta SAC"], "edp_id": [1, 2]},
        ),
        Layer(
            name="wwtw_catchments",
            columns=[("wwtw_id", "INTEGER")],
            geometries=[g for g, *_ in data.wwtw],
            attributes={"wwtw_id": [11307, 1065, 1065, 10416, 10261]},
        ),
        Layer(
            name="lpa_boundaries",
            columns=[("name", "TEXT")],
            geometries=[g for g, *_ in data.lpa],
            attributes={"name": ["Alpha District", "Beta District"]},
        ),
        Layer(
            name="subcatchments",
            columns=[("opcat_name", "TEXT")],
            geometries=[g for g, *_ in data.wfd],
            attributes={"opcat_name": ["Upper Yare", "Lower Yare"]},
        ),
        Layer(
            name="land_use_coefficients",
            columns=[
                ("lu_curr_n_coeff", "REAL"),
                ("lu_curr_p_coeff", "REAL"),
                ("n_resi_coeff", "REAL"),
                ("p_resi_coeff", "REAL"),
            ],
            geometries=[g for g, *_ in data.coefficients],
            attributes={
                "lu_curr_n_coeff": n_text,
                "lu_curr_p_coeff": [v[1] for v in values],
                "n_resi_coeff": [v[2] for v in values],
                "p_resi_coeff": [v[3] for v in values],
            },
        ),
        Layer(
            name="edp_boundaries",
            columns=[("edp_id", "INTEGER"), ("edp_name", "TEXT")],
            geometries=[g for g, *_ in data.edps],
            attributes={"edp_id": [1, 1], "edp_name": ["Yare EDP", "Yare EDP"]},
        ),
        Layer(
            name="excluded_areas",
            columns=[("name", "TEXT")],
            geometries=[g for g, *_ in data.excluded],
            attributes={"name": ["Gamma Fen SSSI"]},
        ),
    ]
    conc = [
        (c, "REAL")
        for c in ("n_conc_2025_2030", "n_conc_2030_on", "p_conc_2025_2030", "p_conc_2030_on")
    ]
    tables = [
        Table(
            "wwtw_permits",
            [("wwtw_id", "INTEGER"), ("wwtw_name", "TEXT"), ("wwtw_subcatchment", "TEXT"), *conc],
            [
                (11307, "Alpha WwTW", "Upper Yare", 27, 10, 1, 1),
                (1065, "Beta WwTW", "Lower Yare", None, 10, 0.25, None),
                (141, "Package Treatment Plant default", None, 25, 25, 4.5, 4.5),
                (10416, "East WwTW", "Lower Yare", 27, 27, 5, 5),
                (10261, "North WwTW", "Lower Yare", 27, 10, 1, 1),
            ],
        ),
        Table(
            "occupancy_rates",
            [
                ("nn_catchment", "TEXT"),
                ("dwelling_category", "TEXT"),
                ("occupancy_rate", "REAL"),
                ("water_usage_l_per_person_day", "REAL"),
            ],
            [
                ("Alpha SAC", None, 2.4, 120),
                ("Beta SAC", None, 2.3, 110),
                (None, "Hotel", 1.0, 240),
                (None, "Student Accommodation", 1.0, 120),
                ("default", None, 2.4, 120),
            ],
        ),
        Table(
            "levy_charges",
            [
                ("edp_id", "INTEGER"),
                ("edp_name", "TEXT"),
                ("edp_start_date", "TEXT"),
                ("charge_valid_from", "TEXT"),
                ("charge_valid_to", "TEXT"),
                ("base_charge_per_unit", "TEXT"),
            ],
            [
                (1, "Yare EDP", "2026-04-01", "2026-04-01", "2027-03-31", "2675.0000"),
                (1, "Yare EDP", "2026-04-01", "2027-04-01", "2028-03-31", "2750.0000"),
            ],
        ),
        Table(
            "levy_inflation_index",
            [("charging_year", "INTEGER"), ("cil_index", "TEXT"), ("index_factor", "TEXT")],
            [(2026, "381", "1.0000"), (2027, "392.43", "1.0300")],
        ),
        Table(
            "levy_settings",
            [("key", "TEXT"), ("value", "TEXT")],
            [("vat_rate", "0.20"), ("levy_rounding", "round_total")],
        ),
        Table(
            "bundle_info",
            [("name", "TEXT"), ("version", "TEXT"), ("created", "TEXT"), ("description", "TEXT")],
            [("hand-made", "1", "2026", "by hand")],
        ),
    ]
    return write_geopackage(path, layers, tables)


def documents(bundle: Path) -> dict[str, Any]:
    assess = AssessDevelopments(GeoPackageBoundaryData(bundle))
    out = {}
    for name, rules in RULE_SETS.items():
        doc = result_document(assess(SITES, rules, QUOTE_DATE))
        out[name] = {k: v for k, v in doc.items() if k not in ("provenance", "notice")}
    return out


def test_built_bundle_gives_the_same_figures_as_a_hand_made_one(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    built = documents(tmp_path / "out.gpkg")
    by_hand = documents(hand_made_bundle(tmp_path / "hand.gpkg"))
    assert set(built) == {"iat-2025-09", "iat-2025-10", "iat-2026-04"}
    for rules in built:
        assert built[rules] == by_hand[rules], rules
        assert len(built[rules]["sites"]) + len(built[rules]["out_of_scope"]) == 8
    assert [o["site"]["rlb_id"] for o in built["iat-2025-10"]["out_of_scope"]] == [8]
    wwtw = {s["site"]["rlb_id"]: s["majority_wwtw_id"] for s in built["iat-2025-10"]["sites"]}
    assert wwtw[1] == 11307 and wwtw[2] == 1065 and wwtw[3] == 141


def test_results_carry_the_built_version_and_digest(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    run = AssessDevelopments(GeoPackageBoundaryData(bundle))(
        SITES[:1], RULE_SETS["iat-2025-10"], QUOTE_DATE
    )
    p = result_document(run)["provenance"]
    assert p["bundle_name"] == "nrf-defra-iat" and p["bundle_version"] == "2026.11.1"
    assert p["bundle_sha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()
    assert p["synthetic_data"] is False


def test_a_built_bundle_is_trusted_by_readers_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The gate checked every geometry, so readers skip those checks for this exact file.
    # (Only bundles big enough to get a digest sidecar are trusted: small ones check fast.)
    monkeypatch.setattr(bundle_digest, "SIDECAR_MIN_BYTES", 0)
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    assert trusted_layers(bundle) == {*SMALL_LAYERS, COEFFICIENT_LAYER}
    with bundle.open("ab") as changed:  # any other bytes are another file: checked in full
        changed.write(b"\0")
    assert trusted_layers(bundle) == frozenset()


def test_dirty_lookups_are_cleaned_and_each_cleaning_is_listed(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    with sqlite3.connect(tmp_path / "out.gpkg") as db:
        permits = db.execute(
            "SELECT wwtw_id, wwtw_name, wwtw_subcatchment, n_conc_2025_2030, "
            "n_conc_2030_on, p_conc_2025_2030, p_conc_2030_on, source_code "
            "FROM wwtw_permits ORDER BY wwtw_id"
        ).fetchall()
        info = db.execute("SELECT version, nrf_version, qc_outcome FROM bundle_info").fetchone()
        sources = dict(db.execute("SELECT path, sha256 FROM bundle_sources").fetchall())
        keys = db.execute("SELECT cromeid, source_fid FROM land_use_coefficients WHERE fid = 1")
        first_key = keys.fetchone()
    assert permits == [
        (141, "Package Treatment Plant default", None, 25.0, 25.0, 4.5, 4.5, "141"),
        (1065, "Beta WwTW", "Lower Yare", None, 10.0, 0.25, None, "1065.0"),
        (10261, "North WwTW", "Lower Yare", 27.0, 10.0, 1.0, 1.0, "10261"),  # first wins
        (10416, "East WwTW", "Lower Yare", 27.0, 27.0, 5.0, 5.0, "10416"),
        (11307, "Alpha WwTW", "Upper Yare", 27.0, 10.0, 1.0, 1.0, "11307"),
    ]
    # The version given on the command line; the nrf release as pyproject.toml declares it
    # (read from the installed distribution's metadata, not from the code that wrote it).
    assert info == ("2026.11.1", metadata.version("nrf"), "passed")
    lookups = tmp_path / "iat_input/nutrients/SQL_Lookups/Interim_coeffs.sqlite"
    assert (
        sources["nutrients/SQL_Lookups/Interim_coeffs.sqlite"]
        == hashlib.sha256(lookups.read_bytes()).hexdigest()
    )
    assert first_key == ("CR0000", 1)  # the delivery's first cell: row 0, column 0, fid 1
    report = qc(tmp_path)
    cleaned = [f["detail"] for f in report["findings"] if f["code"] == "cleaned"]
    assert "row 1: WwTW_code '\\t11307' read as 11307" in cleaned
    assert "row 2: WwTW_code '1065.0' read as 1065" in cleaned
    assert sum("NULL code on a 'Package Treatment Plant default' row" in d for d in cleaned) == 2
    assert "row 6 repeats row 5: dropped" in cleaned
    assert any(d.startswith("row 8 disagrees with row 7") for d in cleaned)
    assert "WwTW_name 'Alpha WwTW ' stripped to 'Alpha WwTW'" in cleaned
    assert "NN_Catchment 'Beta SAC ' stripped to 'Beta SAC'" in cleaned
    # The delivered columns, not the bundle's n_conc_2025_2030 and p_conc_2030_on.
    assert "row 2: NULL Nitrogen_2025_2030, Phosphorus_2030_onwards = no load" in cleaned
    assert "LU_CurrNcoeff 'n/a' read as NULL" in cleaned  # as delivered, not lu_curr_n_coeff
    assert (tmp_path / "out.qc.md").read_text().startswith("# Quality gate: out.gpkg")


def test_without_a_default_occupancy_the_build_refuses_and_says_how(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = write_delivery(tmp_path / "iat_input", FixtureData())
    args = build_command(tmp_path / "iat_input", paths, tmp_path / "out.gpkg", "1", defaults=False)
    code = main(args)
    assert code == 6
    assert not (tmp_path / "out.gpkg").exists()
    assert "--default-occupancy 2.4 --default-water-usage 120" in capsys.readouterr().err
    assert [f["code"] for f in qc(tmp_path)["findings"] if f["severity"] == "error"] == [
        "no_default_occupancy"
    ]


def test_the_manifest_renames_paths_and_columns_and_gives_a_missing_crs(tmp_path: Path) -> None:
    data = FixtureData()
    data.crs["lpa"] = None
    data.manifest = (
        '[options]\nduplicate_works = "first_wins"\n'
        "[sources.lpa_boundaries]\ncrs = 27700\n"
        '[sources.occupancy_rates]\nlayer = "rates_v2"\n'
        '[sources.occupancy_rates.columns]\noccupancy = "Occupancy"\n'
    )
    paths = write_delivery(tmp_path / "iat_input", data)
    lookups = tmp_path / "iat_input/nutrients/SQL_Lookups/Interim_coeffs.sqlite"
    with sqlite3.connect(lookups) as db:
        db.execute("ALTER TABLE rates_lookup RENAME TO rates_v2")
        db.execute("ALTER TABLE rates_v2 RENAME COLUMN Occ_Rate TO Occupancy")
    db.close()
    code = main(build_command(tmp_path / "iat_input", paths, tmp_path / "out.gpkg", "1"))
    assert code == 0
    with closing(sqlite3.connect(tmp_path / "out.gpkg")) as db:
        rates = db.execute(
            "SELECT nn_catchment, occupancy_rate FROM occupancy_rates "
            "WHERE nn_catchment IN ('Alpha SAC', 'Beta SAC') ORDER BY nn_catchment"
        ).fetchall()
        lpas = db.execute("SELECT name FROM lpa_boundaries ORDER BY name").fetchall()
    # The fixture's rates, read through the renamed table and column; both LPAs kept.
    assert rates == [("Alpha SAC", 2.4), ("Beta SAC", 2.3)]
    assert lpas == [("Alpha District",), ("Beta District",)]


def test_an_interrupted_build_leaves_nothing_behind(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from nrf.bundles.build import BuildRequest, build_bundle

    paths = write_delivery(tmp_path / "iat_input", FixtureData())
    request = BuildRequest(
        source_dir=tmp_path / "iat_input",
        output=tmp_path / "out.gpkg",
        version="1",
        levy_charges=paths["charges"],
        inflation_index=paths["index"],
        created=datetime(2026, 11, 26, tzinfo=UTC).isoformat(),
        default_occupancy=2.4,
        default_water_usage=120.0,
        manifest=paths["manifest"],
    )

    def interrupt(label: str):
        def show(done: int, total: int) -> None:
            raise KeyboardInterrupt

        return show

    with pytest.raises(KeyboardInterrupt):
        build_bundle(request, progress=interrupt)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "iat_input",
        "iat_input-inflation-index.csv",
        "iat_input-levy-charges.csv",
        "iat_input-sources.toml",
    ]


def _catchments(bundle: Path) -> list[tuple[str, int, str]]:
    with closing(sqlite3.connect(bundle)) as db:
        rows = db.execute("SELECT n2k_site_name, edp_id, label FROM nn_catchments ORDER BY fid")
        return [(str(a), int(b), str(c)) for a, b, c in rows]


def _delivered_label(bundle: Path) -> str:
    with closing(sqlite3.connect(bundle)) as db:
        [(name,)] = db.execute(
            "SELECT delivered FROM bundle_columns WHERE role = 'nn_catchments' AND column = 'label'"
        ).fetchall()
        return str(name)


def test_each_catchment_keeps_its_label_and_oid_so_one_n2k_site_can_be_several(
    tmp_path: Path,
) -> None:
    data = FixtureData()
    # The Beta SAC drawn as two catchments of their own labels, Defra's current columns.
    data.nn_columns = ["N2K_Site_N", "OID", "Label"]
    data.nn = [
        (box(X0, Y0, X0 + 1500, Y0 + 2000), "Alpha SAC", 1, "Alpha"),
        (box(X0 + 1500, Y0, X0 + 2200, Y0 + 2000), "Beta SAC", 2, "Beta upper"),
        (box(X0 + 2200, Y0, X0 + 3000, Y0 + 2000), "Beta SAC", 3, "Beta lower"),
    ]
    assert build(tmp_path, data) == 0
    bundle = tmp_path / "out.gpkg"
    assert _catchments(bundle) == [
        ("Alpha SAC", 1, "Alpha"),
        ("Beta SAC", 2, "Beta upper"),
        ("Beta SAC", 3, "Beta lower"),
    ]
    assert _delivered_label(bundle) == "Label"
    # The reader lists them apart: a site x 2000..2400 meets both Beta catchments, half each.
    ref = GeoPackageBoundaryData(bundle).reference_for(box(X0 + 2000, Y0, X0 + 2400, Y0 + 100))
    assert sorted((c.catchment_label, c.edp_id) for c in ref.nn_catchments) == [
        ("Beta lower", "3"),
        ("Beta upper", "2"),
    ]


def test_a_delivery_without_labels_lists_each_catchment_by_its_n2k_site(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    # No `Label` column: each catchment's label is its N2K site, read from N2K_Site_N.
    assert [(site, label) for site, _, label in _catchments(bundle)] == [
        ("Alpha SAC", "Alpha SAC"),
        ("Beta SAC", "Beta SAC"),
    ]
    assert _delivered_label(bundle) == "N2K_Site_N"
