"""The CloudFormation templates in deploy/ pass cfn-lint; the worker's agrees with its settings."""

from __future__ import annotations

import copy
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.supervisor import SUPERVISOR_MARGIN_SECONDS
from support.cloudformation import Stack, read_only_root, writable_paths
from support.deploy_stacks import api_stack, worker_stack
from unit.test_dockerfile import instructions

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "cloudformation" / "worker.yaml"
ECS_MAX_STOP_TIMEOUT = 120  # ECS refuses a longer stopTimeout on Fargate

needs_cfn_lint = pytest.mark.skipif(
    importlib.util.find_spec("cfnlint") is None,
    reason="cfn-lint is not installed (pip install '.[test]' brings it)",
)


def _cfn_lint() -> str:
    beside = Path(sys.executable).with_name("cfn-lint")
    found = str(beside) if beside.exists() else shutil.which("cfn-lint")
    if found is None:
        pytest.skip("the cfn-lint command is not on PATH")
    return found


def _template() -> dict[str, Any]:
    import yaml  # comes with cfn-lint; the template uses only long-form intrinsics

    data: dict[str, Any] = yaml.safe_load(TEMPLATE.read_text())
    return data


def _container() -> dict[str, Any]:
    task = _template()["Resources"]["TaskDefinition"]["Properties"]
    container: dict[str, Any] = task["ContainerDefinitions"][0]
    return container


def _env(name: str) -> Any:
    values = {e["Name"]: e["Value"] for e in _container()["Environment"]}
    return values[name]


@needs_cfn_lint
@pytest.mark.parametrize("template", [TEMPLATE, TEMPLATE.with_name("api.yaml")])
def test_the_templates_pass_cfn_lint(template: Path) -> None:
    answer = subprocess.run(
        [_cfn_lint(), str(template)], capture_output=True, text=True, timeout=300
    )
    assert answer.returncode == 0, answer.stdout + answer.stderr


@needs_cfn_lint
def test_cfn_lint_does_fail_a_broken_template(tmp_path: Path) -> None:
    # A stopTimeout that is not a number must be caught, or the test above proves nothing.
    broken = tmp_path / "broken.yaml"
    broken.write_text(TEMPLATE.read_text().replace("StopTimeout: 120", 'StopTimeout: "soon"'))
    answer = subprocess.run([_cfn_lint(), str(broken)], capture_output=True, text=True, timeout=300)
    assert answer.returncode != 0


@needs_cfn_lint
def test_ecs_waits_longer_than_the_worker_needs_to_stop() -> None:
    # The supervisor gives the worker grace + margin before it kills it; ECS must wait longer,
    # or it SIGKILLs the task before jobs past the grace are handed back.
    grace = float(_env("SHUTDOWN_GRACE_SECONDS"))
    assert grace == WorkerSettings().shutdown_grace_seconds
    stop_timeout = _container()["StopTimeout"]
    assert grace + SUPERVISOR_MARGIN_SECONDS < stop_timeout <= ECS_MAX_STOP_TIMEOUT


@needs_cfn_lint
def test_the_container_health_check_asks_for_health_on_the_worker_port() -> None:
    check = _container()["HealthCheck"]
    command = " ".join(check["Command"])
    port = _container()["PortMappings"][0]["ContainerPort"]
    assert port == WorkerSettings().health_port
    assert f"http://127.0.0.1:{port}/health" in command
    # /ready turns 503 while draining: that must never get a draining task replaced.
    assert "/ready" not in command


@needs_cfn_lint
def test_retention_and_queue_figures_match_the_worker_defaults() -> None:
    template = _template()
    # S3 expires results after as many days as `nrf housekeep` keeps them (docs/deploy.md: 90).
    retention = template["Parameters"]["ResultRetentionDays"]["Default"]
    assert retention == WorkerSettings().result_retention_days == 90
    queue = template["Resources"]["JobQueue"]["Properties"]
    assert queue["VisibilityTimeout"] == WorkerSettings().visibility_timeout
    assert int(_env("SQS_VISIBILITY_TIMEOUT")) == WorkerSettings().visibility_timeout
    # One receive by a stall sweep must not be enough to dead-letter a waiting job.
    assert queue["RedrivePolicy"]["maxReceiveCount"] >= 3


