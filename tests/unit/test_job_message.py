"""Queue message parsing: both schemas, the SNS envelope, and every way a body can be bad."""

import json
from importlib import resources

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nrf.adapters.job_queue.job_message import InvalidJobMessage, parse_job_message
from nrf.domain.job_request import allowed_uri

SQUARE = {
    "type": "Polygon",
    "coordinates": [
        [
            [582814.93, 328188.89],
            [582808.89, 328203.73],
            [582824.96, 328210.17],
            [582830.09, 328197.0],
            [582814.93, 328188.89],
        ]
    ],
}
CANONICAL = {
    "job_id": "job-0001",
    "assessment_type": "nutrient",
    "development": {"name": "Old White Horse", "dwellings": 25, "dwelling_category": "housing"},
    "boundary": {**SQUARE, "crs": {"type": "name", "properties": {"name": "EPSG:27700"}}},
    "rules": "iat-2025-10",
    "email": "planner@example.gov.uk",
    "trace_id": "abc",
}
DEFRA = {
    "reference": "NRF-000001",
    "boundaryGeojson": {"boundaryGeometryOriginal": SQUARE, "intersectingEdps": []},
    "developmentTypes": ["housing"],
    "housingUnits": 25,
    "traceId": "trace-1",
}
SCHEMA = json.loads(
    (resources.files("nrf") / "schemas" / "job-message.schema.json").read_text(encoding="utf-8")
)


def codes(body: str | bytes) -> list[str]:
    with pytest.raises(InvalidJobMessage) as caught:
        parse_job_message(body)
    return caught.value.codes


def test_canonical_message() -> None:
    job = parse_job_message(json.dumps(CANONICAL))
    assert (job.job_id, job.dwellings, job.dwelling_category, job.rules) == (
        "job-0001",
        25,
        "housing",
        "iat-2025-10",
    )
    assert job.email == "planner@example.gov.uk" and job.trace_id == "abc"
    assert job.boundary == CANONICAL["boundary"] and job.boundary_uri is None


def test_defra_message_inside_an_sns_envelope() -> None:
    body = json.dumps({"Type": "Notification", "Message": json.dumps(DEFRA)})
    job = parse_job_message(body)
    assert (job.job_id, job.development_name, job.dwellings) == ("NRF-000001", "NRF-000001", 25)
    assert job.dwelling_category == "housing" and job.trace_id == "trace-1"
    # Documented as British National Grid: the CRS is made explicit for the reader.
    assert job.boundary is not None
    assert job.boundary["crs"]["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
    assert job.schema == "defra-quote"


def test_examples_match_the_published_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for example in (CANONICAL, DEFRA, {"Type": "Notification", "Message": json.dumps(DEFRA)}):
        validator.validate(example)
    assert not validator.is_valid({**DEFRA, "reference": "NRF-12"})


def test_housing_units_go_up_to_the_backends_maximum() -> None:
    # Defra's backend takes residentialBuildingCount up to 999,999; so do nrf's job reader
    # and the published message schema.
    body = {**DEFRA, "housingUnits": 999_999}
    assert parse_job_message(json.dumps(body)).dwellings == 999_999
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert validator.is_valid(body)
    assert not validator.is_valid({**DEFRA, "housingUnits": 1_000_000})


def test_defra_message_without_housing_units_is_refused() -> None:
    body = {k: v for k, v in DEFRA.items() if k != "housingUnits"}
    with pytest.raises(InvalidJobMessage) as caught:
        parse_job_message(json.dumps(body))
    assert caught.value.codes == ["missing_field"]
    assert caught.value.job_id == "NRF-000001"  # known, so the failure can be recorded


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("not json", ["not_json"]),
        ('{"job_id": ', ["not_json"]),
        (b"\xff\xfe", ["not_json"]),
        ('{"job_id": NaN}', ["not_json"]),
        ("[1, 2]", ["unknown_message_schema"]),
        ('{"hello": 1}', ["unknown_message_schema"]),
        ("[" * 100 + "]" * 100, ["json_too_deep"]),
        ('{"Type": "Notification", "Message": "{"}', ["not_json"]),
        (json.dumps({**DEFRA, "reference": "NRF-12"}), ["invalid_field"]),
        (json.dumps({**DEFRA, "housingUnits": -1}), ["invalid_dwellings"]),
        (json.dumps({**DEFRA, "housingUnits": 2.5}), ["invalid_dwellings"]),
        (json.dumps({**DEFRA, "housingUnits": True}), ["invalid_dwellings"]),
        (json.dumps({**DEFRA, "housingUnits": 1_000_000}), ["invalid_dwellings"]),  # > 999,999
        (json.dumps({**CANONICAL, "job_id": "../etc"}), ["invalid_job_id"]),
        (json.dumps({**CANONICAL, "assessment_type": "gcn"}), ["unsupported_assessment_type"]),
        (json.dumps({**CANONICAL, "email": "not-an-email"}), ["invalid_email"]),
        (json.dumps({**CANONICAL, "boundary_uri": "s3://bucket/key"}), ["missing_field"]),
        (json.dumps({k: v for k, v in CANONICAL.items() if k != "boundary"}), ["missing_field"]),
        (
            json.dumps({**CANONICAL, "boundary": None, "boundary_uri": "http://x/y"}),
            ["invalid_boundary_uri"],
        ),
    ],
)
def test_bad_bodies_get_stable_codes(body: str, expected: list[str]) -> None:
    assert codes(body) == expected


