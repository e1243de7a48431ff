"""The evidence that ships with the report: the runs behind every committed figure, in files small enough to commit.

`python -m experiments.evidence export FIG [--profile P] [--from URI ...] [--allow-mixed]` (`make evidence FIG=...
PROFILE=... FROM="URI ..." MIXED=1`) takes the figure's latest complete run at that profile from the local MLflow store,
or from the stores given (a tracking server, another machine's store: experiments.evidence_sources), every trial of its
grid finished and no dataset left out, and writes ``results/evidence/<profile>/<id>/``:

- ``runs.jsonl``: one line per trial run, in the order the figure reads them: its run id, name, start and end times,
  tags (as the machine that ran it recorded them: its environment, ``env.*``, and commit), final metrics, the
  columns of its curves and tables, and its resolved trial config;
- ``curves.csv``: every run's curves, one block of rows per run (column ``run_id``), values as the run logged them;
- ``tables/<name>.csv``: the runs' extra tables, the same way;
  a file whose CSV would pass BIG bytes (dense decision grids) is written as ``.parquet`` instead (the same text
  values, compressed);
- ``figure.json``: the figure's run (id, name, times, tags), the claims with their verdicts and the settings it was
  drawn from.

Its trials must be of one code and one environment (experiments.evidence_mixing), unless ``--allow-mixed`` merges them
anyway, recording which in the figure's settings (``mixed``). It then redraws the committed figure and tables
(``results/figures``, ``results/tables``) from those files alone, with the code of the checkout, and records the claims
that drawing gives. Nothing else writes into the evidence: local runs draw into ``results/local``. ``redraw [FIG ...]``
draws committed figures again from their evidence (no trial runs).
`make ui` serves the evidence from a store of its own (experiments.evidence_store), never the local one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.config import compose
from experiments.evidence_files import ROOT, folder, read, write, write_figure
from experiments.evidence_mixing import codes, describe_codes, describe_environments, environments, mixture
from experiments.evidence_sources import IncompleteRun, figure_runs, source
from experiments.provenance import git_commit, is_clean, known, same_code
from experiments.reproduce import draw, figure_trials, settings_used
from experiments.tracking import Tracker
from experiments.trial import trial_hash
from experiments.verdicts import tally

ALLOW_MIXED = "pass --allow-mixed (make evidence ... MIXED=1) to merge them anyway"


class MixedCode(RuntimeError):
    """A figure's runs are not of clean commits of one code and one profile, or the checkout's code is not one they
    ran."""


class MixedEnvironments(RuntimeError):
    """A figure's runs are of several environments."""


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


def redraw(
    root: Path,
    profile: str,
    figure_id: str,
    overrides: list[str] = (),
    restamp: bool = False,
    allow_mixed: bool = False,
) -> list[dict]:
    """Draw the committed figure and tables from its evidence alone (where ``overrides`` put them, by default
    results/figures and results/tables); returns the claims. When the claims or the settings differ from those its
    figure.json records (the code of the checkout decides them), or with ``restamp``, figure.json takes them with the
    commit of the checkout, which must hold the code the trials ran (MixedCode otherwise: claims drawn by other code
    than the trials' are not evidence); a drawing that changes nothing leaves it as it is. Trials of several codes
    or environments are drawn with ``allow_mixed`` or when the evidence records them (settings ``mixed``)."""
    evidence = read(root, profile, figure_id)
    cfg = figure_config(figure_id, profile, overrides=overrides)
    files, claims = draw(cfg, evidence.runs, {})
    commits = [run.commit for run in evidence.runs]
    settings = settings_used(cfg, evidence.runs, {}, files) | mixture(list(evidence.tags.values()), commits)
    document = [c.as_dict() for c in claims]
    where = {k: v for k, v in settings.items() if k != "files"}  # the same drawing, wherever it was written
    if restamp or (document, where) != (evidence.claims, {k: v for k, v in evidence.settings.items() if k != "files"}):
        here = drawing_commit(figure_id, commits, allow_mixed or "mixed" in evidence.settings)
        tags = {**evidence.run["tags"], "git_commit": here, "claims_passed": tally(document)}
        write_figure(folder(root, profile, figure_id), {**evidence.run, "tags": tags}, document, settings)
    return document


