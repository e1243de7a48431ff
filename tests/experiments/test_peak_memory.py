"""A trial's peak memory is its own: the peak resident memory of the process over that trial, not the largest of the
trials the process ran before (a worker runs many)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin

from experiments import peak_memory
from experiments.config import compose
from experiments.trial import run_trial, trial_config

pytestmark = pytest.mark.skipif(not peak_memory.reset(), reason="the peak of resident memory is Linux's")


class HoldsMemory(RegressorMixin, BaseEstimator):
    """A regressor whose fit holds ``mb`` MB (touched, so resident) until it returns."""

    def __init__(self, mb=0, random_state=0):
        self.mb, self.random_state = mb, random_state

    def fit(self, X, y):
        held = np.ones(int(self.mb * 1e6 / 8))
        self.mean_ = float(np.mean(y)) + 0.0 * held[:1].sum()
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def _trial(mb):
    trial = trial_config(compose(["dataset=diabetes", "model=random_forest_regressor", "protocol=predictions"]))
    trial["model"]["estimator"] = {"_target_": f"{__name__}.HoldsMemory", "mb": mb}
    return trial


def _peaks():
    big, small = run_trial(_trial(600)), run_trial(_trial(0))
    assert big.error is None and small.error is None, (big.error, small.error)
    return big.peak_memory, small.peak_memory


def test_each_trial_reports_its_own_peak():
    big, small = _peaks()
    assert big >= 600 and big - small >= 500, (big, small)


def test_without_the_reset_a_trial_would_report_an_earlier_ones_peak(monkeypatch):
    """The test above can fail: if the mark were not reset, the small trial would report the big one's peak."""
    monkeypatch.setattr(peak_memory, "reset", lambda: True)
    big, small = _peaks()
    assert small >= big - 50, (big, small)
