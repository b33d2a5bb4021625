"""One geometry object per distinct outline across a bundle's small layers.

An EDP is drawn on its NN catchments' outlines, so the two layers store the same polygons.
Handing both over as one object lets a site test and cut each outline once for every layer
(``domain/site_outlines.py``) instead of once per layer; the object is prepared once, too.
Outlines are matched by a digest of their WKB, so only byte-identical ones are shared.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.adapters.boundary_data.geopackage_blob import header_length


class SharedOutlines:
    """Swaps each newly decoded outline for the first one of the same WKB, in any layer."""

    def __init__(self) -> None:
        self._by_digest: dict[bytes, shapely.Geometry] = {}
        self._lock = threading.Lock()

    def share(self, blobs: Sequence[bytes | None], geoms: NDArray[np.object_]) -> None:
        """Replace in place each of ``geoms`` by the outline already held for its blob's WKB."""
        digests = [
            None if b is None else hashlib.blake2b(b[header_length(b) :], digest_size=16).digest()
            for b in blobs
        ]
        with self._lock:
            for n, digest in enumerate(digests):
                if digest is not None and geoms[n] is not None:
                    geoms[n] = self._by_digest.setdefault(digest, geoms[n])
