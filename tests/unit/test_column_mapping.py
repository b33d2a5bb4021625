"""A column mapping names each of the file's columns once: none is silently dropped."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from nrf.domain.column_mapping import mapped_columns, parse_columns, renamed
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import RawFeature

SITE = box(0, 0, 10, 10)


@pytest.mark.parametrize("text", ["id=Site_Ref,name=Site_Ref", "id=Site_Ref,name=SITE_REF"])
def test_one_column_given_for_two_of_nrfs_is_refused(text: str) -> None:
    # Issue 31: id=Site_Ref,name=Site_Ref kept only the name; the id read as absent.
    feature = RawFeature(index=1, properties={"Site_Ref": "A1", "Units": 3}, geometry=SITE)
    with pytest.raises(InvalidInput) as caught:
        renamed([feature], parse_columns(text))
    [problem] = caught.value.problems
    assert problem.code == "invalid_columns"
    assert "'Site_Ref' is given for both id and name" in problem.message


def test_two_columns_for_two_of_nrfs_are_both_kept() -> None:
    feature = RawFeature(index=1, properties={"Ref": "A1", "Title": "North"}, geometry=SITE)
    [done] = renamed([feature], parse_columns("id=Ref,name=Title"))
    assert (done.properties["id"], done.properties["name"]) == ("A1", "North")
    assert mapped_columns(["Ref", "Title"], {"id": "Ref", "name": "Title"}) == {
        "Ref": "id",
        "Title": "name",
    }


def test_one_of_nrfs_names_given_twice_is_refused_as_before() -> None:
    with pytest.raises(InvalidInput, match="id is given twice"):
        parse_columns("id=A,id=B")
