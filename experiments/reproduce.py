"""Regenerate a figure: its trial grid -> sweep (skipping finished trials) -> runs -> plot and claims."""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

from hydra.utils import instantiate
from mlflow.utils.mlflow_tags import MLFLOW_PARENT_RUN_ID
from omegaconf import DictConfig

from experiments.config import compose, grid_overrides
from experiments.data import DatasetUnavailable, catalog
from experiments.data.fetch import parsed
from experiments.figures import note_missing, save_figure
from experiments.sweep import SweepReport, run_sweep
from experiments.tracking import RunRecord, Tracker
from experiments.trial import trial_config, trial_hash


def profile_settings(cfg: DictConfig) -> DictConfig:
    figure = cfg.figure
    if cfg.profile not in figure.profiles:
        raise ValueError(f"figure {figure.id} has no profile {cfg.profile!r}; it has {list(figure.profiles)}")
    return figure.profiles[cfg.profile]


def figure_trials(cfg: DictConfig, trial_overrides: list[str] = ()) -> list[dict]:
    """Every trial of the figure's grid: the figure's fixed overrides, the user's, then the grid point's."""
    fixed = list(cfg.figure.get("trials", []))
    return [
        trial_config(compose([*fixed, *trial_overrides, *point]))
        for point in grid_overrides(profile_settings(cfg).grid)
    ]


def output_dir(cfg: DictConfig) -> Path:
    """results/figures for the paper profile, results/figures/<profile> for the others."""
    root = Path(cfg.paths.figures)
    return root if cfg.profile == "paper" else root / cfg.profile


def catalog_name(trial: dict) -> str | None:
    """The catalog dataset a trial loads by name, if any."""
    load = trial.get("dataset", {}).get("load", {})
    return load.get("name") if load.get("_target_") == "experiments.data.fetch.load" else None


def fetch_datasets(trials: list[dict]) -> dict[str, str]:
    """Fetch and parse every real dataset of the trials once, before the sweep (so that parallel trials never
    download the same file); returns the ones that cannot be had, with the reasons."""
    missing = {}
    for name in sorted({n for n in map(catalog_name, trials) if n is not None}):
        if catalog.entry(name).synthetic:
            continue
        try:
            parsed(name)
        except DatasetUnavailable as error:
            missing[name] = str(error)
    return missing


def reproduce_figure(cfg: DictConfig, trial_overrides: list[str] = ()) -> int:
    """Run the figure's missing trials, draw it from the runs, check its claims. Returns an exit status.

    A dataset that cannot be had stops the figure, unless ``allow_missing=true``: then the figure is drawn without
    it and says so (a note on the image, a ``missing_datasets`` tag on the figure's run)."""
    figure = cfg.figure
    trials = figure_trials(cfg, trial_overrides)
    tracker = Tracker.from_config(cfg.tracking)
    tags = {"figure": figure.id, "profile": cfg.profile}
    print(f"{figure.id} (profile {cfg.profile}): {len(trials)} trials, runs in {tracker.uri}")
    missing = fetch_datasets(trials)
    for reason in missing.values():
        print(reason)
    if missing and not cfg.allow_missing:
        print(f"{figure.id}: stopped; fetch the datasets above or re-run with allow_missing=true to draw without them")
        return 1
    if missing:
        trials = [t for t in trials if catalog_name(t) not in missing]
        tags["missing_datasets"] = ",".join(missing)
        if not trials:
            others = [p for p in figure.profiles if p != cfg.profile]
            print(f"{figure.id}: every dataset of profile {cfg.profile} is missing, nothing to draw; other profiles: "
                  f"{', '.join(others)}")  # fmt: skip
            return 1
        print(f"{figure.id}: allow_missing=true, drawn without {', '.join(missing)}")
    hashes = [trial_hash(t) for t in trials]
    parent_tags = {**tags, "trials_hash": hashlib.sha256("".join(sorted(hashes)).encode()).hexdigest()}
    name = f"figure {figure.id}" if cfg.profile == "paper" else f"figure {figure.id} ({cfg.profile})"
    with tracker.figure_run(figure.id, name, parent_tags) as parent:
        tags[MLFLOW_PARENT_RUN_ID] = parent.run_id
        report = run_sweep(trials, tracker, figure.id, instantiate(cfg.launcher), tags)
        print(report)
        drawn = draw_and_log(cfg, tracker, parent.run_id, tracker.load_runs(figure.id, hashes), missing, report)
        parent.status = "FINISHED" if drawn and not report.failed else "FAILED"
    return 0 if parent.status == "FINISHED" else 1


def draw_and_log(
    cfg: DictConfig, tracker: Tracker, run_id: str, runs: list[RunRecord], missing: dict[str, str], report: SweepReport
) -> bool:
    """Draw the figure from the finished runs, print its claims, log both into its run; whether it was drawn.
    After failed trials a figure may not be drawable from the others: it says so instead of raising."""
    figure = cfg.figure
    if not runs:
        print(f"{figure.id}: no finished trial to draw from")
        return False
    try:
        files, claims = draw(cfg, runs, missing)
    except Exception as error:
        if not report.failed:
            raise
        print(f"{figure.id}: not drawn without the failed trials ({type(error).__name__}: {error})")
        return False
    print(f"{figure.id}: drawn from {len(runs)} of {report.total} trials -> " + ", ".join(map(str, files)))
    for claim in claims:
        print(f"  {claim}")
    tracker.log_figure(run_id, files, [c.as_dict() for c in claims])
    return True


def draw(cfg: DictConfig, runs: list[RunRecord], missing: dict[str, str]) -> tuple[list[Path], list]:
    """The figure drawn from its runs into output_dir (PNG and PDF), and its claims checked on them."""
    module = importlib.import_module(cfg.figure.module)
    settings = profile_settings(cfg)
    drawing = module.plot(runs, settings)
    if missing:
        note_missing(drawing, list(missing))
    return save_figure(drawing, output_dir(cfg), cfg.figure.id), module.claims(runs, settings)
