"""One trial: dataset x model x protocol x seed, run from its resolved config into a TrialResult."""

from __future__ import annotations

import hashlib
import json
import re
import time
import traceback
from dataclasses import dataclass, field

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from experiments import peak_memory
from experiments.config import flatten, to_plain
from experiments.data import Dataset, load_dataset
from experiments.environment import environment
from experiments.protocols.result import ProtocolRun, TrialResult
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


# Settings a run name says by their value alone (the dataset's, the model's and the protocol's names).
_NAMED = ("dataset.name", "model.name", "protocol.name")
_VALUE_WIDTH = 40  # characters of a setting's value a run name shows at most
NAME_WIDTH = 32  # characters of a run name the MLflow UI's runs table shows (its Run Name column: 24 to 32)


def run_names(trials: list[dict], hashes: list[str] | None = None) -> dict[str, str]:
    """Run name per trial hash: the settings that tell apart the trials of the list (a sweep's, a figure's grid),
    named first, then the others, the seed last, e.g. ``usps, MF, n_estimators=10, seed=3``; a list of one trial
    gives it its full name. The MLflow UI's runs table shows about NAME_WIDTH characters of a name, so a name holds
    only what varies, and names longer than that are shortened, never cut: a list by its ends (``sizes=[300…10000]``),
    then the labels of several words by their initials (``budget_scale`` -> ``bs``) unless two would read alike, with
    spaces between settings; a trial alone is named by its named settings and seed. The trial's full name is its
    run's tag ``trial_name``, its settings the run's params. ``hashes``: the trials' hashes, when known (a record keeps
    its trial's)."""
    hashes = [trial_hash(trial) for trial in trials] if hashes is None else hashes
    flats = {key_hash: flatten(trial) for key_hash, trial in zip(hashes, trials, strict=True)}
    keys = _telling_keys(list(flats.values()))
    if not keys:
        return {key_hash: _alone(trial, flats[key_hash]) for key_hash, trial in zip(hashes, trials, strict=True)}
    labels, separator = _labels(keys), ", "
    names = _named(flats, keys, labels, separator)
    if max(map(len, names.values())) > NAME_WIDTH:
        labels, separator = _initials(keys, labels), " "
        names = _named(flats, keys, labels, separator)
    return names


def _named(flats: dict[str, dict[str, str]], keys: list[str], labels: dict[str, str], separator: str) -> dict:
    return {
        key_hash: separator.join(_shown(key, labels[key], flat[key]) for key in keys if key in flat)
        for key_hash, flat in flats.items()
    }


def _alone(trial: dict, flat: dict[str, str]) -> str:
    """A trial's name when nothing tells it from others: its full name if it fits, else its named settings and seed."""
    name = trial_name(trial)
    if len(name) <= NAME_WIDTH:
        return name
    return ", ".join([*(flat[key] for key in _NAMED if key in flat), f"seed={trial.get('seed', 0)}"])


def _telling_keys(flats: list[dict[str, str]]) -> list[str]:
    """The settings a name shows: each one that splits trials the settings before it leave together, looked at in the
    order named settings, seed, the others (so that a setting the seed or a model decides is left out), and said in
    the order named settings, the others, seed."""
    varying = [key for key in dict.fromkeys(k for flat in flats for k in flat) if len({f.get(key) for f in flats}) > 1]
    order = [k for k in _NAMED if k in varying] + [k for k in ("seed",) if k in varying]
    order += [k for k in varying if k not in order]
    chosen, groups = [], 1
    for key in order:
        split = len({tuple(flat.get(k) for k in [*chosen, key]) for flat in flats})
        if split > groups:
            chosen, groups = [*chosen, key], split
    return sorted(chosen, key=lambda k: (k == "seed", _NAMED.index(k) if k in _NAMED else len(_NAMED)))


def _labels(keys: list[str]) -> dict[str, str]:
    """Each setting's label: its last name (the one above it for a ``_target_``), or as many of its last names as
    tell it from the other settings shown (named settings show no label)."""
    labels = {}
    for key in keys:
        parts = key.split(".")[:-1] if key.endswith("._target_") else key.split(".")
        others = [k.split(".") for k in keys if k != key and k not in _NAMED]
        depth = 1
        while depth < len(parts) and any(other[-depth:] == parts[-depth:] for other in others):
            depth += 1
        labels[key] = ".".join(parts[-depth:])
    return labels


def _initials(keys: list[str], labels: dict[str, str]) -> dict[str, str]:
    """Labels of several words shortened to their words' initials (``budget_scale`` -> ``bs``); labels of one word, and
    those whose initials would read as another shown label (``leaf_sampling`` and ``lifetime_scale``), kept."""
    shown = [key for key in keys if key not in _NAMED]
    initials = {
        key: "".join(w[:1] for w in re.split(r"[._]", labels[key])) for key in shown if re.search(r"[._]", labels[key])
    }
    read = [initials.get(key, labels[key]) for key in shown]
    return {key: initials[key] if read.count(initials.get(key)) == 1 else labels[key] for key in keys}


def _shown(key: str, label: str, value: str) -> str:
    """One setting in a run name: a named setting by its value, a class by its own name, a list of more than two
    values by its ends, a long value cut."""
    if key.endswith("._target_"):
        value = value.rsplit(".", 1)[-1]
    if value.startswith("[") and value.count(",") > 1:
        items = [item.strip() for item in value.strip("[]").split(",")]
        value = f"[{items[0]}…{items[-1]}]"
    if len(value) > _VALUE_WIDTH:
        value = value[: _VALUE_WIDTH - 1] + "…"
    return value if key in _NAMED else f"{label}={value}"


@dataclass
class TrialOutcome:
    """A trial's config and identity with either its result or the traceback of its failure; ``start`` is when it
    began (seconds since the epoch, on the clock of the machine that ran it; None if unknown), ``duration`` how long
    it ran: its run's start and end times; ``peak_memory`` the peak resident memory of the process that ran it, in MB,
    over the trial (``experiments.peak_memory``; None if unknown)."""

    trial: dict
    result: TrialResult | None = None
    error: str | None = None
    duration: float = 0.0
    tags: dict[str, str] = field(default_factory=dict)
    start: float | None = None
    peak_memory: float | None = None

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
    protocol: ProtocolRun = instantiate(cfg.protocol.run, _partial_=True)
    return protocol(seed=trial.get("seed", 0), **inputs), inputs.get("dataset")


def run_trial(trial: dict) -> TrialOutcome:
    """Run one trial, never raising: a failure comes back as an outcome with its traceback. Its tags hold the
    environment of the process that ran it (``env.*``: a worker's, when a launcher sent it to one)."""
    where = environment()
    measured = peak_memory.reset()
    began, start = time.time(), time.perf_counter()
    try:
        result, dataset = execute(trial)
    except Exception:
        failed = time.perf_counter() - start
        return TrialOutcome(trial, error=traceback.format_exc(), duration=failed, tags=where, start=began)
    duration, peak = time.perf_counter() - start, peak_memory.peak_mb() if measured else None
    tags = {**where, "dataset_hash": dataset.content_hash} if dataset is not None else where
    return TrialOutcome(trial, result=result, duration=duration, tags=tags, start=began, peak_memory=peak)
