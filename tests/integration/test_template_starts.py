"""The templates in deploy/ start their tasks: each task's environment, as the template gives it
with parameters filled, passes the process's own settings check and pin handling against moto.

cfn-lint only says a template is well formed; these say the worker (and the API) it deploys
would get past start-up, and that its role may read what start-up reads.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import attrs
import pytest

from nrf.adapters.environment.settings import ConfigError, WorkerSettings, load_settings
from nrf.entrypoints.reference_bundle import (
    SyntheticDataRefused,
    bundled_synthetic,
    prepare_reference_data,
)
from nrf.entrypoints.roots.core import Core, build
from support.bundle_copies import relabelled_bundle
from support.cloudformation import (
    PARTITION,
    Stack,
    load_template,
    role_allows,
)
from support.deploy_stacks import (
    API_KEYS,
    API_KEYS_SECRET,
    CERTIFICATE,
    DEPLOY,
    NOTIFY_SECRET,
    REFERENCE_BUCKET,
    REFERENCE_KEY,
    api_env,
    api_stack,
    worker_env,
    worker_parameters,
    worker_stack,
)
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer


@pytest.fixture(autouse=True)
def _fake_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", FAKE_CREDENTIALS["aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", FAKE_CREDENTIALS["aws_secret_access_key"])


@pytest.fixture
def bundle(tmp_path: Path) -> tuple[Path, str]:
    """A bundle that is not synthetic, and its SHA-256."""
    path = relabelled_bundle(tmp_path / "national.gpkg", name="national", version="2026.2")
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def publish(aws: MotoServer, bundle: Path) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(
        Bucket=REFERENCE_BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION}
    )
    s3.upload_file(str(bundle), REFERENCE_BUCKET, REFERENCE_KEY)


def start_up(settings: WorkerSettings, aws: MotoServer, cache: Path) -> WorkerSettings:
    """The pin step of a task's start, against moto: the settings that name the local copy."""
    on_moto = attrs.evolve(settings, endpoint_url=aws.endpoint_url, reference_data_cache=str(cache))
    ready = prepare_reference_data(on_moto, bundled_synthetic(), lambda: aws.client("s3"))
    return attrs.evolve(on_moto, reference_data=str(ready.path))


def test_the_worker_task_environment_passes_the_workers_settings_check(
    bundle: tuple[Path, str],
) -> None:
    _, sha256 = bundle
    settings = load_settings(worker_env(worker_stack(sha256)))
    assert settings.reference_data == f"s3://{REFERENCE_BUCKET}/{REFERENCE_KEY}"
    assert settings.reference_data_sha256 == sha256
    assert (settings.notifier, settings.result_store) == ("govuk_notify", "s3")
    assert (settings.results_bucket, settings.input_bucket) == ("nrf-results", "nrf-input")
    assert settings.region == REGION
    assert not settings.allow_synthetic_data


def test_the_started_template_parameter_reaches_the_worker_and_may_be_left_blank(
    bundle: tuple[Path, str],
) -> None:
    # Every Notify template the worker reads has a parameter: the "started" one is optional.
    started = "0c4d1f5e-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
    stack = Stack(
        load_template(DEPLOY / "worker.yaml"),
        {**worker_parameters(bundle[1]), "NotifyTemplateStarted": started},
    )
    env = worker_env(stack)
    assert env["GOVUK_NOTIFY_TEMPLATE_JOB_STARTED"] == started
    assert load_settings(env).template_started == started
    # Left out, the parameter's default is blank: the worker starts and sends no started email.
    assert load_settings(worker_env(worker_stack(bundle[1]))).template_started is None


def test_the_check_does_fail_an_environment_the_worker_would_refuse(
    bundle: tuple[Path, str],
) -> None:
    # The first template's fault: Notify chosen without its template ids (the worker exits 2).
    env = worker_env(worker_stack(bundle[1]))
    del env["GOVUK_NOTIFY_TEMPLATE_JOB_COMPLETED"]
    with pytest.raises(ConfigError, match="GOVUK_NOTIFY_TEMPLATE_JOB_COMPLETED"):
        load_settings(env)


