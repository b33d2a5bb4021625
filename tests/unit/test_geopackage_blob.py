"""GeoPackage geometry blobs: header lengths, byte orders, envelopes, empties and bad blobs."""

from __future__ import annotations

import struct

import pytest
import shapely
from shapely.geometry import Polygon, box

from nrf.adapters.boundary_data.geopackage_blob import (
    BlobError,
    decode_blobs,
    encode_blob,
    encode_geometries,
    header_length,
    is_empty,
    srs_id,
)

SQUARE = box(0, 0, 10, 10)
WKB = shapely.to_wkb(SQUARE, byte_order=1)


def test_plain_blob_is_magic_version_flags_srs_then_wkb() -> None:
    blob = encode_blob(WKB, 27700)
    assert blob[:8] == b"GP\x00\x01" + struct.pack("<i", 27700)
    assert blob[8:] == WKB
    assert header_length(blob) == 8
    assert srs_id(blob) == 27700


def test_xy_envelope_adds_32_bytes_in_minx_maxx_miny_maxy_order() -> None:
    blob = encode_blob(WKB, 27700, (1.0, 2.0, 3.0, 4.0))
    assert blob[3] == 0b0000_0011
    assert header_length(blob) == 40
    assert struct.unpack_from("<4d", blob, 8) == (1.0, 2.0, 3.0, 4.0)
    assert blob[40:] == WKB  # the WKB body follows the 40-byte header


@pytest.mark.parametrize(("indicator", "size"), [(0, 8), (1, 40), (2, 56), (3, 56), (4, 72)])
def test_big_endian_headers_of_every_envelope_size(indicator: int, size: int) -> None:
    envelope = b"\x00" * (size - 8)
    blob = b"GP\x00" + bytes([indicator << 1]) + struct.pack(">i", 27700) + envelope + WKB
    assert header_length(blob) == size
    assert srs_id(blob) == 27700
    assert decode_blobs([blob])[0].equals(SQUARE)


def test_decode_many_with_null_and_empty() -> None:
    empty = b"GP\x00" + bytes([0b0001_0001]) + struct.pack("<i", 27700) + WKB
    assert is_empty(empty)
    geoms = decode_blobs([encode_blob(WKB, 27700), None, empty])
    assert geoms[0].equals(SQUARE)
    assert geoms[1] is None and geoms[2] is None


def test_encode_geometries_round_trips_and_keeps_none() -> None:
    tri = Polygon([(0, 0), (4, 0), (0, 3)])
    blobs = encode_geometries([SQUARE, None, tri], 27700, envelope=True)
    assert blobs[1] is None
    assert blobs[2] is not None
    assert struct.unpack_from("<4d", blobs[2], 8) == (0.0, 4.0, 0.0, 3.0)
    back = decode_blobs(blobs)
    assert back[0].equals(SQUARE) and back[1] is None and back[2].equals(tri)


def test_encoded_empty_geometry_sets_the_empty_flag() -> None:
    (blob,) = encode_geometries([Polygon()], 27700)
    assert blob is not None and is_empty(blob)


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"XX\x00\x01\x00\x00\x00\x00" + WKB, "magic"),
        (b"GP\x01\x01\x00\x00\x00\x00" + WKB, "version"),
        (b"GP\x00\x0b\x00\x00\x00\x00" + WKB, "envelope indicator 5"),
        (b"GP\x00\x21\x00\x00\x00\x00" + WKB, "extended"),
        (b"GP\x00\x09\x00\x00\x00\x00", "shorter"),
    ],
)
def test_bad_blobs_are_refused(blob: bytes, message: str) -> None:
    with pytest.raises(BlobError, match=message):
        header_length(blob)


def test_a_blob_too_short_for_its_flags_is_refused_as_no_geopackage_blob() -> None:
    good = encode_geometries([SQUARE, SQUARE], 27700)
    with pytest.raises(BlobError, match="magic"):
        decode_blobs([good[0], b"GP\x00", good[1]])
