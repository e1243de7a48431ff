"""A local HTTP server with fault injection, and a catalog whose sources point at it, for the loaders' tests."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from experiments.data import catalog


class FileServer:
    """Serves ``files`` (path -> bytes) on 127.0.0.1 with HTTP Range support.

    ``faults[path]`` is a list of faults, one used per request: ``"drop"`` sends the full Content-Length but closes
    the connection halfway, ``"corrupt"`` flips a byte, ``"ignore-range"`` answers 200 with the whole file,
    ``"500"``/``"404"`` answer that status. ``requests`` records (path, Range header) of every request."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.faults: dict[str, list[str]] = {}
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = self.path.lstrip("/")
                self_range = self.headers.get("Range")
                server.requests.append((path, self_range))
                fault = server.faults.get(path, []).pop(0) if server.faults.get(path) else None
                if path not in server.files or fault == "404":
                    self.send_error(404)
                    return
                if fault == "500":
                    self.send_error(500)
                    return
                body = server.files[path]
                if fault == "corrupt":
                    body = body[:-1] + bytes([body[-1] ^ 0xFF])
                start = 0
                if self_range and fault != "ignore-range":
                    start = int(self_range.removeprefix("bytes=").split("-")[0])
                    if start >= len(body):
                        self.send_error(416)
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                chunk = body[start:]
                self.send_header("Content-Length", str(len(chunk)))
                self.end_headers()
                if fault == "drop":
                    self.wfile.write(chunk[: len(chunk) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(chunk)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def http_server():
    server = FileServer()
    yield server
    server.close()


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """An empty data cache for the test (MONDRIAN_DATA)."""
    home = tmp_path / "data"
    monkeypatch.setenv("MONDRIAN_DATA", str(home))
    return home


@pytest.fixture
def local_catalog(tmp_path, monkeypatch, http_server, data_home):
    """``serve(name, {file name: bytes})``: the real catalog entry ``name`` with its http sources' files served by
    the local server (urls and sha256 rewritten to the served bytes, other sources dropped; a derived entry's parent
    served so). Returns the entry."""
    directory = tmp_path / "catalog"
    directory.mkdir()
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)

    def serve(name: str, files: dict[str, bytes], pin: bool = True, keep_other_sources: bool = False):
        raw = yaml.safe_load((catalog.REPO_ROOT / "datasets" / f"{name}.yaml").read_text())
        if raw.get("derived_from"):  # a derived entry reads its parent's files: the parent is served
            serve(raw["derived_from"], files, pin, keep_other_sources)
        sources = []
        for source in raw.get("sources") or ():
            if source["kind"] != "http":
                if keep_other_sources:
                    sources.append(source)
                continue
            for file_name, spec in source["files"].items():
                body = files[file_name]
                http_server.files[f"{name}/{file_name}"] = body
                spec["url"] = f"{http_server.url}/{name}/{file_name}"
                spec["sha256"] = hashlib.sha256(body).hexdigest() if pin else None
            sources.append(source)
        if not raw.get("derived_from"):
            raw["sources"] = sources
        (directory / f"{name}.yaml").write_text(yaml.safe_dump(raw))
        return catalog.entry(name)

    return serve


FIXTURES = Path(__file__).parent / "fixtures"
