"""Build progress: count, rate and time left, throttled, always the last line."""

from __future__ import annotations

import io

from nrf.bundles.progress import rate_printer


def test_progress_shows_rate_and_eta_and_is_throttled() -> None:
    now = [100.0]
    out = io.StringIO()
    show = rate_printer("reading", every=2.0, stream=out, clock=lambda: now[0])
    now[0] = 110.0
    show(1_000, 5_000)  # 1,000 in 10 s: 100/s; 4,000 left: 40 s
    now[0] = 111.0
    show(1_100, 5_000)  # within 2 s of the last line: not shown
    now[0] = 150.0
    show(5_000, 5_000)  # 5,000 in 50 s: 100/s; done
    assert out.getvalue().splitlines() == [
        "reading 1,000/5,000 (100/s, ETA 0m40s)",
        "reading 5,000/5,000 (100/s, ETA 0m00s)",
    ]
