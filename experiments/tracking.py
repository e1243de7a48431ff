"""MLflow tracking: one run per trial, one parent run per figure, and reading them back.

A trial's run is named by the settings that tell it from the other trials of its sweep (``usps, MF, seed=3``; its
full name ``dataset/model/seed`` in tag ``trial_name``) and spans the trial's own start and end, so that the UI's
Duration is the trial's; its params are the flattened resolved trial config; its metrics are the protocol's curves
(``step`` = samples seen) and final numbers; its tags say which figure, trial hash, git commit and dataset hash, and
where it ran (``env.*``, experiments.environment: the machine and software of the process that ran it); its
artifacts are the resolved config (trial.json), curves.csv and any extra tables, or traceback.txt for a failed trial.
A figure's trial runs are children of its figure run, which holds the drawn figure and its claims (a table with the
verdicts as its description) and the environment of the process that drives the sweep and draws it. Runs are written
only by the process that drives a sweep; several sweeps or jobs may share a store (experiments.store).

The MLflow UI reads two tags of an experiment: its type (``mlflow.experimentKind``, as the UI's own type picker writes
it: a machine-learning experiment, not a GenAI one; MLflow 3.17 picks the pages it shows by a switch of the browser
instead, see experiments.ui) and its description (``mlflow.note.content``: for a figure, its caption, paper and
profiles). The harness sets both whenever it opens an experiment, so that stores written before get them on their
next run.
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from mlflow.entities import Metric, Param, Run, RunTag
from mlflow.exceptions import MlflowException
from mlflow.protos.databricks_pb2 import RESOURCE_ALREADY_EXISTS, ErrorCode
from mlflow.utils.mlflow_tags import MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE

from experiments.config import flatten
from experiments.environment import environment, recorded
from experiments.provenance import git_commit
from experiments.run_record import RunRecord
from experiments.run_view import (
    CLAIMS_PAGE,
    PARAM_MAX_LENGTH,
    claims_note,
    claims_page,
    curve_points,
    experiment_tags,
)
from experiments.store import open_client
from experiments.trial import TrialOutcome
from experiments.verdicts import tally

os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
for _name in ("mlflow", "alembic"):
    logging.getLogger(_name).setLevel(logging.WARNING)


@dataclass
class OpenRun:
    """A run being written: its id, and the status and end time (ms; None: when it ends) it ends with unless its
    writing is interrupted."""

    run_id: str
    status: str = "FINISHED"
    end_time: int | None = None


def _params(trial: dict) -> list[Param]:
    """The flattened resolved trial config as a run's params."""
    return [Param(k, v[:PARAM_MAX_LENGTH]) for k, v in flatten(trial).items()]


def _metrics(curves: pd.DataFrame, summary: dict[str, float]) -> list[Metric]:
    """The curves as metric series (``step``: samples seen) and the summary numbers not among them at step 0."""
    now = int(time.time() * 1000)
    points = curve_points(curves).itertuples(index=False) if "step" in curves.columns else ()
    metrics = [Metric(key, float(value), now, int(step)) for step, key, value in points]
    return metrics + [
        Metric(key, float(value), now, 0) for key, value in summary.items()
        if key not in curves.columns and math.isfinite(value)
    ]  # fmt: skip


