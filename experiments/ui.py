"""The MLflow UI: `python -m experiments.ui [--port 5000]` serves the committed evidence (`make ui`), `python -m
experiments.ui --store results/mlflow.db` this machine's runs (`make ui-local`).

The committed evidence is served from a store of its own, ``results/evidence-ui/`` (built by experiments.evidence_store
on the first start, and again only when the evidence, the harness's code or MLflow change: its fingerprint is kept
beside it), so that it never mixes with the runs this machine makes: `make reproduce-figure` runs every trial the local
store lacks whatever the UI showed. It listens on 127.0.0.1 only (``ui_command``). Runs keep their artifacts where
their store put them (results/mlartifacts/<experiment>/ for the local one), which the server reads directly; what is
uploaded through the server itself goes beside them rather than into ./mlartifacts of whatever folder it was started
from.

MLflow 3 shows an experiment either as GenAI pages (traces, empty here) or as its runs. The UI records an experiment's
type in its tag ``mlflow.experimentKind``, which the harness sets (``experiments.tracking``), but MLflow 3.17 picks the
pages from the browser's workflow switch atop the sidebar ("GenAI" / "Model training", remembered by the browser,
GenAI at first) or from the address's ``workflowType``: the addresses (experiments.ui_addresses) ask for the runs.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

from experiments.ui_addresses import experiments_url

BROWSERS = ("chromium", "chromium-browser", "google-chrome")  # Debian's name first
PAGE_TIME = 15_000  # ms of the page's own time a headless browser lets it load (its requests, its rendering)
# experiments.evidence_files.ROOT, named here so that a start on a current store imports neither pandas nor MLflow
EVIDENCE, EVIDENCE_UI = Path("results/evidence"), Path("results/evidence-ui")
FINGERPRINT = "fingerprint.sha256"  # the file beside the evidence's store that says what it was built from
HARNESS = Path(__file__).parent  # the code that writes the store (and the names, notes and tags it gives the runs)


def fingerprint(evidence: Path, target: Path) -> str:
    """What the evidence's store in ``target`` is built from: the evidence's files, the harness's code and figure
    configs, MLflow's version, and where it lies (its runs' artifact URIs are absolute)."""
    digest = hashlib.sha256(f"{importlib.metadata.version('mlflow')}\n{target.resolve()}\n".encode())
    sources = [*Path(evidence).rglob("*"), *HARNESS.rglob("*.py"), *HARNESS.parent.joinpath("conf").rglob("*.yaml")]
    for path in sorted(p for p in sources if p.is_file()):
        digest.update(f"{path.as_posix()}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def stale(evidence: Path, target: Path) -> str | None:
    """The fingerprint to build the evidence's store in ``target`` with, when it is missing or was built from
    something else; None when it is current."""
    stamp, kept = fingerprint(evidence, target), target / FINGERPRINT
    current = (target / "mlflow.db").exists() and kept.exists() and kept.read_text() == stamp
    return None if current else stamp


def evidence_store(evidence: Path = EVIDENCE, target: Path = EVIDENCE_UI) -> Path:
    """The store of the committed evidence in ``target``, built when it is missing or was built from something else."""
    stamp = stale(evidence, target)
    if stamp is not None:
        from experiments.evidence_store import build  # pandas and MLflow: imported only when the store is (re)built

        build(evidence, target, stamp, FINGERPRINT)
    return target / "mlflow.db"


# What `mlflow ui` tells the server it starts (mlflow.server._run_server), set here without importing MLflow: its
# command line imports MLflow once more before the server does, and starts job executors the UI never uses (half the
# CPU time of a start). tests/experiments/test_evidence_store.py checks the names against MLflow's.
_STORE, _ARTIFACT_ROOT = "_MLFLOW_SERVER_FILE_STORE", "_MLFLOW_SERVER_ARTIFACT_ROOT"
_SERVE_ARTIFACTS, _DESTINATION = "_MLFLOW_SERVER_SERVE_ARTIFACTS", "_MLFLOW_SERVER_ARTIFACT_DESTINATION"
_SERVER_KIND, _JOBS = "_MLFLOW_SGI_NAME", "MLFLOW_SERVER_ENABLE_JOB_EXECUTION"


def ui_command(
    store: Path, artifacts: Path, port: int, host: str = "127.0.0.1", after: Path | None = None
) -> tuple[list[str], dict[str, str]]:
    """The command serving the MLflow UI on ``store`` (a SQLite file) and ``artifacts`` at host:port, and the
    environment it runs in: MLflow's own app under uvicorn, as `mlflow ui` runs it (experiments.mlflow_server), one
    worker per two cores (its default of four took seconds longer to start on two), without job executors; given
    ``after``, it listens once that file exists."""
    environment = {
        _STORE: f"sqlite:///{store.resolve()}",
        _ARTIFACT_ROOT: "mlflow-artifacts:/",
        _SERVE_ARTIFACTS: "true",
        _DESTINATION: artifacts.resolve().as_uri(),
        _SERVER_KIND: "uvicorn",
        _JOBS: "false",
    }
    workers = max(1, min(4, (os.cpu_count() or 1) // 2))
    command = [sys.executable, "-m", "experiments.mlflow_server", "--host", host, "--port", str(port)]
    command += ["--workers", str(workers), *(["--after", str(after.resolve())] if after else [])]
    return command, environment


def browser() -> str | None:
    """A Chromium on this machine (the browser tests and the user guide's screenshots load the UI in), or None."""
    return next(filter(None, map(shutil.which, BROWSERS)), None)


def headless(url: str, *options: str, timeout: float = 120) -> str:
    """What headless Chromium prints loading ``url`` with ``options`` (``--dump-dom``: the page's DOM once loaded;
    ``--screenshot=<png>``, ``--window-size=W,H``), raising if it fails."""
    command = [browser() or BROWSERS[0], "--headless", "--no-sandbox", f"--virtual-time-budget={PAGE_TIME}", *options]
    done = subprocess.run([*command, url], capture_output=True, text=True, timeout=timeout, check=True)
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a SQLite store to serve (default: the committed evidence's)")
    parser.add_argument("--artifacts", type=Path, help="a store's artifacts folder (default: mlartifacts beside it)")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    if args.store is None:
        store, artifacts = EVIDENCE_UI / "mlflow.db", EVIDENCE_UI / "artifacts"
        what = "the committed evidence (make ui-local: this machine's runs)"
    else:
        store, artifacts = args.store, args.artifacts or args.store.parent / "mlartifacts"
        what = f"{args.store} (make ui: the committed evidence)"
    base = f"http://127.0.0.1:{args.port}"
    lines = [f"MLflow UI on {base}: {what}; Ctrl-C stops it", f"  the figures' experiments: {experiments_url(base)}"]
    if args.store is not None or stale(EVIDENCE, EVIDENCE_UI) is None:
        command, environment = ui_command(store, artifacts, args.port)
        print("\n".join(lines), flush=True)
        os.execve(command[0], command, {**os.environ, **environment})
    began = time.monotonic()
    # the server listens at once and imports MLflow's app beside the build; it answers for the store once the build
    # has written its fingerprint
    command, environment = ui_command(store, artifacts, args.port, after=EVIDENCE_UI / FINGERPRINT)
    server = subprocess.Popen(command, env={**os.environ, **environment})
    print(*lines, sep="\n")
    print(f"building the store of the committed evidence ({EVIDENCE} changed since the last build, or none was made):"
          " the UI's lists fill in once it is built", flush=True)  # fmt: skip
    try:
        evidence_store()
        print(f"built in {time.monotonic() - began:.0f} s, into {EVIDENCE_UI}", flush=True)
        status = server.wait()
    except KeyboardInterrupt:  # Ctrl-C reached the server too (one process group): it stops, and so does this
        with suppress(KeyboardInterrupt):
            server.wait()
        status = 130
    finally:
        if server.poll() is None:  # the build failed
            server.terminate()
            server.wait()
    sys.exit(status)


if __name__ == "__main__":
    main()