def test_the_worker_task_gets_its_pinned_bundle_and_reaches_queue_and_store(
    aws: MotoServer, bundle: tuple[Path, str], tmp_path: Path
) -> None:
    path, sha256 = bundle
    stack = worker_stack(sha256)
    publish(aws, path)
    aws.client("sqs").create_queue(QueueName=stack.parameters["QueueName"])
    aws.client("sqs").create_queue(QueueName=stack.parameters["QueueName"] + "_dlq")
    aws.client("s3").create_bucket(
        Bucket="nrf-results", CreateBucketConfiguration={"LocationConstraint": REGION}
    )
    settings = start_up(load_settings(worker_env(stack)), aws, tmp_path / "cache")
    # What the worker process does next (worker/main.py): open the bundle, find the queue,
    # sweep the store.
    container = build(Core, settings=settings)
    info = container.boundary_data().info()
    assert (info.name, info.version, info.sha256, info.synthetic) == (
        "national",
        "2026.2",
        sha256,
        False,
    )
    assert container.job_queue().queue_url.endswith("/nrf_impact_assessment_queue")
    assert container.result_store().sweep_temporaries(time.time(), 3600) == 0


def test_without_its_pin_the_worker_task_would_refuse_synthetic_data(
    bundle: tuple[Path, str],
) -> None:
    # The first template's second fault: no NRF_REFERENCE_DATA, so the synthetic bundle (exit 4).
    env = worker_env(worker_stack(bundle[1]))
    del env["NRF_REFERENCE_DATA"], env["NRF_REFERENCE_DATA_SHA256"]
    with pytest.raises(SyntheticDataRefused):
        prepare_reference_data(load_settings(env), bundled_synthetic(), _no_s3)


def _no_s3() -> Any:
    raise AssertionError("no S3 client is needed for the bundled bundle")


def test_the_worker_role_may_read_what_start_up_and_jobs_read(bundle: tuple[Path, str]) -> None:
    stack = worker_stack(bundle[1])
    reference = f"arn:{PARTITION}:s3:::{REFERENCE_BUCKET}/{REFERENCE_KEY}"
    assert role_allows(stack, "TaskRole", "s3:GetObject", reference)
    assert role_allows(stack, "TaskRole", "s3:GetObject", f"arn:{PARTITION}:s3:::nrf-input/a.zip")
    # ... and nothing else in the reference bucket, nor writes to it.
    other = f"arn:{PARTITION}:s3:::{REFERENCE_BUCKET}/bundles/other.gpkg"
    assert not role_allows(stack, "TaskRole", "s3:GetObject", other)
    assert not role_allows(stack, "TaskRole", "s3:PutObject", reference)
    assert role_allows(stack, "ExecutionRole", "secretsmanager:GetSecretValue", NOTIFY_SECRET)
    links = stack.resolve({"Ref": "ResultLinkSignerSecret"})
    assert role_allows(stack, "ExecutionRole", "secretsmanager:GetSecretValue", links)


def test_the_link_signer_may_read_job_results_and_nothing_else(bundle: tuple[Path, str]) -> None:
    stack = worker_stack(bundle[1])
    bucket = stack.resolve({"Ref": "ResultsBucket"})
    result = f"arn:{PARTITION}:s3:::{bucket}/results/job-1/result.html"
    assert role_allows(stack, "ResultLinkSigner", "s3:GetObject", result)
    assert not role_allows(stack, "ResultLinkSigner", "s3:PutObject", result)
    # Nothing in the bucket outside the results prefix.
    outside = f"arn:{PARTITION}:s3:::{bucket}/elsewhere/job-1/result.html"
    assert not role_allows(stack, "ResultLinkSigner", "s3:GetObject", outside)
    reference = f"arn:{PARTITION}:s3:::{REFERENCE_BUCKET}/{REFERENCE_KEY}"
    assert not role_allows(stack, "ResultLinkSigner", "s3:GetObject", reference)


def test_a_digest_that_is_not_one_is_refused_by_the_template() -> None:
    with pytest.raises(ValueError, match="ReferenceDataSha256"):
        worker_stack("not-a-digest")


