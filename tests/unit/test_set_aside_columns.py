"""A column the mapping passes over is named, with the column read instead; no other is."""

from __future__ import annotations

from nrf.domain.set_aside_columns import SetAside, set_aside, set_aside_warnings


def test_every_name_nrf_would_read_the_mapped_column_from_is_set_aside() -> None:
    names = ["Site_Ref", "dwellings", "Units", "DWELLINGS", "Dwel_Cat"]
    assert set_aside(names, {"Units": "dwellings"}) == [
        SetAside(ours="dwellings", ignored="dwellings", used="Units"),
        SetAside(ours="dwellings", ignored="DWELLINGS", used="Units"),
    ]
    # The legacy name and a shapefile's 10-character cut count too.
    assert set_aside(["Dwel_Cat", "Use"], {"Use": "dwelling_category"}) == [
        SetAside(ours="dwelling_category", ignored="Dwel_Cat", used="Use")
    ]
    assert set_aside(["dwelling_c", "Use"], {"Use": "dwelling_category"}) == [
        SetAside(ours="dwelling_category", ignored="dwelling_c", used="Use")
    ]


def test_nothing_is_set_aside_when_the_file_has_no_such_column_or_it_is_mapped_itself() -> None:
    assert set_aside(["Site_Ref", "Units"], {"Units": "dwellings", "Site_Ref": "id"}) == []
    # dwellings=dwellings: the column read is the file's own.
    assert set_aside(["dwellings"], {"dwellings": "dwellings"}) == []
    # The file's "id" column is read, as dwellings: it is not passed over.
    assert set_aside(["id", "Ref"], {"Ref": "id", "id": "dwellings"}) == []
    assert set_aside(["dwellings"], {}) == []


def test_the_warning_names_the_column_set_aside_and_the_one_read() -> None:
    [warning] = set_aside_warnings(["dwellings", "Units"], {"Units": "dwellings"})
    assert warning.code == "column_set_aside" and warning.site_ids == ()
    assert warning.message == (
        "the file's column 'dwellings' is not read: the column mapping reads dwellings from 'Units'"
    )
