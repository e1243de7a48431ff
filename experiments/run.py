"""The Hydra app: `python -m experiments.run [overrides]`.

Without `figure=...` it runs one trial (dataset x model x protocol x seed) into the MLflow
experiment `adhoc`; with `figure=<id>` it regenerates that figure (see experiments.reproduce).
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.config import (
    check_figure,
    check_figure_choices,
    check_figure_configs,
    check_names,
    check_settings,
    make_command,
    python_command,
    under_make,
)
from experiments.progress import lines_beside_bars, say
from experiments.reproduce import reproduce_figure
from experiments.sweep import SweepInterrupted, ctrl_c, interrupted_line
from experiments.tracking import Tracker
from experiments.trial import TRIAL_KEYS, run_trial, trial_config

PROG = "python -m experiments.run"


def trial_overrides() -> list[str]:
    """The command-line overrides that change trials (dataset/model/protocol/seed), passed on to a figure."""
    keep = []
    for override in HydraConfig.get().overrides.task:
        key = override.lstrip("~+").split("=", 1)[0].split(".", 1)[0]
        if key in TRIAL_KEYS:
            keep.append(override)
    return keep


def run_adhoc(cfg: DictConfig) -> int:
    outcome = run_trial(trial_config(cfg))
    tracker = Tracker.from_config(cfg.tracking)
    run_id = tracker.log_outcome("adhoc", outcome, {"figure": "adhoc"})
    if outcome.error is not None:
        print(outcome.error, file=sys.stderr)
        print(f"{outcome.name}: FAILED (run {run_id} in {tracker.uri})")
        return 1
    print(f"{outcome.name}: run {run_id} in {tracker.uri}")
    for key, value in outcome.result.summary.items():
        print(f"  {key} = {value:.6g}")
    return 0


def same_command(argv: list[str]) -> str:
    """The command that runs this one again: make's reproduce-figure with the variables the user gave when make
    started it (its recipe passes figure=$(FIG) profile=$(PROFILE) $(ARGS)), else this python command line."""
    if under_make() and len(argv) >= 2 and argv[0].startswith("figure=") and argv[1].startswith("profile="):
        variables = {"FIG": argv[0].partition("=")[2], "PROFILE": argv[1].partition("=")[2]}
        return make_command("reproduce-figure", variables, argv[2:])
    return python_command("experiments.run", argv)


def interrupted(cfg: DictConfig, interrupt: KeyboardInterrupt) -> str:
    """The line Ctrl-C ends the command with: the figure's trials finished of its total, the command that resumes."""
    resume = same_command(sys.argv[1:])
    if isinstance(interrupt, SweepInterrupted):
        report = interrupt.report
        return interrupted_line(interrupt.experiment, interrupt.done, report.total, resume)
    if cfg.get("figure"):
        return f"interrupted: {cfg.figure.id}: before any trial ran; start again: {resume}"
    return f"interrupted: the trial was not logged; run it again: {resume}"


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    check_figure(cfg, HydraConfig.get().runtime.choices.get("figure") or "")  # the schema, as compose() checks it
    try:
        status = reproduce_figure(cfg, trial_overrides()) if cfg.get("figure") else run_adhoc(cfg)
    except KeyboardInterrupt as interrupt:
        sys.exit(ctrl_c.last_line(interrupted(cfg, interrupt)))
    if status:
        sys.exit(status)


def cli() -> None:
    """The command line: checked first, each error one line with status 2 (where Hydra would list every option,
    suggest adding a mistyped key, or fail deep inside the run, or every trial would fail): names ("did you mean" for
    an unknown figure, dataset, model, launcher or profile), the figure's config (experiments.figure_schema: a line
    per bad key), the figure's protocol, settings ("did you mean" for an unknown one) and their values (a seed, a
    count, n_jobs); then the Hydra app. A Ctrl-C ends the command with one line and status 130, a second one while it
    stops too (``CtrlC``), before the app starts as well."""
    argv = sys.argv[1:]
    ctrl_c.install(same_command(argv))
    try:
        error = check_names(argv) or check_figure_configs(argv) or check_figure_choices(argv) or check_settings(argv)
        if error:
            say(f"{PROG}: error: {error}", file=sys.stderr)
            sys.exit(2)
        lines_beside_bars()
        main()
    except KeyboardInterrupt:
        sys.exit(ctrl_c.last_line(f"interrupted: nothing ran; start again: {same_command(argv)}"))


if __name__ == "__main__":
    cli()
