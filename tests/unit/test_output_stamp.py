"""The stamp's input name is a label: cut to the 500 characters any text may have."""

from datetime import UTC, datetime

from nrf.domain.output_stamp import OutputStamp

MADE = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)


def test_a_name_of_500_characters_is_kept_whole() -> None:
    assert OutputStamp(made_at=MADE, input_name="a" * 496 + ".shp").input_name == "a" * 496 + ".shp"


def test_a_longer_name_is_cut_to_499_characters_and_an_ellipsis() -> None:
    # 45,000,000 characters in: the first 499 are kept and one "…" added, 499 + 1 = 500.
    name = OutputStamp(made_at=MADE, input_name="b" * 45_000_000).input_name
    assert name == "b" * 499 + "\u2026"
    assert len(name) == 500
