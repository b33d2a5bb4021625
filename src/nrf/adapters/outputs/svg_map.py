"""A site map drawn on the server as SVG in British National Grid: no tiles, scripts or fonts.

Everything is clipped to the map's frame before it is drawn, so a works catchment the size of a
county costs no more than its corner in view, and the page stays small enough to print.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from html import escape

import numpy as np
import shapely

from nrf.domain.model import Boundary, CoefficientPolygon, SiteReferenceData

WIDTH = 640.0
# Uplift classes (N kg/ha/yr, residential minus current land use) and their fills: pale for a
# fall, deepening orange for a rise; a printer in grey still tells them apart by lightness.
UPLIFT_CLASSES = (
    (-math.inf, 0.0, "#dfeee0"),
    (0.0, 5.0, "#fde9c8"),
    (5.0, 15.0, "#f9c07a"),
    (15.0, 30.0, "#ef8a3c"),
    (30.0, math.inf, "#c4561c"),
)
# Excluded areas (a buffered SSSI: no levy there): purple, dashed, so no uplift fill is read
# as one, in colour or in grey.
EXCLUDED_FILL, EXCLUDED_STROKE = "#912b88", "#4c2c92"
# The map's heading (the EDPs) stays left of the north arrow: lines of at most this many
# characters of 20 px Arial (a wide character is about 12 px), three lines at most.
HEADING_CHARS, HEADING_LINES = 44, 3


class Frame:
    """Map metres to SVG pixels: x to the right, north up (SVG's y runs down)."""

    def __init__(self, bounds: tuple[float, float, float, float], width: float = WIDTH) -> None:
        minx, miny, maxx, maxy = bounds
        span = max(maxx - minx, maxy - miny, 1.0)
        # Square frame around the centre: the same scale both ways, as on any paper map.
        cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
        self.minx, self.maxy, self.span = cx - span / 2, cy + span / 2, span
        self.box = (self.minx, self.maxy - span, self.minx + span, self.maxy)
        self.width = width
        self.scale = width / span  # pixels per metre

    def pixel(self, x: float, y: float) -> tuple[float, float]:
        """The SVG position of a point in metres."""
        return (x - self.minx) * self.scale, (self.maxy - y) * self.scale

    def path(self, geometry: shapely.Geometry) -> str:
        """An SVG path (even-odd rings) for the polygonal parts of ``geometry`` in the frame."""
        clipped = shapely.clip_by_rect(geometry, *self.box)
        parts = []
        for polygon in _polygons(clipped):
            for ring in (polygon.exterior, *polygon.interiors):
                xy = np.asarray(ring.coords)[:, :2]
                if len(xy) < 3:
                    continue
                px = (xy[:, 0] - self.minx) * self.scale
                py = (self.maxy - xy[:, 1]) * self.scale
                points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(px, py, strict=True))
                parts.append(f"M{points}Z")
        return "".join(parts)


def frame_for(boundary: Boundary, margin: float = 0.6, minimum: float = 250.0) -> Frame:
    """A frame around the site with room to see what it touches (at least ``minimum`` m)."""
    minx, miny, maxx, maxy = boundary.bounds
    pad = max((maxx - minx) * margin, (maxy - miny) * margin, minimum / 2)
    return Frame((minx - pad, miny - pad, maxx + pad, maxy + pad))


def uplift_fill(coefficient: CoefficientPolygon) -> str | None:
    """The fill of a coefficient piece by its N uplift per hectare; None with no N values."""
    if coefficient.n_resi_coeff is None or coefficient.lu_curr_n_coeff is None:
        return None
    uplift = coefficient.n_resi_coeff - coefficient.lu_curr_n_coeff
    return next(fill for low, high, fill in UPLIFT_CLASSES if low <= uplift < high)


