"""Ids given to several sites are named, with how many sites each; none repeat: no sentence."""

from __future__ import annotations

from nrf.domain.repeated_ids import repeated_ids, repeated_ids_sentence


def test_only_ids_used_twice_or_more_are_named_in_first_seen_order() -> None:
    ids = ["b", "a", "c", "a", "b", "a"]
    assert repeated_ids(ids) == {"b": 2, "a": 3}
    assert repeated_ids_sentence(repeated_ids(ids)) == (
        "2 site id(s) are used by more than one site: 'b' (2 sites), 'a' (3 sites); "
        "each site is quoted, but results read by id will mix them"
    )


def test_unique_ids_say_nothing() -> None:
    assert repeated_ids(["1", "2", "3"]) == {}
    assert repeated_ids_sentence({}) == ""


def test_many_repeated_ids_name_ten_and_count_the_rest() -> None:
    sentence = repeated_ids_sentence(repeated_ids([str(n) for n in range(12)] * 2))
    assert sentence.startswith("12 site id(s)") and "'9' (2 sites) and 2 more;" in sentence
