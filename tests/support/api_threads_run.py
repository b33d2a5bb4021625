"""Many quotes at once on one app, from several threads, as gunicorn's gthread serves them.

Run as a script by tests/integration/test_api_threads.py: a crash here (SIGSEGV from GEOS)
must end this process, not the test run. Prints how many answers were 200.
"""

from __future__ import annotations

import json
import sys
import threading

import falcon.testing
import geopandas as gpd

from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from nrf.entrypoints.roots.api import build_api_root

KEY = "threads-key-0123456789"
THREADS, ROUNDS = 8, 3
PROPERTIES = {"dwelling_category": "housing", "source": "", "dwellings": 40}


def main(sites_path: str) -> int:
    container = build_api_root()
    services = ApiServices(
        quote=container.get_quote(),
        check=container.check_boundary(),
        reference_for=container.boundary_data().reference_for,
        store=None,
        files=None,
        limits=DEFAULT_LIMITS,
    )
    client = falcon.testing.TestClient(create_app(services, ApiKeys([KEY])))
    frame = gpd.read_file(sites_path).to_crs(27700)
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    bodies = []
    for number, feature in enumerate(json.loads(frame.to_json())["features"], start=1):
        feature["properties"] = {**PROPERTIES, "id": str(number), "name": f"site {number}"}
        bodies.append(json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]}))
    statuses: list[int] = []

    def post(share: list[str]) -> None:
        for _ in range(ROUNDS):
            for n, body in enumerate(share):
                path = "/v1/boundary-checks" if n % 3 == 0 else "/v1/quotes"
                # Boundary checks answer JSON only (any other Accept is a 406), quotes also HTML.
                html = n % 5 == 0 and path == "/v1/quotes"
                accept = "text/html" if html else "application/json"
                answer = client.simulate_post(
                    path,
                    body=body,
                    headers={
                        "x-api-key": KEY,
                        "Content-Type": "application/geo+json",
                        "Accept": accept,
                    },
                )
                statuses.append(answer.status_code)

    threads = [threading.Thread(target=post, args=(bodies[i::THREADS],)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"{statuses.count(200)} of {len(statuses)} answered 200")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
