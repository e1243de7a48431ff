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
import sys
from pathlib import Path

from mlflow.utils.mlflow_tags import MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE

from experiments.config import compose
from experiments.evidence_files import ROOT, folder, read, write, write_figure
from experiments.provenance import git_commit, is_clean, same_code
from experiments.reproduce import draw, figure_trials, settings_used
from experiments.tracking import Tracker
from experiments.trial import trial_hash
from experiments.verdicts import tally

# Tags a run's record leaves out: its name is recorded beside them, a figure run's description is its claims' table
# (written again from the recorded claims into the evidence's store, as a redraw may have changed them).
_UNRECORDED = frozenset({MLFLOW_RUN_NAME, MLFLOW_RUN_NOTE})


class IncompleteRun(RuntimeError):
    """The local store has no complete drawn run of the figure at that profile."""


class MixedCode(RuntimeError):
    """A figure's runs are not of one clean commit and one profile, or the checkout's code is not the one they ran."""


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
