"""Processes that measure nrf run with the deployed packages, not the benchmark's extras."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# First on PYTHONPATH, its sitecustomize makes geopandas and pandas unimportable, as in the
# worker image and a planner's install (pyogrio would otherwise import both into every process).
DEPLOYED_IMPORTS = Path(__file__).resolve().parent / "deployed"


def deployed_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with DEPLOYED_IMPORTS first on PYTHONPATH (children inherit it)."""
    path = os.pathsep.join(p for p in (str(DEPLOYED_IMPORTS), env.get("PYTHONPATH", "")) if p)
    return {**env, "PYTHONPATH": path}
