"""Results survive a cattrs round trip; money stays exact decimal text."""

import json

from shapely.geometry import box

from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.serialization import structure, unstructure
from support.reference import QUOTE_DATE, wensum_square
from support.runs import RUN

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
    # rates 2.4 x 120 l): N (14.12 + 17.987832) x 1.2 = 38.53, P (0.61 + 1.7987832) x 1.2 = 2.89.
    assert (doc["sites"][0]["n_total"], doc["sites"][0]["p_total"]) == (38.53, 2.89)
    assert structure(doc, AssessmentRun) == run


def test_a_quote_round_trips_with_exact_money_and_iso_dates() -> None:
    doc = json.loads(json.dumps(unstructure(RUN)))
    mill = next(s for s in doc["sites"] if s["site"]["id"] == "S1")
    # support/runs.py: 10 units x £2,675.00 = £26,750.00, the base kept to 4 places.
    assert mill["pricing"]["amount_excluding_vat"] == "26750.00"  # money as exact text
    assert mill["pricing"]["base_charge_per_unit"] == "2675.0000"
    assert mill["pricing"]["quote_date"] == "2026-11-26"  # a date as ISO text
    assert structure(doc, AssessmentRun) == RUN
