"""Regenerate a figure: its trial grid -> sweep (skipping finished trials) -> runs -> plot and claims."""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.utils import instantiate
from mlflow.utils.mlflow_tags import MLFLOW_PARENT_RUN_ID
from omegaconf import DictConfig, OmegaConf

from experiments.config import compose, grid_overrides, setting
from experiments.data import DatasetUnavailable, catalog
from experiments.data.fetch import available_here, parsed
from experiments.figure_catalog import FALLBACK_PROFILE, profile_settings
from experiments.figures import FigureModule, Table, note_missing
from experiments.progress import say
from experiments.run_record import RunRecord
from experiments.sweep import SweepInterrupted, SweepReport, run_sweep
from experiments.tracking import Tracker
from experiments.trial import trial_config, trial_hash


def figure_trials(cfg: DictConfig, trial_overrides: list[str] = ()) -> list[dict]:
    """Every trial of the figure's grid: the figure's fixed overrides, the user's, then the grid point's.

    Grid points that differ only by their seed are composed once and resolved for each seed (composing is what
    takes the time in a grid of hundreds of trials; the seed reaches the rest of the config by interpolation)."""
    fixed = list(cfg.figure.get("trials", []))
    parse = OverridesParser.create().parse_override
    composed, trials = {}, []
    for point in grid_overrides(profile_settings(cfg).grid):
        others = tuple(o for o in point if not o.startswith("seed="))
        if others not in composed:
            root = compose([*fixed, *trial_overrides, *others])
            composed[others] = root, root.seed  # the seed a point without one of its own keeps
        root, seed = composed[others]
        for override in (o for o in point if o.startswith("seed=")):
            seed = parse(override).value()
        root.seed = seed
        trials.append(trial_config(root))
    return trials


def output_dir(cfg: DictConfig, kind: str = "figures") -> Path:
    """Where a figure's images (``kind`` figures) or tables (tables) go: ``paths.<kind>`` for the paper profile,
    ``paths.<kind>/<profile>`` for the others."""
    root = Path(cfg.paths[kind])
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
        entry = catalog.entry(name)
        if entry.synthetic:
            continue
        if entry.derived_from in missing:  # its parent's files, just found missing: not asked for twice
            missing[name] = f"dataset {name!r} reads {entry.derived_from}'s files, which cannot be had (above)"
            continue
        try:
            parsed(name)
        except DatasetUnavailable as error:
            missing[name] = str(error)
    return missing


@dataclass
class FigurePlan:
    """A figure's trials at one profile, and the datasets among them that cannot be had (name -> why)."""

    cfg: DictConfig
    trials: list[dict]
    missing: dict[str, str]

    @property
    def runnable(self) -> list[dict]:
        return [t for t in self.trials if catalog_name(t) not in self.missing]


def plan_figure(cfg: DictConfig, trial_overrides: list[str] = ()) -> FigurePlan:
    """The figure's trials at ``cfg.profile``, its real datasets fetched (once, before any sweep)."""
    trials = figure_trials(cfg, trial_overrides)
    return FigurePlan(cfg, trials, fetch_datasets(trials))


def profiles_here(cfg: DictConfig) -> list[str]:
    """The figure's other profiles whose datasets are all here (generated, in the cache or in an installed
    distribution): those that run without the network, e.g. the LIBSVM figures' offline profile."""
    here = []
    for profile in (p for p in cfg.figure.profiles if p != cfg.profile):
        trials = figure_trials(compose([f"figure={cfg.figure.id}", f"profile={profile}"]))
        if all(available_here(name) for name in {catalog_name(t) for t in trials} - {None}):
            here.append(profile)
    return here


def stopped_line(cfg: DictConfig) -> str:
    """What a figure stopped for want of datasets says: fetch them, run a profile whose datasets are here, or draw
    without them (in make's variables when make started the command)."""
    choices = [setting("profile", profile) for profile in profiles_here(cfg)]
    instead = f", run a profile whose datasets are all here ({' or '.join(choices)})" if choices else ""
    return (
        f"{cfg.figure.id}: stopped; fetch the datasets above{instead}, or re-run with "
        f"{setting('allow_missing', 'true')} to draw without them"
    )


def reproduce_figure(cfg: DictConfig, trial_overrides: list[str] = (), plan: FigurePlan | None = None, bar=None) -> int:
    """Run the figure's missing trials, draw it from the runs, check its claims. Returns an exit status.

    A dataset that cannot be had stops the figure, unless ``allow_missing=true``: then the figure is drawn without
    it and says so (a note on the image, a ``missing_datasets`` tag on the figure's run). ``plan`` is the figure's
    plan if already made; ``bar`` a progress bar shared with other sweeps."""
    figure = cfg.figure
    tracker = Tracker.from_config(cfg.tracking)
    tags = {"figure": figure.id, "profile": cfg.profile}
    plan = plan or plan_figure(cfg, trial_overrides)
    say(f"{figure.id} (profile {cfg.profile}): {len(plan.trials)} trials, runs in {tracker.uri}")
    missing, trials = plan.missing, plan.runnable
    for reason in missing.values():
        say(reason)
    if missing and not trials and cfg.profile == "paper" and FALLBACK_PROFILE in figure.profiles:
        say(f"{figure.id}: none of the paper profile's datasets can be had; running profile {FALLBACK_PROFILE}")
        offline = OmegaConf.merge(cfg, {"profile": FALLBACK_PROFILE})
        return reproduce_figure(offline, trial_overrides, None, bar)
    if missing and not cfg.allow_missing:
        say(stopped_line(cfg))
        return 1
    if missing:
        tags["missing_datasets"] = ",".join(missing)
        if not trials:
            others = [p for p in figure.profiles if p != cfg.profile]
            say(f"{figure.id}: every dataset of profile {cfg.profile} is missing, nothing to draw; other profiles: "
                f"{', '.join(others)}")  # fmt: skip
            return 1
        say(f"{figure.id}: allow_missing=true, drawn without {', '.join(missing)}")
    hashes = [trial_hash(t) for t in trials]
    parent_tags = {**tags, "trials_hash": hashlib.sha256("".join(sorted(hashes)).encode()).hexdigest()}
    name = f"figure {figure.id}" if cfg.profile == "paper" else f"figure {figure.id} ({cfg.profile})"
    launcher = instantiate(cfg.launcher)
    launcher.check()  # an unreachable cluster stops here, before the figure's run is written
    with tracker.figure_run(figure.id, name, parent_tags) as parent:
        tags[MLFLOW_PARENT_RUN_ID] = parent.run_id
        report = run_sweep(trials, tracker, figure.id, launcher, tags, bar)
        say(report)
        try:
            drawn = draw_and_log(cfg, tracker, parent.run_id, tracker.load_runs(figure.id, hashes), missing, report)
        except KeyboardInterrupt:
            raise SweepInterrupted(figure.id, report) from None  # the trials are done: the same command draws it
        parent.status = "FINISHED" if drawn and not report.failed else "FAILED"
    return 0 if parent.status == "FINISHED" else 1