def site_map(
    boundary: Boundary,
    reference: SiteReferenceData,
    *,
    nn_names: Sequence[str],
    wwtw_id: int | None,
    label: str,
    edp_names: Sequence[str] = (),
) -> str:
    """One site: coefficient pieces shaded by uplift, its NN catchment(s), its works catchment.

    Catchment names are printed on the map (a printed page has no hover), each inside the
    part of its catchment in view and off the site where it can be; the EDP names head the map.
    """
    frame = frame_for(boundary)
    layers = []
    for coefficient in reference.coefficients:
        fill = uplift_fill(coefficient)
        piece = shapely.intersection(coefficient.geometry, boundary)
        if fill is not None and not piece.is_empty and piece.area > 0:
            layers.append(_shape(frame, piece, "piece", f'fill="{fill}" stroke="#b07a3a"'))
    works = [z.geometry for z in reference.wwtw_catchments if z.value == wwtw_id]
    if works:
        style = 'fill="none" stroke="#1d70b8" stroke-width="2" stroke-dasharray="8 4"'
        layers.insert(0, _shape(frame, shapely.union_all(works), "works", style))
    wanted = set(nn_names)
    catchments = [c for c in reference.nn_catchments if c.n2k_site_name in wanted]
    for catchment in catchments:
        style = 'fill="#00703c" fill-opacity="0.08" stroke="#00703c" stroke-width="2.5"'
        layers.insert(
            0,
            _shape(frame, catchment.geometry, "nn-catchment", style, title=catchment.n2k_site_name),
        )
    excluded = 'fill="{f}" fill-opacity="0.25" stroke="{s}" stroke-width="2" stroke-dasharray="3 3"'
    for area in reference.excluded_areas:
        style = excluded.format(f=EXCLUDED_FILL, s=EXCLUDED_STROKE)
        name = area.name or "an unnamed excluded area"
        layers.append(_shape(frame, area.geometry, "excluded-area", style, title=name))
    site = 'fill="none" stroke="#d4351c" stroke-width="3"'
    layers.append(_shape(frame, boundary, "site", site, element_id="site-boundary"))
    for catchment in catchments:
        layers.append(_area_label(frame, catchment.geometry, boundary, catchment.n2k_site_name))
    if edp_names:
        layers.append(_heading("EDP: " + "; ".join(edp_names)))
    return _svg(frame, layers, label)


def heading_lines(text: str) -> list[str]:
    """``text`` in lines that end left of the north arrow: whole words, the last one cut."""
    lines: list[str] = []
    for word in text.split():
        while len(word) > HEADING_CHARS:  # a word longer than a line is broken
            lines.append(word[:HEADING_CHARS])
            word = word[HEADING_CHARS:]
        if lines and len(lines[-1]) + 1 + len(word) <= HEADING_CHARS:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > HEADING_LINES:
        lines = lines[:HEADING_LINES]
        lines[-1] = lines[-1][: HEADING_CHARS - 1] + "\u2026"
    return lines


def _heading(text: str) -> str:
    spans = "".join(
        f'<tspan x="16" dy="{0 if n == 0 else 22}">{escape(line)}</tspan>'
        for n, line in enumerate(heading_lines(text))
    )
    return (
        '<text data-role="edp-label" x="16" y="28" text-anchor="start" font-size="20" '
        'font-family="Arial,Helvetica,sans-serif" fill="#0b0c0c" stroke="#ffffff" '
        f'stroke-width="3" paint-order="stroke"><title>{escape(text)}</title>{spans}</text>'
    )


def _label(x: float, y: float, text: str, role: str, anchor: str = "middle", size: int = 20) -> str:
    # A white halo under dark text keeps it readable over any fill, on screen and on paper.
    return (
        f'<text data-role="{role}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" '
        f'font-size="{size}" font-family="Arial,Helvetica,sans-serif" fill="#0b0c0c" '
        'stroke="#ffffff" stroke-width="3" paint-order="stroke">'
        f"{escape(text)}</text>"
    )


