"""The CLI's input ceilings: 10,000 sites by default, raised by --max-sites or the env."""

from nrf.adapters.environment.assess_limits import assess_limits, input_limits
from nrf.adapters.environment.settings import WorkerSettings, load_settings
from nrf.entrypoints.roots.core import Core, build


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


def test_the_worker_and_nrf_assess_read_each_variable_into_the_same_limit() -> None:
    # One mapping for both: NRF_MAX_VERTICES_PER_SITE=500 is a feature's 500 vertices,
    # NRF_MAX_SITE_AREA_HA=2.5 a site's 2.5 ha, whichever reads it.
    env = {"NRF_MAX_VERTICES_PER_SITE": "500", "NRF_MAX_SITE_AREA_HA": "2.5"}
    worker = input_limits(load_settings(env))
    cli = assess_limits(None, env)
    assert (worker.max_vertices_per_feature, worker.max_site_area_ha) == (500, 2.5)
    assert (cli.max_vertices_per_feature, cli.max_site_area_ha) == (500, 2.5)


def test_the_worker_defaults_are_the_documented_ceilings() -> None:
    # docs/limits.md: 50 MiB (52,428,800 bytes), 10,000 sites, 100,000 vertices a site,
    # 1,000,000 in all, 10,000 ha a site, 200 MiB (209,715,200 bytes) unzipped.
    limits = build(Core, settings=WorkerSettings()).limits()
    assert limits.max_file_bytes == 52_428_800 and limits.max_features == 10_000
    assert limits.max_vertices_per_feature == 100_000 and limits.max_total_vertices == 1_000_000
    assert limits.max_site_area_ha == 10_000 and limits.max_decompressed_bytes == 209_715_200


def test_the_read_deadline_and_memory_are_configured_for_the_worker_api_and_cli() -> None:
    # NRF_MAX_READ_SECONDS=0.5 is 0.5 s a read; NRF_MAX_READ_MEMORY_BYTES=67108864 is 64 MiB
    # (64 x 1,048,576) beyond the reading child's size; the API reads the worker's settings.
    env = {"NRF_MAX_READ_SECONDS": "0.5", "NRF_MAX_READ_MEMORY_BYTES": "67108864"}
    for limits in (input_limits(load_settings(env)), assess_limits(None, env)):
        assert (limits.max_read_seconds, limits.max_read_memory_bytes) == (0.5, 64 * 1024 * 1024)


def test_the_read_defaults_are_twenty_seconds_and_512_mib() -> None:
    # docs/limits.md: 20 s, 512 MiB = 536,870,912 bytes; --max-sites 20,000 doubles the memory
    # a whole read may use (as it doubles the file's bytes), never the deadline.
    limits = build(Core, settings=WorkerSettings()).limits()
    assert (limits.max_read_seconds, limits.max_read_memory_bytes) == (20.0, 536_870_912)
    doubled = assess_limits(20_000, {})
    assert (doubled.max_read_seconds, doubled.max_read_memory_bytes) == (20.0, 1_073_741_824)
