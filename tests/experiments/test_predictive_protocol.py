"""The predictive protocol (LRT16): NLPD, interval coverage and width against closed forms, the three kinds of
predictive (a model's own mean and std, a forest's spread across trees, split-conformal intervals), determinism."""

import numpy as np
import pandas as pd
import pytest
from mapie.regression import SplitConformalRegressor
from scipy.stats import norm
from sklearn.ensemble import RandomForestRegressor

from experiments.data import Dataset, synthetic
from experiments.protocols.predictive import (
    forest_spread,
    gaussian_intervals,
    gaussian_nlpd,
    interval_scores,
    percent,
    run,
)

LEVELS = [0.5, 0.8, 0.9, 0.95]


def test_nlpd_is_the_gaussian_negative_log_density():
    y, mean, std = np.array([0.0, 1.0, -2.5]), np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.1, 3.0])
    np.testing.assert_allclose(gaussian_nlpd(y, mean, std), -norm.logpdf(y, mean, std))
    # at the mean of a unit Gaussian: log(2 pi) / 2
    assert gaussian_nlpd(np.zeros(1), np.zeros(1), np.ones(1))[0] == pytest.approx(0.9189385332)


def test_gaussian_intervals_are_central_and_coverage_counts_the_bounds():
    intervals = gaussian_intervals(np.array([1.0]), np.array([2.0]), [0.95])
    np.testing.assert_allclose(intervals[0, :, 0], [1 - 1.959964 * 2, 1 + 1.959964 * 2], rtol=1e-6)
    bounds = np.array([[[0.0], [1.0]]] * 4)
    coverage, width = interval_scores(np.array([0.0, 1.0, 1.5, -0.1]), bounds)
    assert coverage[0] == 0.5 and width[0] == 1.0
    assert percent(0.95) == "95" and percent(0.995) == "99.5"


class TrueGaussian:
    """The exact predictive of y = x + N(0, 0.5^2): mean x, std 0.5."""

    def fit(self, X, y):
        return self

    def predict(self, X, return_std=False):
        return (X[:, 0], np.full(len(X), 0.5)) if return_std else X[:, 0]


def linear(n_train=2000, n_test=20000, seed=0) -> Dataset:
    rng = np.random.default_rng(seed)
    X, X_test = rng.uniform(size=(n_train, 1)), rng.uniform(size=(n_test, 1))
    y, y_test = (X[:, 0] + 0.5 * rng.standard_normal(len(X)) for X in (X, X_test))
    return Dataset("linear", "regression", X, y, X_test, y_test)


def test_the_true_predictive_is_calibrated_and_scores_the_gaussian_entropy():
    result = run(TrueGaussian, linear(), seed=0, levels=LEVELS)
    for level in LEVELS:
        assert abs(result.summary[f"coverage_{percent(level)}"] - level) < 0.01
        assert result.summary[f"width_{percent(level)}"] == pytest.approx(2 * norm.ppf(0.5 + level / 2) * 0.5)
    assert result.summary["nlpd"] == pytest.approx(0.5 * np.log(2 * np.pi * np.e * 0.25), abs=0.01)
    assert result.summary["rmse"] == pytest.approx(0.5, abs=0.01) and result.summary["mean_std"] == 0.5
    calibration = result.tables["calibration"]
    assert list(calibration["level"]) == LEVELS
    np.testing.assert_allclose(calibration["coverage"], [result.summary[f"coverage_{percent(c)}"] for c in LEVELS])


def test_a_forest_predicts_the_mean_and_spread_of_its_trees():
    data = linear(500, 200)
    forest = RandomForestRegressor(20, random_state=0).fit(data.X_train, data.y_train)
    mean, std = forest_spread(forest, data.X_test)
    np.testing.assert_allclose(mean, forest.predict(data.X_test))
    trees = np.array([t.predict(data.X_test) for t in forest.estimators_])
    np.testing.assert_allclose(std, trees.std(axis=0))
    result = run(lambda: RandomForestRegressor(20, random_state=0), data, seed=0, levels=LEVELS)
    table = result.tables["predictions"]  # every test row (200 <= max_points), in order
    assert list(table.columns) == ["x0", "target", "mean", "std", "lower", "upper"]
    np.testing.assert_allclose(table["std"], np.maximum(std, 1e-6 * data.y_train.std()))
    np.testing.assert_allclose(table["mean"], mean)
    sample = run(lambda: RandomForestRegressor(20, random_state=0), data, seed=0, levels=LEVELS, max_points=50)
    assert len(sample.tables["predictions"]) == 50 and len(sample.tables["training"]) == 50
    z = norm.ppf(0.975)
    np.testing.assert_allclose(table["upper"] - table["lower"], 2 * z * table["std"])


