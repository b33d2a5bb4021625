"""The deploy/ templates as tests deploy them: example parameters, and each task's environment.

Shared by the template start-up tests and the image tests, which run the image with exactly the
environment (and filesystem) a template gives its task.
"""

from __future__ import annotations

from pathlib import Path

from support.cloudformation import Stack, load_template, task_environment

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "cloudformation"
NOTIFY_SECRET = "arn:aws:secretsmanager:eu-west-2:123456789012:secret:notify-AbCdEf"
# A GOV.UK Notify key has the shape name-serviceid-secret (two UUIDs).
NOTIFY_KEY = "nrf_live-26785a09-ab16-4eb0-8407-a37497a57506-3d844edf-8d35-48ac-975b-e847b4f122b0"
REFERENCE_BUCKET, REFERENCE_KEY = "nrf-reference", "bundles/national-2026.2.gpkg"


def worker_parameters(sha256: str) -> dict[str, str]:
    return {
        "Image": "123456789012.dkr.ecr.eu-west-2.amazonaws.com/nrf@sha256:" + "a" * 64,
        "ClusterName": "nrf",
        "Subnets": "subnet-0a,subnet-0b",
        "SecurityGroups": "sg-0a",
        "ResultsBucketName": "nrf-results",
        "InputBucketName": "nrf-input",
        "ReferenceDataBucket": REFERENCE_BUCKET,
        "ReferenceDataKey": REFERENCE_KEY,
        "ReferenceDataSha256": sha256,
        "NotifySecretArn": NOTIFY_SECRET,
        "NotifyTemplateCompleted": "5b0d2a6e-2a8b-4ac8-9a76-2d3bbf7e1c11",
        "NotifyTemplateFailed": "9e8f7a6b-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
        "SupportEmail": "nrf-support@example.gov.uk",
        "AlarmEmail": "nrf-alarms@example.gov.uk",
    }


def worker_stack(sha256: str) -> Stack:
    return Stack(load_template(DEPLOY / "worker.yaml"), worker_parameters(sha256))


def link_signer_secrets(stack: Stack) -> dict[str, str]:
    """The link signer's secret, as ECS reads each JSON key of it (the stack's own secret)."""
    links = stack.resolve({"Ref": "ResultLinkSignerSecret"})
    return {
        f"{links}:access_key_id::": "AKIALINKSIGNER000001",
        f"{links}:secret_access_key::": "link-signer-secret",
    }


def worker_env(stack: Stack) -> dict[str, str]:
    secrets = {NOTIFY_SECRET: NOTIFY_KEY, **link_signer_secrets(stack)}
    return task_environment(stack, "TaskDefinition", secrets)


API_KEYS_SECRET = "arn:aws:secretsmanager:eu-west-2:123456789012:secret:nrf-api-keys-AbCdEf"
API_KEYS = "backend-key-0123456789abcdef,support-key-fedcba9876543210"
CERTIFICATE = "arn:aws:acm:eu-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"


def api_stack(sha256: str) -> Stack:
    parameters = {
        "Image": "123456789012.dkr.ecr.eu-west-2.amazonaws.com/nrf@sha256:" + "a" * 64,
        "ClusterName": "nrf",
        "VpcId": "vpc-0a",
        "LoadBalancerSubnets": "subnet-1a,subnet-1b",
        "TaskSubnets": "subnet-0a,subnet-0b",
        "CertificateArn": CERTIFICATE,
        "ApiKeysSecretArn": API_KEYS_SECRET,
        "ReferenceDataBucket": REFERENCE_BUCKET,
        "ReferenceDataKey": REFERENCE_KEY,
        "ReferenceDataSha256": sha256,
        "ResultsBucketName": "nrf-results",
        "AlarmEmail": "nrf-alarms@example.gov.uk",
    }
    return Stack(load_template(DEPLOY / "api.yaml"), parameters)


def api_env(stack: Stack) -> dict[str, str]:
    return task_environment(stack, "TaskDefinition", {API_KEYS_SECRET: API_KEYS})
