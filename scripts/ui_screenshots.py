"""The user guide's screenshots of the MLflow UI, taken again: `python scripts/ui_screenshots.py [--out docs/guide]`.

A quick figure (theory-leaves at profile quick: offline, under a minute) is run into a temporary store, which `make
ui`'s command serves on a free loopback port; headless Chromium (the browser the UI's tests load it in) then takes the
figure's runs page (ui-runs.png) and its figure run's page (ui-figure-run.png). Nothing outside the temporary folder
and the two images is written.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mlflow import MlflowClient

from experiments.ui import browser, headless
from experiments.ui_addresses import figure_run_url, runs_url

REPO = Path(__file__).resolve().parent.parent
# The pages and the window each is taken in: the runs table whole, the figure run down to its description.
SHOTS = {"ui-runs.png": "1600,900", "ui-figure-run.png": "1600,1250"}


def fill(root: Path, figure: str, profile: str) -> None:
    """The figure run into a store under ``root`` (store, artifacts, drawings and Hydra's logs all there)."""
    overrides = [
        f"figure={figure}", f"profile={profile}",
        f"tracking.uri=sqlite:///{root}/mlflow.db", f"tracking.artifact_root={root}/artifacts",
        f"paths.figures={root}/figures", f"paths.tables={root}/tables", f"hydra.run.dir={root}/hydra",
    ]  # fmt: skip
    subprocess.run([sys.executable, "-m", "experiments.run", *overrides], cwd=REPO, check=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """`make ui`'s command on the store under ``root``, answering at the base address yielded, until the block ends."""
    port = free_port()
    command = [sys.executable, "-m", "experiments.ui", "--store", str(root / "mlflow.db"), "--port", str(port)]
    command += ["--artifacts", str(root / "artifacts")]
    with open(root / "ui.log", "w") as log:
        process = subprocess.Popen(command, cwd=root, stdout=log, stderr=log, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the MLflow UI did not start on {base}:\n{(root / 'ui.log').read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{base}/health", timeout=5).close()
                break
            except OSError:
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def pages(root: Path, base: str, figure: str) -> dict[str, str]:
    """The address of each screenshot: the figure's runs, and its figure run."""
    client = MlflowClient(f"sqlite:///{root}/mlflow.db")
    experiment_id = client.get_experiment_by_name(figure).experiment_id
    (figure_run,) = client.search_runs([experiment_id], "tags.kind = 'figure'")
    return {
        "ui-runs.png": runs_url(base, experiment_id),
        "ui-figure-run.png": figure_run_url(base, experiment_id, figure_run.info.run_id),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "guide", help="where the PNGs go")
    parser.add_argument("--figure", default="theory-leaves")
    parser.add_argument("--profile", default="quick")
    args = parser.parse_args()
    if browser() is None:
        print("no Chromium here: install it (Debian: apt-get install chromium)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        fill(root, args.figure, args.profile)
        with serving(root) as base:
            for name, url in pages(root, base, args.figure).items():
                headless(url, f"--screenshot={args.out.resolve() / name}", f"--window-size={SHOTS[name]}")
                print(f"{args.out / name}: {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
