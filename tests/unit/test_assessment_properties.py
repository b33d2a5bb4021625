"""Invariants of the calculation, checked on random sites with hypothesis."""

from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from nrf.domain.assessment import AssessDevelopments, assess_site
from nrf.domain.land_use import land_use_pieces
from nrf.domain.model import CoefficientPolygon, Development, NnCatchment, Zone
from nrf.domain.results import SiteAssessment
from nrf.domain.rules import RULE_SETS, rule_set_named
from support.reference import QUOTE_DATE, InMemoryBoundaryData, permit, rates

X0, Y0 = 600_000.0, 300_000.0
CELL = 250.0


def grid_repo(seed: int) -> InMemoryBoundaryData:
    """A 2 x 2 km grid of 250 m coefficient cells, two catchments split at x = X0 + 1000."""
    coefficients = []
    k = seed
    for i in range(8):
        for j in range(8):
            k = (k * 1103515245 + 12345) % 2**31
            coefficients.append(
                CoefficientPolygon(
                    geometry=box(
                        X0 + i * CELL, Y0 + j * CELL, X0 + (i + 1) * CELL, Y0 + (j + 1) * CELL
                    ),
                    lu_curr_n_coeff=5.0 + (k % 3500) / 100,
                    lu_curr_p_coeff=0.1 + (k % 240) / 100,
                    n_resi_coeff=8.0 + (k % 1200) / 100,
                    p_resi_coeff=0.3 + (k % 120) / 100,
                )
            )
    return InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 2000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            ),
            NnCatchment(
                geometry=box(X0 + 1000, Y0, X0 + 2000, Y0 + 1300),
                n2k_site_name="The Broads SAC",
                edp_id="2",
            ),
        ],
        wwtw=[Zone(box(X0, Y0, X0 + 2000, Y0 + 2000), 1065)],
        coefficients=coefficients,
        permits=[permit(1065, "Sculthorpe", n=(27.0, 10.0), p=(1.0, 0.25))],
        rates_table=rates(
            catchments={"River Wensum SAC": (2.4, 120.0), "The Broads SAC": (2.4, 110.0)}
        ),
    )


sites = st.builds(
    lambda x, y, w, h: box(X0 + x, Y0 + y, X0 + x + w, Y0 + y + h),
    st.floats(0, 1800),
    st.floats(0, 1800),
    st.floats(5, 600),
    st.floats(5, 600),
)


@settings(max_examples=60, deadline=None)
@given(sites, st.integers(0, 600), st.sampled_from(sorted(RULE_SETS)), st.integers(0, 10**6))
def test_catchment_shares_add_up_to_site_totals(site, dwellings, rules_name, seed) -> None:
    data = grid_repo(seed)
    dev = Development(
        rlb_id=1,
        id="a",
        name="a",
        dwelling_category="allocation",
        source="t",
        dwellings=dwellings,
        boundary=site,
    )
    result = assess_site(dev, data.reference_for(site), data.lookups(), rule_set_named(rules_name))
    assert isinstance(result, SiteAssessment)  # every site here drains to a works with a permit
    in_catchments = [
        c for c in data.reference_for(site).nn_catchments if c.geometry.intersection(site).area > 0
    ]
    if not result.catchments:
        # Outside both catchments (the corner x > 1000, y > 1300): nothing to split or charge.
        assert in_catchments == [] and not result.area_in_nn_catchment_ha
        return
    assert {c.n2k_site_name for c in result.catchments} == {c.n2k_site_name for c in in_catchments}

    def pennies(values) -> int:
        return sum(round(v * 100) for v in values)

    assert pennies(c.n_total for c in result.catchments) == round(result.n_total * 100)
    assert pennies(c.p_total for c in result.catchments) == round(result.p_total * 100)
    assert pennies(c.n_lu_post_suds for c in result.catchments) == round(
        (result.n_lu_post_suds or 0) * 100
    )
    assert pennies(c.n_wwtw_perm for c in result.catchments) == round(result.n_wwtw_perm * 100)
    assert pennies(c.area_ha for c in result.catchments) == round(
        (result.area_in_nn_catchment_ha or 0) * 100
    )


@settings(max_examples=60, deadline=None)
@given(sites, st.floats(0.05, 0.95), st.integers(0, 10**6))
def test_cutting_a_site_in_two_changes_uplift_only_by_rounding(site, fraction, seed) -> None:
    rules = rule_set_named("iat-2025-10")  # no greenspace: it depends on the site's total area
    data = grid_repo(seed)
    minx, miny, maxx, maxy = site.bounds
    cut = minx + (maxx - minx) * fraction
    halves = [box(minx, miny, cut, maxy), box(cut, miny, maxx, maxy)]

    def uplift(geom):
        ref = data.reference_for(geom)
        pieces = land_use_pieces(geom, ref.coefficients, ref.nn_catchments, 0.0, rules)
        return sum(p.n_uplift or 0.0 for p in pieces), len(pieces)

    whole, n_whole = uplift(site)
    parts = [uplift(h) for h in halves]
    n_parts = sum(n for _, n in parts)
    # Each rounded piece is within half a penny of its exact value.
    assert abs(whole - sum(u for u, _ in parts)) <= 0.005 * (n_whole + n_parts) + 1e-9


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(sites, st.integers(0, 400)), min_size=2, max_size=6), st.integers(0, 10**6)
)
def test_a_batch_gives_every_site_its_own_answer(batch, seed) -> None:
    assess = AssessDevelopments(grid_repo(seed))
    rules = rule_set_named(None)
    devs = [
        Development(
            rlb_id=i + 1,
            id=str(i),
            name="s",
            dwelling_category="allocation",
            source="t",
            dwellings=d,
            boundary=g,
        )
        for i, (g, d) in enumerate(batch)
    ]
    together = assess(devs, rules, QUOTE_DATE)
    one_by_one = tuple(s for d in devs for s in assess([d], rules, QUOTE_DATE).sites)
    assert together.sites == one_by_one
