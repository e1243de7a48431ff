"""The MLflow UI on the local store: `python -m experiments.ui [--store results/mlflow.db] [--port 5000]` (`make ui`).

It listens on 127.0.0.1 only. Runs logged by the harness keep their artifacts where the store's experiments put them
(results/mlartifacts/<experiment>/), which the server reads directly; what is uploaded through the server itself
goes beside them (--artifacts-destination) rather than into ./mlartifacts of whatever folder it was started from.

MLflow 3 shows an experiment either as GenAI pages (traces, empty here) or as its runs. The UI records an experiment's
type in its tag ``mlflow.experimentKind``, which the harness sets (``experiments.tracking``), but MLflow 3.17 picks the
pages from the browser's workflow switch atop the sidebar ("GenAI" / "Model training", remembered by the browser,
GenAI at first) or from the address's ``workflowType``: the addresses below ask for the runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

MACHINE_LEARNING_VIEW = "workflowType=machine_learning"
BY_NAME = "tags.`mlflow.runName`"  # the runs table's "Run Name" order
BROWSERS = ("chromium", "chromium-browser", "google-chrome")  # Debian's name first
PAGE_TIME = 15_000  # ms of the page's own time a headless browser lets it load (its requests, its rendering)


def ui_command(store: Path, artifacts: Path, port: int, host: str = "127.0.0.1") -> list[str]:
    """The `mlflow ui` command line serving ``store`` (a SQLite file) and ``artifacts`` on host:port."""
    mlflow = Path(sys.executable).with_name("mlflow")
    return [
        str(mlflow), "ui",
        "--backend-store-uri", f"sqlite:///{store.resolve()}",
        "--artifacts-destination", artifacts.resolve().as_uri(),
        "--host", host,
        "--port", str(port),
    ]  # fmt: skip


def experiments_url(base: str) -> str:
    """The list of experiments, in the machine-learning view."""
    return f"{base.rstrip('/')}/#/experiments?{MACHINE_LEARNING_VIEW}"


def runs_url(base: str, experiment_id: str) -> str:
    """An experiment's runs in the machine-learning view, one row each, by name: a figure's trial runs side by side
    (the UI folds them under their figure run when sorted by time)."""
    query = f"{MACHINE_LEARNING_VIEW}&orderByKey={quote(BY_NAME)}&orderByAsc=true"
    return f"{base.rstrip('/')}/#/experiments/{experiment_id}/runs?{query}"


def figure_run_url(base: str, experiment_id: str, run_id: str) -> str:
    """A run's page (a figure run: its trial runs, its tags, the claims' table as its description), in the
    machine-learning view."""
    return f"{base.rstrip('/')}/#/experiments/{experiment_id}/runs/{run_id}?{MACHINE_LEARNING_VIEW}"


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("results/mlflow.db"), help="the SQLite store")
    parser.add_argument("--artifacts", type=Path, default=Path("results/mlartifacts"), help="the artifacts folder")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    command = ui_command(args.store, args.artifacts, args.port)
    base = f"http://127.0.0.1:{args.port}"
    print(f"MLflow UI on {base} ({args.store}); Ctrl-C stops it")
    print(f"  the figures' experiments: {experiments_url(base)}")
    print('  (MLflow 3 opens an experiment on its GenAI pages until "Model training" is picked atop the sidebar)')
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
