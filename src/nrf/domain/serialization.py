"""One cattrs converter for every stored or sent value (results, job records): Decimals as
strings, dates as ISO text, tuples as lists, so money and dates read back exactly."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import cattrs

converter = cattrs.Converter()
converter.register_unstructure_hook(Decimal, lambda d: str(d))
converter.register_structure_hook(Decimal, lambda v, _: Decimal(str(v)))
converter.register_unstructure_hook(date, lambda d: d.isoformat())
converter.register_structure_hook(date, lambda v, _: date.fromisoformat(str(v)))


def unstructure(value: Any) -> Any:
    return converter.unstructure(value)


def structure(data: Any, cls: type[Any]) -> Any:
    return converter.structure(data, cls)
