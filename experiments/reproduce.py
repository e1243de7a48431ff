"""Regenerate a figure: its trial grid -> sweep (skipping finished trials) -> runs -> plot and claims."""

from __future__ import annotations

import importlib
from pathlib import Path

from hydra.utils import instantiate
from omegaconf import DictConfig

from experiments.config import compose, grid_overrides
from experiments.data import DatasetUnavailable, catalog
from experiments.data.fetch import parsed
from experiments.figures import note_missing, save_figure
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
    report = run_sweep(trials, tracker, figure.id, instantiate(cfg.launcher), tags)
    print(report)
    runs = tracker.load_runs(figure.id, [trial_hash(t) for t in trials])
    if not runs:
        print(f"{figure.id}: no finished trial to draw from")
        return 1
    module = importlib.import_module(figure.module)
    settings = profile_settings(cfg)
    drawing = module.plot(runs, settings)
    if missing:
        note_missing(drawing, list(missing))
    files = save_figure(drawing, output_dir(cfg), figure.id)
    claims = module.claims(runs, settings)
    print(f"{figure.id}: drawn from {len(runs)} of {len(trials)} trials -> " + ", ".join(str(f) for f in files))
    for claim in claims:
        print(f"  {claim}")
    tracker.log_figure(figure.id, figure.id, files, [c.as_dict() for c in claims], tags)
    return 1 if report.failed else 0
