"""The links an email gives to a job's stored files, and until when they work.

The results bucket is private, so the email cannot point at it: it carries links made for
the recipient (S3 presigned GET URLs, which SigV4 caps at seven days) and says, in words,
when they stop working, so a planner who clicks too late knows why and whom to ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

from attrs import frozen

# SigV4's ceiling on a presigned URL's lifetime (X-Amz-Expires), in seconds.
SIGV4_MAX_SECONDS = 7 * 24 * 3600
REPORT_NAME = "result.html"
# The files a finished job stores under these names (html_report.report_renderer); an email
# for a record saved without its run links these, as the files themselves are not listed.
STORED_NAMES = (
    "result.html",
    "result.json",
    "result.csv",
    "result.levy.csv",
    "result.geojson",
    "result.bng.geojson",
    "result.provenance.json",
)


@frozen(kw_only=True)
class ResultLinks:
    """Each stored file's link by name, the report's first, and when they stop (None: never)."""

    files: tuple[tuple[str, str], ...]
    expires_at: float | None = None

    def url(self, name: str) -> str | None:
        return dict(self.files).get(name)


class ResultLinker(Protocol):
    """Makes links a recipient can open to a finished job's stored files."""

    def links(self, job_id: str, names: Sequence[str], now: float) -> ResultLinks:
        """Links to ``names`` of ``job_id`` made at ``now`` (epoch seconds, UTC)."""
        ...


def expiry_words(links: ResultLinks) -> str:
    """The sentence an email carries about the links' lifetime, in UTC, to the minute."""
    if links.expires_at is None:
        return "These links do not expire."
    # Floored to the minute: the stated time is never later than the real one.
    when = datetime.fromtimestamp(links.expires_at // 60 * 60, UTC)
    return (
        f"These links work until {when:%d %B %Y %H:%M} UTC. After that, ask us for new ones, "
        "quoting your reference."
    )


def file_lines(links: ResultLinks) -> str:
    """One bullet per stored file: its name and its link."""
    return "\n".join(f"* {name}: {url}" for name, url in links.files)