def test_a_forest_whose_trees_agree_has_a_finite_nlpd():
    data = linear(50, 20)
    constant = Dataset("flat", "regression", data.X_train, np.ones(50), data.X_test, data.y_test)
    result = run(lambda: RandomForestRegressor(5, random_state=0), constant, seed=0, levels=LEVELS)
    assert np.isfinite(result.summary["nlpd"]) and result.summary["mean_std"] == pytest.approx(1e-6)


def conformal():
    return SplitConformalRegressor(RandomForestRegressor(20, random_state=0), confidence_level=LEVELS, prefit=False)


def test_split_conformal_intervals_cover_exchangeable_data_and_have_no_density():
    result = run(conformal, linear(1600, 4000), seed=1, levels=LEVELS, conformal_fraction=0.25)
    assert np.isnan(result.summary["nlpd"]) and np.isnan(result.summary["mean_std"])
    for level in LEVELS:  # marginal coverage at least the level (up to sampling error of 4000 test rows)
        assert result.summary[f"coverage_{percent(level)}"] > level - 0.03
    again = run(conformal, linear(1600, 4000), seed=1, levels=LEVELS, conformal_fraction=0.25)
    scores = [k for k in result.summary if k.startswith(("coverage", "width", "rmse"))]
    assert [again.summary[k] for k in scores] == [result.summary[k] for k in scores]
    other = run(conformal, linear(1600, 4000), seed=2, levels=LEVELS, conformal_fraction=0.25)
    assert other.summary["width_95"] != result.summary["width_95"]  # another seed, another conformal part
    with pytest.raises(ValueError, match="levels"):
        run(conformal, linear(100, 10), seed=1, levels=[0.5, 0.9])


def test_runs_are_deterministic_per_seed_and_inputs_are_checked():
    data = synthetic.gap_sine(seed=3)
    model = lambda: RandomForestRegressor(10, random_state=3)  # noqa: E731
    first, second = run(model, data, seed=3), run(model, data, seed=3)
    assert first.summary.keys() == second.summary.keys()
    assert {k: v for k, v in first.summary.items() if k != "train_time"} == {
        k: v for k, v in second.summary.items() if k != "train_time"
    }
    pd.testing.assert_frame_equal(first.tables["predictions"], second.tables["predictions"])
    with pytest.raises(ValueError, match="levels must be increasing"):
        run(model, data, seed=0, levels=[0.9, 0.5])
    with pytest.raises(ValueError, match="levels must be increasing"):
        run(model, data, seed=0, levels=[0.5, 1.0])
    classes = Dataset("c", "classification", data.X_train, np.zeros(len(data.y_train)), data.X_test, data.y_test)
    with pytest.raises(ValueError, match="scores regressors"):
        run(model, classes, seed=0)


def test_the_gap_sine_tests_beyond_the_training_range():
    data = synthetic.gap_sine(n_samples=300, n_test=101, noise=0.0, seed=0)
    x = data.X_train[:, 0]
    assert ((x <= 1 / 3) | (x >= 2 / 3)).all() and x.min() >= 0 and x.max() <= 1
    assert 100 < (x < 0.5).sum() < 200  # the two clusters hold about half the points each
    np.testing.assert_allclose(data.X_test[:, 0], np.linspace(-0.5, 1.5, 101))
    np.testing.assert_allclose(data.y_test, np.sin(2 * np.pi * data.X_test[:, 0]), atol=1e-12)
    np.testing.assert_allclose(data.y_train, np.sin(2 * np.pi * x), atol=1e-12)


@pytest.mark.parametrize("name", ["split_conformal_rf_regressor", "gaussian_process_regressor"])
def test_the_baselines_configs_run_on_the_toy(name):
    """The model configs of the baselines compose with the protocol (the conformal model takes its levels) and run."""
    from hydra.utils import instantiate

    from experiments.config import compose
    from experiments.data import load_dataset

    cfg = compose([f"model={name}", "protocol=predictive", "dataset=gap_sine", "dataset.load.n_samples=120", "seed=2"])
    result = instantiate(cfg.protocol.run, _partial_=True)(
        model=lambda: instantiate(cfg.model.estimator), dataset=load_dataset(cfg.dataset), seed=2
    )
    assert result.summary["n_train"] == 120 and 0 <= result.summary["coverage_95"] <= 1
    assert list(result.tables["calibration"]["level"]) == list(cfg.protocol.run.levels)
