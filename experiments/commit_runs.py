"""One commit's runs for `make compare`: its figures at profile quick and its speed ratios, in a checkout of its own.

The commit is checked out with ``git worktree add --detach`` into a scratch folder (removed afterwards, even on failure)
and run there with this interpreter, the checkout first on ``PYTHONPATH`` (so that the commit's library, harness and
configs are the ones imported), a numba cache of its own (``NUMBA_CACHE_DIR``: a cache is not invalidated when a
kernel's callee changes, so two commits never share one) and an MLflow store of its own (a SQLite file in the scratch
folder). Each figure runs as `make reproduce-figure FIG=<id> PROFILE=quick ARGS=launcher.n_jobs=1` would (``python -m
experiments.run``; one process, which compiles the kernels once where a process per core compiles them in each: a
quick profile's trials are short, its cold compile is not); the speed ratios are experiments/bench/ratios.py of this
checkout, run against the commit's library (the same measuring code for both commits). The runs are then read back
with the harness's readers (experiments.report's StoreSource for the drawn figure and its claims, the Tracker's
finished runs for the trials) into an experiments.comparison Snapshot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from experiments.comparison import FigureRun, Snapshot, TrialRun
from experiments.progress import say
from experiments.provenance import git
from experiments.report import StoreSource
from experiments.tracking import Tracker

RATIOS_SCRIPT = Path(__file__).resolve().parent / "bench" / "ratios.py"
_LOG_TAIL = 15  # lines of a failed step's output shown


@contextmanager
def worktree(repo: Path, commit: str, path: Path) -> Iterator[Path]:
    """``commit`` checked out at ``path`` (a detached git worktree of ``repo``), removed when the block ends."""
    git("worktree", "add", "--detach", "--quiet", str(path), commit, repo=repo)
    try:
        yield path
    finally:
        git("worktree", "remove", "--force", str(path), repo=repo)


class CommitRuns:
    """The runs of one commit in its checkout ``checkout``, with its scratch folder ``scratch`` (store, numba cache,
    drawings, logs)."""

    def __init__(self, commit: str, checkout: Path, scratch: Path):
        self.commit, self.checkout, self.scratch = commit, checkout, scratch
        self.uri = f"sqlite:///{scratch / 'mlflow.db'}"
        self.logs = scratch / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "PYTHONPATH": str(checkout),
            "NUMBA_CACHE_DIR": str(scratch / "numba-cache"),
            "MLFLOW_TRACKING_URI": self.uri,
        }
        self.status: dict[str, int] = {}

    def _run(self, name: str, command: list[str]) -> int:
        """``command`` in the checkout, its output into the log ``name``; its exit status (the log's last lines shown
        when it fails) and its time said."""
        log = self.logs / f"{name}.log"
        start = time.perf_counter()
        with log.open("w") as out:
            status = subprocess.run(command, cwd=self.checkout, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        seconds = time.perf_counter() - start
        say(f"{self.commit[:12]}: {name} {'done' if status.returncode == 0 else 'FAILED'} in {seconds:.0f} s")
        if status.returncode:
            say("\n".join(f"    {line}" for line in log.read_text().splitlines()[-_LOG_TAIL:]))
        return status.returncode

    def figure(self, figure_id: str) -> None:
        """Run the figure at profile quick into the commit's store."""
        self.status[figure_id] = self._run(
            figure_id,
            [
                sys.executable,
                "-m",
                "experiments.run",
                f"figure={figure_id}",
                "profile=quick",
                f"tracking.uri={self.uri}",
                f"tracking.artifact_root={self.scratch / 'mlartifacts'}",
                f"paths.figures={self.scratch / 'figures'}",
                f"paths.tables={self.scratch / 'tables'}",
                f"hydra.run.dir={self.scratch / 'hydra'}",
                "launcher.n_jobs=1",
            ],
        )

    def ratios(self) -> dict[str, float]:
        """The speed ratios of the commit's library (none when they could not be measured)."""
        out = self.scratch / "ratios.json"
        status = self._run("speed ratios", [sys.executable, "-P", str(RATIOS_SCRIPT), "--out", str(out)])
        return json.loads(out.read_text()) if status == 0 else {}

    def read_figure(self, tracker: Tracker, figure_id: str) -> FigureRun:
        """The figure as its run drew it (not drawn when the command failed) and its finished trial runs by name."""
        drawn = StoreSource(tracker, self.scratch / "images").drawn(figure_id)
        trials = {
            run.info.run_name: TrialRun(key, dict(run.data.metrics))
            for key, run in tracker.finished_runs(figure_id).items()
        }
        ok = drawn is not None and self.status.get(figure_id) == 0
        return FigureRun(ok, drawn.claims if drawn else [], trials)

    def snapshot(self, ratios: dict[str, float]) -> Snapshot:
        """What the commit gave: the figures run, read from its store, and ``ratios``."""
        tracker = Tracker(self.uri, str(self.scratch / "mlartifacts"))
        return Snapshot(self.commit, {f: self.read_figure(tracker, f) for f in self.status}, ratios)


def run_commit(repo: Path, commit: str, figure_ids: list[str], with_ratios: bool, scratch: Path, bar) -> Snapshot:
    """``commit`` of ``repo`` checked out under ``scratch``, its figures at profile quick and (``with_ratios``) its
    speed ratios run there, read back; ``bar`` advances by one per step."""
    scratch.mkdir(parents=True)
    with worktree(repo, commit, scratch / "checkout") as checkout:
        runs = CommitRuns(commit, checkout, scratch)
        for figure_id in figure_ids:
            bar.set_postfix_str(f"{commit[:12]} {figure_id}")
            runs.figure(figure_id)
            bar.update()
        ratios = {}
        if with_ratios:
            bar.set_postfix_str(f"{commit[:12]} speed ratios")
            ratios = runs.ratios()
            bar.update()
        return runs.snapshot(ratios)
