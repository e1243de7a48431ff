"""The online and fractions protocols, and the process simulations."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import GridSearchCV

from experiments.data import synthetic
from experiments.data.bundled import bundled
from experiments.data.dataset import split
from experiments.protocols import fractions, online, process
from mondrian import MondrianForestClassifier, MondrianForestRegressor, OnlineBSPForestRegressor


class WithoutCompiledLoop(ClassifierMixin, BaseEstimator):
    """A Mondrian forest seen only through predict_proba and partial_fit."""

    def __init__(self, random_state=0):
        self.random_state = random_state

    def partial_fit(self, X, y, classes=None):
        if not hasattr(self, "forest_"):
            self.forest_ = MondrianForestClassifier(n_estimators=5, random_state=self.random_state)
        self.forest_.partial_fit(X, y, classes=classes)
        self.classes_ = self.forest_.classes_
        return self

    def predict_proba(self, X):
        return self.forest_.predict_proba(X)


def test_online_compiled_loop_equals_one_call_per_sample():
    data = synthetic.moons(n_samples=400, test_size=0.0, seed=0)
    compiled = online.run(lambda: MondrianForestClassifier(n_estimators=5, random_state=0), data, seed=3, log_every=50)
    looped = online.run(lambda: WithoutCompiledLoop(random_state=0), data, seed=3, log_every=50)
    columns = ["step", "average_log_loss", "average_accuracy"]
    pd.testing.assert_frame_equal(compiled.curves[columns], looped.curves[columns])
    assert list(compiled.curves["step"]) == [50, 100, 150, 200, 250, 300, 350, 400]


def test_online_first_prediction_is_uniform_and_losses_are_running_means():
    data = synthetic.moons(n_samples=100, test_size=0.0, seed=0)
    result = online.run(
        lambda: MondrianForestClassifier(n_estimators=3, random_state=0),
        data,
        seed=0,
        log_every=1,
        shuffle=False,
    )
    assert result.curves["average_log_loss"].iloc[0] == pytest.approx(np.log(2))
    assert result.curves["average_accuracy"].between(0, 1).all()
    assert result.curves["train_time"].is_monotonic_increasing


def test_online_regression_and_sklearn_online_models():
    data = synthetic.friedman(300, test_size=0.0, seed=0)
    result = online.run(
        lambda: MondrianForestRegressor(n_estimators=3, random_state=0),
        data,
        seed=0,
        log_every=1,
        shuffle=False,
    )
    assert result.curves["average_mse"].iloc[0] == pytest.approx(data.y_train[0] ** 2)  # the prior predicts 0
    assert result.curves["average_mse"].iloc[-1] < result.curves["average_mse"].iloc[9]
    sgd = online.run(
        lambda: SGDClassifier(loss="log_loss", random_state=0),
        bundled("iris", test_size=0.0),
        seed=0,
        log_every=50,
    )
    assert len(sgd.curves) == 3


def test_online_needs_partial_fit():
    with pytest.raises(ValueError, match="partial_fit"):
        online.run(RandomForestClassifier, bundled("iris", test_size=0.0), seed=0)


def test_fractions_online_models_learn_increments_batch_models_refit():
    data = bundled("digits", seed=0)
    mf = fractions.run(lambda: MondrianForestClassifier(n_estimators=5, random_state=0), data, seed=0, n_batches=5)
    rf = fractions.run(lambda: RandomForestClassifier(n_estimators=5, random_state=0), data, seed=0, n_batches=5)
    for result in (mf, rf):
        assert list(result.curves["fraction"]) == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0], abs=1e-3)
        assert result.curves["train_time"].is_monotonic_increasing
        assert result.curves["accuracy"].iloc[-1] > 0.8
    # refit="always" treats the online model as a batch one: its last model is a fit on all the data
    refit = fractions.run(
        lambda: MondrianForestClassifier(n_estimators=5, random_state=0),
        data,
        seed=0,
        n_batches=5,
        refit="always",
    )
    X = data.X_train[np.random.default_rng(0).permutation(len(data.X_train))]
    y = data.y_train[np.random.default_rng(0).permutation(len(data.y_train))]
    final = MondrianForestClassifier(n_estimators=5, random_state=0).fit(X, y).score(data.X_test, data.y_test)
    assert refit.curves["accuracy"].iloc[-1] == pytest.approx(final)


class CountingForest:
    """An online classifier that counts the rows it learns (a Mondrian forest inside)."""

    def __init__(self):
        self.rows = 0
        self.forest = MondrianForestClassifier(n_estimators=3, random_state=0)

    def partial_fit(self, X, y, classes=None):
        self.rows += len(X)
        self.forest.partial_fit(X, y, classes=classes)
        return self

    def predict_proba(self, X):
        return self.forest.predict_proba(X)

    @property
    def classes_(self):
        return self.forest.classes_


def test_fractions_pays_one_off_costs_on_a_throwaway_model_before_the_clock_starts():
    data = bundled("digits", seed=0)
    built = []

    def model():
        built.append(CountingForest())
        return built[-1]

    result = fractions.run(model, data, seed=0, n_batches=4)
    warm, timed = sorted(built, key=lambda m: m.rows)
    assert warm.rows == 3 * len(data.classes) and timed.rows == len(data.X_train)
    order = np.random.default_rng(0).permutation(len(data.X_train))
    fresh = MondrianForestClassifier(n_estimators=3, random_state=0)
    for part in np.array_split(order, [int(b) for b in np.linspace(0, len(order), 5)[1:-1]]):
        fresh.partial_fit(data.X_train[part], data.y_train[part], classes=data.classes)
    assert result.curves["accuracy"].iloc[-1] == fresh.score(data.X_test, data.y_test)


def test_fractions_aligns_probabilities_when_a_prefix_misses_classes():
    X = np.arange(40, dtype=float)[:, None]
    y = np.repeat([0, 1, 2, 3], 10)
    from experiments.data.dataset import Dataset

    data = Dataset("sorted", "classification", X, y, X, y)
    result = fractions.run(
        lambda: RandomForestClassifier(n_estimators=3, random_state=0),
        data,
        seed=0,
        n_batches=4,
        shuffle=False,
    )
    assert np.isfinite(result.curves["log_loss"]).all()
    assert result.curves["accuracy"].iloc[0] == 0.25


def test_fractions_errors_are_clear():
    no_test = bundled("iris", test_size=0.0)
    with pytest.raises(ValueError, match="test set"):
        fractions.run(RandomForestClassifier, no_test, seed=0)
    with pytest.raises(ValueError, match="refit"):
        fractions.run(RandomForestClassifier, bundled("iris"), seed=0, refit="never")
    with pytest.raises(ValueError, match="sizes must increase"):
        fractions.run(RandomForestClassifier, bundled("iris"), seed=0, sizes=[50, 20])


def test_fractions_at_given_sizes_record_the_leaves_per_tree():
    """Learning curves at chosen training sizes; the mean number of leaves per tree of the project's forests (of
    the forest or of its trees) and of scikit-learn's, nan for a model without trees."""
    data = synthetic.bsp_sin(n_samples=700, test_size=200, seed=0)
    for model in (
        lambda: OnlineBSPForestRegressor(n_estimators=3, random_state=0),
        lambda: MondrianForestRegressor(n_estimators=3, lifetime=5.0, random_state=0),
        lambda: RandomForestRegressor(n_estimators=3, random_state=0),
    ):
        result = fractions.run(model, data, seed=0, sizes=[100, 300, 500])
        assert list(result.curves["step"]) == [100, 300, 500]
        estimator = model().fit(data.X_train, data.y_train)
        leaves = result.curves["leaves"]
        assert leaves.is_monotonic_increasing and 1 <= leaves.iloc[-1] <= 500
        assert fractions.mean_leaves(estimator) > 1
    assert np.isnan(fractions.mean_leaves(SGDClassifier()))


