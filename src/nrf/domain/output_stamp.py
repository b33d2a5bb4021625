"""What every output is stamped with: when it was made, from which input, for which quote.

A printed or filed copy has to say which run it came from, so the time (UTC), the input's
name and the quote reference travel with the results into every file and answer. Each is a
label echoed in all of them, so it is plain text as a site's is (a CR/LF in a reference
started a row of the levy table) cut to the 500 characters allowed of any text (an upload's
name is refused before that if a part of it is over 255: ``unsafe_filename``).
"""

from __future__ import annotations

from datetime import date, datetime

from attrs import field, frozen

from nrf.domain.feature_properties import MAX_TEXT_CHARS
from nrf.domain.plain_text import plain_text


def label(name: str) -> str:
    """``name`` as plain text, whole if it fits the text limit, else its start and an
    ellipsis, 500 in all."""
    read = 4 * MAX_TEXT_CHARS  # enough to fill the label whatever controls it drops
    shown = plain_text(name[:read])
    if len(shown) > MAX_TEXT_CHARS or len(name) > read:
        return shown[: MAX_TEXT_CHARS - 1] + "\u2026"
    return shown


def optional_label(name: str | None) -> str | None:
    """A reference as ``label`` keeps it; none (or blank) stays None."""
    shown = label(name) if name else None
    return shown or None


@frozen(kw_only=True)
class OutputStamp:
    """When (UTC), from what input and for which quote reference (None when none was given),
    and the day the levy was priced on (so a refused site's row still says which day)."""

    made_at: datetime
    input_name: str = field(converter=label)
    reference: str | None = field(default=None, converter=optional_label)
    quote_date: date | None = None

    @property
    def made_at_text(self) -> str:
        """The time to the second in UTC, as people and spreadsheets read it."""
        return self.made_at.strftime("%Y-%m-%d %H:%M:%S UTC")
