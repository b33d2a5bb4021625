"""The parent-pid watchdog: the portable way a child notices its supervisor is gone."""

from __future__ import annotations

import sys
import threading

from nrf.entrypoints.worker.lifeline import die_with_parent, watch_parent


def test_the_watchdog_fires_once_when_the_parent_pid_changes() -> None:
    parents = iter([100, 100, 1, 1, 1])  # re-parented to init on the third look
    fired: list[int] = []
    done = threading.Event()

    def orphaned() -> None:
        fired.append(1)
        done.set()

    thread = watch_parent(100, orphaned, interval=0.01, getppid=lambda: next(parents, 1))
    assert done.wait(5)
    thread.join(5)
    assert fired == [1] and not thread.is_alive()


def test_the_kernel_setting_is_taken_on_linux_and_declined_elsewhere() -> None:
    # Signal 0 is "no signal": the call is real but changes nothing for this process.
    assert die_with_parent(0) is sys.platform.startswith("linux")
