"""The scikit-learn estimator API of MondrianForestClassifier / MondrianForestRegressor.

Determinism (same seed, any n_jobs), progressive validation == predict-then-learn loop,
clear ValueErrors on bad input that leave a fitted model exactly as it was, pickling,
string labels, one class, classes= on the first partial_fit.
"""

import pickle

import numpy as np
import pytest
from estimators import MF_MODELS
from model_state import assert_equal_nested, model_state, same_trees
from samples import classification, data_for, regression

from mondrian import MondrianForestClassifier, MondrianForestRegressor

# -- determinism ------------------------------------------------------------------------------


@pytest.mark.parametrize("Model", MF_MODELS)
@pytest.mark.parametrize("lifetime", [2.0, np.inf, "increasing"])
def test_same_seed_same_model_for_any_n_jobs(Model, lifetime):
    X, y = data_for(Model)
    Q = np.random.default_rng(9).random((50, X.shape[1])) * 1.4 - 0.2
    models = {}
    for n_jobs in (1, 2, -1):
        fitted = Model(n_estimators=8, lifetime=lifetime, random_state=3, n_jobs=n_jobs).fit(X, y)
        online = Model(n_estimators=8, lifetime=lifetime, random_state=3, n_jobs=n_jobs)
        extra = {"classes": np.unique(y)} if Model is MondrianForestClassifier else {}
        for start, stop in [(0, 1), (1, 40), (40, 41), (41, 300)]:
            online.partial_fit(X[start:stop], y[start:stop], **extra)
        progressive = Model(n_estimators=8, lifetime=lifetime, random_state=3, n_jobs=n_jobs)
        if Model is MondrianForestClassifier:
            out = progressive.progressive_predict_proba(X, y)
            pred = [m.predict_proba(Q) for m in (fitted, online, progressive)]
        else:
            out = progressive.progressive_predict(X, y)
            pred = [m.predict(Q) for m in (fitted, online, progressive)]
        models[n_jobs] = (fitted, online, progressive, out, pred)
    ref = models[1]
    for n_jobs in (2, -1):
        other = models[n_jobs]
        for k in range(3):
            same_trees(ref[k], other[k])
        np.testing.assert_array_equal(ref[3], other[3])
        for p0, p1 in zip(ref[4], other[4], strict=True):
            np.testing.assert_array_equal(p0, p1)
    # A different seed gives a different model.
    other_seed = Model(n_estimators=8, lifetime=lifetime, random_state=4).fit(X, y)
    assert not np.array_equal(other_seed.trees_[0].arrays()["threshold"], ref[0].trees_[0].arrays()["threshold"])


@pytest.mark.parametrize("lifetime", [1.0, np.inf, "increasing"])
def test_progressive_predict_proba_is_predict_then_partial_fit(lifetime):
    X, y = classification(n=120, n_classes=4, seed=1)
    classes = np.unique(y)
    model = MondrianForestClassifier(n_estimators=5, lifetime=lifetime, random_state=11, n_jobs=2)
    out = model.progressive_predict_proba(X, y)
    reference = MondrianForestClassifier(n_estimators=5, lifetime=lifetime, random_state=11)
    expected = np.empty_like(out)
    for i in range(X.shape[0]):
        if i == 0:
            expected[0] = 1.0 / len(classes)
        else:
            expected[i] = reference.predict_proba(X[i : i + 1])[0]
        reference.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(model.classes_, classes)
    same_trees(model, reference)
    # Continuing on a fitted model: still predict-then-learn, now starting from the fitted trees.
    X2, y2 = classification(n=60, n_classes=4, seed=2)
    out2 = model.progressive_predict_proba(X2, y2)
    expected2 = np.empty_like(out2)
    for i in range(X2.shape[0]):
        expected2[i] = reference.predict_proba(X2[i : i + 1])[0]
        reference.partial_fit(X2[i : i + 1], y2[i : i + 1])
    np.testing.assert_allclose(out2, expected2, rtol=1e-12, atol=0)
    same_trees(model, reference)


