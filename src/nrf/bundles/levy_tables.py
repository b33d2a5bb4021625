"""The bundle's levy tables from Defra's CSVs: its column names, values as exact text.

``levy_charges`` and ``levy_inflation_index`` carry Defra's columns plus ``source_line``, the
line of the delivered CSV each row came from, so the gate can name it; ``levy_settings`` holds
the VAT rate and the levy's rounding rule (``nrf.domain.levy_rounding``). Nothing is judged
here: the gate judges the bundle, so a bundle built elsewhere is judged by the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal

from nrf.bundles.geopackage_writer import Table
from nrf.bundles.manifest import CHARGE_COLUMNS, INDEX_COLUMNS
from nrf.bundles.schedule_csv import Row
from nrf.bundles.schedule_values import four_places, integer
from nrf.domain.levy_rounding import FOR_NEW_BUNDLES, SETTING, LevyRounding

CHARGES, INDEX, SETTINGS = "levy_charges", "levy_inflation_index", "levy_settings"
SOURCE_LINE = "source_line"
DEFAULT_VAT_RATE = Decimal("0.20")
_TYPES = {"edp_id": "INTEGER", "charging_year": "INTEGER"}


def _columns(names: Sequence[str]) -> list[tuple[str, str]]:
    return [(c, _TYPES.get(c, "TEXT")) for c in names] + [(SOURCE_LINE, "INTEGER")]


def _text(value: object) -> object:
    return value if value != "" else None


def charges_table(rows: Iterable[Row]) -> Table:
    """The charging schedule's table, its rows converted as they are written."""
    return Table(CHARGES, _columns(CHARGE_COLUMNS), _charge_rows(rows))


def _charge_rows(rows: Iterable[Row]) -> Iterator[tuple[object, ...]]:
    for row in rows:
        values = {c: _text(row[c]) for c in CHARGE_COLUMNS}
        values["edp_id"] = integer(row["edp_id"])
        values["base_charge_per_unit"] = four_places(values["base_charge_per_unit"])
        yield (*values.values(), row["_line"])


def index_table(rows: Iterable[Row]) -> Table:
    """The CIL index's table, its rows converted as they are written."""
    return Table(INDEX, _columns(INDEX_COLUMNS), _index_rows(rows))


def _index_rows(rows: Iterable[Row]) -> Iterator[tuple[object, ...]]:
    for row in rows:
        year = integer(row["charging_year"])
        factor = four_places(_text(row["index_factor"]))
        yield (year, _text(row["cil_index"]), factor, row["_line"])


def settings_table(vat_rate: Decimal, rounding: LevyRounding = FOR_NEW_BUNDLES) -> Table:
    """VAT and the rounding rule, each stated: a new bundle rounds as Defra's newest does."""
    rows = [("vat_rate", str(vat_rate)), (SETTING, rounding.value)]
    return Table(SETTINGS, [("key", "TEXT"), ("value", "TEXT")], rows)
