"""KML and KMZ boundaries as Google Earth saves them: read by `nrf assess`, the API and the
form, and an XML entity bomb refused before GDAL parses it."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pyogrio
import pytest
from pyproj import Transformer

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import InputLimits, validate_features
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT, EXIT_OK, EXIT_USAGE
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.reference import STRIP_ORIGIN

# The test bundle's strip starts at BNG (600,000, 300,000); its place in WGS 84:
LON, LAT = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True).transform(
    STRIP_ORIGIN[0] + 100, STRIP_ORIGIN[1] + 100
)
STEP = 0.0005  # degrees: about 34 m east-west and 56 m north-south at 52 degrees north


def placemark(name: str, lon: float = LON, lat: float = LAT, point: bool = False) -> str:
    if point:
        point_xml = f"<Point><coordinates>{lon},{lat},0</coordinates></Point>"
        return f"<Placemark><name>{name}</name>{point_xml}</Placemark>"
    corners = [(lon, lat), (lon + STEP, lat), (lon + STEP, lat + STEP), (lon, lat + STEP)]
    ring = " ".join(f"{x},{y},0" for x, y in [*corners, corners[0]])
    return (
        f"<Placemark><name>{name}</name><Polygon><outerBoundaryIs><LinearRing>"
        f"<coordinates>{ring}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>"
    )


def kml(*folders: tuple[str, list[str]], prolog: str = "") -> bytes:
    """A KML as Google Earth writes it: a Document, folders of placemarks, WGS 84 lon,lat,alt."""
    body = "".join(
        f"<Folder><name>{name}</name>{''.join(marks)}</Folder>" for name, marks in folders
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{prolog}'
        f'<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>sites</name>{body}'
        "</Document></kml>"
    ).encode()


def kmz(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("doc.kml", data)
        archive.writestr("files/icon.png", b"\x89PNG")  # Google Earth packs its icons too
    return buffer.getvalue()


def test_a_google_earth_polygon_is_read_in_bng(tmp_path: Path) -> None:
    path = tmp_path / "site.kml"
    path.write_bytes(kml(("Sites", [placemark("Hall’s Farm")])))
    [site] = read_boundary_file(path)
    assert site.crs == "EPSG:4326" and site.properties["Name"] == "Hall’s Farm"
    # By hand: 0.0005 deg of longitude at latitude phi is 111,320 m x cos(phi) x 0.0005 and
    # 0.0005 deg of latitude about 111,260 m x 0.0005 = 55.6 m; at phi ~ 52.0 deg, cos = 0.616,
    # so 34.3 m x 55.6 m ~ 1,906 m2 (2 % allows for the grid's scale and convergence).
    assert site.geometry.area == pytest.approx(1_906, rel=0.02)  # type: ignore[attr-defined]
    # The first corner is where it was projected from (the others turn with the grid).
    x, y = site.geometry.exterior.coords[0]  # type: ignore[attr-defined]
    assert (x, y) == (pytest.approx(STRIP_ORIGIN[0] + 100), pytest.approx(STRIP_ORIGIN[1] + 100))


def test_a_kmz_reads_the_same_from_bytes_and_from_a_path(tmp_path: Path) -> None:
    data = kmz(kml(("Sites", [placemark("A")])))
    path = tmp_path / "site.kmz"
    path.write_bytes(data)
    [from_bytes] = read_boundary_bytes(data, "upload.KMZ")
    [from_path] = read_boundary_file(path)
    assert from_bytes.geometry.equals(from_path.geometry)  # type: ignore[attr-defined]


def test_every_folder_is_read_and_layer_picks_one(tmp_path: Path) -> None:
    path = tmp_path / "two.kml"
    path.write_bytes(
        kml(("Sites", [placemark("A"), placemark("pin", point=True)]), ("Other", [placemark("B")]))
    )
    features = read_boundary_file(path)
    assert [f.properties["Name"] for f in features] == ["A", "pin", "B"]
    with pytest.raises(InvalidInput) as caught:
        validate_features(features)
    # The pin is not a boundary: refused by name, never dropped silently.
    assert ("unsupported_geometry_type", 2) in [(p.code, p.feature) for p in caught.value.problems]
    [only] = read_boundary_file(path, layer="Other")
    assert only.properties["Name"] == "B"
    with pytest.raises(InvalidInput) as caught:
        read_boundary_file(path, layer="Nowhere")
    assert caught.value.codes == ["unknown_layer"] and "'Sites', 'Other'" in caught.value.message


LAUGHS = (
    '<!DOCTYPE kml [<!ENTITY a "lollollollol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
)


def test_an_entity_bomb_is_refused_before_gdal_parses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pyogrio, "list_layers", lambda *a, **k: pytest.fail("GDAL parsed it"))
    data = kml(("Sites", [placemark("&c;")]), prolog=LAUGHS)
    for name, content in (("site.kml", data), ("site.kmz", kmz(data))):
        with pytest.raises(InvalidInput) as caught:
            read_boundary_bytes(content, name)
        assert caught.value.codes == ["unreadable_file"] and "DTD" in caught.value.message


def test_more_positions_than_allowed_are_refused_from_the_text(tmp_path: Path) -> None:
    # One square: 5 positions of "x,y,0", 2 commas each = 10 commas, 10 // 2 = 5 positions.
    data = kml(("Sites", [placemark("A")]))
    assert data.count(b",") == 10
    with pytest.raises(InvalidInput) as caught:
        read_boundary_bytes(data, "s.kml", InputLimits(max_total_vertices=4))
    assert caught.value.codes == ["too_many_vertices"]
    assert len(read_boundary_bytes(data, "s.kml", InputLimits(max_total_vertices=5))) == 1


def test_the_form_quotes_a_kml_with_its_dwellings_given() -> None:
    client = anonymous_client()
    fields = {"id": "KML-1", "dwellings": "10", "dwelling_category": "housing", "source": "f"}
    body, content_type = multipart({"boundary": ("site.kml", kml(("S", [placemark("A")])))}, fields)
    answer = client.simulate_post(
        "/v1/quotes",
        body=body,
        headers={"Content-Type": content_type, "Accept": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    assert "KML-1" in answer.text


def test_nrf_assess_quotes_a_kml_whose_placemark_carries_its_dwellings(tmp_path: Path) -> None:
    # Inside the bundled synthetic Norfolk data (BNG 620,000, 310,000, as test_cli_inputs).
    lon, lat = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True).transform(
        620_100, 310_100
    )
    extended = '<ExtendedData><Data name="dwellings"><value>10</value></Data></ExtendedData>'
    mark = placemark("Hall’s Farm", lon, lat).replace("</name>", "</name>" + extended)
    path = tmp_path / "site.kml"
    path.write_bytes(kml(("Sites", [mark])))
    out = tmp_path / "out.json"
    assert main(["assess", str(path), "--output", str(out)]) == EXIT_OK
    text = out.read_text()
    assert "Hall’s Farm" in text or "Hall\\u2019s Farm" in text


def test_a_google_earth_polygon_without_dwellings_is_quoted_with_dwellings_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As Google Earth saves a drawn polygon: a name and nothing else (no ExtendedData).
    lon, lat = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True).transform(
        620_100, 310_100
    )
    path = tmp_path / "drawn.kml"
    path.write_bytes(kml(("Sites", [placemark("Mill Lane", lon, lat)])))
    out = tmp_path / "out.json"
    # Refused, and the refusal says how to mend it.
    assert main(["assess", str(path), "--output", str(out)]) == EXIT_INVALID_INPUT
    refusal = capsys.readouterr().err
    assert "no dwellings column" in refusal and "--dwellings N" in refusal, refusal
    assert "--columns" in refusal
    # With --dwellings it is quoted for that many.
    assert main(["assess", str(path), "--output", str(out), "--dwellings", "12"]) == EXIT_OK
    [site] = json.loads(out.read_text())["sites"]
    assert (site["site"]["name"], site["site"]["dwellings"]) == ("Mill Lane", 12)


def test_dwellings_given_for_a_file_of_several_sites_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.kml"
    path.write_bytes(kml(("Sites", [placemark("A"), placemark("B", LON + 0.01)])))
    assert main(["assess", str(path), "--dwellings", "12"]) == EXIT_USAGE
    refusal = capsys.readouterr().err
    assert "has 2 sites, so each needs its own" in refusal
    assert "--columns dwellings=COLUMN" in refusal


def test_the_api_names_its_own_field_for_the_missing_dwellings() -> None:
    client = anonymous_client()
    body, content_type = multipart({"boundary": ("site.kml", kml(("S", [placemark("A")])))}, {})
    answer = client.simulate_post(
        "/v1/quotes",
        body=body,
        headers={"Content-Type": content_type, "Accept": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    [problem] = answer.json["problems"]
    assert "the `dwellings` form field" in problem["message"]
    assert "--" not in problem["message"]
