"""LocalResultLinks: where a local result store's files are, as a URL under a configured
base (a web server in front of the folder) or else as the file's own path on this machine."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from nrf.domain.jobs import validate_job_id
from nrf.domain.result_links import ResultLinks


class LocalResultLinks:
    """``<base_url>/<job_id>/<name>``, or ``<root>/<job_id>/<name>`` without a base; no expiry."""

    def __init__(self, root: str | os.PathLike[str], base_url: str = "") -> None:
        self._root, self._base = Path(root), base_url.rstrip("/")

    def links(self, job_id: str, names: Sequence[str], now: float) -> ResultLinks:
        folder = validate_job_id(job_id)
        if self._base:
            files = tuple((n, f"{self._base}/{folder}/{validate_job_id(n)}") for n in names)
        else:
            where = self._root.absolute() / folder
            files = tuple((n, str(where / validate_job_id(n))) for n in names)
        return ResultLinks(files=files, expires_at=None)
