"""One cattrs converter for every stored or sent value (results, job records): Decimals as
strings, tuples as lists."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import cattrs

converter = cattrs.Converter()
converter.register_unstructure_hook(Decimal, lambda d: str(d))
converter.register_structure_hook(Decimal, lambda v, _: Decimal(str(v)))


def unstructure(value: Any) -> Any:
    return converter.unstructure(value)


def structure(data: Any, cls: type[Any]) -> Any:
    return converter.structure(data, cls)
