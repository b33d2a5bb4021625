"""Results survive a cattrs round trip; money stays exact decimal text."""

import json

from shapely.geometry import box

from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.serialization import structure, unstructure
from support.reference import QUOTE_DATE, wensum_square

X0, Y0 = 600_000.0, 300_000.0


def test_assessment_run_round_trips_through_json() -> None:
    data = wensum_square((X0, Y0), n_current=5.57, p_current=0.24)
    sites = [
        Development(
            rlb_id=1,
            id="a",
            name="A",
            dwelling_category="housing",
            source="t",
            dwellings=19,
            boundary=box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200),
        ),
        Development(
            rlb_id=2,
            id="b",
            name="B",
            dwelling_category="housing",
            source="t",
            dwellings=5,
            boundary=box(X0 + 5000, Y0, X0 + 5100, Y0 + 100),
        ),
    ]
    run = AssessDevelopments(data)(sites, rule_set_named(None), QUOTE_DATE)
    assert run.sites and run.out_of_scope
    text = json.dumps(unstructure(run))
    doc = json.loads(text)
    # Site "a" is tests/unit/test_assessment.py's worked example (3.05 ha, 19 dwellings, default
    # rates 2.4 x 120 l): N (14.12 + 17.987832) x 1.2 = 38.53, P (0.61 + 1.7987832) x 1.2 = 2.89;
    # 38.53 x 3000.50 + 2.89 x 40000 = 115609.265 + 115600 = 231209.265 -> 231209.27.
    assert doc["sites"][0]["levy"]["levy_gbp"] == "231209.27"  # money as exact text
    assert structure(doc, AssessmentRun) == run
