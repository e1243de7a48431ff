"""One trial: dataset x model x protocol x seed, run from its resolved config into a TrialResult."""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from experiments.config import flatten, to_plain
from experiments.data import Dataset, load_dataset
from experiments.protocols.result import TrialResult
from experiments.warm_up import warm_up

TRIAL_KEYS = ("dataset", "model", "protocol", "seed")
# Settings that change how fast a trial runs, never what it computes: left out of its identity.
_NOT_IDENTITY = frozenset({"n_jobs"})


def trial_config(cfg: DictConfig) -> dict:
    """The resolved trial part of a root config (groups left out with ~group are absent)."""
    return {k: to_plain(cfg[k]) for k in TRIAL_KEYS if cfg.get(k) is not None}


def _identity(value):
    if isinstance(value, dict):
        return {k: _identity(v) for k, v in sorted(value.items()) if k not in _NOT_IDENTITY}
    if isinstance(value, list):
        return [_identity(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)  # lifetime=2 and lifetime=2.0 are the same trial
    return value


def trial_hash(trial: dict) -> str:
    """Identity of a trial: sha256 of its canonical resolved config."""
    return hashlib.sha256(json.dumps(_identity(trial), sort_keys=True).encode()).hexdigest()


def trial_name(trial: dict) -> str:
    """Readable run name: dataset/model/seed, or the protocol and its settings for simulations."""
    parts = [trial["dataset"]["name"]] if "dataset" in trial else []
    if "model" in trial:
        parts.append(trial["model"]["name"])
    else:
        settings = {k: v for k, v in trial["protocol"]["run"].items() if not k.startswith("_")}
        scalars = ",".join(f"{k}={v}" for k, v in settings.items() if not isinstance(v, (list, dict)))
        parts.append(f"{trial['protocol']['name']}({scalars})")
    parts.append(f"seed={trial.get('seed', 0)}")
    return "/".join(parts)


def run_names(trials: list[dict]) -> dict[str, str]:
    """Run name per trial hash: the trial's name, followed by the settings that tell apart the trials of the list that
    share it (a figure's grid may vary a setting beside dataset/model/seed, e.g. bsp-fig5's budget_scale)."""
    groups = defaultdict(list)
    for trial in trials:
        groups[trial_name(trial)].append((trial_hash(trial), flatten(trial)))
    names = {}
    for name, members in groups.items():
        flats = [flat for _, flat in members]
        differing = sorted({key for flat in flats for key in flat if len({f.get(key) for f in flats}) > 1})
        short = {key: key.rsplit(".", 1)[-1] for key in differing}
        if len(set(short.values())) < len(short):  # two settings with one last name: say them in full
            short = {key: key for key in differing}
        for key_hash, flat in members:
            settings = ", ".join(f"{short[key]}={flat[key]}" for key in differing if key in flat)
            names[key_hash] = f"{name} ({settings})" if settings else name
    return names


@dataclass
class TrialOutcome:
    """A trial's config and identity with either its result or the traceback of its failure."""

    trial: dict
    result: TrialResult | None = None
    error: str | None = None
    duration: float = 0.0
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def hash(self) -> str:
        return trial_hash(self.trial)

    @property
    def name(self) -> str:
        return trial_name(self.trial)

    @property
    def reason(self) -> str | None:
        """The last line of the failure's traceback (the exception and its message), None for a success."""
        return None if self.error is None else self.error.strip().splitlines()[-1]


def execute(trial: dict) -> tuple[TrialResult, Dataset | None]:
    """Run the trial's protocol on its dataset and model (each only if the trial has one)."""
    cfg = OmegaConf.create(trial)
    inputs = {}
    if "dataset" in trial:
        inputs["dataset"] = load_dataset(cfg.dataset)
    if "model" in trial:
        inputs["model"] = lambda: instantiate(cfg.model.estimator)
        if "dataset" in inputs:
            warm_up(inputs["model"], inputs["dataset"])  # compile before any clock starts
    protocol = instantiate(cfg.protocol.run, _partial_=True)
    return protocol(seed=trial.get("seed", 0), **inputs), inputs.get("dataset")


def run_trial(trial: dict) -> TrialOutcome:
    """Run one trial, never raising: a failure comes back as an outcome with its traceback."""
    start = time.perf_counter()
    try:
        result, dataset = execute(trial)
    except Exception:
        return TrialOutcome(trial, error=traceback.format_exc(), duration=time.perf_counter() - start)
    tags = {"dataset_hash": dataset.content_hash} if dataset is not None else {}
    return TrialOutcome(trial, result=result, duration=time.perf_counter() - start, tags=tags)