def test_progressive_predict_is_predict_then_partial_fit():
    X, y = regression(n=100, seed=3)
    model = MondrianForestRegressor(n_estimators=4, lifetime=3.0, random_state=5)
    out = model.progressive_predict(X, y)
    reference = MondrianForestRegressor(n_estimators=4, lifetime=3.0, random_state=5)
    expected = np.empty_like(out)
    for i in range(X.shape[0]):
        expected[i] = 0.0 if i == 0 else reference.predict(X[i : i + 1])[0]
        reference.partial_fit(X[i : i + 1], y[i : i + 1])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    same_trees(model, reference)


def test_partial_fit_on_one_point_then_extension_matches_batch_of_one():
    """A first partial_fit with one point gives the same tree as progressive's extension of an empty tree."""
    X, y = classification(n=30, seed=4)
    a = MondrianForestClassifier(n_estimators=3, random_state=2).partial_fit(X[:1], y[:1], classes=[0, 1, 2])
    b = MondrianForestClassifier(n_estimators=3, random_state=2)
    b.progressive_predict_proba(X[:1], y[:1], classes=[0, 1, 2])
    same_trees(a, b)


# -- predictions that follow from the model's definition -------------------------------------


def test_infinite_lifetime_interpolates_distinct_training_points():
    X, y = classification(n=200, seed=5)
    clf = MondrianForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.predict(X), y)
    Xr, yr = regression(n=200, seed=5)
    reg = MondrianForestRegressor(n_estimators=5, random_state=0).fit(Xr, yr)
    np.testing.assert_allclose(reg.predict(Xr), yr, rtol=1e-12)


def test_tiny_lifetime_predicts_the_global_mean():
    X, y = regression(n=100, seed=6)
    reg = MondrianForestRegressor(n_estimators=3, lifetime=1e-12, random_state=0).fit(X, y)
    assert all(t.n_leaves() == 1 for t in reg.trees_)
    np.testing.assert_allclose(reg.predict(X[:5] + 3.0), y.mean(), rtol=1e-12)
    Xc, yc = classification(n=100, seed=6)
    clf = MondrianForestClassifier(n_estimators=3, lifetime=1e-12, random_state=0).fit(Xc, yc)
    np.testing.assert_allclose(clf.predict_proba(Xc[:5]), np.tile(np.bincount(yc) / len(yc), (5, 1)), rtol=1e-12)


def test_string_labels():
    X, y = classification(n=150, seed=7)
    names = np.array(["cat", "dog", "emu"])
    labels = names[y]
    clf = MondrianForestClassifier(n_estimators=4, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, names)
    assert clf.n_classes_ == 3
    np.testing.assert_array_equal(clf.predict(X), labels)
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(names[np.argmax(proba, axis=1)], labels)
    online = MondrianForestClassifier(n_estimators=4, random_state=0)
    online.partial_fit(X[:10], labels[:10], classes=list(names))
    online.partial_fit(X[10:], labels[10:])
    np.testing.assert_array_equal(online.predict(X), labels)
    out = MondrianForestClassifier(n_estimators=2, random_state=0).progressive_predict_proba(X, list(labels))
    np.testing.assert_allclose(out[0], 1 / 3)


def test_single_class():
    X, _ = classification(n=40, seed=8)
    clf = MondrianForestClassifier(n_estimators=3, random_state=0).fit(X, ["only"] * 40)
    np.testing.assert_array_equal(clf.classes_, ["only"])
    np.testing.assert_array_equal(clf.predict_proba(X[:7] * 5), np.ones((7, 1)))
    np.testing.assert_array_equal(clf.predict(X[:7]), ["only"] * 7)
    clf.partial_fit(X[:3] - 1, ["only"] * 3)
    np.testing.assert_array_equal(clf.predict_proba(X[:2] - 1), np.ones((2, 1)))


