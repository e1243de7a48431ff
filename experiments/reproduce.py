"""Regenerate a figure: its trial grid -> sweep (skipping finished trials) -> runs -> plot and claims."""

from __future__ import annotations

import importlib
from pathlib import Path

from omegaconf import DictConfig

from experiments.config import compose, grid_overrides
from experiments.figures import save_figure
from experiments.sweep import run_sweep
from experiments.tracking import Tracker
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


def reproduce_figure(cfg: DictConfig, trial_overrides: list[str] = ()) -> int:
    """Run the figure's missing trials, draw it from the runs, check its claims. Returns an exit status."""
    figure = cfg.figure
    trials = figure_trials(cfg, trial_overrides)
    tracker = Tracker.from_config(cfg.tracking)
    tags = {"figure": figure.id, "profile": cfg.profile}
    print(f"{figure.id} (profile {cfg.profile}): {len(trials)} trials, runs in {tracker.uri}")
    report = run_sweep(trials, tracker, figure.id, n_jobs=cfg.launcher.n_jobs, tags=tags)
    print(report)
    runs = tracker.load_runs(figure.id, [trial_hash(t) for t in trials])
    if not runs:
        print(f"{figure.id}: no finished trial to draw from")
        return 1
    module = importlib.import_module(figure.module)
    settings = profile_settings(cfg)
    files = save_figure(module.plot(runs, settings), output_dir(cfg), figure.id)
    claims = module.claims(runs, settings)
    print(f"{figure.id}: drawn from {len(runs)} of {len(trials)} trials -> " + ", ".join(str(f) for f in files))
    for claim in claims:
        print(f"  {claim}")
    tracker.log_figure(figure.id, figure.id, files, [c.as_dict() for c in claims], tags)
    return 1 if report.failed else 0
