"""The evidence that ships with the report: the runs behind every committed figure, in files small enough to commit.

`python -m experiments.evidence export FIG [--profile P]` (`make evidence FIG=... PROFILE=...`) takes the figure's
latest complete run at that profile from the local MLflow store (every trial of its grid finished, no dataset left
out) and writes ``results/evidence/<profile>/<id>/``:

- ``runs.jsonl``: one line per trial run, in the order the figure reads them: its run id, name, start and end times,
  tags, final metrics, the columns of its curves and tables, and its resolved trial config;
- ``curves.csv``: every run's curves, one block of rows per run (column ``run_id``), values as the run logged them;
- ``tables/<name>.csv``: the runs' extra tables, the same way;
  a file whose CSV would pass BIG bytes (dense decision grids) is written as ``.parquet`` instead (the same text
  values, compressed);
- ``figure.json``: the figure's run (id, name, times, tags), the claims with their verdicts and the settings it was
  drawn from.

It then redraws the committed figure and tables (``results/figures``, ``results/tables``) from those files alone, with
the code of the checkout, and records the claims that drawing gives. Nothing else writes into the evidence: local runs
draw into ``results/local``. ``redraw [FIG ...]`` draws committed figures again from their evidence (no trial runs).
`make ui` serves the evidence from a store of its own (experiments.evidence_store), never the local one.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from mlflow.utils.mlflow_tags import MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE

from experiments.config import compose
from experiments.provenance import git_commit, is_clean, same_code
from experiments.reproduce import draw, figure_trials, settings_used
from experiments.tracking import RunRecord, Tracker
from experiments.trial import trial_hash
from experiments.verdicts import tally

ROOT = Path("results/evidence")
BIG = 1_000_000  # bytes of CSV above which a blocks file is written as Parquet
# Tags a run's record leaves out: its name is recorded beside them, a figure run's description is its claims' table
# (written again from the recorded claims into the evidence's store, as a redraw may have changed them).
_UNRECORDED = frozenset({MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE})


class IncompleteRun(RuntimeError):
    """The local store has no complete drawn run of the figure at that profile."""


class MixedCode(RuntimeError):
    """A figure's runs are not of one clean commit and one profile, or the checkout's code is not the one they ran."""


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


# -- export from a store, redraw ---------------------------------------------------------------------------------------


def figure_config(figure_id: str, profile: str, committed: bool = True, overrides: list[str] = ()):
    """The figure's config at ``profile``; ``committed``: drawing into results/figures and results/tables."""
    paths = ["paths.figures=results/figures", "paths.tables=results/tables"] if committed else []
    return compose([f"figure={figure_id}", f"profile={profile}", *paths, *overrides])


def draw_evidence(root: Path, profile: str, figure_id: str, overrides: list[str] = ()) -> tuple[list[Path], list]:
    """The figure drawn from its evidence alone (into results/figures and results/tables, or where ``overrides``
    put them): the files written and the claims."""
    cfg = figure_config(figure_id, profile, overrides=overrides)
    return draw(cfg, read(root, profile, figure_id).runs, {})


def redraw(root: Path, profile: str, figure_id: str, overrides: list[str] = (), restamp: bool = False) -> list[dict]:
    """Draw the committed figure and tables from its evidence alone (where ``overrides`` put them, by default
    results/figures and results/tables); returns the claims. When the claims or the settings differ from those its
    figure.json records (the code of the checkout decides them), or with ``restamp``, figure.json takes them with the
    commit of the checkout, which must hold the code the trials ran (MixedCode otherwise: claims drawn by other code
    than the trials' are not evidence); a drawing that changes nothing leaves it as it is."""
    evidence = read(root, profile, figure_id)
    cfg = figure_config(figure_id, profile, overrides=overrides)
    files, claims = draw(cfg, evidence.runs, {})
    settings = settings_used(cfg, evidence.runs, {}, files)
    document = [c.as_dict() for c in claims]
    where = {k: v for k, v in settings.items() if k != "files"}  # the same drawing, wherever it was written
    if restamp or (document, where) != (evidence.claims, {k: v for k, v in evidence.settings.items() if k != "files"}):
        here = drawing_commit(figure_id, settings["commits"])
        tags = {**evidence.run["tags"], "git_commit": here, "claims_passed": tally(document)}
        write_figure(folder(root, profile, figure_id), {**evidence.run, "tags": tags}, document, settings)
    return document


