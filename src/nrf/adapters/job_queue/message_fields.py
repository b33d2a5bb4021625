"""Field rules both message schemas share; each adds its problem to the list, none raises.

So a message is refused once, with every problem it has.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from nrf.domain.email_address import is_valid_email
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.feature_properties import MAX_TEXT_CHARS, encodable_text
from nrf.domain.job_request import MAX_DWELLINGS


class InvalidJobMessage(InvalidInput):
    """A message that can never succeed; carries whatever identity could be recovered."""

    def __init__(
        self,
        problems: list[Problem],
        job_id: str | None = None,
        email: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        super().__init__(problems)
        self.job_id = job_id
        self.email = email
        self.trace_id = trace_id


def text_field(
    data: Mapping[str, Any], key: str, problems: list[Problem], required: bool
) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            problems.append(Problem(code="missing_field", message=f"{key} is required", field=key))
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS or not encodable_text(value):
        problems.append(
            Problem(
                code="invalid_field",
                message=f"{key} must be Unicode text of at most {MAX_TEXT_CHARS} characters",
                field=key,
            )
        )
        return None
    return value


def dwellings_field(value: object, key: str, problems: list[Problem]) -> int:
    if value is None:
        problems.append(Problem(code="missing_field", message=f"{key} is required", field=key))
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(
            Problem(code="invalid_dwellings", message=f"{key} must be a whole number", field=key)
        )
        return 0
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        problems.append(
            Problem(code="invalid_dwellings", message=f"{key} must be a whole number", field=key)
        )
        return 0
    number = int(value)
    if not 0 <= number <= MAX_DWELLINGS:
        problems.append(
            Problem(
                code="invalid_dwellings", message=f"{key} must be 0 to {MAX_DWELLINGS}", field=key
            )
        )
    return number


def email_field(value: str | None, problems: list[Problem]) -> str | None:
    if value is not None and not is_valid_email(value):
        problems.append(
            Problem(code="invalid_email", message="email is not a valid address", field="email")
        )
        return None
    return value
