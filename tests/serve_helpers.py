"""For tests/test_serve.py: a real `zerda serve` process, the real zep-python client in
its own venv (tests/zep_client_scenarios.py), and a fresh PostgreSQL database."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from cli_runner import settings

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = Path(__file__).with_name("zep_client_scenarios.py")
ZEP_VARIABLE = "ZERDA_TEST_ZEP_PYTHON"  # the python of a venv holding zep-python==1.5.0
POSTGRES_VARIABLE = "ZERDA_TEST_POSTGRES_URL"


def unavailable(reason: str) -> None:
    """Skip with `reason`, or fail under CI, where nothing may be skipped."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"needed in CI: {reason}")
    pytest.skip(reason)


def zep_python() -> str:
    """The client venv's python: $ZERDA_TEST_ZEP_PYTHON, else ./.venv-zep's."""
    found = os.environ.get(ZEP_VARIABLE) or str(ROOT / ".venv-zep" / "bin" / "python")
    if not Path(found).is_file():
        unavailable(
            f"no zep-python client: python3 -m venv .venv-zep && .venv-zep/bin/pip install "
            f"zep-python==1.5.0 (or set {ZEP_VARIABLE})"
        )
    return found


@dataclass
class Server:
    """A running `zerda serve`: its URL, store location and log (its stderr)."""

    url: str
    location: str
    log: Path
    proc: subprocess.Popen[bytes]

    def stop(self) -> None:
        """SIGTERM, as a service manager stops it."""
        self.proc.send_signal(signal.SIGTERM)
        self.stopped()

    def stopped(self) -> None:
        """Wait for it to end cleanly after SIGTERM: one worker ends by the signal, which
        uvicorn raises again once it has shut down; with more, their supervisor exits 0."""
        assert self.proc.wait(timeout=30) in (0, -signal.SIGTERM)
        assert "Application shutdown complete." in self.log.read_text()


def start(location: str, log: Path, *flags: str, key: str | None = None) -> Server:
    """`zerda serve --store LOCATION FLAGS` on a free loopback port, once it answers; on
    another port if something took the one chosen before the server bound it."""
    outside = settings(os.environ)  # started for a module: before the tests' own clean-up
    env = {k: v for k, v in os.environ.items() if k not in outside}
    env.update({"ZERDA_API_KEY": key} if key else {})
    for _ in range(3):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        argv = [sys.executable, "-m", "zerda_cli", "serve", "--port", str(port)]
        with log.open("wb") as stderr:
            proc = subprocess.Popen(
                [*argv, "--store", location, *flags], stderr=stderr, stdout=stderr, env=env
            )
        server = Server(f"http://127.0.0.1:{port}", location, log, proc)
        if _came_up(server):
            return server
    pytest.fail(f"zerda serve found no free port: {log.read_text()}")


def _came_up(server: Server, seconds: float = 60) -> bool:
    """True once it answers; False if it ended because its port was taken."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            said = server.log.read_text()
            if "address already in use" in said.lower():
                return False
            pytest.fail(f"zerda serve ended: {said}")
        try:
            answered = httpx.get(server.url + "/healthz").status_code == 200
            # Ours, not whoever took the port: uvicorn says it runs once its own bind worked.
            if answered and "Uvicorn running on" in server.log.read_text():
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    server.proc.kill()
    pytest.fail(f"zerda serve did not answer within {seconds:g} s")


def run_client(server: Server, scenario: str, session_id: str, key: str | None) -> Any:
    """What the real zep-python client saw running `scenario` on `session_id`."""
    env = {k: v for k, v in os.environ.items() if k != "ZEP_API_KEY"}
    env.update({"ZEP_API_KEY": key} if key else {})
    argv = [zep_python(), str(SCENARIOS), scenario, server.url, session_id]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["warnings"] == []  # e.g. no "incompatible Zep server version"
    return output["result"]


def new_database(admin_url: str) -> str:
    """A fresh database on the server of `admin_url`; its URL."""
    import psycopg

    name = f"zerda_test_serve_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


def drop_database(admin_url: str, url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
