"""Hard inputs for every public estimator: parameters set after fit, failed calls, parameters that mean nothing.

- set_params after fit: a bad value is refused by the next call with a ValueError naming the parameter, or ignored by
  predictions (equal to before); never a silent change. Parameters that may change after fit are documented.
- a failed partial_fit (bad parameters, bad X or y) leaves the model as an untouched copy: equal after a good call.
- parameters that mean nothing raise ValueErrors naming them.
"""

import copy
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest
from estimators import ONLINE, is_classifier

from mondrian import (
    AMFClassifier,
    AMFRegressor,
    MondrianForestClassifier,
    MondrianForestRegressor,
    MondrianPartitionForestClassifier,
    MondrianPartitionForestRegressor,
    OnlineBSPForestClassifier,
    OnlineBSPForestRegressor,
    OnlineRandomForestClassifier,
    sample_mondrian,
)

rng = np.random.default_rng(0)
X = rng.random((60, 2))
X2 = rng.random((30, 2))
Q = rng.random((25, 2))
Y_CLASS, Y2_CLASS = rng.integers(0, 3, 60), rng.integers(0, 3, 30)
Y_REG, Y2_REG = X[:, 0] + rng.normal(0, 0.1, 60), X2[:, 0]

PARTITION = {
    "partition-clf": lambda: MondrianPartitionForestClassifier(n_estimators=3, lifetime=3.0, random_state=0),
    "partition-reg": lambda: MondrianPartitionForestRegressor(n_estimators=3, lifetime=3.0, random_state=0),
}
ALL = {**ONLINE, **PARTITION}

BAD = [np.nan, -1, 0, np.inf, "bad", None, 2.5, True]
# parameters that may change after fit, changing predictions by design (documented in the estimators' docstrings)
SWITCHABLE = {
    "mf-clf-increasing": {"vote"},
    "amf-clf": {"use_aggregation", "prediction"},
    "amf-reg": {"use_aggregation", "prediction"},
    "mf-reg": {"prediction"},
    "mf-reg-path": {"prediction"},
    "mf-reg-increasing-path": {"prediction"},
    "mf-reg-gaussian": {"prediction", "prior_mean", "prior_variance", "noise_variance", "gamma", "branch_law"},
}
# valid values that differ from the fitted ones (the issue's cases)
OTHER = {
    "smoothing": ["empirical"],
    "vote": ["hard"],
    "lifetime": ["increasing", 1.0],
    "use_aggregation": [False],
    "prediction": ["split", "leaf", "path"],
    # the Gaussian rule's hyperparameters, read by its predictions
    "prior_mean": [-1, 0, 2.5],
    "prior_variance": [2.5],
    "noise_variance": [2.5],
    "gamma": [2.5],
    "branch_law": ["exact"],
}
NEGATIVE_OK = {"prior_mean"}  # a parameter for which -1 is a valid value


def data(name):
    return (X, Y_CLASS, X2, Y2_CLASS) if is_classifier(name) else (X, Y_REG, X2, Y2_REG)


def outputs(model, name):
    return model.predict_proba(Q) if is_classifier(name) else model.predict(Q)


@pytest.mark.parametrize("name", ALL)
def test_params_set_after_fit_never_silently_change_predictions(name):
    Xa, ya, _, _ = data(name)
    model = ALL[name]().fit(Xa, ya)
    before = outputs(model, name)
    counts = {"refused": 0, "ignored": 0}
    for param, default in model.get_params().items():
        if param == "random_state":
            continue  # read by fit only (a new forest)
        for value in BAD + OTHER.get(param, []):
            if isinstance(value, type(default)) and value == default:
                continue
            trial = copy.deepcopy(model)
            trial.set_params(**{param: value})
            try:
                after = outputs(trial, name)
            except ValueError as error:
                assert param in str(error), (param, value, error)
                counts["refused"] += 1
                continue
            if param in SWITCHABLE.get(name, ()) and value in OTHER.get(param, []):
                continue  # a valid switch: allowed to change predictions
            np.testing.assert_array_equal(after, before, err_msg=f"{name}: {param}={value!r}")
            counts["ignored"] += 1
    assert sum(counts.values()) > 0


