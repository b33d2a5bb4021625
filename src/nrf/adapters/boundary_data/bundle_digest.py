"""SHA-256 of a bundle file, remembered in a sidecar keyed by size and mtime."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

SUFFIX = ".sha256.json"
_CHUNK = 1 << 22
# Below this a file hashes in tens of milliseconds: no sidecar (nor clutter beside it).
SIDECAR_MIN_BYTES = 64 << 20


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def sha256_of(path: Path) -> str:
    """The file's digest, hashed now in full: the one place a file is hashed (no sidecar)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def remembered(path: Path) -> str | None:
    """The sidecar's digest when it was written for this very size and mtime, else None."""
    try:
        data = json.loads(sidecar_path(path).read_text())
        stamp = _stamp(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or {k: data.get(k) for k in stamp} != stamp:
        return None
    digest = data.get("sha256")
    if isinstance(digest, str) and len(digest) == 64:
        return digest
    return None


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The file's digest: from a valid sidecar, else hashed now and remembered if possible.

    Hashing a 1.4 GB national bundle takes seconds, which a job must not pay; the sidecar
    is written only when the file did not change while it was read, so it never lies.
    """
    target = Path(path)
    before = _stamp(target)
    if before["size"] < SIDECAR_MIN_BYTES:
        return sha256_of(target)
    cached = remembered(target)
    if cached is not None:
        return cached
    digest = sha256_of(target)
    if _stamp(target) == before:
        _write_sidecar(target, {**before, "sha256": digest})
    return digest


def stamped_digest(path: str | os.PathLike[str], digest: str) -> str:
    """``digest`` with the file's size and mtime, to hand to another process of this task."""
    stamp = _stamp(Path(path))
    return f"{digest}:{stamp['size']}:{stamp['mtime_ns']}"


def unchanged_digest(path: str | os.PathLike[str], verified: str) -> str | None:
    """The digest of a ``stamped_digest`` text while the file keeps that size and mtime, else None
    (the same rule as the sidecar: a file changed since is hashed again)."""
    digest, _, rest = verified.partition(":")
    try:
        return digest if rest == "{size}:{mtime_ns}".format(**_stamp(Path(path))) else None
    except OSError:
        return None


def remember(path: str | os.PathLike[str], digest: str) -> None:
    """Record a digest just computed in full (a verified download), so readers skip hashing."""
    target = Path(path)
    stamp = _stamp(target)
    if stamp["size"] >= SIDECAR_MIN_BYTES:
        _write_sidecar(target, {**stamp, "sha256": digest})


def _write_sidecar(path: Path, data: dict[str, object]) -> None:
    # Best effort: a read-only bundle directory just means hashing again next time.
    with contextlib.suppress(OSError):
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as handle:
                json.dump(data, handle)
            os.replace(temp, sidecar_path(path))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
