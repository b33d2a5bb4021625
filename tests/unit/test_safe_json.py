"""One reader for untrusted JSON: the queue and the API refuse the same fault with one code."""

from __future__ import annotations

import pytest

from nrf.adapters.job_queue.job_message import parse_job_message
from nrf.adapters.job_queue.message_fields import InvalidJobMessage
from nrf.adapters.safe_json import read_json
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.inputs import geojson_features


def code_of(text: str) -> str:
    with pytest.raises(InvalidInput) as caught:
        read_json(text, "the body")
    [code] = caught.value.codes
    return code


def test_64_nested_lists_are_read_and_65_are_refused() -> None:
    # "[[...[1]...]]" with n brackets is n levels of lists; the 1 inside ends the path.
    assert read_json("[" * 64 + "1" + "]" * 64, "the body") is not None
    assert code_of("[" * 65 + "1" + "]" * 65) == "json_too_deep"


@pytest.mark.parametrize("text", ["not json", '{"a": ', '{"a": NaN}', "[Infinity]", "[" * 10**5])
def test_what_is_not_json_is_not_json(text: str) -> None:
    # The last is deeper than Python's parser recurses: a RecursionError, still "not JSON".
    assert code_of(text) == "not_json"


@pytest.mark.parametrize(
    ("text", "code"), [('{"a": NaN}', "not_json"), ("[" * 65 + "]" * 65, "json_too_deep")]
)
def test_a_queue_message_and_an_api_body_get_the_same_code(text: str, code: str) -> None:
    with pytest.raises(InvalidJobMessage) as queue:
        parse_job_message(text)
    with pytest.raises(InvalidInput) as api:
        geojson_features(text.encode(), DEFAULT_LIMITS)
    assert queue.value.codes == api.value.codes == [code]
