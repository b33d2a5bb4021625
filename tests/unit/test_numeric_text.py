"""Numbers written as text: read only when there is one reading, and say how it was read."""

from __future__ import annotations

import math

import pytest

from nrf.bundles.numeric_text import parse_number


@pytest.mark.parametrize(
    ("text", "money", "value", "how"),
    [
        ("12.5", False, 12.5, ""),
        (" 12 ", False, 12.0, "spaces stripped"),
        ("1,234.5", False, 1234.5, "thousands separators dropped"),
        ("12,345,678", False, 12345678.0, "thousands separators dropped"),
        ("£2,700", True, 2700.0, "pound sign dropped, thousands separators dropped"),
        (
            " £ 3,127.45 ",
            True,
            3127.45,
            "spaces stripped, pound sign dropped, thousands separators dropped",
        ),
        ("-3", False, -3.0, ""),
    ],
)
def test_a_number_with_one_reading_is_read_and_the_reading_named(
    text: str, money: bool, value: float, how: str
) -> None:
    parsed = parse_number(text, money=money)
    assert parsed is not None
    assert (parsed.value, parsed.how) == (value, how)


@pytest.mark.parametrize(
    ("text", "money"),
    [
        ("N/A", False),
        ("", False),
        ("1,5", False),  # a decimal comma, or a thousands separator short of two digits?
        ("1,2345", False),
        ("£2,700", False),  # a pound sign only where the column is money
        ("5%", False),
        ("12 kg", False),
        ("nan", False),
    ],
)
def test_text_that_is_not_one_number_is_not_read(text: str, money: bool) -> None:
    assert parse_number(text, money=money) is None


def test_infinity_is_read_so_the_range_rule_can_refuse_it() -> None:
    parsed = parse_number("inf")
    assert parsed is not None and math.isinf(parsed.value)
