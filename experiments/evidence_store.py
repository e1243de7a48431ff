"""The committed evidence as an MLflow store of its own, which `make ui` serves: written from ``results/evidence`` in
bulk into ``results/evidence-ui/`` (``build``), and reused while the evidence and this builder are unchanged.

It never mixes with this machine's runs: those go to the local store (results/mlflow.db), which `make
reproduce-figure`, `make figures` and `make report-local` read and `make ui-local` serves. Every run keeps its recorded
id, name, start and end (Duration in the UI is the trial's), tags, params (the flattened trial config) and metrics (the
curves as metric series, ``step`` = samples seen; the summary numbers not among them at step 0; each stamped with the
run's end); the trial runs are children of their figure run, named as a sweep of their figure names them today. A
figure run's description is its claims' table; its artifacts are its drawing, claims.html (the claims whole and the
drawing, which the report's links open), claims.json, settings.json and the
evidence's files (runs.jsonl with every trial's config, the curves and tables); a trial run has none (thousands of small
files took longer to write than the rest of the build). A run that several figures' evidence holds (a trial the
harness reused) belongs to the first of them in the report's order.

The rows go straight into MLflow's tables, in one transaction. The tables are MLflow's: its migrations make an empty
store once per MLflow version (``results/mlflow-schema/``, made by `make install`, else by the first build that needs
it, in a process of their own while the rows are read), and each build starts from a copy of it (the migrations took
12 s, 8 of them CPU, the copy milliseconds). Logging the runs through MLflow's client, a request per call, took
minutes.

`python -m experiments.evidence_store --schema` makes the empty store of the installed MLflow when it is missing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.config import flatten
from experiments.evidence_files import blocks, documents
from experiments.figure_catalog import evidence_experiment_ids, figure_order
from experiments.progress import progress
from experiments.run_view import (
    CLAIMS_PAGE,
    PARAM_MAX_LENGTH,
    PARENT_RUN,
    RUN_NAME,
    RUN_NOTE,
    claims_note,
    claims_page,
    curve_points,
    experiment_tags,
)
from experiments.trial import run_names, trial_name

SCHEMAS = Path("results/mlflow-schema")  # the empty store of each MLflow version: <version>.db
# MLflow's tables made by MLflow's migrations into a new file (argv: the file, its final name), moved into place whole;
# the default experiment's artifact location is set by each build
_SCHEMA = (
    "import os, sys; from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore as S; "
    "S(f'sqlite:///{sys.argv[1]}', 'unset'); os.replace(sys.argv[1], sys.argv[2])"
)
EVIDENCE_TAG = "mondrian.evidence"  # an experiment's tag: the evidence folder its runs are read from
# MLflow's tables (mlflow.store.tracking.dbmodels.models' __tablename__s; the build imports no MLflow, a test checks
# the names), in the order the rows go in: experiments before the runs that refer to them
EXPERIMENTS, EXPERIMENT_TAGS, RUNS, TAGS, PARAMS = "experiments", "experiment_tags", "runs", "tags", "params"
METRICS, LATEST_METRICS = "metrics", "latest_metrics"


@dataclass
class _Rows:
    """Rows of MLflow's tables (table -> chunks of rows: dicts with the same keys, or frames), and the files of the
    runs' artifacts (path under the artifacts folder -> text, or the file to copy)."""

    tables: dict[str, list[list[dict] | pd.DataFrame]] = field(default_factory=dict)
    files: dict[str, str | Path] = field(default_factory=dict)

    def add(self, table: str, rows: list[dict] | pd.DataFrame) -> None:
        self.tables.setdefault(table, []).append(rows)

    def insert(self, store: Path, default_artifacts: Path) -> None:
        """Into the store, in one transaction, each table's rows in the order of its primary key (columns left out
        take their defaults); the tables' other indexes are dropped first and made again from the whole tables at the
        end, as SQLite does fastest. The default experiment's artifacts go to ``default_artifacts``."""
        connection = sqlite3.connect(store)
        connection.execute("PRAGMA journal_mode=OFF")  # a build cut short is thrown away whole, never read
        connection.execute("PRAGMA synchronous=OFF")
        location = default_artifacts.as_uri()
        connection.execute("UPDATE experiments SET artifact_location = ? WHERE experiment_id = 0", (location,))
        indexes = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN "
            f"({', '.join('?' * len(self.tables))})",
            list(self.tables),
        ).fetchall()
        with connection:
            for name, _ in indexes:
                connection.execute(f'DROP INDEX "{name}"')
            for table, chunks in self.tables.items():
                listed = [row for chunk in chunks if isinstance(chunk, list) for row in chunk]
                frames = [chunk for chunk in chunks if isinstance(chunk, pd.DataFrame)]
                frames += [pd.DataFrame(listed)] if listed else []
                if not frames:
                    continue
                rows = pd.concat(frames, ignore_index=True)
                columns = sorted(connection.execute(f'PRAGMA table_info("{table}")'), key=lambda column: column[5])
                key = [column[1] for column in columns if column[5] and column[1] in rows.columns]
                rows = rows.sort_values(key, kind="stable")
                names, marks = ", ".join(f'"{c}"' for c in rows.columns), ", ".join("?" * len(rows.columns))
                # Python's own values, which SQLite binds: the columns' lists zipped (numpy's took longer)
                values = zip(*(rows[column].tolist() for column in rows.columns), strict=True)
                connection.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', values)
            for _, sql in indexes:
                connection.execute(sql)
        connection.close()