def _area_label(
    frame: Frame, geometry: shapely.Geometry, avoid: shapely.Geometry, text: str
) -> str:
    seen = shapely.clip_by_rect(geometry, *frame.box)
    if seen.is_empty:
        return ""
    spare = shapely.difference(seen, avoid)
    spot = shapely.point_on_surface(spare if not spare.is_empty else seen)
    x, y = frame.pixel(spot.x, spot.y)
    return _label(min(max(x, 100.0), frame.width - 100.0), y, text, "nn-label")


def overview_map(sites: Iterable[tuple[int, Boundary]], label: str) -> str:
    """Every site of a batch on one frame, each labelled with its site number (RLB id), so a
    planner sees where the batch lies and which blob is which site."""
    numbered = list(sites)
    geoms = [g for _, g in numbered]
    frame = frame_for(shapely.union_all(geoms).envelope, margin=0.05)
    style = 'fill="#d4351c" fill-opacity="0.5" stroke="#d4351c" stroke-width="1"'
    layers = [_shape(frame, g, "site", style) for g in geoms]
    for rlb_id, geom in numbered:
        spot = shapely.point_on_surface(geom)
        x, y = frame.pixel(spot.x, spot.y)
        layers.append(_label(x, y - 4, str(rlb_id), "site-label", size=11))
    return _svg(frame, layers, label)


def _shape(
    frame: Frame,
    geometry: shapely.Geometry,
    role: str,
    style: str,
    *,
    title: str | None = None,
    element_id: str | None = None,
) -> str:
    d = frame.path(geometry)
    if not d:
        return ""
    ident = f' id="{element_id}"' if element_id else ""
    inner = f"<title>{escape(title)}</title>" if title else ""
    return f'<path{ident} data-role="{role}" d="{d}" fill-rule="evenodd" {style}>{inner}</path>'


def _svg(frame: Frame, layers: list[str], label: str) -> str:
    w = frame.width
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="map" viewBox="0 0 {w:.0f} {w:.0f}" '
        f'width="{w:.0f}" height="{w:.0f}" role="img" aria-label="{escape(label)}">'
        f'<rect width="{w:.0f}" height="{w:.0f}" fill="#ffffff" stroke="#b1b4b6"/>'
        + "".join(layers)
        + _scale_bar(frame)
        + _north_arrow(frame)
        + "</svg>"
    )


def nice_length(span_m: float) -> float:
    """A round length (1, 2 or 5 × 10ⁿ m) of at most a quarter of the frame."""
    target = span_m / 4
    power = 10 ** math.floor(math.log10(target))
    return max(step * power for step in (1, 2, 5) if step * power <= target)


def _scale_bar(frame: Frame) -> str:
    metres = nice_length(frame.span)
    px = metres * frame.scale
    text = f"{metres / 1000:g} km" if metres >= 1000 else f"{metres:g} m"
    y = frame.width - 20
    return (
        f'<g data-role="scale-bar"><rect x="16" y="{y - 8:.0f}" width="{px:.1f}" height="6" '
        f'fill="#0b0c0c"/><text x="16" y="{y + 14:.0f}" font-size="12" '
        f'font-family="sans-serif">{text}</text></g>'
    )


def _north_arrow(frame: Frame) -> str:
    x = frame.width - 30
    return (
        f'<g data-role="north-arrow"><path d="M{x},14 L{x + 9},40 L{x},34 L{x - 9},40 Z" '
        f'fill="#0b0c0c"/><text x="{x}" y="54" font-size="13" text-anchor="middle" '
        'font-family="sans-serif">N</text></g>'
    )


def _polygons(geometry: shapely.Geometry) -> list[shapely.Polygon]:
    if geometry is None or geometry.is_empty:
        return []
    if isinstance(geometry, shapely.Polygon):
        return [geometry]
    if hasattr(geometry, "geoms"):
        return [p for part in geometry.geoms for p in _polygons(part)]
    return []
