"""The committed evidence's files (``results/evidence/<profile>/<id>/``: runs.jsonl, curves and tables as blocks files,
figure.json; experiments.evidence says what each holds), written and read here: the format alone, without MLflow or
the figures' code, which the evidence's exporter (experiments.evidence), the report and the UI's store of the
evidence (experiments.evidence_store) share."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiments.environment import recorded
from experiments.run_record import RunRecord

ROOT = Path("results/evidence")
BIG = 1_000_000  # bytes of CSV above which a blocks file is written as Parquet


@dataclass
class FigureEvidence:
    """One figure at one profile, as committed: its figure run, claims and settings, and its trial runs."""

    figure_id: str
    profile: str
    run: dict  # run_id, name, start_time, end_time, tags
    claims: list[dict]
    settings: dict
    runs: list[RunRecord]
    times: dict[str, tuple[int, int]]  # trial run id -> (start_time, end_time) in ms
    tags: dict[str, dict[str, str]]  # trial run id -> tags


def folder(root: Path, profile: str, figure_id: str) -> Path:
    return Path(root) / profile / figure_id


def profiles_with_evidence(root: Path, figure_id: str) -> list[str]:
    return sorted(p.parent.parent.name for p in Path(root).glob(f"*/{figure_id}/figure.json"))


# -- writing ---------------------------------------------------------------------------------------------------------


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame's values as the text a CSV of it holds, so that a run's block reads back as its own file would."""
    return pd.read_csv(io.StringIO(frame.to_csv(index=False)), dtype=str, keep_default_na=False)


def _write_blocks(stem: Path, frames: dict[str, pd.DataFrame]) -> None:
    """Every run's rows in one file (``run_id`` first), values kept as written: ``stem``.csv, or .parquet when big."""
    parts = [_as_text(frame).assign(run_id=run_id) for run_id, frame in frames.items()]
    joined = pd.concat(parts, ignore_index=True).fillna("")
    joined = joined[["run_id", *[c for c in joined.columns if c != "run_id"]]]
    text = joined.to_csv(index=False)
    if len(text) > BIG:
        joined.to_parquet(stem.with_suffix(".parquet"), compression="zstd", index=False)
    else:
        stem.with_suffix(".csv").write_text(text)


def write(target: Path, figure_run: dict, runs: list[RunRecord], meta: dict) -> None:
    """Write one figure's runs into ``target`` (replacing what was there; its claims and settings are left for
    ``redraw`` to fill); ``meta``: trial run id -> start_time, end_time, tags."""
    target.mkdir(parents=True, exist_ok=True)
    for stale in [*target.glob("*.*"), *target.glob("tables/*.*")]:
        stale.unlink()
    lines = []
    for run in runs:
        row = {
            "run_id": run.run_id,
            "name": run.name,
            **meta[run.run_id],
            "metrics": run.metrics,
            "curve_columns": list(run.curves.columns),
            "table_columns": {name: list(table.columns) for name, table in run.tables.items()},
            "trial": run.trial,
        }
        lines.append(json.dumps(row, sort_keys=True))
    (target / "runs.jsonl").write_text("\n".join(lines) + "\n")
    _write_blocks(target / "curves", {run.run_id: run.curves for run in runs})
    names = sorted({name for run in runs for name in run.tables})
    if names:
        (target / "tables").mkdir(exist_ok=True)
    for name in names:
        frames = {run.run_id: run.tables[name] for run in runs if name in run.tables}
        _write_blocks(target / "tables" / name, frames)
    write_figure(target, figure_run, [], {})


def write_figure(target: Path, figure_run: dict, claims: list[dict], settings: dict) -> None:
    document = {"run": figure_run, "claims": claims, "settings": settings}
    (target / "figure.json").write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")


# -- reading ---------------------------------------------------------------------------------------------------------


def blocks(stem: Path) -> pd.DataFrame:
    """A blocks file (``stem``.csv or .parquet: every run's rows, ``run_id`` first) as text; no rows when neither
    file is there."""
    if stem.with_suffix(".parquet").exists():
        return pd.read_parquet(stem.with_suffix(".parquet"))
    if stem.with_suffix(".csv").exists():
        return pd.read_csv(stem.with_suffix(".csv"), dtype=str, keep_default_na=False)
    return pd.DataFrame(columns=["run_id"])


def _split(stem: Path) -> dict[str, pd.DataFrame]:
    """run id -> its rows of a blocks file, as text."""
    return {run_id: part.drop(columns="run_id") for run_id, part in blocks(stem).groupby("run_id", sort=False)}


def _parsed(block: pd.DataFrame | None, columns: list[str]) -> pd.DataFrame:
    """A run's block with its own columns, parsed as its own CSV file would be."""
    if block is None:
        return pd.DataFrame(columns=columns)
    return pd.read_csv(io.StringIO(block[columns].to_csv(index=False)))


def documents(source: Path) -> tuple[dict, list[dict]]:
    """A figure's evidence folder's figure.json and runs.jsonl rows."""
    rows = [json.loads(line) for line in (source / "runs.jsonl").read_text().splitlines() if line]
    return json.loads((source / "figure.json").read_text()), rows


def read(root: Path, profile: str, figure_id: str) -> FigureEvidence:
    """The committed evidence of a figure at a profile."""
    source = folder(root, profile, figure_id)
    document, rows = documents(source)
    curves = _split(source / "curves")
    tables = {path.stem: _split(path.with_suffix("")) for path in sorted((source / "tables").glob("*.*"))}
    runs = [
        RunRecord(
            run_id=row["run_id"],
            name=row["name"],
            trial=row["trial"],
            metrics=row["metrics"],
            curves=_parsed(curves.get(row["run_id"]), row["curve_columns"]),
            tables={
                name: _parsed(tables[name].get(row["run_id"]), cols) for name, cols in row["table_columns"].items()
            },
            commit=row["tags"].get("git_commit", ""),
            environment=recorded(row["tags"]),
        )
        for row in rows
    ]
    return FigureEvidence(
        figure_id,
        profile,
        document["run"],
        document["claims"],
        document["settings"],
        runs,
        times={row["run_id"]: (row["start_time"], row["end_time"]) for row in rows},
        tags={row["run_id"]: row["tags"] for row in rows},
    )