def failing_calls(name):
    """(label, call) pairs: bad parameters set before partial_fit, bad X and y."""
    _, _, X2a, y2a = data(name)
    nan, inf = X2a.copy(), X2a.copy()
    nan[0, 0], inf[1, 1] = np.nan, np.inf
    calls = [
        ("n_jobs=0", {"n_jobs": 0}, X2a, y2a),
        ("n_jobs='two'", {"n_jobs": "two"}, X2a, y2a),
        ("n_estimators=0", {"n_estimators": 0}, X2a, y2a),
        ("more trees", {"n_estimators": 5}, X2a, y2a),
        ("NaN in X", {}, nan, y2a),
        ("inf in X", {}, inf, y2a),
        ("3 features", {}, np.hstack([X2a, X2a[:, :1]]), y2a),
        ("1-D X", {}, X2a[:, 0], y2a),
        ("short y", {}, X2a, y2a[:-1]),
    ]
    model = ONLINE[name]()
    for param in model.get_params():
        if param not in ("n_jobs", "n_estimators", "random_state"):
            bad = (np.nan, "bad") if param in NEGATIVE_OK else (np.nan, "bad", -1)
            calls += [(f"{param}={v!r}", {param: v}, X2a, y2a) for v in bad]
    if is_classifier(name):
        calls.append(("labels of another type", {}, X2a, np.where(y2a == 0, "a", y2a)))
    else:
        bad_y = y2a.copy()
        bad_y[0] = np.nan
        calls.append(("NaN in y", {}, X2a, bad_y))
    return calls


@pytest.mark.parametrize("name", ONLINE)
def test_a_failed_partial_fit_changes_nothing(name):
    """Every failing call in turn on one model, then a good call: equal to an untouched copy after that call."""
    Xa, ya, X2a, y2a = data(name)
    model = ONLINE[name]().fit(Xa, ya)
    twin = pickle.loads(pickle.dumps(model))
    params = model.get_params()
    for label, bad_params, Xb, yb in failing_calls(name):
        model.set_params(**bad_params)
        with pytest.raises(ValueError):
            model.partial_fit(Xb, yb)
        model.set_params(**params)
        if hasattr(model, "points_"):
            assert model.points_.n == twin.points_.n, label
    for m in (model, twin):
        m.partial_fit(X2a, y2a)
    np.testing.assert_array_equal(outputs(model, name), outputs(twin, name))


@pytest.mark.parametrize("name", ["mf-clf-increasing", "amf-clf", "bsp-reg", "orf-clf"])
def test_each_failing_call_alone_then_a_good_call_equals_an_untouched_copy(name):
    Xa, ya, X2a, y2a = data(name)
    fitted = ONLINE[name]().fit(Xa, ya)
    for label, bad_params, Xb, yb in failing_calls(name):
        model, twin = copy.deepcopy(fitted), copy.deepcopy(fitted)
        model.set_params(**bad_params)
        with pytest.raises(ValueError):
            model.partial_fit(Xb, yb)
        model.set_params(**twin.get_params())
        for m in (model, twin):
            m.partial_fit(X2a, y2a)
        np.testing.assert_array_equal(outputs(model, name), outputs(twin, name), err_msg=label)


def test_bsp_point_store_does_not_grow_on_a_failed_call():
    clf = OnlineBSPForestClassifier(n_estimators=2, random_state=0).fit(X, Y_CLASS)
    with pytest.raises(ValueError, match="n_jobs"):
        clf.set_params(n_jobs=0).partial_fit(X2, Y2_CLASS)
    assert clf.points_.n == 60


def test_amf_dirichlet_set_after_fit_is_ignored_until_partial_fit():
    clf = AMFClassifier(n_estimators=2, random_state=0).fit(X, Y_CLASS)
    before = clf.predict_proba(Q)
    for value in (np.nan, -1):
        clf.set_params(dirichlet=value)
        np.testing.assert_array_equal(clf.predict_proba(Q), before)
        with pytest.raises(ValueError, match="dirichlet"):
            clf.partial_fit(X2, Y2_CLASS)
    clf.set_params(dirichlet=0.5, use_aggregation="yes")
    with pytest.raises(ValueError, match="use_aggregation"):
        clf.predict_proba(Q)


