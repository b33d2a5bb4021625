"""The completed email's levy: the amounts with VAT and what priced them, or why there is none."""

from __future__ import annotations

import attrs

from nrf.domain.email_fields import NotifySettings, personalisation
from nrf.domain.job_request import JobRequest
from support.runs import EXCLUDED, NORFOLK, RUN

REQUEST = JobRequest(
    job_id="NRL-000123",
    development_name="Mill Lane",
    dwellings=10,
    dwelling_category="housing",
    source="t",
    boundary=None,
    boundary_uri=None,
    rules=None,
    email="a@example.org",
    trace_id=None,
    schema="defra-quote",
)
MILL = next(s for s in RUN.sites if s.pricing == NORFOLK)
EXCLUDED_SITE = next(s for s in RUN.sites if s.levy_refusal == EXCLUDED)


def test_a_quote_gives_the_levy_vat_and_total_and_everything_that_priced_it() -> None:
    run = attrs.evolve(RUN, sites=(MILL,), out_of_scope=())
    email = personalisation(NotifySettings(), REQUEST, run)
    # 10 units x £2,675.00 = £26,750.00; VAT 20 % = £5,350.00; £32,100.00 with VAT.
    assert (email["levy_amount"], email["levy_vat_amount"]) == ("£26,750.00", "£5,350.00")
    assert email["levy_amount_including_vat"] == "£32,100.00"
    assert (email["levy_status"], email["edp"], email["quote_date"]) == (
        "quoted",
        "1 Norfolk",
        "2026-11-26",
    )
    details = email["levy_details"]
    for shown in ("2026-04-01 to 2027-03-31", "£2,675.0000", "10 units", "edp-schedule-1"):
        assert shown in details, shown


def test_a_refused_levy_is_never_a_zero_and_says_why() -> None:
    run = attrs.evolve(RUN, sites=(EXCLUDED_SITE,), out_of_scope=())
    email = personalisation(NotifySettings(), REQUEST, run)
    assert email["levy_amount"] == "not quoted (excluded_area)"
    assert "£" not in email["levy_amount"] + email["levy_amount_including_vat"]
    assert email["levy_status"] == "not quoted"
    assert "Broad Fen SSSI buffer; (unnamed)" in email["levy_details"]
    assert "Habitats Regulations Assessment" in email["levy_details"]


def test_a_batch_adds_only_the_quoted_levies() -> None:
    email = personalisation(NotifySettings(), REQUEST, RUN)
    # 26,750.00 + 8,386.14 = 35,136.14; sites 2 (excluded) and 4 (no EDP) add nothing.
    assert email["levy_amount"] == "£35,136.14"
    assert email["levy_status"] == "quoted for 2 sites, refused for 2"
    assert email["levy_refusal_codes"] == "excluded_area, no_edp"
