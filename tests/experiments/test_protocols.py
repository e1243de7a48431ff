"""The online and fractions protocols, and the process simulations."""

import importlib
import inspect
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import GridSearchCV

from experiments.config import CONF_DIR, compose, config_file, group_names
from experiments.data import synthetic
from experiments.data.bundled import bundled
from experiments.data.dataset import split
from experiments.protocols import fractions, online, process
from experiments.protocols.result import ProtocolRun, TrialResult
from experiments.reproduce import figure_trials
from experiments.trial import trial_hash
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


@pytest.mark.parametrize("name", group_names("protocol"))
def test_every_protocol_holds_to_the_protocol_contract(name):
    """conf/protocol/<name>.yaml's ``run._target_`` is a ProtocolRun: it takes the trial's seed and every setting of
    its config by name, and returns a TrialResult."""
    settings = config_file(CONF_DIR / "protocol" / f"{name}.yaml")["run"]
    module, _, function = settings["_target_"].rpartition(".")
    run: ProtocolRun = getattr(importlib.import_module(module), function)
    parameters = inspect.signature(run).parameters
    assert "seed" in parameters
    assert not [key for key in settings if not key.startswith("_") and key not in parameters]
    assert inspect.signature(run).return_annotation in (TrialResult, "TrialResult")


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


