"""A file's SHA-256 is computed by one helper, whoever asks: the build, publish and fetch."""

from pathlib import Path

from nrf.adapters.boundary_data import bundle_digest, bundle_fetch
from nrf.bundles import provenance, publish

# SHA-256 of b"abc", the FIPS 180-2 example (appendix B.1).
ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_file_hashes_to_its_published_digest(tmp_path: Path) -> None:
    path = tmp_path / "abc"
    path.write_bytes(b"abc")
    assert bundle_digest.sha256_of(path) == ABC
    assert bundle_digest.file_sha256(path) == ABC  # small: hashed now, no sidecar


def test_the_build_publish_and_fetch_share_the_one_helper() -> None:
    helper = bundle_digest.sha256_of
    assert (provenance.sha256_of, publish.sha256_of, bundle_fetch.sha256_of) == (helper,) * 3
