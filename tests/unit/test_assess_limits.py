"""The CLI's input ceilings: 10,000 sites by default, raised by --max-sites or the env."""

from nrf.entrypoints.assess_limits import assess_limits


def test_the_default_stays_ten_thousand_sites() -> None:
    limits = assess_limits(None, {})
    assert limits.max_features == 10_000
    assert limits.max_total_vertices == 1_000_000


def test_raising_the_site_count_raises_the_whole_file_ceilings_in_proportion() -> None:
    limits = assess_limits(50_000, {})
    assert limits.max_features == 50_000
    # 50,000 / 10,000 = 5 times the defaults: 5 x 1,000,000 vertices, 5 x 50 MiB.
    assert limits.max_total_vertices == 5_000_000
    assert limits.max_file_bytes == 5 * 50 * 1024 * 1024


def test_the_environment_is_honoured_and_an_explicit_ceiling_kept() -> None:
    env = {"NRF_MAX_SITES_PER_JOB": "20000", "NRF_MAX_TOTAL_VERTICES": "1500000"}
    limits = assess_limits(None, env)
    assert limits.max_features == 20_000
    assert limits.max_total_vertices == 1_500_000
    assert limits.max_file_bytes == 2 * 50 * 1024 * 1024  # scaled: 20,000 / 10,000 = 2
    assert assess_limits(30_000, env).max_features == 30_000  # the flag wins


def test_lowering_the_site_count_keeps_the_other_defaults() -> None:
    limits = assess_limits(5, {})
    assert limits.max_features == 5 and limits.max_total_vertices == 1_000_000