def _figure_rows(rows: _Rows, source: Path, experiment_id: int, artifacts: Path, taken: set[str]) -> int:
    """One figure's evidence folder as rows: its figure run, then its trial runs that no figure before it holds;
    returns the figure run's start."""
    document, records = documents(source)
    figure_id, parent = source.name, document["run"]

    def run(run_id: str, name: str, start: int, end: int, tags: dict[str, str]) -> str:
        location = artifacts / figure_id / run_id / "artifacts"
        rows.add(RUNS, [{
            "run_uuid": run_id, "name": name, "source_type": "UNKNOWN", "source_name": "", "entry_point_name": "",
            "user_id": "", "status": "FINISHED", "start_time": start, "end_time": end, "source_version": "",
            "lifecycle_stage": "active", "artifact_uri": location.as_uri(), "experiment_id": experiment_id,
        }])  # fmt: skip
        tags = {**tags, RUN_NAME: name}
        rows.add(TAGS, [{"key": k, "value": v, "run_uuid": run_id} for k, v in tags.items()])
        taken.add(run_id)
        return f"{figure_id}/{run_id}/artifacts"

    if parent["run_id"] not in taken:
        tags = {**parent["tags"], RUN_NOTE: claims_note(document["claims"])}
        folder = run(parent["run_id"], parent["name"], parent["start_time"], parent["end_time"], tags)
        drawn = [path for path in map(Path, document["settings"].get("files", [])) if path.exists()]
        for path in drawn:
            rows.files[f"{folder}/{path.name}"] = path
        for path in sorted(source.rglob("*.*")):  # runs.jsonl (every trial's config), curves and tables
            if path.name != "figure.json":
                rows.files[f"{folder}/evidence/{path.relative_to(source).as_posix()}"] = path
        rows.files[f"{folder}/claims.json"] = json.dumps({"claims": document["claims"]}, indent=2)
        rows.files[f"{folder}/{CLAIMS_PAGE}"] = claims_page(parent["name"], document["claims"], drawn)
        rows.files[f"{folder}/settings.json"] = json.dumps(document["settings"], indent=2)
    curves = blocks(source / "curves")
    points = curve_points(curves if "step" in curves.columns else curves.assign(step=[]), by=["run_id"])
    points = points[points["run_id"].isin({r["run_id"] for r in records} - taken)]
    hashes = [record["tags"]["trial_hash"] for record in records]
    names, summaries = run_names([record["trial"] for record in records], hashes), []
    for record, key_hash in zip(records, hashes, strict=True):
        run_id = record["run_id"]
        if run_id in taken:
            continue
        tags = {**record["tags"], "trial_name": trial_name(record["trial"]), PARENT_RUN: parent["run_id"]}
        run(run_id, names[key_hash], record["start_time"], record["end_time"], tags)
        params = flatten(record["trial"])
        rows.add(PARAMS, [{"key": k, "value": v[:PARAM_MAX_LENGTH], "run_uuid": run_id} for k, v in params.items()])
        summaries += [
            {"run_id": run_id, "step": 0, "key": key, "value": value}
            for key, value in record["metrics"].items()
            if key not in record["curve_columns"] and np.isfinite(value)
        ]
    points = pd.concat([points, pd.DataFrame(summaries, columns=points.columns)], ignore_index=True)
    _metric_rows(rows, points, {r["run_id"]: r["end_time"] for r in records})
    return parent["start_time"]