def test_the_api_task_environment_passes_the_apis_settings_check(
    bundle: tuple[Path, str],
) -> None:
    from nrf.entrypoints.api.config import load_api_settings

    env = api_env(api_stack(bundle[1]))
    api = load_api_settings(env)
    settings = load_settings(env)
    assert api.keys == tuple(API_KEYS.split(",")) and not api.allow_anonymous
    assert (api.workers, api.threads) == (2, 4)
    assert settings.reference_data == f"s3://{REFERENCE_BUCKET}/{REFERENCE_KEY}"
    assert settings.reference_data_sha256 == bundle[1]
    assert not settings.allow_synthetic_data
    assert (settings.result_store, settings.results_bucket) == ("s3", "nrf-results")


def test_the_api_and_worker_stacks_quote_from_one_bundle(bundle: tuple[Path, str]) -> None:
    api, worker = (
        load_settings(api_env(api_stack(bundle[1]))),
        load_settings(worker_env(worker_stack(bundle[1]))),
    )
    pin = ("reference_data", "reference_data_sha256", "results_bucket", "results_prefix")
    assert [getattr(api, f) for f in pin] == [getattr(worker, f) for f in pin]


def test_the_api_task_starts_and_serves_from_the_template_environment(
    aws: MotoServer, bundle: tuple[Path, str], tmp_path: Path
) -> None:
    from support.api_server import running_server

    path, sha256 = bundle
    stack = api_stack(sha256)
    publish(aws, path)
    container = stack.resource("TaskDefinition")["Properties"]["ContainerDefinitions"][0]
    assert container["Command"] == ["serve", "--bind", "0.0.0.0:8080"]
    # Only the endpoint and the credentials are the test's own: moto stands in for AWS, and
    # `running_server` binds loopback.
    env = {
        **api_env(stack),
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
        "NRF_REFERENCE_DATA_CACHE": str(tmp_path / "cache"),
        "PATH": "/usr/bin:/bin",
    }
    with running_server(env, tmp_path / "serve.log") as server:
        ready = server.request("GET", "/ready")
        assert ready.status == 200, ready.body
        assert (ready.json()["bundle_version"], ready.json()["bundle_sha256"]) == ("2026.2", sha256)


def test_the_load_balancer_speaks_tls_and_checks_readiness(bundle: tuple[Path, str]) -> None:
    stack = api_stack(bundle[1])
    https = stack.resource("HttpsListener")["Properties"]
    assert (https["Port"], https["Protocol"]) == (443, "HTTPS")
    assert https["Certificates"] == [{"CertificateArn": CERTIFICATE}]
    assert https["SslPolicy"].startswith("ELBSecurityPolicy-TLS13-1-2")
    [redirect] = stack.resource("HttpRedirectListener")["Properties"]["DefaultActions"]
    assert redirect["Type"] == "redirect" and redirect["RedirectConfig"]["Protocol"] == "HTTPS"
    group = stack.resource("TargetGroup")["Properties"]
    container = stack.resource("TaskDefinition")["Properties"]["ContainerDefinitions"][0]
    # Traffic only once the verified bundle is open; the port is the one `serve` binds.
    assert group["HealthCheckPath"] == "/ready"
    assert group["Port"] == container["PortMappings"][0]["ContainerPort"] == 8080
    [ingress] = stack.resource("TaskSecurityGroup")["Properties"]["SecurityGroupIngress"]
    assert ingress["SourceSecurityGroupId"] == "LoadBalancerSecurityGroup-physical-id"
    # The keys are a secret, never a plain environment entry.
    assert "NRF_API_KEYS" not in {e["Name"] for e in container["Environment"]}
    assert role_allows(stack, "ExecutionRole", "secretsmanager:GetSecretValue", API_KEYS_SECRET)


def test_the_api_role_reads_the_bundle_and_results_and_writes_nothing(
    bundle: tuple[Path, str],
) -> None:
    stack = api_stack(bundle[1])
    reference = f"arn:{PARTITION}:s3:::{REFERENCE_BUCKET}/{REFERENCE_KEY}"
    record = f"arn:{PARTITION}:s3:::nrf-results/results/job-1/status.json"
    assert role_allows(stack, "TaskRole", "s3:GetObject", reference)
    assert role_allows(stack, "TaskRole", "s3:GetObject", record)
    assert not role_allows(stack, "TaskRole", "s3:PutObject", record)
