"""The Hydra app: `python -m experiments.run [overrides]`.

Without `figure=...` it runs one trial (dataset x model x protocol x seed) into the MLflow
experiment `adhoc`; with `figure=<id>` it regenerates that figure (see experiments.reproduce).
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.reproduce import reproduce_figure
from experiments.tracking import Tracker
from experiments.trial import TRIAL_KEYS, run_trial, trial_config


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


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    status = reproduce_figure(cfg, trial_overrides()) if cfg.get("figure") else run_adhoc(cfg)
    if status:
        sys.exit(status)


if __name__ == "__main__":
    main()
