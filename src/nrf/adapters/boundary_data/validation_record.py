"""Remember which layers of a bundle were found valid, keyed by the bundle's SHA-256.

Checking every geometry of the small layers costs more than the rest of opening a realistic
bundle (thousands of detailed outlines). A bundle whose exact bytes were checked before, by
this reader or by the build's quality gate, need not be checked again: the record beside it
names the digest it was made for, and the digest comes from the digest sidecar, which is
trusted only for the file's very size and mtime. No sidecar, another digest, another
checker version, or an unreadable record: every geometry is checked, as for any unknown
bundle. Writing the record is best effort (a read-only directory just means checking again).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from nrf.adapters.boundary_data.bundle_digest import remembered

SUFFIX = ".validated.json"
# Bump when the checks change: older records then no longer vouch for anything.
CHECKS_VERSION = 1


def record_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def trusted_layers(path: Path) -> frozenset[str]:
    """Layers already found valid in exactly this file; empty when nothing can be trusted."""
    digest = remembered(path)
    if digest is None:
        return frozenset()
    try:
        data = json.loads(record_path(path).read_text())
    except (OSError, ValueError):
        return frozenset()
    if (
        not isinstance(data, dict)
        or data.get("sha256") != digest
        or data.get("checks_version") != CHECKS_VERSION
        or not isinstance(data.get("layers"), list)
    ):
        return frozenset()
    return frozenset(str(layer) for layer in data["layers"])


def record_valid(path: Path, layers: Iterable[str], sha256: str | None = None) -> bool:
    """Note that ``layers`` of ``path`` passed every check; True if the record was written.

    Without ``sha256`` the digest sidecar's is used, and nothing is written when there is
    none (hashing a national bundle here would cost seconds). The bundle builder, which
    knows the digest of what it just checked, passes it.
    """
    digest = sha256 or remembered(path)
    if digest is None:
        return False
    merged = sorted(set(layers) | (trusted_layers(path) if sha256 is None else set()))
    data = {"sha256": digest, "checks_version": CHECKS_VERSION, "layers": merged}
    with contextlib.suppress(OSError):
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as handle:
                json.dump(data, handle)
            os.replace(temp, record_path(path))
            return True
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)
    return False
