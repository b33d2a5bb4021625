"""`python -m benchmarks.image_stop`: how long `docker stop` of an idle worker container takes.

Issue 28's target: an idle worker stops within 5 s of SIGTERM (it took 18.5-21 s while it
finished a 20 s long poll). tests/integration/test_image_worker.py asserts only a bound that a
busy machine cannot break (12 s); this measures it. The built image (scripts/image, nrf:test)
runs the worker task exactly as the image tests do (the template's environment and read-only
root, moto and a fake Notify on loopback); after it has polled, it is left idle for a random
0-4 s (so the SIGTERM lands anywhere in a 2 s receive slice) and stopped with the template's
stopTimeout. Prints each stop, the median and worst against the target, and the load average.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the image harness, as the tests run it

from support.fake_notify import running_fake_notify  # noqa: E402
from support.image import running_image  # noqa: E402
from support.image_stack import worker_task  # noqa: E402
from support.moto_server import MotoServer  # noqa: E402

TARGET_SECONDS = 5.0


def one_stop(aws: MotoServer, workdir: Path, rng: random.Random) -> float:
    aws.reset()
    with running_fake_notify() as notify:
        task = worker_task(aws, notify, workdir)
        with running_image(task.env, read_only=task.read_only, writable=task.writable) as (
            container,
            log,
        ):
            log.wait_for("worker_started", timeout=120)
            time.sleep(2 + rng.uniform(0, 4))
            started = time.monotonic()
            container.stop(timeout=120)
            took = time.monotonic() - started
            code = container.wait(timeout=30)["StatusCode"]
            assert code == 0, f"exit code {code}\n{log.tail()}"
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's request lines
    aws = MotoServer().start()
    try:
        stops = []
        for n in range(args.runs):
            with tempfile.TemporaryDirectory() as workdir:
                stops.append(one_stop(aws, Path(workdir), rng))
            print(f"stop {n + 1}: {stops[-1]:.2f} s", flush=True)
    finally:
        aws.stop()
    worst, median = max(stops), statistics.median(stops)
    met = "met" if worst <= TARGET_SECONDS else "NOT met"
    print(f"docker stop of an idle worker: median {median:.2f} s, worst {worst:.2f} s")
    print(f"target <= {TARGET_SECONDS:.0f} s: {met}; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