def draw_and_log(
    cfg: DictConfig, tracker: Tracker, run_id: str, runs: list[RunRecord], missing: dict[str, str], report: SweepReport
) -> bool:
    """Draw the figure from the finished runs, print its claims, log both into its run; whether it was drawn.
    After failed trials a figure may not be drawable from the others: it says so instead of raising."""
    figure = cfg.figure
    if not runs:
        say(f"{figure.id}: no finished trial to draw from")
        return False
    try:
        files, claims = draw(cfg, runs, missing)
    except Exception as error:
        if not report.failed:
            raise
        say(f"{figure.id}: not drawn without the failed trials ({type(error).__name__}: {error})")
        return False
    say(f"{figure.id}: drawn from {len(runs)} of {report.total} trials -> " + ", ".join(map(str, files)))
    for claim in claims:
        say(f"  {claim}")
    tracker.log_figure(run_id, files, [c.as_dict() for c in claims], settings_used(cfg, runs, missing, files))
    return True


def _tree_counts(tree) -> set[int]:
    """Every ``n_estimators`` in a (nested) model config: the forests' tree counts."""
    if not isinstance(tree, dict):
        return set()
    found = {tree["n_estimators"]} if isinstance(tree.get("n_estimators"), int) else set()
    return found.union(*(_tree_counts(v) for v in tree.values()))


def settings_used(cfg: DictConfig, runs: list[RunRecord], missing: dict[str, str], files: list[Path]) -> dict:
    """What a drawn figure was drawn from, for the report: profile, datasets (present and missing), models,
    protocols, seeds, tree counts, the commits its trials ran at, the image files written and the trial runs read."""
    trials = [run.trial for run in runs]

    def values(key: str) -> list:
        return sorted({t[key]["name"] if isinstance(t[key], dict) else t[key] for t in trials if key in t})

    return {
        "profile": cfg.profile,
        "trials": len(runs),
        "datasets": values("dataset"),
        "missing_datasets": sorted(missing),
        "models": values("model"),
        "protocols": values("protocol"),
        "seeds": values("seed"),
        "trees": sorted(set().union(*(_tree_counts(t.get("model", {})) for t in trials))),
        "commits": sorted({run.commit for run in runs}),
        "files": [str(path) for path in files],
        "runs": [run.run_id for run in runs],
    }


def draw(cfg: DictConfig, runs: list[RunRecord], missing: dict[str, str]) -> tuple[list[Path], list]:
    """The figure drawn from its runs into output_dir (PNG and PDF, and its tables as CSV and Markdown), and its
    claims checked on them."""
    module: FigureModule = importlib.import_module(cfg.figure.module)
    settings = profile_settings(cfg)
    drawing = module.plot(runs, settings)
    if missing:
        note_missing(drawing.figure, list(missing))
    files = save_figure(drawing.figure, output_dir(cfg), cfg.figure.id)
    files += save_tables(drawing.tables, output_dir(cfg, "tables"), cfg.figure.id)
    return files, module.claims(runs, settings)


# No creation date in the files, so that the same drawing gives the same bytes (a regenerated figure leaves git clean).
_METADATA = {".png": {}, ".pdf": {"CreationDate": None, "ModDate": None}}


def save_figure(fig: plt.Figure, out_dir: Path, figure_id: str) -> list[Path]:
    """Write the figure as PNG and PDF, byte for byte the same for the same drawing; returns the two paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{figure_id}.png", out_dir / f"{figure_id}.pdf"]
    for path in paths:
        fig.savefig(path, dpi=150, bbox_inches="tight", metadata=_METADATA[path.suffix])
    plt.close(fig)
    return paths


def save_tables(tables: dict[str, Table], out_dir: Path, figure_id: str) -> list[Path]:
    """Write each table as CSV and Markdown; returns the paths."""
    paths = []
    for name, table in tables.items():
        stem = out_dir / (f"{figure_id}-{name}" if name else figure_id)
        stem.parent.mkdir(parents=True, exist_ok=True)
        table.frame.to_csv(stem.with_suffix(".csv"), index=False, float_format="%.6g")
        stem.with_suffix(".md").write_text(table.markdown if table.markdown.endswith("\n") else table.markdown + "\n")
        paths += [stem.with_suffix(".csv"), stem.with_suffix(".md")]
    return paths
