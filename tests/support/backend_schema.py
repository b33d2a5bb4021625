"""The transcribed backend PATCH schema as a validator, with its one extension keyword.

``x-maxDecimalPlaces`` stands for Joi's ``number().precision(2)``: a number written with more
places is refused (stricter than Joi, which would round it; nrf never needs rounding there).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from decimal import Decimal
from importlib import resources
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator, ValidationError

SCHEMA = json.loads(
    (resources.files("nrf") / "schemas" / "backend-quote-patch.schema.json").read_text("utf-8")
)


def _max_places(
    validator: Any, places: int, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if isinstance(instance, bool) or not isinstance(instance, int | float):
        return
    exponent = Decimal(repr(instance)).as_tuple().exponent
    if isinstance(exponent, int) and -exponent > places:
        yield ValidationError(f"{instance!r} has more than {places} decimal places")


PatchValidator = jsonschema.validators.extend(
    Draft202012Validator, {"x-maxDecimalPlaces": _max_places}
)
VALIDATOR = PatchValidator(SCHEMA)


def patch_errors(body: Any) -> list[str]:
    """Every reason the backend's schema refuses ``body`` (none: it would be accepted)."""
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(body)
    ]


def assert_valid_patch(body: Any) -> None:
    errors = patch_errors(body)
    assert not errors, errors
