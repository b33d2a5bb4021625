"""The world a worker task of deploy/cloudformation/worker.yaml meets, on loopback: moto for SQS
and S3 (the queues, buckets and pinned bundle the stack names), a fake GOV.UK Notify holding the
key the stack's secret would, and the task's environment exactly as the template gives it.

Only what ECS and AWS supply outside the template is added (``HARNESS_NAMES``): the endpoint
standing in for AWS, the task role's credentials, Notify's address, and a free health port (the
container shares the host's network, and 8085 may be taken there).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from attrs import frozen

from support.bundle_copies import relabelled_bundle
from support.cloudformation import Stack, read_only_root, task_environment, writable_paths
from support.deploy_stacks import (
    NOTIFY_SECRET,
    REFERENCE_BUCKET,
    REFERENCE_KEY,
    link_signer_secrets,
    worker_stack,
)
from support.fake_notify import SERVICE_TEMPLATES, FakeNotifyServer
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer, free_port
from support.worker_jobs import Queues, make_queues

HARNESS_NAMES = frozenset(
    {
        "AWS_ENDPOINT_URL",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "GOVUK_NOTIFY_BASE_URL",
        "AWS_HEALTH_PORT",
    }
)


@frozen
class WorkerTask:
    stack: Stack
    env: dict[str, str]
    queues: Queues
    health_port: int
    read_only: bool
    writable: list[str]

    @property
    def results(self) -> tuple[str, str]:
        """The results bucket and prefix the task writes to."""
        return self.env["NRF_RESULTS_BUCKET"], self.env["NRF_RESULTS_PREFIX"]

    @property
    def input_bucket(self) -> str:
        return self.env["NRF_INPUT_BUCKET"]

    def template(self, kind: str) -> str:
        """The Notify template id the stack gives for ``COMPLETED``, ``FAILED``..."""
        return self.env[f"GOVUK_NOTIFY_TEMPLATE_JOB_{kind}"]


def _bucket(s3: Any, name: str) -> None:
    s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})


def worker_task(aws: MotoServer, notify: FakeNotifyServer, workdir: Path) -> WorkerTask:
    """Publish a (non-synthetic) bundle, make what the stack makes, resolve the environment."""
    bundle = relabelled_bundle(workdir / "national.gpkg", name="national", version="2026.2")
    stack = worker_stack(hashlib.sha256(bundle.read_bytes()).hexdigest())
    s3, sqs = aws.client("s3"), aws.client("sqs")
    _bucket(s3, REFERENCE_BUCKET)
    s3.upload_file(str(bundle), REFERENCE_BUCKET, REFERENCE_KEY)
    secrets = {NOTIFY_SECRET: notify.api_key, **link_signer_secrets(stack)}
    template_env = task_environment(stack, "TaskDefinition", secrets)
    assert not HARNESS_NAMES & set(template_env), "the harness would override the template"
    _bucket(s3, template_env["NRF_RESULTS_BUCKET"])
    _bucket(s3, template_env["NRF_INPUT_BUCKET"])
    queue = stack.parameters["QueueName"]
    receives = stack.resource("JobQueue")["Properties"]["RedrivePolicy"]["maxReceiveCount"]
    queues = make_queues(sqs, queue, max_receive_count=int(receives))
    # The service's templates as the stack names them, with the fields each uses.
    for kind, fields in (("COMPLETED", "tpl-completed"), ("FAILED", "tpl-failed")):
        notify.templates[template_env[f"GOVUK_NOTIFY_TEMPLATE_JOB_{kind}"]] = SERVICE_TEMPLATES[
            fields
        ]
    port = free_port()
    env = {
        **template_env,
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
        "GOVUK_NOTIFY_BASE_URL": notify.base_url,
        "AWS_HEALTH_PORT": str(port),
    }
    return WorkerTask(
        stack=stack,
        env=env,
        queues=queues,
        health_port=port,
        read_only=read_only_root(stack, "TaskDefinition"),
        writable=writable_paths(stack, "TaskDefinition"),
    )