def drawing_commit(figure_id: str, commits: list[str], allow_mixed: bool = False) -> str:
    """The commit of the checkout, which draws a figure whose trials ran at ``commits`` (one per trial, or each
    once): raises MixedCode unless they are clean commits of one code (of several with ``allow_mixed``) and the
    checkout, clean, holds that code (one of them)."""
    here = git_commit()
    ran = sorted(set(commits))
    if not ran or not all(map(is_clean, ran)):
        raise MixedCode(
            f"{figure_id}: its trials ran at {len(ran)} commits ({', '.join(ran) or 'none recorded'}), not clean "
            "commits of one code: commit the code, then run the figure into a store of its own (MLFLOW_TRACKING_URI="
            "sqlite:///results/clean.db make reproduce-figure ..., then make evidence ... with the same variable)"
        )
    absent = [commit for commit in ran if not known(commit)]
    if absent:
        raise MixedCode(
            f"{figure_id}: its trials ran at {', '.join(c[:12] for c in absent)}, which this clone lacks: fetch "
            "them (git fetch), then try again"
        )
    groups = codes(commits)
    if len(groups) > 1 and not allow_mixed:
        raise MixedCode(
            f"{figure_id}: its trials ran {len(groups)} codes ({describe_codes(groups)}): run it again at one commit, "
            f"or {ALLOW_MIXED}"
        )
    if not is_clean(here) or not any(same_code(members[0], here) for members, _ in groups):
        ran_code = " or ".join(members[0][:12] for members, _ in groups)
        raise MixedCode(
            f"{figure_id}: its trials ran the code of {ran_code}, the checkout's is {here[:12]} (mondrian/, "
            "experiments/ or conf/ differ, or are changed): draw it at that commit, or run it again at this one"
        )
    return here


def check_environments(figure_id: str, tags: list[dict], allow_mixed: bool = False) -> None:
    """Raises MixedEnvironments when runs with these ``tags`` are of several environments, unless ``allow_mixed``."""
    found = environments(tags)
    if len(found) > 1 and not allow_mixed:
        raise MixedEnvironments(
            f"{figure_id}: its trials ran in {len(found)} environments ({describe_environments(found)}): run it again "
            f"on one machine, or {ALLOW_MIXED}"
        )


def export(
    sources: list[Tracker],
    figure_id: str,
    profile: str,
    root: Path = ROOT,
    overrides: list[str] = (),
    allow_mixed: bool = False,
) -> Path:
    """Write the evidence of the figure's latest complete drawn run at ``profile`` among the stores ``sources``
    (experiments.evidence_sources.figure_runs), then redraw the committed figure from it (``overrides``: as for
    redraw). Raises IncompleteRun when the stores hold no such run, MixedCode when its trials are not of that profile
    alone and clean commits of one code that the checkout holds, MixedEnvironments when they ran in several
    environments; ``allow_mixed`` merges codes and environments (the checkout holding one of the codes)."""
    cfg = figure_config(figure_id, profile, committed=False)
    found = figure_runs(sources, figure_id, profile, [trial_hash(t) for t in figure_trials(cfg)])
    tags = [run["tags"] for run in found.meta.values()]
    profiles = sorted({run.get("profile", "") for run in tags})
    if profiles != [profile]:
        raise MixedCode(
            f"{figure_id}: its runs are of profiles {', '.join(profiles)}, not {profile} alone (a trial another "
            "profile ran was reused): run it into a store of its own"
        )
    drawing_commit(figure_id, [run.get("git_commit", "") for run in tags], allow_mixed)
    check_environments(figure_id, tags, allow_mixed)
    target = folder(root, profile, figure_id)
    write(target, found.figure_run, found.records(), found.meta)
    redraw(root, profile, figure_id, overrides, restamp=True, allow_mixed=allow_mixed)
    return target


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
    exporting.add_argument(
        "--from",
        "--uri",
        dest="sources",
        metavar="URI",
        action="append",
        help="a store to read the runs from, given again to merge several: an MLflow tracking URI, http://host:port "
        "or sqlite:///path/mlflow.db (its artifacts in mlartifacts/ beside it) (default: the harness's, tracking.uri)",
    )
    exporting.add_argument(
        "--allow-mixed", action="store_true", help="merge trials of several environments or codes (recorded as such)"
    )
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
    sources = [source(uri) for uri in args.sources] if args.sources else [Tracker(tracking.uri, tracking.artifact_root)]
    try:
        target = export(sources, args.figure, args.profile, allow_mixed=args.allow_mixed)
    except (IncompleteRun, MixedCode, MixedEnvironments) as error:
        print(f"not exported: {error}")
        return 1
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"{target}: {size / 1e6:.2f} MB of evidence; the committed figure redrawn from it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