def test_bodies_over_256_kib_are_refused_before_parsing() -> None:
    assert codes(" " * (256 * 1024 + 1)) == ["message_too_large"]


def test_every_problem_is_reported_at_once() -> None:
    body = {"job_id": "x", "development": {"dwellings": -3}, "email": "nope"}
    assert codes(json.dumps(body)) == ["invalid_dwellings", "invalid_email", "missing_field"]


KNOWN_CODES = {
    "message_too_large",
    "not_json",
    "json_too_deep",
    "unknown_message_schema",
    "missing_field",
    "invalid_field",
    "invalid_dwellings",
    "invalid_email",
    "invalid_job_id",
    "unsupported_assessment_type",
    "invalid_boundary_uri",
}


def assert_parsed_or_refused(body: str | bytes) -> None:
    """Either a well-formed request or a refusal with known codes: never another exception."""
    try:
        job = parse_job_message(body)
    except InvalidJobMessage as exc:
        assert exc.problems and set(exc.codes) <= KNOWN_CODES
    else:
        assert job.job_id and job.dwellings >= 0
        assert (job.boundary is None) != (job.boundary_uri is None)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_never_crash_the_parser(body: bytes) -> None:
    assert_parsed_or_refused(body)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(sorted({*CANONICAL, *DEFRA, "Type", "Message"})), json_values, max_size=8
    )
)
def test_random_json_objects_never_crash_the_parser(body: dict) -> None:
    assert_parsed_or_refused(json.dumps(body))


def test_only_the_configured_bucket_and_prefix_are_allowed() -> None:
    assert allowed_uri("s3://nrf-in/uploads/a/b.zip", "nrf-in", "uploads") == (
        "nrf-in",
        "uploads/a/b.zip",
    )
    assert allowed_uri("s3://other/uploads/a.zip", "nrf-in", "uploads") is None
    assert allowed_uri("s3://nrf-in/elsewhere/a.zip", "nrf-in", "uploads") is None
    assert allowed_uri("s3://nrf-in/uploads/../secret", "nrf-in", "uploads") is None
    assert allowed_uri("s3://nrf-in/uploadsX/a.zip", "nrf-in", "uploads") is None
    assert allowed_uri("file:///etc/passwd", "nrf-in", "") is None


@pytest.mark.parametrize("reference", ["NRL-000123", "NRF-000123"])
def test_both_reference_prefixes_are_read(reference: str) -> None:
    job = parse_job_message(json.dumps({**DEFRA, "reference": reference}))
    assert job.job_id == reference
    jsonschema.Draft202012Validator(SCHEMA).validate({**DEFRA, "reference": reference})


