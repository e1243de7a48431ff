"""The stores `make evidence` reads a figure's runs from: this machine's, a tracking server, or another machine's store
copied here (a cluster's), one or several merged.

A source is an MLflow tracking URI: ``http://host:port`` (a tracking server, which serves the runs' artifacts) or
``sqlite:///path/mlflow.db`` (a store's file). A store's file copied from another machine records that machine's
artifact folders: they are then read from the same folders under the ``mlartifacts/`` beside the file, the harness's
own layout (results/mlflow.db and results/mlartifacts), so that copying both over is enough.

From several sources, each trial of the figure's grid takes its latest finished run among them (by its start), and the
figure its latest complete drawn run among them; every run keeps the tags the machine that ran it recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlflow.entities import Run
from mlflow.utils.mlflow_tags import MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE

from experiments.run_record import RunRecord
from experiments.store import StoreError, sqlite_file
from experiments.tracking import Tracker

ARTIFACTS = "mlartifacts"  # the folder of a SQLite store's artifacts, beside its file
# Tags a run's record leaves out: its name is recorded beside them, a figure run's description is its claims' table
# (written again from the recorded claims into the evidence's store, as a redraw may have changed them).
_UNRECORDED = frozenset({MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE})


class IncompleteRun(RuntimeError):
    """The stores hold no complete drawn run of the figure at that profile."""


def source(uri: str) -> Tracker:
    """The store at ``uri``, its artifacts beside it when it is a SQLite file (``mlartifacts/``). A SQLite file that
    is not there stops with StoreError (opening it would make a new, empty store)."""
    path = sqlite_file(uri)
    if path is None:
        return Tracker(uri)
    if not path.exists():
        raise StoreError(f"{path}: no such store (a copied store is its mlflow.db, with mlartifacts/ beside it)")
    return Tracker(uri, str(path.parent / ARTIFACTS))


@dataclass
class FigureRuns:
    """A figure's runs found in its stores: its id, its figure run (run_id, name, start_time, end_time, tags), and,
    in the order of its grid, each trial's run, the store holding it and the run's start_time, end_time and tags
    (``meta``, by run id), which say where and from which code it ran before its artifacts are read (``records``)."""

    figure_id: str
    figure_run: dict
    trials: list[tuple[Tracker, Run]]
    meta: dict[str, dict]

    def records(self) -> list[RunRecord]:
        """The trial runs read whole (their config, curves and tables from their artifacts), in the order of the
        grid."""
        read: dict[str, RunRecord] = {}
        for store in dict.fromkeys(store for store, _ in self.trials):
            mine = [run.data.tags["trial_hash"] for holder, run in self.trials if holder is store]
            read.update((record.run_id, record) for record in store.load_runs(self.figure_id, mine))
        return [read[run.info.run_id] for _, run in self.trials]


def _record(run: Run) -> dict:
    """A run's times and tags, as the evidence records them."""
    tags = {name: value for name, value in run.data.tags.items() if name not in _UNRECORDED}
    return {"start_time": run.info.start_time, "end_time": run.info.end_time, "tags": tags}


def figure_runs(sources: list[Tracker], figure_id: str, profile: str, hashes: list[str]) -> FigureRuns:
    """The figure's latest complete drawn run at ``profile`` among the ``sources`` and, for every trial hash of
    today's grid (``hashes``), its latest finished run among them. Raises IncompleteRun when a trial has none, or no
    source holds a complete drawn figure run."""
    present = [store for store in sources if store.client.get_experiment_by_name(figure_id) is not None]
    latest: dict[str, tuple[Tracker, Run]] = {}
    for store in present:
        for key, run in store.finished_runs(figure_id).items():
            if key not in latest or run.info.start_time > latest[key][1].info.start_time:
                latest[key] = (store, run)
    where = ", ".join(store.uri for store in sources)
    absent = [key for key in hashes if key not in latest]
    if absent:
        raise IncompleteRun(
            f"{figure_id} at profile {profile}: {len(absent)} of {len(hashes)} trials of today's grid have no finished "
            f"run in {where}; run `make reproduce-figure FIG={figure_id} PROFILE={profile}` first"
        )
    trials = [latest[key] for key in hashes]
    meta = {run.info.run_id: _record(run) for _, run in trials}
    return FigureRuns(figure_id, _figure_run(present, figure_id, profile, where), trials, meta)


def _figure_run(sources: list[Tracker], figure_id: str, profile: str, where: str) -> dict:
    """The latest drawn figure run at ``profile`` among the sources: finished, with its claims, no dataset left out."""
    drawn = [
        r
        for store in sources
        for r in store.figure_runs(figure_id)
        if r.data.tags.get("profile") == profile and "claims_passed" in r.data.tags and r.info.status == "FINISHED"
        and "missing_datasets" not in r.data.tags
    ]  # fmt: skip
    if not drawn:
        raise IncompleteRun(f"{figure_id} at profile {profile}: no complete drawn figure run in {where}")
    run = max(drawn, key=lambda r: r.info.end_time or r.info.start_time)
    return {"run_id": run.info.run_id, "name": run.info.run_name, **_record(run)}
