"""The data files shipped inside the package: the synthetic demo bundle and the sample sites.

Imported light (importlib.resources only), so a process that never opens a bundle, such as
the supervisor, can name the default one without the geo stack.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled_reference_data() -> Path:
    """The synthetic Norfolk demo bundle shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "synthetic-norfolk.gpkg"))


def bundled_samples() -> Path:
    """The Open Government Licence sample boundaries shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "samples" / "defra-rlb-samples"))
