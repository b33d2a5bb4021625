"""Defra's boundary-check failure codes, and nrf's own code for each same problem.

Defra's front end and backend read a failed boundary check by a code from one shared list
(`@defra/nrf-library` 1.9.0, `BOUNDARY_ERRORS`), and show their own words for it. nrf names
problems more finely (`coordinates_look_like_degrees`, `zero_area`, ...) and keeps those codes
and its messages; wherever one of its codes is a problem Defra's list names, that code is
given beside it, so a client built for Defra's codes reads nrf's answers unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

# The whole 1.9.0 list: upload, geometry and service codes.
DEFRA_CODES = frozenset(
    {
        "file_size_too_large",
        "zip_entry_too_large",
        "zip_total_too_large",
        "upload_not_ready",
        "upload_file_missing",
        "upload_status_check_failed",
        "s3_download_failed",
        "unsafe_filename",
        "invalid_zip",
        "zip_too_many_files",
        "zip_nested_zip",
        "zip_unsafe_path",
        "zip_missing_shapefile",
        "zip_missing_shapefile_parts",
        "boundary_file_not_found_in_zip",
        "zip_ambiguous_filename",
        "unsupported_file_type",
        "unreadable_geometry_file",
        "file_contains_virus",
        "file_rejected_by_uploader",
        "unsupported_crs",
        "missing_crs",
        "invalid_geometry",
        "unsupported_geometry_type",
        "self_intersecting_geometry",
        "geometry_has_holes",
        "duplicate_vertices",
        "unclosed_ring",
        "no_polygon_found",
        "impact_assessor_unreachable",
        "impact_assessor_bad_response",
        "boundary_check_failed",
    }
)
# Defra's impact assessor also answers this one, which the 1.9.0 list does not hold.
COORDINATES_OUT_OF_RANGE = "coordinates_out_of_range"

# nrf's code -> Defra's code for the same problem (codes already in Defra's list map to
# themselves and are not repeated here).
SAME_PROBLEM = {
    "file_too_large": "file_size_too_large",
    "body_too_large": "file_size_too_large",
    "read_too_large": "file_size_too_large",
    "zip_no_boundary_file": "zip_missing_shapefile",
    "zip_ambiguous": "zip_ambiguous_filename",
    "missing_shapefile_parts": "zip_missing_shapefile_parts",
    "unreadable_file": "unreadable_geometry_file",
    "empty_file": "unreadable_geometry_file",
    "not_json": "unreadable_geometry_file",
    "missing_file": "upload_file_missing",
    "null_geometry": "invalid_geometry",
    "empty_geometry": "invalid_geometry",
    "non_finite_coordinates": "invalid_geometry",
    "zero_area": "invalid_geometry",
    "coordinates_look_like_degrees": COORDINATES_OUT_OF_RANGE,
    "outside_great_britain": COORDINATES_OUT_OF_RANGE,
}


def defra_code(code: str) -> str | None:
    """Defra's code for the problem nrf calls ``code``, or None where its list has none."""
    if code in DEFRA_CODES:
        return code
    return SAME_PROBLEM.get(code)


def defra_codes(codes: Iterable[str]) -> tuple[str, ...]:
    """Defra's codes for ``codes``, each once, in order; those it has no code for left out."""
    found = (defra_code(c) for c in codes)
    return tuple(dict.fromkeys(c for c in found if c is not None))
