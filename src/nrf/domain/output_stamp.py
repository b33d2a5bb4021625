"""What every output is stamped with: when it was made, from which input, for which quote.

A printed or filed copy has to say which run it came from, so the time (UTC), the input's
name and the quote reference travel with the results into every file and answer.
"""

from __future__ import annotations

from datetime import datetime

from attrs import frozen


@frozen
class OutputStamp:
    """When (UTC), from what input and for which quote reference (None for a local run)."""

    made_at: datetime
    input_name: str
    reference: str | None = None

    @property
    def made_at_text(self) -> str:
        """The time to the second in UTC, as people and spreadsheets read it."""
        return self.made_at.strftime("%Y-%m-%d %H:%M:%S UTC")