@pytest.mark.parametrize(
    "reference",
    [
        "NRF-١٢٣٤٥٦",  # Arabic-Indic digits: \d takes them, a folder name should not
        "NRL-１２３４５６",  # full-width digits
        "NRX-000123",
        "nrl-000123",
        "NRL-0001234",
        "NRL-00012",
    ],
)
def test_other_references_are_refused_once(reference: str) -> None:
    with pytest.raises(InvalidJobMessage) as caught:
        parse_job_message(json.dumps({**DEFRA, "reference": reference}))
    assert caught.value.codes == ["invalid_field"]
    assert caught.value.job_id is None  # so the failure is filed under the message id
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid({**DEFRA, "reference": reference})


def test_intersecting_edps_need_only_a_label_and_other_keys_are_accepted() -> None:
    edps = [
        {"label": "Norfolk EDP"},
        {
            "label": " Broads EDP ",
            "overlapAreaHa": 1.2345,
            "overlapAreaSqm": 12345.67,
            "overlapPercentage": 50.0,
            "catchments": [{"label": "Broads SAC", "catchmentOverlapPercentage": 50.0}],
            "somethingNew": {"x": 1},
        },
        {"label": "Norfolk EDP"},  # named twice: once is enough
    ]
    wrapper = {
        "boundaryGeometryOriginal": SQUARE,
        "intersectingEdps": edps,
        "intersectingExcludedAreas": ["Somewhere SSSI"],
    }
    message = {**DEFRA, "boundaryGeojson": wrapper}
    job = parse_job_message(json.dumps(message))
    # Verbatim, spaces and all: the backend claims its placeholder row by the exact label.
    assert job.edp_labels == ("Norfolk EDP", " Broads EDP ")
    jsonschema.Draft202012Validator(SCHEMA).validate(message)


def test_a_message_without_intersecting_edps_has_no_labels() -> None:
    message = {**DEFRA, "boundaryGeojson": {"boundaryGeometryOriginal": SQUARE}}
    assert parse_job_message(json.dumps(message)).edp_labels == ()


def test_a_null_or_blank_label_is_kept_as_a_blank_name() -> None:
    # Defra's check sends null for an EDP feature without a name: not bad input, but a name
    # the bundle cannot match (edp_unknown, in the job path).
    edps = [{"label": None}, {"label": "  "}, {"label": "Norfolk EDP"}]
    message = {
        **DEFRA,
        "boundaryGeojson": {"boundaryGeometryOriginal": SQUARE, "intersectingEdps": edps},
    }
    assert parse_job_message(json.dumps(message)).edp_labels == ("", "Norfolk EDP")
    jsonschema.Draft202012Validator(SCHEMA).validate(message)


@pytest.mark.parametrize(
    "edps",
    [
        {"label": "x"},
        [{"overlapAreaHa": 1.0}],
        [{"label": 7}],
        [{"label": "x" * 501}],
        ["Norfolk EDP"],
    ],
)
def test_intersecting_edps_without_labels_are_refused(edps: object) -> None:
    wrapper = {"boundaryGeometryOriginal": SQUARE, "intersectingEdps": edps}
    assert codes(json.dumps({**DEFRA, "boundaryGeojson": wrapper})) == ["invalid_field"]


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        ("trace-1", "trace-1"),  # visible ASCII is kept as it is
        ("a\r\nX-Injected: 1", "a%0D%0AX-Injected:%201"),  # CR, LF and the space
        ("café", "caf%C3%A9"),  # é is U+00E9: UTF-8 C3 A9 (Latin-1 would take it; we don't)
        ("追跡", "%E8%BF%BD%E8%B7%A1"),  # U+8FFD, U+8DE1: three UTF-8 bytes each
        ("50%", "50%"),  # an existing % stays, so encoding twice changes nothing
    ],
)
def test_a_trace_id_is_made_header_safe_when_read(trace: str, expected: str) -> None:
    job = parse_job_message(json.dumps({**DEFRA, "traceId": trace}))
    assert job.trace_id == expected
    canonical = parse_job_message(json.dumps({**CANONICAL, "trace_id": trace}))
    assert canonical.trace_id == expected
