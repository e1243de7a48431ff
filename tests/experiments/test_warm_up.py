"""Compile time is kept out of a trial's timings: the trial's model compiles (here: a first call that is slow once
per process, as numba's) on a throw-away copy before the protocol's clock starts."""

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from experiments.config import compose
from experiments.trial import run_trial, trial_config

FIRST_CALL_SECONDS = 1.0


class CompilesOnFirstCall(ClassifierMixin, BaseEstimator):
    """A classifier whose first fit or partial_fit in a process waits FIRST_CALL_SECONDS (a compile)."""

    compiled = False

    def __init__(self, random_state=0):
        self.random_state = random_state

    def _compile(self):
        if not type(self).compiled:
            time.sleep(FIRST_CALL_SECONDS)
            type(self).compiled = True

    def partial_fit(self, X, y, classes=None):
        self._compile()
        self.classes_ = np.asarray(classes if classes is not None else np.unique(y))
        return self

    def fit(self, X, y):
        return self.partial_fit(X, y)

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), 1.0 / len(self.classes_))


def _trials(monkeypatch, n=3):
    # the warm-up runs models of the compiled package only: this module stands for it
    monkeypatch.setattr("experiments.warm_up.COMPILED", __name__.partition(".")[0])
    trials = []
    for seed in range(n):
        trial = trial_config(compose(["dataset=iris", "model=amf_classifier", "protocol=online", f"seed={seed}"]))
        trial["model"]["estimator"] = {"_target_": f"{__name__}.CompilesOnFirstCall"}
        trials.append(trial)
    return trials


def test_the_first_trials_train_time_is_of_the_order_of_the_others(monkeypatch):
    CompilesOnFirstCall.compiled = False
    outcomes = [run_trial(trial) for trial in _trials(monkeypatch)]
    assert all(o.error is None for o in outcomes), [o.error for o in outcomes]
    times = [o.result.summary["train_time"] for o in outcomes]
    assert times[0] < FIRST_CALL_SECONDS / 4, times  # the compile happened before the clock
    assert times[0] <= 10 * max(times[1:]) + 0.05, times
    assert outcomes[0].duration >= FIRST_CALL_SECONDS  # ... inside the trial (its process pays it once)


def test_without_the_warm_up_the_first_trial_would_count_the_compile(monkeypatch):
    """The test above can fail: with the warm-up switched off, the first trial's train_time holds the compile."""
    CompilesOnFirstCall.compiled = False
    monkeypatch.setattr("experiments.trial.warm_up", lambda model, dataset: None)
    outcomes = [run_trial(trial) for trial in _trials(monkeypatch, 2)]
    assert outcomes[0].result.summary["train_time"] >= FIRST_CALL_SECONDS