def test_process_protocols_report_exact_values_and_tables():
    counts = process.leaf_count(dim=2, lifetime=1.0, replicates=50, seed=0)
    assert counts.summary["exact_mean_leaves"] == 4.0
    assert len(counts.tables["counts"]) == 50
    cell = process.cell_law(dim=2, lifetime=3.0, point=[0.5, 0.5], others=[[0.6, 0.5]], replicates=100, seed=0)
    sides = cell.tables["sides"]
    assert list(sides.columns) == ["left_0", "left_1", "right_0", "right_1"]
    assert ((sides >= 0) & (sides <= 0.5)).all().all()
    assert cell.tables["same_cell"]["exact"].iloc[0] == pytest.approx(np.exp(-0.3))
    nodes = process.partition(dim=2, lifetime=2.0, seed=0).tables["nodes"]
    assert {"node", "parent", "split_time", "lower_0", "upper_1", "depth"} <= set(nodes.columns)
    # the same seed gives the same partition
    again = process.partition(dim=2, lifetime=2.0, seed=0).tables["nodes"]
    pd.testing.assert_frame_equal(nodes, again)


def test_fractions_warms_up_a_grid_searched_model_on_many_classes():
    """The warm-up fit has 3 rows of each class: a 3-fold stratified grid search fits on it (on 20 rows of 26 classes
    it raised "n_splits=3 cannot be greater than the number of members in each class", failing BSP Fig. 3's ERT)."""
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(600, 4)), np.repeat(np.arange(26), 600 // 26 + 1)[:600]
    data = split("letters", "classification", X, y, test_size=0.5, seed=0)

    def model():
        return GridSearchCV(ExtraTreesClassifier(n_estimators=5, random_state=0), {"max_features": [0.5, 1.0]}, cv=3)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nor the warning that a class has fewer members than folds
        result = fractions.run(model, data, seed=0, n_batches=1)
    assert len(result.curves) == 1 and 0 <= result.curves["accuracy"].iloc[0] <= 1


def test_fractions_warm_up_of_an_online_model_on_many_classes_is_silent():
    """The online warm-up learns 3 rows of each class in two halves: 39 rows of 26 classes, which scikit-learn's
    target check flags as "more than 50% unique classes" (it filled lrt14-fig3's log); the trial's own mini-batches
    (300 rows here) are not silenced."""
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(600, 4)), np.repeat(np.arange(26), 600 // 26 + 1)[:600]
    data = split("letters", "classification", X, y, test_size=0.5, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = fractions.run(
            lambda: MondrianForestClassifier(n_estimators=2, random_state=0), data, seed=0, n_batches=1
        )
    assert len(result.curves) == 1
