"""One boundary, three ways in: `nrf assess`, `POST /v1/quotes` and a queued job give one answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nrf.entrypoints.cli import main
from support.api_server import KEY, running_server, serve_env
from support.fake_notify import running_fake_notify
from support.moto_server import MotoServer, free_port
from support.worker_jobs import SITE_RING, TEMPLATES, job_body, make_queues, worker_env
from support.worker_process import WorkerProcess

JOB = "same-figures-1"


def figures(doc: dict[str, Any]) -> dict[str, Any]:
    """Everything but the site's identity fields (a job's id is its job id by design)."""
    [site] = doc["sites"]
    return {
        "site": {k: v for k, v in site.items() if k != "site"},
        "dwellings": site["site"]["dwellings"],
        "provenance": doc["provenance"],
        "out_of_scope": doc["out_of_scope"],
    }


def test_cli_api_and_a_queued_job_agree(aws: MotoServer, tmp_path: Path) -> None:
    # The job the worker runs: SITE_RING (BNG), 10 dwellings of "housing", default rules.
    body = json.loads(job_body(JOB))
    crs = body["boundary"]["crs"]
    properties = {
        "id": JOB,
        "name": body["development"]["name"],
        "dwellings": 10,
        "dwelling_category": "housing",
        "source": "",
    }
    geojson = {
        "type": "FeatureCollection",
        "crs": crs,
        "features": [
            {
                "type": "Feature",
                "properties": properties,
                "geometry": {"type": "Polygon", "coordinates": [SITE_RING]},
            }
        ],
    }
    source = tmp_path / "site.geojson"
    source.write_text(json.dumps(geojson))

    assert (
        main(["assess", str(source), "--processes", "1", "--output", str(tmp_path / "c.json")]) == 0
    )
    from_cli = json.loads((tmp_path / "c.json").read_text())

    results = tmp_path / "results"
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "same_figures")
    with running_fake_notify() as notify:
        env = worker_env(aws.endpoint_url, queues.name, results, free_port(), notify)
        worker = WorkerProcess(env).start()
        try:
            worker.wait_for("worker_started", timeout=90)
            sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(JOB))
            worker.wait_for("job_finished", timeout=60, job_id=JOB)
        finally:
            worker.close()
        completed = [e for e in notify.emails if e["template_id"] == TEMPLATES["COMPLETED"]]
    assert completed[0]["personalisation"]["report_link"] == (
        f"https://nrf.example/results/{JOB}/result.html"
    )
    assert (results / JOB / "result.html").is_file()

    with running_server(serve_env(results), tmp_path / "serve.log") as server:
        quoted = server.post("/v1/quotes", source.read_bytes(), "application/geo+json")
        job = server.request("GET", f"/v1/jobs/{JOB}", headers={"x-api-key": KEY})
        page = server.request(
            "GET", f"/v1/jobs/{JOB}", headers={"x-api-key": KEY, "Accept": "text/html"}
        )
    assert quoted.status == 200 and job.status == 200 and page.status == 200
    from_api, from_job = quoted.json(), job.json()["result"]
    assert figures(from_cli) == figures(from_api) == figures(from_job)
    # Not a vacuous match: the site is in scope with a real levy.
    assert from_cli["sites"][0]["n_total"] > 0
    assert b'id="site-boundary"' in page.body
