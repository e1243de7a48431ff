"""MLflow's tracking server (its app under uvicorn, as `mlflow ui` runs it), which `make ui` starts (experiments.ui):
`python -m experiments.mlflow_server --port P [--host H] [--workers N] [--after FILE]`, the store and artifacts given
by the environment experiments.ui.ui_command sets.

It imports the app first (most of a start: seconds), then, given ``--after``, waits for FILE before it listens: a
build of the store can run beside the import, and no request reaches the store before it is whole.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import uvicorn
from mlflow.server.fastapi_app import app

AFTER_POLL = 0.05  # s between two looks for the file to wait for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--after", type=Path, help="a file to wait for before listening")
    args = parser.parse_args()
    while args.after is not None and not args.after.exists():
        time.sleep(AFTER_POLL)
    # one worker serves the app imported here; more import it again each (uvicorn takes them by name)
    uvicorn.run(app if args.workers == 1 else "mlflow.server.fastapi_app:app", host=args.host, port=args.port,
                workers=args.workers)  # fmt: skip


if __name__ == "__main__":
    main()
