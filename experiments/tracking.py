"""MLflow tracking: one run per trial, one parent run per figure, and reading them back.

A trial's run is named ``dataset/model/seed`` (with the settings that tell apart trials sharing that name); its params
are the flattened resolved trial config; its metrics are the protocol's curves (``step`` = samples seen) and final
numbers; its tags say which figure, trial hash, git commit and dataset hash; its artifacts are the resolved config
(trial.json), curves.csv and any extra tables, or traceback.txt for a failed trial. A figure's trial runs are
children of its figure run, which holds the drawn figure and its claims. Runs are written only by the process that
drives a sweep; several sweeps or jobs may share a store (experiments.store).
"""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from mlflow.entities import Metric, Param, RunTag
from mlflow.exceptions import MlflowException
from mlflow.protos.databricks_pb2 import RESOURCE_ALREADY_EXISTS, ErrorCode

from experiments.config import flatten
from experiments.store import open_client
from experiments.trial import TrialOutcome

_METRICS_PER_BATCH = 1000  # MLflow's limits per log_batch call
_PARAMS_PER_BATCH = 100
_PARAM_MAX_LENGTH = 6000
_REPO = Path(__file__).resolve().parent.parent

os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
for _name in ("mlflow", "alembic"):
    logging.getLogger(_name).setLevel(logging.WARNING)


def git_commit() -> str:
    """The commit the code runs from, with -dirty when tracked files other than results differ from it (what runs
    write, the evidence and the figures drawn from it, is not the code)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=_REPO, capture_output=True, text=True, check=True).stdout.strip()

    try:
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results")
        return git("rev-parse", "HEAD") + ("-dirty" if changed else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


@dataclass
class RunRecord:
    """A finished trial run read back from the store (or from the committed evidence).

    Figure modules read a run's settings through the accessors below, never through ``trial`` directly."""

    run_id: str
    name: str
    trial: dict
    metrics: dict[str, float]
    curves: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def dataset(self) -> str:
        """The dataset's name (its config's ``name``)."""
        return self.trial["dataset"]["name"]

    @property
    def model(self) -> str:
        """The model's name (its config's ``name``)."""
        return self.trial["model"]["name"]

    @property
    def seed(self) -> int:
        return self.trial.get("seed", 0)

    @property
    def data_settings(self) -> dict:
        """What the dataset's loader was called with (``dataset.load``)."""
        return self.trial["dataset"].get("load", {})

    @property
    def estimator(self) -> dict:
        """The estimator's settings (``model.estimator``); empty for a model without one."""
        return self.trial["model"].get("estimator", {})

    @property
    def trees(self) -> int | None:
        """The forest's number of trees (``n_estimators``), None for a model without one."""
        trees = self.estimator.get("n_estimators")
        return None if trees is None else int(trees)

    @property
    def protocol(self) -> dict:
        """The protocol's settings (``protocol.run``)."""
        return self.trial["protocol"].get("run", {})


