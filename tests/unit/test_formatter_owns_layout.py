"""The formatter owns layout: no line opts out of it with a skip marker.

A hand-kept layout drifts from the formatter's and hides long lines; a coordinate table
that reads better by hand may be fenced with ``# fmt: off`` / ``# fmt: on`` instead.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = "fmt: " + "skip"  # spelt in two parts so this file does not match itself


def skipped_lines(root: Path, folders: list[Path]) -> list[str]:
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if MARKER in line:
                    found.append(f"{path.relative_to(root)}:{number}")
    return found


def test_no_line_opts_out_of_the_formatter() -> None:
    folders = [ROOT / name for name in ("src", "tests", "benchmarks", "scripts")]
    assert skipped_lines(ROOT, [f for f in folders if f.is_dir()]) == []


def test_the_check_finds_a_planted_marker(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(f"x = [1,2]  # {MARKER}\n")
    assert skipped_lines(tmp_path, [tmp_path]) == ["planted.py:1"]