def test_ikn_forest_refuses_a_hard_vote_and_ignores_other_smoothing():
    clf = MondrianForestClassifier(n_estimators=2, random_state=0).fit(X, Y_CLASS)
    before = clf.predict_proba(Q)
    with pytest.raises(ValueError, match="vote"):
        clf.set_params(vote="hard").predict_proba(Q)
    for params in ({"smoothing": "empirical"}, {"lifetime": "increasing"}, {"gamma": 1e-3}, {"smoothing": "bad"}):
        clf.set_params(vote="soft", **params)
        np.testing.assert_array_equal(clf.predict_proba(Q), before, err_msg=str(params))
        clf.set_params(**MondrianForestClassifier(n_estimators=2, random_state=0).get_params())


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MondrianForestRegressor(lifetime_scale=0), "lifetime_scale"),
        (lambda: MondrianForestClassifier(lifetime=2.0, lifetime_scale=np.nan), "lifetime_scale"),
        (lambda: OnlineBSPForestRegressor(budget=2.0, budget_scale=0), "budget_scale"),
        (lambda: MondrianForestClassifier(n_jobs="two"), "n_jobs"),
        (lambda: AMFClassifier(n_jobs=0), "n_jobs"),
        (lambda: OnlineRandomForestClassifier(n_jobs=1.5), "n_jobs"),
        (lambda: MondrianPartitionForestRegressor(n_jobs="two"), "n_jobs"),
        (lambda: AMFClassifier(prediction="bad"), "prediction"),
    ],
)
def test_meaningless_parameters_are_refused_by_name(make, message):
    with pytest.raises(ValueError, match=message):
        make().fit(X, Y_CLASS)


def test_a_bad_prediction_rule_set_after_fit_is_refused_by_predictions_and_learning():
    clf = AMFClassifier(n_estimators=2, random_state=0).fit(X, Y_CLASS)
    clf.set_params(prediction="bad")
    for call in (lambda: clf.predict_proba(Q), lambda: clf.partial_fit(X2, Y2_CLASS)):
        with pytest.raises(ValueError, match="'prediction' parameter of AMFClassifier must be a str among"):
            call()


def test_n_jobs_is_checked_at_prediction():
    for name, make in ALL.items():
        Xa, ya, _, _ = data(name)
        model = make().fit(Xa, ya)
        model.set_params(n_jobs="two")
        with pytest.raises(ValueError, match="n_jobs"):
            outputs(model, name)


def test_sample_mondrian_refuses_an_infinite_box():
    with pytest.raises(ValueError, match="finite"):
        sample_mondrian(1, [0, 0], [1, np.inf])
    with pytest.raises(ValueError, match="lower and upper"):
        sample_mondrian(1, [np.nan, 0], [1, 1])


# Fits on data of every magnitude up to the largest float, run in a child process so that a hang fails the test (its
# time limit) instead of the CI. Each estimator takes boxes up to its kernels' widest side (the largest float of its
# precision; half the square root of the largest float64 for BSP, whose hull tests multiply two sides) and refuses
# wider ones, whether the box comes in one batch or only from two batches together.
MAGNITUDES = r"""
import sys, numpy as np
from mondrian import (AMFClassifier, AMFRegressor, MondrianForestClassifier, MondrianForestRegressor,
                      OnlineBSPForestClassifier, OnlineBSPForestRegressor)
rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, size=(40, 3))
for make in (MondrianForestClassifier, MondrianForestRegressor, AMFClassifier, AMFRegressor,
             OnlineBSPForestClassifier, OnlineBSPForestRegressor):
    y = rng.integers(0, 2, 40) if "Classifier" in make.__name__ else rng.normal(size=40)
    for scale in (1.0, 1e38, 3e38, 1e153, 5e153, 1e155, 1e300, 1.7e308, np.finfo(float).max):
        # one batch; two batches, each half as wide as the box they span together
        for batches in ((X * scale,), (np.abs(X) * scale, -np.abs(X) * scale)):
            model = make(n_estimators=2, random_state=0)
            try:
                for part in batches:
                    model.partial_fit(part, y, **({"classes": [0, 1]} if "Classifier" in make.__name__ else {}))
                finite = bool(np.isfinite(np.asarray(model.predict(X * scale), float)).all())
                print(make.__name__, scale, len(batches), "fitted" if finite else "non-finite")
            except ValueError as error:
                print(make.__name__, scale, len(batches), "refused", str(error).splitlines()[0][:60].replace(" ", "_"))
"""


