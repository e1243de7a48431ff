"""Every figure and table regenerated (`make figures`): `python -m experiments.regenerate [--profile P] [ids] [k=v]`.

At profile paper each figure runs on everything reachable: its paper settings without the datasets that cannot be
had (allow_missing); a figure none of whose paper datasets can be had runs its `offline` profile (the same settings
on the copies reachable offline) if it has one, and is otherwise left out with the reasons. At another profile
(offline, quick) the figures that do not have it are left out. Finished trials are never run again (interrupt and
re-run at will: Ctrl-C ends with the command that resumes); the figures with the fewest trials to run go first; one
progress bar counts the trials of all the figures; the total time is printed at the end.
"""

from __future__ import annotations

import sys
import time
from datetime import timedelta

from experiments.config import (
    OneLineParser,
    check_names,
    check_settings,
    compose,
    figure_profiles,
    make_command,
    python_command,
    under_make,
    unknown_name,
)
from experiments.figure_catalog import FALLBACK_PROFILE, figure_ids
from experiments.progress import lines_beside_bars, progress, say
from experiments.reproduce import FigurePlan, plan_figure, reproduce_figure
from experiments.sweep import SweepInterrupted, ctrl_c, pending_trials
from experiments.tracking import Tracker


def plan_reachable(figure_id: str, profile: str, overrides: list[str]) -> FigurePlan | None:
    """The figure at ``profile`` on its reachable datasets, or at the fallback profile when none of them is;
    None (after saying why) when nothing of it can run here."""
    plan = plan_figure(compose([f"figure={figure_id}", f"profile={profile}", "allow_missing=true", *overrides]))
    if not plan.runnable and profile == "paper" and FALLBACK_PROFILE in plan.cfg.figure.profiles:
        say(f"{figure_id}: none of the paper profile's datasets can be had; running profile {FALLBACK_PROFILE}")
        return plan_reachable(figure_id, FALLBACK_PROFILE, overrides)
    if not plan.runnable:
        say(f"{figure_id}: not run, none of its datasets can be had at profile {profile}:")
        for reason in plan.missing.values():
            say(f"  {reason.splitlines()[0]}")
        return None
    return plan


class Tally:
    """How far a regeneration got, for the line Ctrl-C ends it with: trials to run, trials run by the figures done,
    figures drawn."""

    def __init__(self, to_run: int = 0):
        self.to_run = to_run
        self.ran = 0
        self.drawn = 0

    def line(self, interrupt: KeyboardInterrupt, resume: str) -> str:
        """The trials run (those of the figure interrupted mid-sweep included) of those to run, the figures drawn,
        and the command that resumes."""
        ran = self.ran
        if isinstance(interrupt, SweepInterrupted):
            report = interrupt.report
            ran += report.finished + len(report.failed) + report.elsewhere
        if not self.to_run:
            return f"interrupted: while planning, before any trial ran; start again: {resume}"
        return (
            f"interrupted: {ran} of {self.to_run} trials to run finished, {self.drawn} figure{'s' * (self.drawn != 1)} "
            f"drawn; resume (finished trials are skipped): {resume}"
        )


