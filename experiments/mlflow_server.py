"""MLflow's tracking server (its app under uvicorn, as `mlflow ui` runs it), which `make ui` starts (experiments.ui):
`python -m experiments.mlflow_server --port P [--host H] [--workers N] [--after FILE]`, the store and artifacts given
by the environment experiments.ui.ui_command sets.

It listens at once. Importing MLflow's app takes most of a start (6-8 s on 2 cores), so the app (``Front``) serves the
UI's page and its script files from MLflow's own build while the import runs in a thread, and hands every other request
(the page's calls for experiments and runs) to MLflow's app once it is imported, and, given ``--after``, once FILE
exists: a build of the store runs beside the import, and no request reaches the store before it is whole. A browser
opened on the address shows the UI at once, its lists filling in when MLflow is ready, rather than no connection.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import os
import threading
import time
import warnings
from pathlib import Path

import uvicorn
from starlette.responses import FileResponse, PlainTextResponse

AFTER = "MONDRIAN_UI_AFTER"  # the environment's name of the file to wait for (uvicorn's workers read it there)
POLL = 0.05  # s between two looks for MLflow's app, or for the file to wait for
STATIC_AGE = 2419200  # s browsers keep the UI's script files (their names hold their hash), as MLflow's server says
# MLflow's UI as its server serves it (mlflow/server/__init__.py): the page at /, its files under /static-files/; a
# server started with a prefix for them (_MLFLOW_STATIC_PREFIX) gets them from MLflow's app alone
_BUILD = Path(importlib.util.find_spec("mlflow").submodule_search_locations[0]) / "server" / "js" / "build"
_PREFIXED = "_MLFLOW_STATIC_PREFIX"  # mlflow.server.handlers.STATIC_PREFIX_ENV_VAR


class Front:
    """An ASGI app: MLflow's UI page and files at once, the rest from MLflow's app once it is imported (in a thread
    started with the server) and the file to wait for exists; MLflow's own start-up and shutdown (its lifespan) run
    when it is there."""

    def __init__(self) -> None:
        self._app = None
        self._failed: BaseException | None = None
        self._lock = threading.Lock()
        self._loading: threading.Thread | None = None

    def load(self) -> None:
        """Import MLflow's app in a thread of its own, once."""
        with self._lock:
            if self._loading is None:
                self._loading = threading.Thread(target=self._import, name="mlflow-app", daemon=True)
                self._loading.start()

    def _import(self) -> None:
        try:
            from mlflow.server.fastapi_app import app

            after = os.environ.get(AFTER)
            while after and not Path(after).exists():
                time.sleep(POLL)
            self._app = app
        except BaseException as error:  # said to every request, and in the log
            logging.getLogger(__name__).exception("MLflow's app could not be imported")
            self._failed = error

    async def _ready(self):
        self.load()
        while self._app is None and self._failed is None:
            await asyncio.sleep(POLL)
        return self._app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        page = _page(scope)
        if page is not None:
            await page(scope, receive, send)
            return
        app = await self._ready()
        if app is None:
            response = PlainTextResponse(f"MLflow's app could not be imported: {self._failed!r}", status_code=500)
            await response(scope, receive, send)
            return
        await app(scope, receive, send)

    async def _lifespan(self, receive, send) -> None:
        await receive()  # lifespan.startup
        self.load()
        await send({"type": "lifespan.startup.complete"})
        shutdown = asyncio.ensure_future(receive())
        ready = asyncio.ensure_future(self._ready())
        await asyncio.wait({shutdown, ready}, return_when=asyncio.FIRST_COMPLETED)
        if ready.done() and ready.result() is not None:
            async with ready.result().router.lifespan_context(ready.result()):
                await shutdown
        ready.cancel()
        await shutdown
        await send({"type": "lifespan.shutdown.complete"})


def _page(scope) -> FileResponse | None:
    """The UI's page or one of its files, served from MLflow's build, for a GET of / or /static-files/..."""
    if scope["type"] != "http" or scope["method"] != "GET" or os.environ.get(_PREFIXED):
        return None
    path = scope["path"]
    if path == "/":
        return FileResponse(_BUILD / "index.html")
    if path.startswith("/static-files/"):
        file = (_BUILD / path.removeprefix("/static-files/")).resolve()
        if file.is_relative_to(_BUILD.resolve()) and file.is_file():
            return FileResponse(file, headers={"Cache-Control": f"public, max-age={STATIC_AGE}"})
    return None


app = Front()
# starlette's notice about the bridge MLflow's app is built on, for MLflow's developers, not the UI's users
warnings.filterwarnings("ignore", message=r"starlette\.middleware\.wsgi is deprecated")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--after", type=Path, help="a file to wait for before answering for the store")
    args = parser.parse_args()
    if args.after is not None:
        os.environ[AFTER] = str(args.after.resolve())
    # one worker serves the app made here; more make it again each (uvicorn takes them by name)
    uvicorn.run(app if args.workers == 1 else "experiments.mlflow_server:app", host=args.host, port=args.port,
                workers=args.workers)  # fmt: skip


if __name__ == "__main__":
    main()
