"""A throw-away PostgreSQL + PostGIS cluster on loopback, kept under the bench cache."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from benchmarks.timing import log


def _bin_dir() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        path = Path(candidate)
        if (path / "initdb").exists() and (path / "pg_ctl").exists():
            return path
    return None


def available() -> str | None:
    """None when a PostGIS cluster can be started here, else the reason it cannot."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    if _bin_dir() is None:
        return "PostgreSQL server binaries not found (apt-get install postgresql-15)"
    if not glob.glob("/usr/share/postgresql/*/extension/postgis.control"):
        return "PostGIS is not installed (apt-get install postgresql-15-postgis-3)"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """initdb once into ``data``; start on a free loopback port; stop when done."""

    def __init__(self, data: Path) -> None:
        self.data = data.resolve()
        self.bin = _bin_dir()
        self.port = _free_port()
        # PostgreSQL refuses to run as root: run it as the postgres user then.
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True)

    def start(self) -> Cluster:
        assert self.bin is not None
        if not (self.data / "PG_VERSION").exists():
            shutil.rmtree(self.data, ignore_errors=True)
            self.data.mkdir(parents=True)
            if self._as:
                shutil.chown(self.data, "postgres", "postgres")
            self._run(
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            )
        opts = (
            f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c shared_buffers=1GB -c work_mem=64MB -c maintenance_work_mem=1GB "
            "-c max_wal_size=8GB -c synchronous_commit=off "
            "-c full_page_writes=off"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-w",
            "-l",
            str(self.data / "server.log"),
            "start",
        )
        log(f"postgis: cluster up on 127.0.0.1:{self.port}")
        return self

    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def stop(self) -> None:
        assert self.bin is not None
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def server_rss_mb(self) -> float | None:
        """Sum of the current RSS of the cluster's processes (postmaster and children)."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError):
            return None
        total = 0
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                fields = Path(stat).read_text().rsplit(")", 1)[1].split()
                proc = int(stat.split("/")[2])
                if proc == pid or int(fields[1]) == pid:
                    total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, ValueError, IndexError):
                continue
        return round(total / (1 << 20), 1)


def wait_ready(dsn: str, seconds: float = 30) -> None:
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(dsn).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