def regenerate(figures: list[str], profile: str, overrides: list[str], tally: Tally | None = None) -> int:
    """Run every figure's missing trials and draw it; returns 1 if a figure failed (a figure left out for want of
    its datasets, or without the profile, is not a failure: the report says why it was not run). ``tally`` follows
    how far it got."""
    tally = tally or Tally()
    started = time.monotonic()
    without = [figure_id for figure_id in figures if profile not in figure_profiles(figure_id)]
    if without:
        say(f"not run, no profile {profile}: {', '.join(without)}")
    say(f"planning {len(figures) - len(without)} figures at profile {profile} (reachable datasets are fetched first)")
    plans = {
        figure_id: plan_reachable(figure_id, profile, overrides) for figure_id in figures if figure_id not in without
    }
    plans = {figure_id: plan for figure_id, plan in plans.items() if plan is not None}
    todo = {
        figure_id: len(pending_trials(plan.runnable, Tracker.from_config(plan.cfg.tracking), figure_id))
        for figure_id, plan in plans.items()
    }
    tally.to_run = sum(todo.values())
    say(f"{sum(todo.values())} trials to run in {sum(n > 0 for n in todo.values())} of {len(plans)} figures")
    statuses = {}
    with progress(total=sum(todo.values()), desc="figures", unit="trial") as bar:
        # the figures with the fewest trials to run first: stopped early, the run has drawn the most figures
        for figure_id, plan in sorted(plans.items(), key=lambda item: (todo[item[0]], item[0])):
            bar.set_postfix_str(figure_id)
            statuses[figure_id] = reproduce_figure(plan.cfg, plan=plan, bar=bar)
            tally.ran += todo[figure_id]
            tally.drawn += not statuses[figure_id]
    failed = [figure_id for figure_id, status in statuses.items() if status]
    not_run = [figure_id for figure_id in figures if figure_id not in plans]
    say(f"{len(statuses) - len(failed)} figures drawn, {len(failed)} failed, {len(not_run)} not run")
    for label, ids in (("failed", failed), ("not run (datasets or profile missing)", not_run)):
        if ids:
            say(f"  {label}: {', '.join(ids)}")
    say(f"total time {timedelta(seconds=round(time.monotonic() - started))}")
    return 1 if failed else 0


def same_command(argv: list[str]) -> str:
    """The command that runs this one again: make's figures target with the variables the user gave when make started
    it (its recipe passes --profile $(PROFILE) $(ARGS)), else this python command line."""
    if under_make() and len(argv) >= 2 and argv[0] == "--profile":
        return make_command("figures", {"PROFILE": argv[1]}, argv[2:])
    return python_command("experiments.regenerate", argv)


def check_items(parser: OneLineParser, profile: str, figures: list[str], overrides: list[str]) -> None:
    """Stop with a one-line error (status 2) on an unknown figure id, config group choice, profile or setting, a
    setting's value that trials cannot take, or a figure or profile given as an override (they are the ids and
    --profile here)."""
    known = figure_ids()
    unknown = [figure_id for figure_id in figures if figure_id not in known]
    if unknown:
        parser.error(unknown_name("figure", unknown[0], known))
    given = [o for o in overrides if o.lstrip("+~").partition("=")[0] in ("figure", "profile")]
    if given:
        parser.error(f"{given[0]}: name figures by their ids and the profile with --profile")
    error = check_names(overrides)
    if error:
        parser.error(error)
    profiles = sorted({p for figure_id in figures for p in figure_profiles(figure_id)})
    if profile not in profiles:
        if len(figures) == 1:
            what = f"figure {figures[0]} has no profile {profile!r}"
        else:
            what = f"{'no figure' if figures == known else 'none of these figures'} has a profile {profile!r}"
        parser.error(unknown_name("profile", profile, profiles, what))
    error = check_settings(overrides)
    if error:
        parser.error(error)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m experiments.regenerate", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--profile",
        default="paper",
        help="settings to run: paper (default; a figure whose paper datasets are all out of reach runs offline), "
        "offline or quick; figures without the profile are left out",
    )
    parser.add_argument(
        "items",
        nargs="*",
        help="figure ids (default: all) and Hydra overrides for every figure, e.g. launcher.n_jobs=2 tracking.uri=...",
    )
    args = parser.parse_args(argv)
    overrides = [item for item in args.items if "=" in item]
    figures = [item for item in args.items if "=" not in item] or figure_ids()
    check_items(parser, args.profile, figures, overrides)
    lines_beside_bars()
    tally = Tally()
    try:
        return regenerate(figures, args.profile, overrides, tally)
    except KeyboardInterrupt as interrupt:
        return ctrl_c.last_line(tally.line(interrupt, same_command(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    ctrl_c.install(same_command(sys.argv[1:]))  # a second Ctrl-C while it stops: one line, status 130
    sys.exit(main())