def _metric_rows(rows: _Rows, points: pd.DataFrame, ends: dict[str, int]) -> None:
    """The metric points (run_id, step, key, value) as MLflow's metric history and latest values (the last step's)."""
    points = pd.DataFrame({
        "key": points["key"], "value": points["value"].astype("float64"),
        "timestamp": points["run_id"].map(ends).astype("int64"), "run_uuid": points["run_id"],
        "step": points["step"].astype("int64"), "is_nan": False,
    })  # fmt: skip
    rows.add(METRICS, points)
    rows.add(
        LATEST_METRICS, points.sort_values("step", kind="stable").drop_duplicates(["run_uuid", "key"], keep="last")
    )


def _figures(root: Path) -> Iterator[Path]:
    """The evidence folders (``root``/<profile>/<id>), in the report's order of ids, paper profile first."""
    folders = [path.parent for path in Path(root).glob("*/*/figure.json")]
    yield from sorted(folders, key=lambda f: (figure_order(f.name), f.parent.name != "paper", f.parent.name))


def schema_file() -> Path:
    """The empty store of the installed MLflow's tables, which each build copies."""
    return SCHEMAS / f"{importlib.metadata.version('mlflow')}.db"


def _schema() -> subprocess.Popen | None:
    """MLflow's migrations making ``schema_file()`` in a process of their own, or None when it is made (``_made``
    waits for them)."""
    if schema_file().exists():
        return None
    SCHEMAS.mkdir(parents=True, exist_ok=True)
    making = schema_file().with_suffix(f".{os.getpid()}.making")
    making.unlink(missing_ok=True)
    return subprocess.Popen([sys.executable, "-c", _SCHEMA, str(making.resolve()), str(schema_file().resolve())])


def _made(making: subprocess.Popen | None) -> Path:
    """``schema_file()``, once ``making`` (``_schema``'s process, or None) has made it; RuntimeError if it failed."""
    if making is not None and making.wait() != 0:
        raise RuntimeError(f"MLflow could not create its tables in {schema_file()} (exit status {making.returncode})")
    return schema_file()


def build(root: Path, target: Path, stamp: str, stamp_name: str) -> Path:
    """Write the store of the evidence in ``root`` into ``target`` (``mlflow.db``, ``artifacts/``, and the file
    ``stamp_name`` holding ``stamp``), replacing what was there once it is whole; returns the store's file."""
    building = target.with_name(target.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    artifacts = target.resolve() / "artifacts"  # where the runs' artifact URIs point once the build is moved there
    store = building / "mlflow.db"
    schema = _schema()
    rows, taken, created = _Rows(), set(), {}
    for table in (EXPERIMENTS, EXPERIMENT_TAGS):  # before the runs that refer to them
        rows.add(table, [])
    folders = list(_figures(root))
    experiments = evidence_experiment_ids(root)
    with progress(folders, desc="the evidence's store", unit="figure") as bar:
        for source in bar:
            bar.set_postfix_str(source.name)
            start = _figure_rows(rows, source, experiments[source.name], artifacts, taken)
            created[source.name] = min(start, created.get(source.name, start))
    for figure_id, experiment_id in experiments.items():
        rows.add(EXPERIMENTS, [{
            "experiment_id": experiment_id, "name": figure_id, "artifact_location": (artifacts / figure_id).as_uri(),
            "lifecycle_stage": "active", "creation_time": created[figure_id], "last_update_time": created[figure_id],
        }])  # fmt: skip
        tags = {**experiment_tags(figure_id), EVIDENCE_TAG: f"the committed evidence, {Path(root).as_posix()}"}
        rows.add(EXPERIMENT_TAGS, [{"key": k, "value": v, "experiment_id": experiment_id} for k, v in tags.items()])
    shutil.copyfile(_made(schema), store)
    rows.insert(store, default_artifacts=artifacts / "0")
    for path, content in rows.files.items():
        file = building / "artifacts" / path
        file.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, file)
        else:
            file.write_text(content)
    (building / stamp_name).write_text(stamp)
    shutil.rmtree(target, ignore_errors=True)
    building.rename(target)
    return target / "mlflow.db"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--schema", action="store_true", help="make the installed MLflow's empty store, if missing")
    args = parser.parse_args()
    if args.schema:
        try:
            _made(_schema())
        except RuntimeError as error:
            sys.exit(str(error))


if __name__ == "__main__":
    main()