@dataclass
class OpenRun:
    """A run being written: its id, and the status it ends with unless its writing is interrupted."""

    run_id: str
    status: str = "FINISHED"


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
        """The experiment's id, created on first use (a local store keeps artifacts in artifact_root/<name>)."""
        if name not in self._experiment_ids:
            experiment = self.client.get_experiment_by_name(name)
            if experiment is not None:
                self._experiment_ids[name] = experiment.experiment_id
            else:
                self._experiment_ids[name] = self._create_experiment(name)
        return self._experiment_ids[name]

    def _create_experiment(self, name: str) -> str:
        location = (self.artifact_root / name).as_uri() if self.artifact_root else None
        try:
            return self.client.create_experiment(name, artifact_location=location)
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

    def finished_runs(self, experiment: str) -> dict[str, object]:
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
        """End the run with ``run.status`` once the block has run, KILLED if it is interrupted, FAILED if it raises:
        a run is FINISHED only when everything in it was written (a killed process leaves it RUNNING)."""
        try:
            yield run
        except BaseException as error:
            self.client.set_terminated(run.run_id, "KILLED" if isinstance(error, KeyboardInterrupt) else "FAILED")
            raise
        self.client.set_terminated(run.run_id, run.status)

    def log_outcome(
        self,
        experiment: str,
        outcome: TrialOutcome,
        tags: dict[str, str],
        name: str | None = None,
        run_id: str | None = None,
    ) -> str:
        """One run for one trial (named ``name``, by default the trial's name): FINISHED with its curves, or FAILED
        with its traceback (artifact traceback.txt; its last line in tag ``error``). Written into ``run_id`` if given
        (a sweep's claim of the trial, which holds ``tags`` already), else into a new run."""
        error = {} if outcome.error is None else {"error": outcome.reason[:_PARAM_MAX_LENGTH]}
        if run_id is None:
            run = self.client.create_run(
                self.experiment_id(experiment),
                run_name=name or outcome.name,
                tags={**tags, **outcome.tags, **error, "trial_hash": outcome.hash, "git_commit": self.commit},
            )
            run_id = run.info.run_id
        else:
            self.client.log_batch(run_id, tags=[RunTag(k, v) for k, v in {**outcome.tags, **error}.items()])
        with self._ending(OpenRun(run_id, "FINISHED" if outcome.error is None else "FAILED")):
            self._log_params(run_id, outcome.trial)
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                (folder / "trial.json").write_text(json.dumps(outcome.trial, indent=2, default=str))
                if outcome.error is not None:
                    (folder / "traceback.txt").write_text(outcome.error)
                else:
                    self._log_result(run_id, outcome, folder)
                self.client.log_artifacts(run_id, str(folder))
        return run_id

    def _log_result(self, run_id: str, outcome: TrialOutcome, folder: Path) -> None:
        result = outcome.result
        self._log_numbers(run_id, result.curves, {**result.summary, "duration_seconds": outcome.duration})
        _write_frames(folder, result.curves, result.tables)

    def _log_params(self, run_id: str, trial: dict) -> None:
        """The flattened resolved trial config as the run's params."""
        params = [Param(k, v[:_PARAM_MAX_LENGTH]) for k, v in flatten(trial).items()]
        for i in range(0, len(params), _PARAMS_PER_BATCH):
            self.client.log_batch(run_id, params=params[i : i + _PARAMS_PER_BATCH])

    def _log_numbers(self, run_id: str, curves: pd.DataFrame, summary: dict[str, float]) -> None:
        """The curves as metric series (``step``: samples seen) and the summary numbers not among them at step 0."""
        now = int(time.time() * 1000)
        metrics = [
            Metric(column, float(value), now, int(step))
            for column in curves.columns
            if column != "step"
            for step, value in zip(curves["step"], curves[column], strict=False)
            if math.isfinite(value)
        ]
        metrics += [
            Metric(key, float(value), now, 0)
            for key, value in summary.items()
            if key not in curves.columns and math.isfinite(value)
        ]
        for i in range(0, len(metrics), _METRICS_PER_BATCH):
            self.client.log_batch(run_id, metrics=metrics[i : i + _METRICS_PER_BATCH])

    def log_record(self, run: RunRecord) -> None:
        """A run read back elsewhere (the committed evidence) written into the open run ``run.run_id`` as the sweep
        logged it: params, metrics, trial.json, curves.csv and tables."""
        self._log_params(run.run_id, run.trial)
        self._log_numbers(run.run_id, run.curves, run.metrics)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "trial.json").write_text(json.dumps(run.trial, indent=2, default=str))
            _write_frames(folder, run.curves, run.tables)
            self.client.log_artifacts(run.run_id, str(folder))

    def load_runs(self, experiment: str, hashes: list[str]) -> list[RunRecord]:
        """The finished runs of these trials, in the given order (trials without one are left out)."""
        finished = self.finished_runs(experiment)
        records = []
        with tempfile.TemporaryDirectory() as tmp:
            for key in hashes:
                run = finished.get(key)
                if run is None:
                    continue
                folder = Path(self.client.download_artifacts(run.info.run_id, "", tmp + "/" + key))
                tables_dir = folder / "tables"
                records.append(
                    RunRecord(
                        run_id=run.info.run_id,
                        name=run.info.run_name,
                        trial=json.loads((folder / "trial.json").read_text()),
                        metrics=dict(run.data.metrics),
                        curves=pd.read_csv(folder / "curves.csv"),
                        tables={p.stem: pd.read_csv(p) for p in sorted(tables_dir.glob("*.csv"))},
                    )
                )
        return records

    def figure_runs(self, experiment: str) -> list:
        """The figure's own runs (the parents of its trial runs), latest first; none if it has no experiment yet."""
        if self.client.get_experiment_by_name(experiment) is None:
            return []
        return self._runs(experiment, "tags.kind = 'figure'")

    @contextmanager
    def figure_run(self, experiment: str, name: str, tags: dict[str, str]) -> Iterator[OpenRun]:
        """The parent run of a figure's trial runs, RUNNING while the block runs, then ended as ``_ending`` says.

        Regenerating the figure with the same trials (tag ``trials_hash``) takes up its run again, so that the trial
        runs it skips stay under the run that holds the figure drawn from them."""
        found = [r for r in self.figure_runs(experiment) if r.data.tags.get("trials_hash") == tags["trials_hash"]]
        if found:
            run_id = found[0].info.run_id
            self.client.update_run(run_id, status="RUNNING")
        else:
            run = self.client.create_run(self.experiment_id(experiment), run_name=name, tags={**tags, "kind": "figure"})
            run_id = run.info.run_id
        with self._ending(OpenRun(run_id)) as run:
            yield run

    def log_figure(self, run_id: str, files: list[Path], claims: list[dict], settings: dict) -> None:
        """The regenerated figure into its run: image files, claims.json with the verdicts, settings.json with what
        it was drawn from, commit and tally."""
        self.client.set_tag(run_id, "git_commit", self.commit)
        self.client.set_tag(run_id, "claims_passed", f"{sum(c['passed'] for c in claims)}/{len(claims)}")
        for path in files:
            self.client.log_artifact(run_id, str(path))
        self.client.log_dict(run_id, {"claims": claims}, "claims.json")
        self.client.log_dict(run_id, settings, "settings.json")