def test_partial_fit_with_classes_then_batches_with_some_of_them():
    X, y = classification(n=200, n_classes=3, seed=9)
    clf = MondrianForestClassifier(n_estimators=4, lifetime=np.inf, smoothing="empirical", random_state=0)
    first = y < 2
    clf.partial_fit(X[first][:50], y[first][:50], classes=[0, 1, 2, 3])
    np.testing.assert_array_equal(clf.classes_, [0, 1, 2, 3])
    proba = clf.predict_proba(X)
    assert proba.shape == (200, 4)
    assert np.all(proba[:, 2:] == 0.0)
    only_two = y == 2
    clf.partial_fit(X[only_two], y[only_two])
    clf.partial_fit(X[first][50:51], y[first][50:51], classes=[3, 2, 1, 0])  # same set, any order
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(proba[:, 3] == 0.0)
    np.testing.assert_array_equal(clf.predict(X[only_two]), 2)
    # IKN smoothing shares the uniform base measure of the root: a class never seen keeps some mass.
    ikn = MondrianForestClassifier(n_estimators=4, random_state=0).partial_fit(X[first], y[first], classes=[0, 1, 2, 3])
    proba = ikn.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(proba[:, 2:] >= 0.0) and np.all(proba[:, 2:] < 0.1) and proba[:, 2:].max() > 0.0


def test_refit_starts_afresh():
    X, y = classification(n=100, seed=10)
    a = MondrianForestClassifier(n_estimators=3, random_state=1).fit(X[:50], y[:50]).fit(X, y)
    b = MondrianForestClassifier(n_estimators=3, random_state=1).fit(X, y)
    same_trees(a, b)


# -- pickling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("Model", MF_MODELS)
@pytest.mark.parametrize("lifetime", [4.0, "increasing"])
def test_pickle_round_trip_and_continue_learning(Model, lifetime):
    X, y = data_for(Model, n=200, seed=11)
    Q = np.random.default_rng(1).random((40, X.shape[1])) * 2 - 0.5
    model = Model(n_estimators=5, lifetime=lifetime, random_state=2, n_jobs=2)
    model.partial_fit(X[:100], y[:100], **({"classes": np.unique(y)} if Model is MondrianForestClassifier else {}))
    copy_ = pickle.loads(pickle.dumps(model))
    assert copy_.get_params() == model.get_params()
    same_trees(model, copy_)
    predict = "predict_proba" if Model is MondrianForestClassifier else "predict"
    np.testing.assert_array_equal(getattr(copy_, predict)(Q), getattr(model, predict)(Q))
    for m in (model, copy_):
        m.partial_fit(X[100:150], y[100:150])
        m.partial_fit(X[150:], y[150:])
    same_trees(model, copy_)
    np.testing.assert_array_equal(getattr(copy_, predict)(Q), getattr(model, predict)(Q))
    unfitted = pickle.loads(pickle.dumps(Model(n_estimators=3, random_state=1)))
    same_trees(unfitted.fit(X, y), Model(n_estimators=3, random_state=1).fit(X, y))


# -- bad input: clear errors, and the model stays as it was -----------------------------------


