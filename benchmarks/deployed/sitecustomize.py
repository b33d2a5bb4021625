"""Run a process with the deployed image's packages: the benchmark's extras cannot be imported.

The benchmark environment has geopandas (and pandas) for its naive method; the worker image
and a planner's install have neither. pyogrio imports both whenever they are installed
(about 30 MB of private memory and 0.8 s in every process), so a worker measured here would
carry them while the deployed one does not. Put this folder first on PYTHONPATH of a process
(its spawned children inherit it) and those imports fail as they would there; pyogrio treats
them as absent.
"""

from __future__ import annotations

import importlib.abc
import sys

ABSENT = ("geopandas", "pandas")


class _Absent(importlib.abc.MetaPathFinder):
    """Finds nothing but refuses the benchmark-only packages and their submodules."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname.split(".", 1)[0] in ABSENT:
            raise ModuleNotFoundError(f"No module named {fullname!r} (not in the deployed image)")
        return None


sys.meta_path.insert(0, _Absent())