@pytest.mark.subprocess
def test_every_magnitude_up_to_the_largest_float_is_fitted_or_refused_in_time():
    done = subprocess.run([sys.executable, "-c", MAGNITUDES], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    outcomes = {(o[0], float(o[1]), o[2]): o[3:] for o in (line.split() for line in done.stdout.splitlines())}
    assert len(outcomes) == 6 * 9 * 2
    assert all(o[0] in ("fitted", "refused") for o in outcomes.values()), outcomes
    reasons = ("X_spans_too_wide_a_box", "Input_X_contains_infinity_or_a_value_too_large_for_dtype")
    assert all(o[1].startswith(reasons) for o in outcomes.values() if o[0] == "refused"), outcomes
    for (name, scale, _), outcome in outcomes.items():
        assert outcome[0] == outcomes[name, scale, "1"][0], (name, scale)  # the box of two batches checked together
        assert outcome[0] == "fitted" or scale > 1e38, (name, scale)
    assert outcomes["OnlineBSPForestClassifier", 1e153, "2"][0] == "fitted"
    assert outcomes["OnlineBSPForestClassifier", 5e153, "2"][0] == "refused"
    assert outcomes["MondrianForestClassifier", 1e300, "2"][0] == "fitted"


# Two features equal up to rounding (distance and air time of the airline data, re-scaled to [0, 1]): the online BSP
# forests' hull updates did not end (or overflowed their room) with a floating-point orientation test.
NEARLY_EQUAL_FEATURES = r"""
import numpy as np
from mondrian import OnlineBSPForestClassifier, OnlineBSPForestRegressor
rng = np.random.default_rng(1)
distance = rng.uniform(100, 3000, 300)
X = np.column_stack([rng.uniform(0, 1, 300), distance, distance * 0.13, rng.integers(0, 24, 300)])
X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
for seed in range(3):
    for model, y in ((OnlineBSPForestRegressor, rng.normal(size=300)), (OnlineBSPForestClassifier, distance > 1500)):
        print(np.isfinite(model(n_estimators=3, random_state=seed).fit(X, y).predict(X).astype(float)).all())
"""


@pytest.mark.subprocess
def test_bsp_forests_fit_features_equal_up_to_rounding_in_time():
    done = subprocess.run([sys.executable, "-c", NEARLY_EQUAL_FEATURES], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True"] * 6


@pytest.mark.parametrize("name", [name for name in ONLINE if is_classifier(name)])
def test_a_classifier_learns_classes_as_they_come_unless_the_first_partial_fit_names_them(name):
    """The first rows rarely show every label: five rows of class 0 give classes_ = [0], which later labels extend
    (appended); classes given to the first partial_fit (scikit-learn's convention) fix them instead."""
    model = ONLINE[name]()
    model.partial_fit(X[:5], np.zeros(5, int))
    assert list(model.classes_) == [0]
    model.partial_fit(X2, Y2_CLASS)
    assert list(model.classes_) == [0, *np.unique(Y2_CLASS[Y2_CLASS != 0])]
    model = ONLINE[name]()
    model.partial_fit(X[:5], np.zeros(5, int), classes=[0, 1, 2])
    model.partial_fit(X2, Y2_CLASS)
    assert list(model.classes_) == [0, 1, 2]


@pytest.mark.parametrize(
    "draw, named",
    [
        (lambda: sample_mondrian(1.0, [-1.5e308], [1.5e308]), "has inf cells"),
        (lambda: sample_mondrian(1e300, [0.0], [1.0]), "MP(lifetime=1e+300) on the box from [0] to [1] has 1e+300"),
        (lambda: sample_mondrian(1e4, [0.0, 0.0], [1.0, 1.0]), "more than max_cells=1e+07"),
        (lambda: MondrianPartitionForestRegressor(lifetime=2.0).fit(*HUGE_COORDINATE), "to [1e+39, "),
        (lambda: MondrianPartitionForestClassifier(lifetime=1e30).fit(X3, X3[:, 0] > 0.5), "lifetime=1e+30"),
        (lambda: MondrianPartitionForestRegressor(lifetime=2.0).fit(X3 * 1e20, X3[:, 0]), "more than max_cells=1e+15"),
        (lambda: MondrianPartitionForestRegressor(lifetime=100.0, max_cells=1e3).fit(X3, X3[:, 0]), "max_cells=1000"),
    ],
)
def test_a_partition_of_too_many_cells_is_refused_before_anything_is_allocated(draw, named):
    """sample_mondrian and the partition forests refuse a partition whose expected number of cells (the product of
    1 + lifetime * side, known before drawing) exceeds max_cells, in one line naming the lifetime and the box, with
    nothing large allocated (these used to run into a MemoryError or an OverflowError)."""
    import tracemalloc

    tracemalloc.start()
    with pytest.raises(ValueError, match="cells on average") as refused:
        draw()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    message = str(refused.value)
    assert named in message and "\n" not in message and "lower the lifetime" in message
    assert peak < 10 * 2**20  # bytes


def test_a_partition_within_max_cells_is_drawn():
    assert sample_mondrian(3.0, [0.0, 0.0], [1.0, 1.0], random_state=0, max_cells=16).n_leaves() >= 1
    model = MondrianPartitionForestRegressor(lifetime=3.0, max_cells=64, random_state=0).fit(X3, X3[:, 0])
    assert model.predict(X3).shape == (len(X3),)


X3 = np.random.default_rng(3).random((80, 3))
HUGE_COORDINATE = (np.vstack([X3, [[1e39, 0.5, 0.5]]]), np.append(X3[:, 0], 0.0))


@pytest.mark.parametrize("name", ONLINE)
def test_one_sample_calls_refuse_what_the_batch_methods_refuse(name):
    """Complex values and a scalar are refused by learn_one and the one-sample predictions as partial_fit and
    predict refuse them (they used to drop the imaginary part, or start a 1-feature model), in one line."""
    model = ONLINE[name]()
    y = Y_CLASS if is_classifier(name) else Y_REG
    for call in (lambda x: model.learn_one(x, y[0]),):
        with pytest.raises(ValueError, match="x must hold real numbers, got complex values"):
            call(np.array([0.5 + 1j, 0.5]))
        with pytest.raises(ValueError, match=re.escape("got the scalar 3.0")):
            call(3.0)
    assert not hasattr(model, "trees_")
    model.fit(X, y)
    one = model.predict_proba_one if is_classifier(name) else model.predict_one
    with pytest.raises(ValueError, match="complex"):
        one((0.5 + 1j, 0.5))
    with pytest.raises(ValueError, match="scalar"):
        one(np.float64(0.5))


@pytest.mark.parametrize("name", [name for name in ONLINE if not is_classifier(name)])
def test_a_regressor_refuses_labels_that_are_no_finite_number(name):
    """None (object-dtype y, or learn_one's label) used to be learnt as nan, and 10**400 to raise OverflowError."""
    model = ONLINE[name]().fit(X, Y_REG)
    before = model.predict(Q)
    cases = [
        (lambda: model.learn_one(X[0], None), "y must hold finite numbers; row 0 holds nan"),
        (lambda: model.partial_fit(X[:3], np.array([1.0, None, 2.0], dtype=object)), "row 1 holds nan"),
        (lambda: model.learn_one(X[0], 10**400), "y must hold numbers a float64 holds"),
        (lambda: model.partial_fit(X[:1], [10**400]), "y must hold numbers a float64 holds"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            call()
    np.testing.assert_array_equal(model.predict(Q), before)


def test_a_series_sample_is_read_by_name_when_the_model_knows_names():
    """A pandas Series row is a dict by its index where the model learnt names (a DataFrame's columns), in any order;
    a first Series with string labels gives the model its names, as a dict does."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b"])
    model = AMFRegressor(n_estimators=3, random_state=0).fit(frame, Y_REG)
    shuffled = pd.Series({"b": 0.2, "a": 0.9})
    assert model.predict_one(shuffled) == model.predict_one({"a": 0.9, "b": 0.2})
    assert model.predict_one(shuffled) == model.predict(pd.DataFrame([[0.9, 0.2]], columns=["a", "b"]))[0]
    fresh = AMFRegressor(n_estimators=3, random_state=0)
    fresh.learn_one(pd.Series({"a": 0.1, "b": 0.3}), 1.0)
    assert list(fresh.feature_names_in_) == ["a", "b"]
    with pytest.raises(ValueError, match="missing \\['b'\\]"):
        fresh.predict_one(pd.Series({"a": 0.1, "c": 0.3}))


@pytest.mark.parametrize("name", [name for name in ONLINE if is_classifier(name)])
def test_finite_points_however_far_get_valid_probabilities(name):
    """Points at +-1e308 (the IKN smoothing's rate of separation overflows there) used to get nan probabilities while
    predict answered class 0: every row is a distribution and predict its first argmax, for the arrays and the
    one-sample calls."""
    model = ONLINE[name]().fit(X, Y_CLASS)
    top = float(np.finfo(model._dtype).max)  # AMF works in single precision: 1e308 is refused there, as too large
    far = np.array([[-top, -top], [top, top], [top, -top], [top, 0.5], [0.5 * top, -0.5 * top]])
    proba = model.predict_proba(far)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0) and (proba >= 0).all()
    np.testing.assert_array_equal(model.predict(far), model.classes_[np.argmax(proba, axis=1)])
    for row, expected in zip(far, proba, strict=True):
        np.testing.assert_allclose(list(model.predict_proba_one(row).values()), expected)


@pytest.mark.parametrize("name", [name for name in ONLINE if not is_classifier(name)])
def test_labels_too_large_for_a_regressors_sums_are_refused(name):
    """y = 1.7e308 used to give inf predictions (AMF's squared losses overflow from about 1e154): refused beyond the
    estimator's bound, in one line; within it, predictions stay finite."""
    model = ONLINE[name]()
    bound = model._max_label
    with pytest.raises(ValueError, match=re.escape(f"y must lie within +-{bound:.3g} for {type(model).__name__}")):
        model.fit(X, np.full(len(X), 1.7e308))
    assert not hasattr(model, "trees_")
    model.fit(X, bound * (Y_REG - 0.5) / 2)
    assert np.isfinite(model.predict(Q)).all()
    before = model.predict(Q)
    with pytest.raises(ValueError, match="y must lie within"):
        model.learn_one(X[0], 2 * bound)
    np.testing.assert_array_equal(model.predict(Q), before)


def test_a_dirichlet_prior_too_large_to_sum_is_refused():
    with pytest.raises(ValueError, match=re.escape("'dirichlet' parameter of AMFClassifier must be a float in the")):
        AMFClassifier(dirichlet=1e308).fit(X, Y_CLASS)
    proba = AMFClassifier(n_estimators=3, dirichlet=1e100, random_state=0).fit(X, Y_CLASS).predict_proba(Q)
    np.testing.assert_allclose(proba, 1.0 / 3)


@pytest.mark.parametrize("name", [name for name in ONLINE if name.startswith(("mf-", "amf-"))])
def test_progressive_validation_is_the_loop_it_documents(name):
    """progressive_predict(_proba): the trees are those of predict then partial_fit one sample at a time, node for
    node; each row equals that loop's prediction up to rounding (within 1e-15 relative: the docstring's bound)."""
    from model_state import same_trees

    classifier = is_classifier(name)
    y = Y_CLASS if classifier else Y_REG
    progressive, loop = ONLINE[name](), ONLINE[name]()
    kwargs = {"classes": [0, 1, 2]} if classifier else {}
    rows = (progressive.progressive_predict_proba if classifier else progressive.progressive_predict)(X, y, **kwargs)
    expected = []
    for i in range(len(y)):
        if i == 0:
            expected.append(np.full(3, 1 / 3) if classifier else 0.0)
        else:
            expected.append((loop.predict_proba if classifier else loop.predict)(X[i : i + 1])[0])
        loop.partial_fit(X[i : i + 1], y[i : i + 1], **(kwargs if i == 0 else {}))
    expected = np.asarray(expected)
    scale = np.maximum(np.abs(expected), 1.0)
    assert np.all(np.abs(rows - expected) <= 1e-15 * scale), np.abs(rows - expected).max()
    same_trees(progressive, loop)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: MondrianForestClassifier().partial_fit(X, Y_CLASS, classes=[]), "classes must be a non-empty 1-D"),
        (lambda: MondrianForestClassifier().partial_fit(X, Y_CLASS, classes={0, 1, 2}), "got a set"),
        (lambda: AMFClassifier().partial_fit(X, Y_CLASS, classes=(c for c in range(3))), "got a generator"),
        (lambda: AMFClassifier(classes={0, 1, 2}).learn_one(X[0], 1), "got a set"),
        (lambda: PARTITION["partition-reg"]().fit(X, Y_REG).predict_nested(X, [[0.5, 1.0]]), "got shape (1, 2)"),
        (lambda: PARTITION["partition-reg"]().fit(X, Y_REG).predict(X, lifetime="a"), "lifetime must be a number"),
        (lambda: PARTITION["partition-clf"]().fit(X, Y_CLASS).predict_proba(X, lifetime="a"), "got 'a'"),
        (
            lambda: MondrianForestClassifier(classes=[0, 1, 2]).fit(X, Y_CLASS).partial_fit(X, 3 + np.arange(60)),
            "(60 in all)",
        ),
        (lambda: MondrianForestClassifier().fit(X, Y_CLASS).partial_fit(X, Y_REG), "Unknown label type: continuous"),
        (lambda: AMFClassifier(classes=[0, 1]).learn_one({}, 1), "x must hold at least one feature, got none"),
        (lambda: AMFRegressor().learn_one(np.array([np.nan, 1.0]), 1.0), "x contains NaN."),
        (lambda: AMFClassifier().fit(X, Y_CLASS).predict_proba_one(np.array([np.nan, 1.0])), "x contains NaN."),
        (lambda: MondrianForestClassifier().fit(X, Y_CLASS).learn_one(np.array([np.inf, 1.0]), 1), "x contains inf"),
    ],
)
def test_errors_are_one_line_naming_the_users_own_argument(call, message):
    """Each used to be an IndexError or TypeError, a message about another argument, scikit-learn's lines about an
    array X, or every label printed."""
    with pytest.raises(ValueError) as raised:
        call()
    text = str(raised.value)
    assert message in text and "\n" not in text and len(text) < 400, text


def test_a_vote_set_after_fit_is_named_when_it_changes_the_trees_partial_fit_extends():
    model = MondrianForestClassifier(n_estimators=3, random_state=0).fit(X, Y_CLASS).set_params(vote="hard")
    with pytest.raises(ValueError, match=re.escape("vote='hard'")) as raised:
        model.partial_fit(X2, Y2_CLASS)
    assert "grown with smoothing 'ikn'" in str(raised.value) and "call fit" in str(raised.value)


def test_a_budget_set_after_fit_is_named_in_the_users_parameters():
    """BSP's message named a lifetime=('increasing', 1.0) the user never set: it names budget and budget_scale."""
    model = OnlineBSPForestRegressor(n_estimators=2, random_state=0).fit(X, Y_REG).set_params(budget=2.0)
    with pytest.raises(ValueError) as raised:
        model.partial_fit(X2, Y2_REG)
    assert str(raised.value).startswith(
        "n_estimators=2, budget=2.0: the trees being extended were started with n_estimators=2, budget='increasing', "
        "budget_scale=1.0; set them back"
    )
