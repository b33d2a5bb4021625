"""Errors with stable machine-readable codes and a human sentence."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen


class NrfError(Exception):
    """Base error: a stable ``code`` plus a message a person can act on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@frozen(kw_only=True)
class Problem:
    """One problem found in an input; ``feature`` is 1-based, None for the whole file.

    ``site_id`` is the feature's own ``id`` when it has one: the planner knows a site by
    its id, not by its position in the file.
    """

    code: str
    message: str
    feature: int | None = None
    field: str | None = None
    site_id: str | None = None

    def describe(self) -> str:
        where = f"feature {self.feature}: " if self.feature is not None else ""
        message = self.message
        if where and message.startswith(where.strip()):
            message = message[len(where.strip()) :].lstrip(": ")
        if where and self.site_id is not None:
            where = f"feature {self.feature} (id {self.site_id!r}): "
        return f"{self.code}: {where}{message}"


class InvalidInput(NrfError):
    """Input that can never be assessed; carries every problem found, not just the first."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        codes = sorted({p.code for p in self.problems})
        super().__init__(
            codes[0] if len(codes) == 1 else "invalid_input",
            "; ".join(p.describe() for p in self.problems),
        )

    @property
    def codes(self) -> list[str]:
        return sorted({p.code for p in self.problems})


class BrokenBundle(NrfError):
    """Reference data that cannot be used, refused when it is loaded."""

    def __init__(self, message: str) -> None:
        super().__init__("broken_bundle", message)
