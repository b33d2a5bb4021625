"""scripts/bootstrap re-syncs only when the lock changes or more is asked than is installed."""

import hashlib
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp_path: Path) -> Path:
    """The bootstrap script with the real lock and pyproject, a recording `scripts/uv`."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "bootstrap", tmp_path / "scripts" / "bootstrap")
    for name in ("uv.lock", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    fake_uv = tmp_path / "scripts" / "uv"
    fake_uv.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/../uv-calls"\n')
    fake_uv.chmod(0o755)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "python").chmod(0o755)
    return tmp_path


def _lock_hash(root: Path) -> str:
    both = (root / "uv.lock").read_bytes() + (root / "pyproject.toml").read_bytes()
    return hashlib.sha256(both).hexdigest()


def _bootstrap(root: Path, *args: str) -> list[str]:
    """Run it; the uv calls it made."""
    subprocess.run([root / "scripts" / "bootstrap", *args], check=True, capture_output=True)
    calls = root / "uv-calls"
    return calls.read_text().splitlines() if calls.exists() else []


def test_asking_for_less_than_is_installed_does_not_resync(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / ".venv" / ".nrf-installed").write_text(f"{_lock_hash(root)}\n--extra bench\n")
    assert _bootstrap(root) == []


def test_asking_for_more_than_is_installed_syncs_and_records_it(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / ".venv" / ".nrf-installed").write_text(f"{_lock_hash(root)}\n\n")
    calls = _bootstrap(root, "--extra", "bench")
    assert len(calls) == 1 and calls[0].endswith("--extra test --extra bench")
    assert (root / ".venv" / ".nrf-installed").read_text() == f"{_lock_hash(root)}\n--extra bench\n"
    assert len(_bootstrap(root, "--extra", "bench")) == 1


def test_a_changed_lock_syncs(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / ".venv" / ".nrf-installed").write_text("0" * 64 + "\n\n")
    assert len(_bootstrap(root)) == 1
    assert (root / ".venv" / ".nrf-installed").read_text().splitlines()[0] == _lock_hash(root)