class RecordingForest(CountingForest):
    """A counting forest that keeps the rows of each partial_fit call."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def partial_fit(self, X, y, classes=None):
        self.calls.append(X.copy())
        return super().partial_fit(X, y, classes=classes)


def test_fractions_final_passes_feed_the_whole_training_set_again_in_new_orders():
    data = bundled("digits", seed=0)
    n = len(data.X_train)
    built = []

    def model():
        built.append(RecordingForest())
        return built[-1]

    result = fractions.run(model, data, seed=3, n_batches=4, final_passes=3)
    curves = result.curves
    batches = [int(b) for b in np.linspace(0, n, 5)[1:]]
    assert list(curves["pass"]) == [1, 1, 1, 1, 2, 3, 4]
    assert list(curves["step"]) == [*batches, 2 * n, 3 * n, 4 * n]  # samples learnt: steps never repeat
    assert list(curves["fraction"].iloc[4:]) == [1.0, 1.0, 1.0]
    assert curves["train_time"].is_monotonic_increasing and curves["train_time"].iloc[-1] > curves["train_time"].iloc[3]
    assert result.summary["pass"] == 4 and result.summary["accuracy"] == curves["accuracy"].iloc[-1]
    # one partial_fit call per extra pass, the whole shuffled training set in a new order drawn after the shuffle's
    timed = max(built, key=lambda m: m.rows)
    assert [len(X) for X in timed.calls] == [batches[0], *np.diff(batches), n, n, n]
    rng = np.random.default_rng(3)
    shuffle = rng.permutation(n)
    X, y = data.X_train[shuffle], data.y_train[shuffle]
    orders = [rng.permutation(n) for _ in range(3)]
    assert len({tuple(order) for order in orders}) == 3
    for order, call in zip(orders, timed.calls[4:], strict=True):
        np.testing.assert_array_equal(call, X[order])
    # the row after the last pass scores the model that learnt the mini-batches, then the three passes
    fresh = MondrianForestClassifier(n_estimators=3, random_state=0)
    for a, b in itertools.pairwise([0, *batches]):
        fresh.partial_fit(X[a:b], y[a:b], classes=data.classes)
    for order in orders:
        fresh.partial_fit(X[order], y[order])
    assert curves["accuracy"].iloc[-1] == fresh.score(data.X_test, data.y_test)
    # the first pass is the run without final passes, row for row; the same seed gives the same curves
    single = fractions.run(model, data, seed=3, n_batches=4)
    assert "pass" not in single.curves
    same = ["step", "fraction", "leaves", "accuracy", "log_loss"]
    pd.testing.assert_frame_equal(curves[same].iloc[:4], single.curves[same])
    again = fractions.run(model, data, seed=3, n_batches=4, final_passes=3)
    pd.testing.assert_frame_equal(again.curves.drop(columns="train_time"), curves.drop(columns="train_time"))


def test_fractions_final_passes_leave_batch_models_and_refitted_online_models_alone():
    data = bundled("digits", seed=0)
    for model, refit in (
        (lambda: RandomForestClassifier(n_estimators=3, random_state=0), "auto"),
        (lambda: MondrianForestClassifier(n_estimators=3, random_state=0), "always"),
    ):
        single = fractions.run(model, data, seed=1, n_batches=3, refit=refit)
        passes = fractions.run(model, data, seed=1, n_batches=3, refit=refit, final_passes=2)
        assert list(passes.curves["pass"]) == [1, 1, 1]
        pd.testing.assert_frame_equal(
            passes.curves.drop(columns=["pass", "train_time"]), single.curves.drop(columns="train_time")
        )


# The identity of the fractions protocol's part of a trial (trial_hash of {"protocol": ...}) at 10 and 100
# mini-batches, as it was before final_passes existed: a trial that does not set it keeps its hash, so its finished
# runs in the store still count. A change here re-runs every trial of lrt14-fig3, mgs17-fig1 and the BSP figures.
FRACTIONS_IDENTITY = {
    10: "c0c01aa0cf8fb4266f47ef0740a8d873eddec2da57ae19674aabc8cab1a99fa1",
    100: "6e8feaafa37127a090166d813bed8cf28f4468722517de09550ca55a7684497c",
}


@pytest.mark.parametrize(
    "figure_id, profile", [("mgs17-fig1", "paper"), ("lrt14-fig3", "paper"), ("lrt14-fig3", "quick")]
)
def test_final_passes_change_only_the_identity_of_the_trials_that_set_it(figure_id, profile):
    trials = figure_trials(compose([f"figure={figure_id}", f"profile={profile}"]))
    with_passes = [t for t in trials if "final_passes" in t["protocol"]["run"]]
    assert {t["model"]["name"] for t in with_passes} == ({"ORF-Saffari"} if figure_id == "lrt14-fig3" else set())
    assert {t["protocol"]["run"]["final_passes"] for t in with_passes} <= {19}
    for trial in trials:
        if trial not in with_passes:
            assert (
                trial_hash({"protocol": trial["protocol"]}) == FRACTIONS_IDENTITY[trial["protocol"]["run"]["n_batches"]]
            )


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
    for passes in (-1, 1.5, True):
        with pytest.raises(ValueError, match="final_passes must be a non-negative integer"):
            fractions.run(RandomForestClassifier, bundled("iris"), seed=0, final_passes=passes)


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


def test_fractions_record_the_forests_average_leaf_depth_and_leaves_per_tree():
    """mean_depth: the mean over trees of a tree's mean leaf depth, after each mini-batch, for the forests whose trees
    tell their depths (the Mondrian forests); leaves: the mean leaves per tree, also BSP's and scikit-learn's; nan
    where a model tells neither."""
    data = bundled("digits", seed=0)
    result = fractions.run(lambda: MondrianForestClassifier(n_estimators=3, random_state=0), data, seed=0, n_batches=2)
    order = np.random.default_rng(0).permutation(len(data.X_train))
    X, y = data.X_train[order], data.y_train[order]
    forest, half = MondrianForestClassifier(n_estimators=3, random_state=0), len(X) // 2
    depths = []
    for rows in (slice(0, half), slice(half, len(X))):
        forest.partial_fit(X[rows], y[rows], classes=data.classes)
        depths.append(np.mean([tree.depths()[tree.leaves()].mean() for tree in forest.trees_]))
    curves = result.curves
    assert list(curves["mean_depth"]) == pytest.approx(depths) and depths[1] > depths[0] > 1
    assert curves["leaves"].iloc[-1] == np.mean([tree.n_leaves() for tree in forest.trees_])
    for model, task in (
        (lambda: RandomForestClassifier(n_estimators=3, random_state=0), data),
        (lambda: OnlineBSPForestRegressor(n_estimators=2, random_state=0), synthetic.bsp_sin(300, 100, seed=0)),
    ):
        other = fractions.run(model, task, seed=0, n_batches=2).curves
        assert other["mean_depth"].isna().all() and (other["leaves"] > 1).all()
    assert np.isnan(fractions.mean_depth(SGDClassifier()))


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
