"""The one British National Grid code and its spellings."""

from nrf.domain.bng import BNG, BNG_EPSG, geojson_crs


def test_each_spelling_names_epsg_27700() -> None:
    assert (BNG_EPSG, BNG) == (27700, "EPSG:27700")
    member = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
    assert geojson_crs() == member


def test_each_crs_member_is_a_new_dict_so_no_caller_can_change_anothers() -> None:
    first = geojson_crs()
    first["properties"]["name"] = "changed"
    assert geojson_crs()["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
