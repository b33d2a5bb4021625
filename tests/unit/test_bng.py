"""The one British National Grid code and its spellings."""

from nrf.domain.bng import BNG, BNG_EPSG, bng_crs_member


def test_each_spelling_names_epsg_27700() -> None:
    assert (BNG_EPSG, BNG) == (27700, "EPSG:27700")
    member = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
    assert bng_crs_member() == member


def test_each_crs_member_is_a_new_dict_so_no_caller_can_change_anothers() -> None:
    first = bng_crs_member()
    first["properties"]["name"] = "changed"
    assert bng_crs_member()["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