def failing_calls(task):
    """(description, call(model), message pattern) for calls that must raise ValueError on a fitted model."""
    X, y = classification(n=20, seed=12) if task == "classification" else regression(n=20, seed=12)
    nan = X.copy()
    nan[3, 1] = np.nan
    inf = X.copy()
    inf[0, 0] = -np.inf
    calls = [
        ("fit NaN", lambda m: m.fit(nan, y), "NaN"),
        ("partial_fit NaN", lambda m: m.partial_fit(nan, y), "NaN"),
        ("partial_fit inf", lambda m: m.partial_fit(inf, y), "infinity"),
        ("predict NaN", lambda m: m.predict(nan), "NaN"),
        ("predict inf", lambda m: m.predict(inf), "infinity"),
        ("partial_fit features", lambda m: m.partial_fit(X[:, :2], y), "features"),
        ("partial_fit more features", lambda m: m.partial_fit(np.hstack([X, X]), y), "features"),
        ("predict features", lambda m: m.predict(X[:, :2]), "features"),
        ("fit empty", lambda m: m.fit(X[:0], y[:0]), "0 sample"),
        ("partial_fit empty", lambda m: m.partial_fit(X[:0], y[:0]), "0 sample"),
        ("predict empty", lambda m: m.predict(X[:0]), "0 sample"),
        ("fit no features", lambda m: m.fit(X[:, :0], y), "0 feature"),
        ("fit 1-D X", lambda m: m.fit(X[:, 0], y), "2D"),
        ("fit y 2-D", lambda m: m.fit(X, np.column_stack([y, y])), "1d"),
        ("partial_fit y 2-D", lambda m: m.partial_fit(X, np.column_stack([y, y])), "1d"),
        ("fit length mismatch", lambda m: m.fit(X, y[:-1]), "inconsistent numbers of samples"),
        (
            "partial_fit length mismatch",
            lambda m: m.partial_fit(X[:5], y[:6]),
            "inconsistent numbers of samples",
        ),
        ("bad n_estimators 0", lambda m: m.set_params(n_estimators=0).fit(X, y), "n_estimators"),
        ("bad n_estimators float", lambda m: m.set_params(n_estimators=2.5).fit(X, y), "n_estimators"),
        (
            "bad n_estimators partial_fit",
            lambda m: m.set_params(n_estimators=-1).partial_fit(X, y),
            "n_estimators",
        ),
        ("bad lifetime 0", lambda m: m.set_params(lifetime=0).fit(X, y), "lifetime"),
        ("bad lifetime nan", lambda m: m.set_params(lifetime=np.nan).fit(X, y), "lifetime"),
        ("bad lifetime str", lambda m: m.set_params(lifetime="long").partial_fit(X, y), "lifetime"),
        ("bad lifetime negative", lambda m: m.set_params(lifetime=-2.0).partial_fit(X, y), "lifetime"),
        ("bad random_state negative", lambda m: m.set_params(random_state=-3).fit(X, y), "random_state"),
        # partial_fit extends the trees it started with: changing their number or lifetime is refused
        ("more trees midway", lambda m: m.set_params(n_estimators=6).partial_fit(X, y), "call fit"),
        ("other lifetime midway", lambda m: m.set_params(lifetime=np.inf).partial_fit(X, y), "call fit"),
        ("increasing midway", lambda m: m.set_params(lifetime="increasing").partial_fit(X, y), "call fit"),
        (
            "other lifetime_scale midway",
            lambda m: m.set_params(lifetime="increasing", lifetime_scale=7.0).partial_fit(X, y),
            "call fit",
        ),
        ("bad lifetime_scale 0", lambda m: m.set_params(lifetime="increasing", lifetime_scale=0).fit(X, y), "scale"),
        (
            "bad lifetime_scale inf",
            lambda m: m.set_params(lifetime="increasing", lifetime_scale=np.inf).partial_fit(X, y),
            "lifetime_scale",
        ),
        ("bad random_state str", lambda m: m.set_params(random_state="seed").fit(X, y), "random_state"),
        # Fails after validating new data of another shape (attributes set by validation must be rolled back).
        (
            "bad random_state new data",
            lambda m: m.set_params(random_state=-1).fit(np.hstack([X, X]), y + 1),
            "random_state",
        ),
    ]
    if task == "classification":
        calls += [
            ("predict_proba NaN", lambda m: m.predict_proba(nan), "NaN"),
            ("predict_proba features", lambda m: m.predict_proba(X[:, :1]), "features"),
            ("new label, bad X", lambda m: m.partial_fit(nan[:4], [0, 1, 7, 7]), "NaN"),
            ("label of another type", lambda m: m.partial_fit(X[:2], ["a", "b"]), "another type"),
            ("continuous new label", lambda m: m.partial_fit(X[:1], np.array([0.5])), "continuous"),
            ("classes differ", lambda m: m.partial_fit(X[:3], y[:3], classes=[0, 1, 2, 5]), "differs"),
            ("classes subset", lambda m: m.partial_fit(X[:3], [0, 0, 0], classes=[0, 1]), "differs"),
            ("continuous y", lambda m: m.fit(X, y + 0.5), "continuous"),
            ("bad vote", lambda m: m.set_params(vote="majority").fit(X, y), "vote"),
            ("bad vote partial_fit", lambda m: m.set_params(vote=None).partial_fit(X, y), "vote"),
            ("progressive NaN", lambda m: m.progressive_predict_proba(nan, y), "NaN"),
            (
                "progressive label of another type",
                lambda m: m.progressive_predict_proba(X[:2], ["a", "b"]),
                "^progressive_predict_proba: .*another type",
            ),
        ]
    else:
        y_nan = y.copy()
        y_nan[2] = np.nan
        calls += [
            ("fit y NaN", lambda m: m.fit(X, y_nan), "NaN"),
            ("partial_fit y NaN", lambda m: m.partial_fit(X, y_nan), "NaN"),
            ("progressive features", lambda m: m.progressive_predict(X[:, :1], y), "features"),
        ]
    return X, y, calls


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("lifetime", [3.0, "increasing"])
def test_failed_calls_raise_value_error_and_leave_the_model_unchanged(task, lifetime):
    X, y, calls = failing_calls(task)
    if lifetime == "increasing":  # going on with an increasing lifetime is allowed there, with another scale not
        calls = [c for c in calls if c[0] != "increasing midway"]
    Model = MondrianForestClassifier if task == "classification" else MondrianForestRegressor
    model = Model(n_estimators=4, lifetime=lifetime, random_state=1).fit(X, y)
    model.partial_fit(X[:7] + 0.5, y[:7])  # the rng streams have moved on from their seeds
    Q = np.random.default_rng(2).random((30, X.shape[1])) * 2 - 0.5
    params = model.get_params()
    before = model_state(model)
    predictions = model.predict(Q)
    for name, call, message in calls:
        with pytest.raises(ValueError, match=message):
            call(model)
        model.set_params(**params)
        assert_equal_nested(model_state(model), before, path=name)
        np.testing.assert_array_equal(model.predict(Q), predictions, err_msg=name)
    # The model still learns normally afterwards, as an untouched copy does.
    twin = Model(n_estimators=4, lifetime=lifetime, random_state=1).fit(X, y)
    twin.partial_fit(X[:7] + 0.5, y[:7])
    for m in (model, twin):
        m.partial_fit(X[7:12] - 0.3, y[7:12])
    same_trees(model, twin)