def _write_frames(folder: Path, curves: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> None:
    """A run's curves.csv and tables/<name>.csv in ``folder``."""
    curves.to_csv(folder / "curves.csv", index=False)
    if tables:
        (folder / "tables").mkdir()
        for name, table in tables.items():
            table.to_csv(folder / "tables" / f"{name}.csv", index=False)


class Tracker:
    """Writes and reads the runs of one MLflow store."""

    def __init__(self, uri: str, artifact_root: str | None = None):
        self.uri = uri
        self.client = open_client(uri)
        local = uri.startswith(("sqlite:", "file:")) or "://" not in uri
        self.artifact_root = Path(artifact_root).resolve() if artifact_root and local else None
        self.commit = git_commit()
        self._experiment_ids: dict[str, str] = {}

    @classmethod
    def from_config(cls, cfg) -> Tracker:
        return cls(cfg.uri, cfg.get("artifact_root"))

    def experiment_id(self, name: str) -> str:
        """The experiment's id, created on first use (a local store keeps artifacts in artifact_root/<name>), with the
        tags the UI reads (``experiment_tags``) set when it lacks them or they changed."""
        if name not in self._experiment_ids:
            experiment = self.client.get_experiment_by_name(name)
            tags = experiment_tags(name)
            if experiment is None:
                self._experiment_ids[name] = self._create_experiment(name, tags)
            else:
                self._experiment_ids[name] = experiment.experiment_id
                for key, value in tags.items():
                    if experiment.tags.get(key) != value:
                        self.client.set_experiment_tag(experiment.experiment_id, key, value)
        return self._experiment_ids[name]

    def _create_experiment(self, name: str, tags: dict[str, str]) -> str:
        location = (self.artifact_root / name).as_uri() if self.artifact_root else None
        try:
            return self.client.create_experiment(name, artifact_location=location, tags=tags)
        except MlflowException as error:
            if error.error_code != ErrorCode.Name(RESOURCE_ALREADY_EXISTS):
                raise
            return self.client.get_experiment_by_name(name).experiment_id  # another process created it meanwhile

    def _runs(self, experiment: str, filter_string: str) -> list:
        experiment_id = self.experiment_id(experiment)
        runs, token = [], None
        while True:
            page = self.client.search_runs(
                [experiment_id],
                filter_string,
                max_results=1000,
                order_by=["attributes.start_time DESC"],
                page_token=token,
            )
            runs.extend(page)
            token = page.token
            if not token:
                return runs

    def finished_runs(self, experiment: str) -> dict[str, Run]:
        """Latest finished trial run per trial hash."""
        latest = {}
        for run in self._runs(experiment, "attributes.status = 'FINISHED'"):
            key = run.data.tags.get("trial_hash")
            if key and key not in latest:
                latest[key] = run
        return latest

    def running_runs(self, experiment: str) -> list:
        """The experiment's RUNNING runs (trials claimed or under way, figures being drawn)."""
        return self._runs(experiment, "attributes.status = 'RUNNING'")

    @contextmanager
    def _ending(self, run: OpenRun) -> Iterator[OpenRun]:
        """End the run with ``run.status`` (at ``run.end_time``) once the block has run, KILLED if it is interrupted,
        FAILED if it raises: a run is FINISHED only when everything in it was written (a killed process leaves it
        RUNNING)."""
        try:
            yield run
        except BaseException as error:
            self.client.set_terminated(run.run_id, "KILLED" if isinstance(error, KeyboardInterrupt) else "FAILED")
            raise
        self.client.set_terminated(run.run_id, run.status, run.end_time)

    def log_outcome(
        self,
        experiment: str,
        outcome: TrialOutcome,
        tags: dict[str, str],
        name: str | None = None,
        run_id: str | None = None,
    ) -> str:
        """One run for one trial (named ``name``, by default the trial's name) from the trial's start to its end:
        FINISHED with its curves, or FAILED with its traceback (artifact traceback.txt; its last line in tag
        ``error``). Given ``run_id``, a sweep's claim of the trial (which holds ``tags`` already), the run takes the
        claim's name and tags and the claim is deleted once the run is written: MLflow cannot move a run's start, and
        the claim's is when the sweep claimed the trial, not when the trial began. A trial whose start is unknown (one
        the cluster lost) is written into its claim."""
        error = {} if outcome.error is None else {"error": outcome.reason[:PARAM_MAX_LENGTH]}
        extra = {**outcome.tags, **error, "trial_name": outcome.name}
        start = None if outcome.start is None else round(outcome.start * 1000)
        end = None if start is None else start + round(outcome.duration * 1000)
        claim = None
        if run_id is None:
            tags = {**tags, **extra, "trial_hash": outcome.hash, "git_commit": self.commit}
            run_id = self._create_run(experiment, name or outcome.name, tags, start)
        elif start is not None:
            claim = self.client.get_run(run_id)
            tags = {k: v for k, v in claim.data.tags.items() if k != MLFLOW_RUN_NAME}
            run_id = self._create_run(experiment, claim.info.run_name, {**tags, **extra}, start)
        else:
            self.client.log_batch(run_id, tags=[RunTag(k, v) for k, v in extra.items()])
        try:
            with self._ending(OpenRun(run_id, "FINISHED" if outcome.error is None else "FAILED", end)):
                self._log_trial(run_id, outcome)
        finally:
            if claim is not None:
                self.client.delete_run(claim.info.run_id)
        return run_id

    def _create_run(self, experiment: str, name: str, tags: dict[str, str], start: int | None) -> str:
        run = self.client.create_run(self.experiment_id(experiment), start_time=start, tags=tags, run_name=name)
        return run.info.run_id

    def _log_trial(self, run_id: str, outcome: TrialOutcome) -> None:
        """The trial's params and metrics, and its config and curves (or traceback) as artifacts."""
        metrics = []
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "trial.json").write_text(json.dumps(outcome.trial, indent=2, default=str))
            if outcome.error is not None:
                (folder / "traceback.txt").write_text(outcome.error)
            else:
                result = outcome.result
                measured = {"duration_seconds": outcome.duration}
                if outcome.peak_memory is not None:
                    measured["peak_memory_mb"] = outcome.peak_memory
                metrics = _metrics(result.curves, {**result.summary, **measured})
                _write_frames(folder, result.curves, result.tables)
            self._log_params_and_metrics(run_id, _params(outcome.trial), metrics)
            self.client.log_artifacts(run_id, str(folder))

    def _log_params_and_metrics(self, run_id: str, params: list[Param], metrics: list[Metric]) -> None:
        """The params, then the metrics (MLflow splits each call into batches within its limits: 100 params, 1000
        entries; one call for both was no faster, measured on the evidence's import)."""
        self.client.log_batch(run_id, params=params)
        self.client.log_batch(run_id, metrics=metrics)

    def load_runs(self, experiment: str, hashes: list[str]) -> list[RunRecord]:
        """The finished runs of these trials, in the given order (trials without one are left out)."""
        finished = self.finished_runs(experiment)
        records = []
        with tempfile.TemporaryDirectory() as tmp:
            for key in hashes:
                run = finished.get(key)
                if run is None:
                    continue
                folder = self._artifacts(run, tmp + "/" + key)
                tables_dir = folder / "tables"
                records.append(
                    RunRecord(
                        run_id=run.info.run_id,
                        name=run.info.run_name,
                        trial=json.loads((folder / "trial.json").read_text()),
                        metrics=dict(run.data.metrics),
                        curves=pd.read_csv(folder / "curves.csv"),
                        tables={p.stem: pd.read_csv(p) for p in sorted(tables_dir.glob("*.csv"))},
                        commit=run.data.tags.get("git_commit", ""),
                        environment=recorded(run.data.tags),
                    )
                )
        return records

    def tags_of(self, experiment: str, run_ids: list[str]) -> list[dict[str, str]]:
        """The tags of these runs of the experiment, in the given order (runs not found are left out)."""
        tags = {run.info.run_id: dict(run.data.tags) for run in self._runs(experiment, "")}
        return [tags[run_id] for run_id in run_ids if run_id in tags]

    def _artifacts(self, run, into: str) -> Path:
        """The folder of a run's artifacts: downloaded from where the store records them into ``into``, or, in a local
        store copied from another machine, the same folders under ``artifact_root`` (``<experiment folder>/<run
        id>/artifacts``, as the harness and a tracking server's ``--artifacts-destination`` lay them out): when the
        recorded folders are that machine's, or its server's (``mlflow-artifacts:``)."""
        recorded = urllib.parse.urlparse(run.info.artifact_uri)
        path = Path(urllib.request.url2pathname(recorded.path))
        elsewhere = recorded.scheme == "mlflow-artifacts" or (recorded.scheme in ("", "file") and not path.exists())
        if self.artifact_root is not None and elsewhere:
            return self.artifact_root.joinpath(*path.parts[-3:])
        return Path(self.client.download_artifacts(run.info.run_id, "", into))

    def figure_runs(self, experiment: str) -> list:
        """The figure's own runs (the parents of its trial runs), latest first; none if it has no experiment yet."""
        if self.client.get_experiment_by_name(experiment) is None:
            return []
        return self._runs(experiment, "tags.kind = 'figure'")

    @contextmanager
    def figure_run(self, experiment: str, name: str, tags: dict[str, str]) -> Iterator[OpenRun]:
        """The parent run of a figure's trial runs, RUNNING while the block runs, then ended as ``_ending`` says, with
        the environment of this process (``env.*``, this process's commit).

        Regenerating the figure with the same trials (tag ``trials_hash``) takes up its run again, so that the trial
        runs it skips stay under the run that holds the figure drawn from them; its environment is then this one."""
        found = [r for r in self.figure_runs(experiment) if r.data.tags.get("trials_hash") == tags["trials_hash"]]
        where = environment(self.commit)
        if found:
            run_id = found[0].info.run_id
            self.client.update_run(run_id, status="RUNNING")
            self.client.log_batch(run_id, tags=[RunTag(key, value) for key, value in where.items()])
        else:
            run = self.client.create_run(
                self.experiment_id(experiment), run_name=name, tags={**tags, **where, "kind": "figure"}
            )
            run_id = run.info.run_id
        with self._ending(OpenRun(run_id)) as run:
            yield run

    def log_figure(self, run_id: str, files: list[Path], claims: list[dict], settings: dict) -> None:
        """The regenerated figure into its run: image files, claims.json with the verdicts, settings.json with what
        it was drawn from, commit and tally, the claims' table as its description, and claims.html (``claims_page``)
        with the table whole and the drawing, which its link in the report opens."""
        self.client.set_tag(run_id, "git_commit", self.commit)
        self.client.set_tag(run_id, "claims_passed", tally(claims))
        self.client.set_tag(run_id, MLFLOW_RUN_NOTE, claims_note(claims))
        for path in files:
            self.client.log_artifact(run_id, str(path))
        self.client.log_dict(run_id, {"claims": claims}, "claims.json")
        self.client.log_dict(run_id, settings, "settings.json")
        name = self.client.get_run(run_id).info.run_name
        self.client.log_text(run_id, claims_page(name, claims, files), CLAIMS_PAGE)
