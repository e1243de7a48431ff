"""Every figure and table regenerated (`make figures`): `python -m experiments.regenerate [--profile P] [ids] [k=v]`.

At profile paper each figure runs on everything reachable: its paper settings without the datasets that cannot be
had (allow_missing); a figure none of whose paper datasets can be had runs its `offline` profile (the same settings
on the copies reachable offline) if it has one, and is otherwise left out with the reasons. Finished trials are never
run again (interrupt and re-run at will); the figures with the fewest trials to run go first; one progress bar counts
the trials of all the figures; the total time is printed at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import timedelta

from experiments.config import CONF_DIR, compose
from experiments.progress import progress
from experiments.reproduce import FigurePlan, plan_figure, reproduce_figure
from experiments.sweep import pending_trials
from experiments.tracking import Tracker

# A figure whose paper datasets are all unreachable falls back to this profile when it has it.
FALLBACK_PROFILE = "offline"


def figure_ids() -> list[str]:
    """Every registered figure and table id (one config per id in conf/figure)."""
    return sorted(path.stem for path in (CONF_DIR / "figure").glob("*.yaml"))


def plan_reachable(figure_id: str, profile: str, overrides: list[str]) -> FigurePlan | None:
    """The figure at ``profile`` on its reachable datasets, or at the fallback profile when none of them is;
    None (after saying why) when nothing of it can run here."""
    plan = plan_figure(compose([f"figure={figure_id}", f"profile={profile}", "allow_missing=true", *overrides]))
    if not plan.runnable and profile == "paper" and FALLBACK_PROFILE in plan.cfg.figure.profiles:
        print(f"{figure_id}: none of the paper profile's datasets can be had; running profile {FALLBACK_PROFILE}")
        return plan_reachable(figure_id, FALLBACK_PROFILE, overrides)
    if not plan.runnable:
        print(f"{figure_id}: not run, none of its datasets can be had at profile {profile}:")
        for reason in plan.missing.values():
            print(f"  {reason.splitlines()[0]}")
        return None
    return plan


def regenerate(figures: list[str], profile: str, overrides: list[str]) -> int:
    """Run every figure's missing trials and draw it; returns 1 if a figure failed (a figure left out for want of
    its datasets is not a failure: the report says why it was not run)."""
    started = time.monotonic()
    print(f"planning {len(figures)} figures at profile {profile} (reachable datasets are fetched first)")
    plans = {figure_id: plan_reachable(figure_id, profile, overrides) for figure_id in figures}
    plans = {figure_id: plan for figure_id, plan in plans.items() if plan is not None}
    todo = {
        figure_id: len(pending_trials(plan.runnable, Tracker.from_config(plan.cfg.tracking), figure_id))
        for figure_id, plan in plans.items()
    }
    print(f"{sum(todo.values())} trials to run in {sum(n > 0 for n in todo.values())} of {len(plans)} figures")
    statuses = {}
    with progress(total=sum(todo.values()), desc="figures", unit="trial") as bar:
        # the figures with the fewest trials to run first: stopped early, the run has drawn the most figures
        for figure_id, plan in sorted(plans.items(), key=lambda item: (todo[item[0]], item[0])):
            bar.set_postfix_str(figure_id)
            statuses[figure_id] = reproduce_figure(plan.cfg, plan=plan, bar=bar)
    failed = [figure_id for figure_id, status in statuses.items() if status]
    not_run = [figure_id for figure_id in figures if figure_id not in plans]
    print(f"{len(statuses) - len(failed)} figures drawn, {len(failed)} failed, {len(not_run)} not run")
    for label, ids in (("failed", failed), ("not run (datasets missing)", not_run)):
        if ids:
            print(f"  {label}: {', '.join(ids)}")
    print(f"total time {timedelta(seconds=round(time.monotonic() - started))}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="paper", help="settings to run: paper (default), offline or quick")
    parser.add_argument(
        "items",
        nargs="*",
        help="figure ids (default: all) and Hydra overrides for every figure, e.g. launcher.n_jobs=2 tracking.uri=...",
    )
    args = parser.parse_args(argv)
    overrides = [item for item in args.items if "=" in item]
    figures = [item for item in args.items if "=" not in item] or figure_ids()
    unknown = sorted(set(figures) - set(figure_ids()))
    if unknown:
        parser.error(f"unknown figure ids {unknown}; known: {', '.join(figure_ids())}")
    return regenerate(figures, args.profile, overrides)


if __name__ == "__main__":
    sys.exit(main())
