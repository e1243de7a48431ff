"""The MLflow UI's server (`make ui`'s command and environment) for tests: started on a free loopback port, read
through its REST API, stopped whatever happens."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from experiments.ui import ui_command


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"

    def get(self, endpoint: str, **query) -> bytes:
        url = f"{self.base}{endpoint}?{urllib.parse.urlencode(query)}"
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.read()

    def get_json(self, endpoint: str, **query) -> dict:
        return json.loads(self.get(endpoint, **query))

    def post_json(self, endpoint: str, body: dict) -> dict:
        request = urllib.request.Request(
            f"{self.base}{endpoint}", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())


@contextmanager
def serving(store: Path, artifacts: Path, cwd: Path) -> Iterator[Server]:
    """`make ui`'s command on ``store``, answering, until the block ends."""
    port = free_port()
    command, environment = ui_command(store, artifacts, port)
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **environment},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    server = Server(port)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, process.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, "the MLflow server did not answer within 180 s"
            try:
                server.get("/health")
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.5)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
