"""Moto's standalone server on a free loopback port, for tests that speak real HTTP to AWS."""

from __future__ import annotations

import socket
import urllib.request
from typing import Any

import boto3
from botocore.config import Config
from moto.server import ThreadedMotoServer

REGION = "eu-west-2"
# Moto accepts any credentials; these only keep boto3 from looking for real ones.
FAKE_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def client_config(read_timeout: float = 30, attempts: int = 2) -> Config:
    return Config(
        connect_timeout=2,
        read_timeout=read_timeout,
        retries={"max_attempts": attempts, "mode": "standard"},
    )


def aws_client(service: str, endpoint_url: str, config: Config | None = None) -> Any:
    """A boto3 client for a local endpoint, with fake credentials and short timeouts."""
    return boto3.client(
        service,
        endpoint_url=endpoint_url,
        region_name=REGION,
        config=config or client_config(),
        **FAKE_CREDENTIALS,
    )


class MotoServer:
    """Starts on 127.0.0.1 with an OS-chosen port; ``reset()`` forgets every resource."""

    def __init__(self) -> None:
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.endpoint_url = ""

    def start(self) -> MotoServer:
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        self._server.stop()

    def reset(self) -> None:
        request = urllib.request.Request(f"{self.endpoint_url}/moto-api/reset", method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()

    def client(self, service: str, config: Config | None = None) -> Any:
        return aws_client(service, self.endpoint_url, config)