@pytest.mark.parametrize("Model", MF_MODELS)
def test_failed_first_call_leaves_an_unfitted_model(Model):
    X, y = classification(n=20, seed=13)
    model = Model(random_state=-1)
    classes = {"classes": np.unique(y)} if Model is MondrianForestClassifier else {}
    for call in (lambda: model.partial_fit(X, y, **classes), lambda: model.fit(X, y)):
        with pytest.raises(ValueError, match="random_state"):
            call()
        assert vars(model) == Model(random_state=-1).get_params()
    nan = X.copy()
    nan[0, 0] = np.nan
    model.set_params(random_state=0)
    with pytest.raises(ValueError, match="NaN"):
        model.partial_fit(nan, y, **classes)
    assert set(vars(model)) == set(Model().get_params())
    model.partial_fit(X, y, **classes)
    same_trees(model, Model(random_state=0).partial_fit(X, y, **classes))


@pytest.mark.parametrize("Model", MF_MODELS)
def test_random_state_kinds(Model):
    X, y = classification(n=50, seed=14)
    a = Model(n_estimators=3, random_state=np.random.RandomState(5)).fit(X, y)
    b = Model(n_estimators=3, random_state=np.random.RandomState(5)).fit(X, y)
    same_trees(a, b)
    c = Model(n_estimators=3, random_state=np.random.default_rng(5)).fit(X, y)
    d = Model(n_estimators=3, random_state=np.random.default_rng(5)).fit(X, y)
    same_trees(c, d)
    e = Model(n_estimators=3, random_state=None).fit(X, y)
    f = Model(n_estimators=3, random_state=None).fit(X, y)
    assert not np.array_equal(e.trees_[0].arrays()["split_time"], f.trees_[0].arrays()["split_time"])


def test_predict_before_fit_raises_not_fitted():
    from sklearn.exceptions import NotFittedError

    X, _ = classification(n=5)
    for model in (MondrianForestClassifier(), MondrianForestRegressor()):
        with pytest.raises(NotFittedError):
            model.predict(X)
    with pytest.raises(NotFittedError):
        MondrianForestClassifier().predict_proba(X)


@pytest.mark.parametrize("Model", MF_MODELS)
def test_read_only_inputs_give_the_same_model_and_predictions(Model, tmp_path):
    X, y = classification(n=60, seed=15)
    memmap = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    memmap[:] = X
    read_only = np.load(tmp_path / "X.npy", mmap_mode="r")
    a = Model(n_estimators=3, random_state=0).fit(read_only, y)
    b = Model(n_estimators=3, random_state=0).fit(X, y)
    same_trees(a, b)
    np.testing.assert_array_equal(a.predict(read_only), b.predict(X))
