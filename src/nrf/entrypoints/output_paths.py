"""`nrf assess --output` checked before any work: a known type, not an input, a folder we can write.

A batch of thousands of sites takes minutes; finding out afterwards that ``res.xlsx`` is not
a type we write, that the folder is read-only, or that the planner's own boundary file is
about to be overwritten wastes the run (or the boundary file). Everything that can be known
from the paths alone is checked when the arguments are read.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from nrf.adapters.atomic_files import create_temporary
from nrf.adapters.outputs.output_names import SUFFIXES, OutputNotWritable, output_paths


def output_argument(text: str) -> Path:
    """argparse ``type=``: the path, if its extension is one we write (else usage error, 2)."""
    path = Path(text)
    if path.suffix.lower() not in SUFFIXES:
        shown = path.suffix or "no extension"
        raise argparse.ArgumentTypeError(
            f"{text!r} has {shown}; the output must end in {', '.join(SUFFIXES)} "
            "(a .csv output also writes a .levy.csv that Excel opens)"
        )
    return path


def clashing_output(output: Path, source: Path) -> Path | None:
    """The first file to be written that is the input file itself, else None.

    Only the input can clash: the other files read with it (a shapefile's .shx, .dbf, .prj)
    never end in an output's suffix, and a folder's other files are not read.
    """
    for target in output_paths(output):
        if _same_file(target, source):
            return target
    return None


def check_writable(output: Path) -> None:
    """Raise OutputNotWritable unless a file can be created where ``output`` will be.

    A missing folder is fine (it is created), but the nearest existing one must be a folder
    we may write in: a file is created and removed there to ask the operating system itself
    (permission bits do not tell the whole story on read-only mounts, /proc or network shares).
    """
    folder = output.parent if str(output.parent) else Path(".")
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputNotWritable(output, f"{str(existing)!r} is a file, not a folder")
    try:
        fd, probe = create_temporary(existing, output.name)
    except OSError as exc:
        raise OutputNotWritable(output, exc.strerror or str(exc)) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare the names instead
        return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))