@needs_cfn_lint
def test_scaling_divides_visible_messages_by_running_tasks() -> None:
    policy = _template()["Resources"]["BacklogPerTaskPolicy"]["Properties"]
    metrics = policy["TargetTrackingScalingPolicyConfiguration"]["CustomizedMetricSpecification"]
    by_id = {m["Id"]: m for m in metrics["Metrics"]}
    visible = by_id["visible"]["MetricStat"]["Metric"]["MetricName"]
    tasks = by_id["tasks"]["MetricStat"]["Metric"]["MetricName"]
    assert (visible, tasks) == ("ApproximateNumberOfMessagesVisible", "RunningTaskCount")
    assert by_id["backlog_per_task"]["Expression"].startswith("visible / ")
    assert [m["Id"] for m in metrics["Metrics"] if m["ReturnData"]] == ["backlog_per_task"]


@pytest.mark.parametrize("stack", [worker_stack, api_stack], ids=["worker", "api"])
def test_the_tasks_root_filesystem_is_read_only_with_tmp_mounted_and_declared_in_the_image(
    stack: Callable[[str], Stack],
) -> None:
    deployed = stack("0" * 64)
    assert read_only_root(deployed, "TaskDefinition")
    # The processes write only through tempfile, which in the image (no TMPDIR) means /tmp: the
    # downloaded bundle, a job's unpacked boundary file, gunicorn's liveness files.
    assert writable_paths(deployed, "TaskDefinition") == ["/tmp"]
    # Fargate copies a VOLUME's permissions from the image onto the bind mount; without it the
    # mount is root's 0755 and uid 10001 could not write there.
    volumes = [json.loads(args) for name, args in instructions() if name == "VOLUME"]
    assert ["/tmp"] in volumes


def test_a_mount_point_naming_no_task_volume_is_refused() -> None:
    deployed = worker_stack("0" * 64)
    task = deployed.template["Resources"]["TaskDefinition"]["Properties"]
    broken = copy.deepcopy(deployed.template)
    broken["Resources"]["TaskDefinition"]["Properties"] = {**task, "Volumes": []}
    with pytest.raises(ValueError, match="names no volume"):
        writable_paths(Stack(broken, deployed.parameters), "TaskDefinition")


@needs_cfn_lint
def test_the_emails_links_are_signed_by_a_key_that_may_only_read_job_results() -> None:
    resources = _template()["Resources"]
    # A dedicated user: a role's temporary credentials would end a presigned URL with the
    # session (hours), long before the stated expiry.
    [policy] = resources["ResultLinkSigner"]["Properties"]["Policies"]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert statement == {
        "Effect": "Allow",
        "Action": "s3:GetObject",
        "Resource": {"Fn::Sub": "${ResultsBucket.Arn}/${ResultsPrefix}/*"},
    }
    secrets = {s["Name"]: s["ValueFrom"] for s in _container()["Secrets"]}
    secret = "${ResultLinkSignerSecret}"
    assert secrets["NRF_RESULT_LINK_ACCESS_KEY_ID"] == {"Fn::Sub": f"{secret}:access_key_id::"}
    assert secrets["NRF_RESULT_LINK_SECRET_ACCESS_KEY"] == {
        "Fn::Sub": f"{secret}:secret_access_key::"
    }
    stored = resources["ResultLinkSignerSecret"]["Properties"]["SecretString"]["Fn::Sub"]
    assert json.loads(stored.replace("${", "<").replace('}"', '>"')) == {
        "access_key_id": "<ResultLinkSignerKey>",
        "secret_access_key": "<ResultLinkSignerKey.SecretAccessKey>",
    }
    # The lifetime: the parameter's default is the worker's, inside SigV4's 7 days.
    seconds = _template()["Parameters"]["ResultLinkSeconds"]
    assert seconds["Default"] == WorkerSettings().result_link_seconds == 7 * 24 * 3600 - 3600
    assert seconds["MaxValue"] == 7 * 24 * 3600
    assert _env("NRF_RESULT_LINK_SECONDS") == {"Ref": "ResultLinkSeconds"}


@needs_cfn_lint
@pytest.mark.parametrize("template", [TEMPLATE, TEMPLATE.with_name("api.yaml")])
def test_queues_and_log_groups_outlive_the_stack(template: Path) -> None:
    import yaml

    resources = yaml.safe_load(template.read_text())["Resources"]
    kept = [
        name
        for name, r in resources.items()
        if r["Type"] in ("AWS::SQS::Queue", "AWS::Logs::LogGroup", "AWS::S3::Bucket")
    ]
    assert kept
    for name in kept:
        policies = (
            resources[name].get("DeletionPolicy"),
            resources[name].get("UpdateReplacePolicy"),
        )
        assert policies == ("Retain", "Retain"), name