def drawing_commit(figure_id: str, commits: list[str]) -> str:
    """The commit of the checkout, which draws a figure whose trials ran at ``commits``: raises MixedCode unless they
    are one clean commit and the checkout, clean, holds the same code."""
    here = git_commit()
    if len(commits) != 1 or not is_clean(commits[0]):
        raise MixedCode(
            f"{figure_id}: its trials ran at {len(commits)} commits ({', '.join(commits) or 'none recorded'}), not one "
            "clean commit: commit the code, then run the figure into a store of its own (MLFLOW_TRACKING_URI="
            "sqlite:///results/clean.db make reproduce-figure ..., then make evidence ... with the same variable)"
        )
    if not is_clean(here) or not same_code(commits[0], here):
        raise MixedCode(
            f"{figure_id}: its trials ran the code of {commits[0][:12]}, the checkout's is {here[:12]} (mondrian/, "
            "experiments/ or conf/ differ, or are changed): draw it at that commit, or run it again at this one"
        )
    return here


def export(tracker: Tracker, figure_id: str, profile: str, root: Path = ROOT, overrides: list[str] = ()) -> Path:
    """Write the evidence of the figure's latest complete drawn run at ``profile`` in the store, then redraw the
    committed figure from it (``overrides``: as for redraw). Raises IncompleteRun when the store has no such run,
    MixedCode when its trials are not of that profile alone and one clean commit whose code the checkout holds."""
    cfg = figure_config(figure_id, profile, committed=False)
    hashes = [trial_hash(t) for t in figure_trials(cfg)]
    run = _complete_figure_run(tracker, figure_id, profile, hashes)
    runs = tracker.load_runs(figure_id, hashes)
    meta = {}
    for record in runs:
        info = tracker.client.get_run(record.run_id)
        meta[record.run_id] = {
            "start_time": info.info.start_time,
            "end_time": info.info.end_time,
            "tags": {k: v for k, v in info.data.tags.items() if k not in _UNRECORDED},
        }
    profiles = sorted({m["tags"].get("profile", "") for m in meta.values()})
    if profiles != [profile]:
        raise MixedCode(
            f"{figure_id}: its runs are of profiles {', '.join(profiles)}, not {profile} alone (a trial another "
            "profile ran was reused): run it into a store of its own"
        )
    drawing_commit(figure_id, sorted({record.commit for record in runs}))
    figure_run = {
        "run_id": run.info.run_id,
        "name": run.info.run_name,
        "start_time": run.info.start_time,
        "end_time": run.info.end_time,
        "tags": {k: v for k, v in run.data.tags.items() if k not in _UNRECORDED},
    }
    target = folder(root, profile, figure_id)
    write(target, figure_run, runs, meta)
    redraw(root, profile, figure_id, overrides, restamp=True)
    return target


def _complete_figure_run(tracker: Tracker, figure_id: str, profile: str, hashes: list[str]):
    """The latest drawn figure run at ``profile`` whose trials are the whole grid of today's config, all finished."""
    finished = tracker.finished_runs(figure_id)
    absent = [h for h in hashes if h not in finished]
    if absent:
        raise IncompleteRun(
            f"{figure_id} at profile {profile}: {len(absent)} of {len(hashes)} trials of today's grid have no finished "
            f"run in {tracker.uri}; run `make reproduce-figure FIG={figure_id} PROFILE={profile}` first"
        )
    drawn = [
        r
        for r in tracker.figure_runs(figure_id)
        if r.data.tags.get("profile") == profile and "claims_passed" in r.data.tags and r.info.status == "FINISHED"
        and "missing_datasets" not in r.data.tags
    ]  # fmt: skip
    if not drawn:
        raise IncompleteRun(f"{figure_id} at profile {profile}: no complete drawn figure run in {tracker.uri}")
    return max(drawn, key=lambda r: r.info.end_time or r.info.start_time)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.evidence", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    exporting = commands.add_parser("export", help="the store's complete run of a figure -> its committed evidence")
    exporting.add_argument("figure", help="a figure id (conf/figure/<id>.yaml)")
    exporting.add_argument("--profile", default="paper", help="the profile of the run to export (default: paper)")
    redrawing = commands.add_parser("redraw", help="committed figures drawn again from their evidence")
    redrawing.add_argument(
        "figures", nargs="*", help="figure ids (default: every figure with evidence; an id without evidence is skipped)"
    )
    exporting.add_argument("--uri", help="the MLflow store (default: the harness's, tracking.uri)")
    args = parser.parse_args(argv)
    if args.command == "redraw":
        targets = [p.parent for p in sorted(ROOT.glob("*/*/figure.json"))]
        targets = [t for t in targets if not args.figures or t.name in args.figures]
        for target in targets:
            try:
                claims = redraw(ROOT, target.parent.name, target.name)
            except MixedCode as error:
                print(f"not redrawn: {error}")
                return 1
            print(f"{target.name} ({target.parent.name}): {tally(claims)} claims reproduced")
        return 0
    tracking = compose([]).tracking
    tracker = Tracker(args.uri or tracking.uri, tracking.artifact_root)
    try:
        target = export(tracker, args.figure, args.profile)
    except (IncompleteRun, MixedCode) as error:
        print(f"not exported: {error}")
        return 1
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"{target}: {size / 1e6:.2f} MB of evidence; the committed figure redrawn from it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
