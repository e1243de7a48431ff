"""The MLflow UI on the local store: `python -m experiments.ui [--store results/mlflow.db] [--port 5000]` (`make ui`).

It listens on 127.0.0.1 only. Runs logged by the harness keep their artifacts where the store's experiments put them
(results/mlartifacts/<experiment>/), which the server reads directly; what is uploaded through the server itself
goes beside them (--artifacts-destination) rather than into ./mlartifacts of whatever folder it was started from.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("results/mlflow.db"), help="the SQLite store")
    parser.add_argument("--artifacts", type=Path, default=Path("results/mlartifacts"), help="the artifacts folder")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    command = ui_command(args.store, args.artifacts, args.port)
    print(f"MLflow UI on http://127.0.0.1:{args.port} ({args.store}); Ctrl-C stops it")
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
