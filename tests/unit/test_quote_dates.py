"""The quote date: today (UTC) from the clock in the worker and the API, or the day asked for."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime

import falcon.testing
import pytest
from shapely.geometry import box

from fakes import FakeClock, FakeNotifier, FakeResultStore
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.charging import utc_day
from nrf.domain.jobs import QueueMessage
from nrf.domain.levy_rounding import LevyRounding
from nrf.domain.results import AssessmentRun
from nrf.domain.validation import DEFAULT_LIMITS, RawFeature
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from nrf.entrypoints.assess_arguments import quote_date_argument
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.quotes import GetQuote
from support.receives import Receives
from support.reference import STRIP_ORIGIN, two_catchment_strip, wensum_square

X0, Y0 = STRIP_ORIGIN
KEY = "unit-key-0123456789"
HEADERS = {"x-api-key": KEY, "Content-Type": "application/geo+json"}


def moment(year: int, month: int, day: int, hour: int, minute: int) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()


@pytest.fixture
def two_hours_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local time zone set to UTC+2 (POSIX "EET-2", no tz database needed), so a
    day taken in local time differs from the UTC day for the last two hours of each UTC day."""
    monkeypatch.setenv("TZ", "EET-2")
    time.tzset()
    assert date.fromtimestamp(moment(2026, 12, 31, 23, 30)) == date(2027, 1, 1)
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("two_hours_east")
def test_the_quote_date_is_the_utc_day_of_the_moment() -> None:
    # 23:30 UTC on 31 December 2026 is already 1 January at UTC+2: the UTC day counts.
    assert utc_day(moment(2026, 12, 31, 23, 30)) == date(2026, 12, 31)
    assert utc_day(moment(2027, 1, 1, 0, 0)) == date(2027, 1, 1)
    # 22:00 UTC on 1 January is 00:00 on the 2nd at UTC+2: still the 1st.
    assert utc_day(moment(2027, 1, 1, 22, 0)) == date(2027, 1, 1)


# Issue 31: an ISO week date and digits other than ASCII were read as days.
OTHER_FORMS = ["2026-W01-1", "2026W011", "2026-001", "\u0662\u0660\u0662\u0666-01-01"]


@pytest.mark.parametrize(
    "text", ["2027-02-29", "2027-2-3", "27-03-01", "2027-03-01T00:00", "", *OTHER_FORMS]
)
def test_the_cli_refuses_a_quote_date_not_written_as_a_real_day(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="YYYY-MM-DD"):
        quote_date_argument(text)
    assert quote_date_argument("2028-02-29") == date(2028, 2, 29)


class OneSite:
    def features(self, request: object) -> list[RawFeature]:
        return [
            RawFeature(index=1, properties={}, geometry=box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200))
        ]


def worker_run(clock: FakeClock) -> AssessmentRun:
    runs: list[AssessmentRun] = []

    def render(run: AssessmentRun, developments: object) -> dict[str, bytes]:
        runs.append(run)
        return {"result.json": b"{}"}

    receives = Receives(
        repository=wensum_square((X0, Y0), n_current=5.57, p_current=0.24),
        source=OneSite(),
        render=render,
        store=FakeResultStore(),
        notifier=FakeNotifier(),
        clock=clock,
    )
    message = {
        "job_id": "job-1",
        "development": {"name": "Test", "dwellings": 19, "dwelling_category": "housing"},
        "boundary": {"type": "Polygon", "coordinates": []},
    }
    receives(
        QueueMessage(
            message_id="m-1",
            receipt_handle="r-1",
            body=json.dumps(message),
            receive_count=1,
            sent_at=None,
        )
    )
    [run] = runs
    return run


def test_the_worker_quotes_on_the_clocks_utc_day() -> None:
    # 19 homes in the Norfolk EDP on 26 November 2026: 2,675.00 x 19 = 50,825.00.
    [site] = worker_run(FakeClock(moment(2026, 11, 26, 9, 0))).sites
    assert site.pricing is not None
    assert (site.pricing.quote_date, str(site.pricing.amount_excluding_vat)) == (
        date(2026, 11, 26),
        "50825.00",
    )
    # The same job a year on: 2027 is indexed, 2675 x 1.0300 = 2,755.25 x 19 = 52,349.75.
    [later] = worker_run(FakeClock(moment(2027, 11, 26, 9, 0))).sites
    assert later.pricing is not None and str(later.pricing.amount_excluding_vat) == "52349.75"


def client() -> falcon.testing.TestClient:
    data = two_catchment_strip(rounding=LevyRounding.ROUND_TOTAL)
    clock = FakeClock(moment(2026, 11, 26, 12, 0))
    services = ApiServices(
        quote=GetQuote(AssessDevelopments(data), clock=clock),
        check=CheckBoundary(data),
        reference_for=data.reference_for,
        store=FakeResultStore(),
        files=None,
        limits=DEFAULT_LIMITS,
    )
    return falcon.testing.TestClient(create_app(services, ApiKeys([KEY])))


def body() -> str:
    ring = [list(p) for p in box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200).exterior.coords]
    props = {
        "id": "s",
        "name": "Site",
        "dwelling_category": "housing",
        "source": "",
        "dwellings": 10,
    }
    feature = {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    return json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]})


def test_the_api_quotes_today_unless_asked_for_another_day() -> None:
    api = client()
    [today] = api.simulate_post("/v1/quotes", body=body(), headers=HEADERS).json["sites"]
    # 10 homes on the clock's day, 2026-11-26: 2,675.00 x 10 = 26,750.00.
    assert today["pricing"]["quote_date"] == "2026-11-26"
    assert today["pricing"]["amount_excluding_vat"] == "26750.00"
    # Every quote says where its sum was rounded: the bundle's rule.
    assert today["pricing"]["rounding"] == "round_total"
    later = api.simulate_post(
        "/v1/quotes", body=body(), headers=HEADERS, params={"quoteDate": "2028-01-01"}
    )
    [site] = later.json["sites"]
    assert site["pricing"] is None and site["levy_refusal"]["code"] == "no_charge_for_date"


@pytest.mark.parametrize("text", ["26/11/2026", *OTHER_FORMS])
def test_the_api_refuses_a_quote_date_it_cannot_read(text: str) -> None:
    answer = client().simulate_post(
        "/v1/quotes", body=body(), headers=HEADERS, params={"quoteDate": text}
    )
    assert answer.status_code == 400
    assert answer.json["code"] == "bad_quote_date"


def test_the_api_refuses_a_quote_date_given_twice() -> None:
    # Issue 31: ?quoteDate=2027-01-01&quoteDate=2028-01-01 priced on one of them, unsaid.
    answer = client().simulate_post(
        "/v1/quotes",
        body=body(),
        headers=HEADERS,
        query_string="quoteDate=2027-01-01&quoteDate=2028-01-01",
    )
    assert (answer.status_code, answer.json["code"]) == (400, "bad_quote_date")
    assert "once" in answer.json["detail"]


def test_the_cli_refuses_a_quote_date_given_twice(capsys: pytest.CaptureFixture[str]) -> None:
    from nrf.entrypoints.assess_arguments import add_parser

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    argv = ["assess", "sites.geojson", "--quote-date", "2027-01-01", "--quote-date", "2028-01-01"]
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(argv)
    assert exited.value.code == 2
    assert "--quote-date may be given once" in capsys.readouterr().err
    once = parser.parse_args(["assess", "sites.geojson", "--quote-date", "2027-01-01"])
    assert once.quote_date == date(2027, 1, 1)
