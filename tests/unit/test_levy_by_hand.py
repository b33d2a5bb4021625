"""The levy rules, each with its pounds and pence worked by hand in the comment beside it."""

from __future__ import annotations

from decimal import Decimal

from nrf.domain.levy import kg_decimal, levy_by_edp, quote, sum_quotes
from nrf.domain.results import CatchmentImpact, LevyQuote
from support.reference import levy_rate

# £3000.50 per kg N, £40,000 per kg P; monitoring 5 %, maintenance 10 %, admin 3 %.
WENSUM = levy_rate("1", "River Wensum SAC", "3000.50", "40000", ("0.05", "0.10", "0.03"))


def parts(q: LevyQuote) -> tuple[str, ...]:
    return tuple(
        str(v)
        for v in (q.levy_gbp, q.monitoring_gbp, q.maintenance_gbp, q.admin_gbp, q.mitigation_gbp)
    )


def share(name: str, edp: str, n: float, p: float) -> CatchmentImpact:
    return CatchmentImpact(
        n2k_site_name=name,
        edp_id=edp,
        area_ha=1.0,
        n_lu_post_suds=0.0,
        p_lu_post_suds=0.0,
        n_wwtw_perm=0.0,
        p_wwtw_perm=0.0,
        n_total=n,
        p_total=p,
    )


def test_a_positive_impact_is_charged_per_kg_and_split_into_shares() -> None:
    # 1.50 x 3000.50 + 0.25 x 40000 = 4500.75 + 10000 = 14500.75;
    # 5 % 725.0375 -> 725.04, 10 % 1450.075 -> 1450.08 (half up), 3 % 435.0225 -> 435.02;
    # mitigation 14500.75 - 725.04 - 1450.08 - 435.02 = 11890.61.
    q = quote(Decimal("1.50"), Decimal("0.25"), WENSUM)
    assert parts(q) == ("14500.75", "725.04", "1450.08", "435.02", "11890.61")


def test_a_reduction_charges_nothing_and_credits_nothing() -> None:
    # N falls (-5.00 kg) and is not set against P: only 2.00 x 40000 = 80000.00 is charged;
    # 4000.00, 8000.00 and 2400.00; mitigation 80000 - 14400 = 65600.00.
    q = quote(Decimal("-5.00"), Decimal("2.00"), WENSUM)
    assert parts(q) == ("80000.00", "4000.00", "8000.00", "2400.00", "65600.00")
    # Both fall: nothing at all, not a negative levy.
    assert parts(quote(Decimal("-5.00"), Decimal("-0.01"), WENSUM)) == ("0.00",) * 5


def test_half_a_penny_rounds_up() -> None:
    # 0.01 kg N x £12.50 = £0.125 -> 0.13 (half up; half to even would give 0.12);
    # 5 % of 0.13 = 0.0065 -> 0.01, 10 % 0.013 -> 0.01, 3 % 0.0039 -> 0.00; mitigation 0.11.
    rate = levy_rate("9", "Test", "12.50", "0", ("0.05", "0.10", "0.03"))
    assert parts(quote(Decimal("0.01"), Decimal("0"), rate)) == (
        "0.13",
        "0.01",
        "0.01",
        "0.00",
        "0.11",
    )


def test_kg_are_priced_as_printed_not_as_their_binary_expansion() -> None:
    # 0.1 + 0.72 is 0.8200000000000001 in binary; the levy is on 0.82 kg.
    assert kg_decimal(0.1 + 0.72) == Decimal("0.82")
    assert kg_decimal(-156.96) == Decimal("-156.96")


def test_shares_are_grouped_by_edp_and_each_edp_priced_alone() -> None:
    catchments = (
        share("River Wensum SAC", "1", 1.0, 0.1),
        share("The Broads SAC", "2", 4.0, 0.5),  # no rate for EDP 2 in this bundle
        share("River Bure SAC", "1", 0.5, 0.15),
    )
    wensum, broads = levy_by_edp(catchments, {"1": WENSUM})
    # EDP 1: N 1.00 + 0.50 = 1.50, P 0.10 + 0.15 = 0.25: the 14500.75 of the first test.
    assert (wensum.edp_id, wensum.edp_name, wensum.n_total, wensum.p_total) == (
        "1",
        "River Wensum SAC",
        1.5,
        0.25,
    )
    assert wensum.quote is not None
    assert parts(wensum.quote) == ("14500.75", "725.04", "1450.08", "435.02", "11890.61")
    # EDP 2 has no rate: its kg are reported, with no name and no levy figure.
    assert (broads.edp_id, broads.edp_name, broads.n_total, broads.quote) == ("2", None, 4.0, None)


def test_quotes_add_up_part_by_part() -> None:
    one = quote(Decimal("1.50"), Decimal("0.25"), WENSUM)  # 14500.75 as above
    two = quote(Decimal("-5.00"), Decimal("2.00"), WENSUM)  # 80000.00 as above
    # 14500.75 + 80000.00 = 94500.75; 725.04 + 4000.00 = 4725.04; 1450.08 + 8000.00 = 9450.08;
    # 435.02 + 2400.00 = 2835.02; 11890.61 + 65600.00 = 77490.61.
    assert parts(sum_quotes([one, two])) == (
        "94500.75",
        "4725.04",
        "9450.08",
        "2835.02",
        "77490.61",
    )
    assert parts(sum_quotes([])) == ("0.00",) * 5
