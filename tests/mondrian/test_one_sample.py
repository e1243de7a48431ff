"""One sample at a time (river's convention): learn_one / predict_proba_one / predict_one give what partial_fit and
predict_proba give on a one-row array, bit for bit; a one-row partial_fit takes the same compiled path; dict
samples follow the first dict's features; classes are known up front; failing calls change nothing."""

import copy
import pickle
from collections import defaultdict

import numpy as np
import pytest
from estimators import AMF_MODELS
from sklearn.datasets import load_iris

from mondrian import (
    AMFClassifier,
    AMFRegressor,
    MondrianForestClassifier,
    MondrianForestRegressor,
    OnlineBSPForestClassifier,
    OnlineRandomForestClassifier,
)
from tests.mondrian.model_state import assert_equal_nested, model_state

CLASSIFIERS = [
    AMFClassifier,
    MondrianForestClassifier,
    OnlineBSPForestClassifier,
    OnlineRandomForestClassifier,
]


def _stream(n=150, seed=0):
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(y))[:n]
    return (X[order] - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0)), y[order]


def _one_by_one(model, X, y, dicts=False):
    """Predict each sample, then learn it, through the one-sample API; the probabilities (classifiers) or
    predictions (regressors) before each sample."""
    names = ["a", "b", "c", "d"]
    out = []
    for row, label in zip(X, y.tolist(), strict=True):
        x = dict(zip(names, row.tolist(), strict=True)) if dicts else row
        if hasattr(model, "predict_proba_one"):
            proba = model.predict_proba_one(x)
            out.append([proba[k] for k in sorted(proba)])
        else:
            out.append(model.predict_one(x))
        model.learn_one(x, label)
    return np.array(out)


def _row_by_row(model, X, y, classes=None):
    """The same through predict_proba / predict and partial_fit on one-row arrays."""
    out = []
    for i in range(len(y)):
        if i == 0:
            out.append(np.full(len(classes), 1 / len(classes)) if classes is not None else 0.0)
            model.partial_fit(X[:1], y[:1], **({} if classes is None else {"classes": classes}))
            continue
        out.append(model.predict_proba(X[i : i + 1])[0] if classes is not None else model.predict(X[i : i + 1])[0])
        model.partial_fit(X[i : i + 1], y[i : i + 1])
    return np.array(out)


@pytest.mark.parametrize("Model", CLASSIFIERS)
def test_classifier_one_sample_is_partial_fit_on_one_row(Model):
    X, y = _stream(60 if Model is OnlineBSPForestClassifier else 150)
    one = Model(n_estimators=3, random_state=0, classes=[0, 1, 2])
    rows = Model(n_estimators=3, random_state=0)
    np.testing.assert_array_equal(_one_by_one(one, X, y), _row_by_row(rows, X, y, classes=[0, 1, 2]))
    np.testing.assert_array_equal(one.predict_proba(X), rows.predict_proba(X))


@pytest.mark.parametrize("Model", [AMFRegressor, MondrianForestRegressor])
def test_regressor_one_sample_is_partial_fit_on_one_row(Model):
    X, _ = _stream()
    y = X[:, 0] - 2 * X[:, 2]
    one, rows = Model(n_estimators=3, random_state=0), Model(n_estimators=3, random_state=0)
    np.testing.assert_array_equal(_one_by_one(one, X, y), _row_by_row(rows, X, y))
    np.testing.assert_array_equal(one.predict(X), rows.predict(X))


def test_amf_one_sample_gives_the_progressive_predictions_and_the_batch_model():
    """The compiled one-sample path learns as the batch kernel does (same trees, same random draws); its
    predictions are the progressive ones (which add the trees in another order: equal up to rounding)."""
    X, y = _stream()
    one = AMFClassifier(n_estimators=5, random_state=3, classes=[0, 1, 2])
    proba = _one_by_one(one, X, y)
    batch = AMFClassifier(n_estimators=5, random_state=3)
    progressive = batch.progressive_predict_proba(X, y, classes=[0, 1, 2])
    np.testing.assert_allclose(proba, progressive, rtol=0, atol=1e-12)
    for a, b in zip(one.trees_, batch.trees_, strict=True):
        np.testing.assert_array_equal(a.arrays()["threshold"], b.arrays()["threshold"])
        np.testing.assert_array_equal(a.stats[: a.n_nodes], b.stats[: b.n_nodes])
    np.testing.assert_array_equal(one.predict_proba(X), batch.predict_proba(X))


def test_amf_one_row_partial_fit_takes_the_compiled_path():
    X, y = _stream()
    model = AMFClassifier(n_estimators=2, random_state=0).partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    model.partial_fit(X[5:6], y[5:6])
    assert "_typed_trees" in vars(model)  # the one-sample kernels' lists over the trees were made
    model.partial_fit(X[6:9], y[6:9])
    assert "_typed_trees" not in vars(model)  # a batch may grow the trees: the lists are made again when needed


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")  # predict_proba on arrays, below
def test_dict_samples_follow_the_first_dicts_features_in_any_order():
    X, y = _stream()
    names = ["a", "b", "c", "d"]
    ordered = AMFClassifier(n_estimators=3, random_state=0, classes=[0, 1, 2])
    shuffled = AMFClassifier(n_estimators=3, random_state=0, classes=[0, 1, 2])
    for i, (row, label) in enumerate(zip(X.tolist(), y.tolist(), strict=True)):
        ordered.learn_one(dict(zip(names, row, strict=True)), label)
        keys = names if i == 0 else names[::-1]  # later dicts may list the features in another order
        shuffled.learn_one({k: row[names.index(k)] for k in keys}, label)
    np.testing.assert_array_equal(ordered.predict_proba(X), shuffled.predict_proba(X))
    assert list(ordered.feature_names_in_) == names
    x = dict(zip(names, X[0].tolist(), strict=True))
    assert ordered.predict_proba_one(x) == dict(enumerate(ordered.predict_proba(X[:1])[0].tolist()))
    assert ordered.predict_one(x) == ordered.predict(X[:1])[0]


def test_dict_samples_with_integer_keys_set_no_feature_names():
    X, y = _stream(20)
    model = AMFRegressor(n_estimators=2, random_state=0)
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        model.learn_one(dict(enumerate(row)), label)
    assert not hasattr(model, "feature_names_in_")
    assert model.predict_one(dict(enumerate(X[0].tolist()))) == model.predict(X[:1])[0]


def test_a_one_feature_dict_sample_is_its_value():
    X, y = _stream(20)
    by_dict, by_array = AMFRegressor(n_estimators=2, random_state=0), AMFRegressor(n_estimators=2, random_state=0)
    for value, label in zip(X[:, 0].tolist(), y.tolist(), strict=True):
        by_dict.learn_one({"a": value}, label)
        by_array.learn_one(np.array([value]), label)
    assert by_dict.predict_one({"a": X[0, 0]}) == by_array.predict_one(X[:1, 0]) == by_array.predict(X[:1, :1])[0]


@pytest.mark.parametrize(
    ("x", "message"),
    [
        ({"a": 0.1, "b": 0.2, "c": 0.3}, r"missing \['d'\]"),
        ({"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4, "e": 0.5}, r"not learnt \['e'\]"),
        ({"a": 0.1, "b": 0.2, "c": 0.3, "e": 0.5}, r"missing \['d'\]; not learnt \['e'\]"),
        # a defaultdict would make up the missing feature: it is refused as a dict is
        (defaultdict(float, {"a": 0.1, "b": 0.2, "c": 0.3, "e": 0.5}), r"missing \['d'\]; not learnt \['e'\]"),
        ({"a": 0.1, "b": 0.2, "c": 0.3, "d": "x"}, "must hold numbers"),
        ({"a": 0.1, "b": 0.2, "c": 0.3, "d": 10**400}, "must hold numbers: int too large"),
        ({"a": 0.1, "b": 0.2, "c": 0.3, "d": np.nan}, "NaN"),
        ([0.1, 0.2, 0.3], "x has 3 features, but the model is expecting 4"),
        ([[0.1, 0.2, 0.3, 0.4]], "must be one sample"),
    ],
)
@pytest.mark.parametrize("Model", [AMFClassifier, MondrianForestClassifier])
def test_bad_samples_raise_and_change_nothing(Model, x, message):
    X, y = _stream(30)
    names = ["a", "b", "c", "d"]
    model = Model(n_estimators=2, random_state=0, classes=[0, 1, 2])
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        model.learn_one(dict(zip(names, row, strict=True)), label)
    before = model_state(model)
    with pytest.raises(ValueError, match=message):
        model.learn_one(x, 0)
    assert_equal_nested(model_state(model), before)
    if message != "NaN":  # predict_proba_one takes what learn_one takes, NaN aside (predict's error, below)
        with pytest.raises(ValueError, match=message):
            model.predict_proba_one(x)
    assert_equal_nested(model_state(model), before)


@pytest.mark.parametrize("Model", [AMFClassifier, AMFRegressor, MondrianForestClassifier])
def test_refused_samples_change_nothing(Model):
    """Unknown labels, non-finite values, and a box too wide for the trees' precision are refused by the
    compiled path and then by partial_fit's validation, with its usual errors; nothing is learnt."""
    X, y = _stream(40)
    classifier = Model is not AMFRegressor
    model = Model(n_estimators=2, random_state=0, **({"classes": [0, 1, 2]} if classifier else {}))
    for row, label in zip(X, y.tolist(), strict=True):
        model.learn_one(row, label)
    before = model_state(model)
    bad = [(X[0], 7)] if classifier else [(X[0], np.nan), (X[0], "a")]
    bad += [(np.array([0.1, np.inf, 0.2, 0.3]), 0), (np.array([0.1, 1e300 * 1e300, 0.2, 0.3]), 0)]
    for x, label in bad:
        with pytest.raises(ValueError):
            model.learn_one(x, label)
        with pytest.raises(ValueError):
            model.partial_fit(x[None], np.array([label]))
        assert_equal_nested(model_state(model), before)


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_a_value_beyond_single_precision_is_refused_as_partial_fit_refuses_it(Model):
    """AMF's trees hold single precision and its one-sample kernels cast the double-precision sample themselves: a
    value finite as a double but not as a float is refused by every one-sample call with the error of partial_fit
    and predict on that row; nothing is learnt."""
    X, y = _stream(40)
    model = Model(n_estimators=2, random_state=0, **({"classes": [0, 1, 2]} if Model is AMFClassifier else {}))
    for row, label in zip(X, y.tolist(), strict=True):
        model.learn_one(row, label)
    before = model_state(model)
    x = np.array([0.1, 1e39, 0.2, 0.3])
    predict = model.predict_proba_one if Model is AMFClassifier else model.predict_one
    for call in (
        lambda: model.learn_one(x, 0),
        lambda: model.partial_fit(x[None], np.array([0])),
        lambda: predict(x),
        lambda: model.predict(x[None]),
    ):
        with pytest.raises(ValueError, match="too large for dtype"):
            call()
        assert_equal_nested(model_state(model), before)


@pytest.mark.parametrize("Model", [AMFClassifier, MondrianForestClassifier])
def test_a_sample_widening_the_box_past_the_largest_float_is_refused(Model):
    X, y = _stream(40)
    largest = float(np.finfo(np.float32 if Model is AMFClassifier else np.float64).max)
    X = X * (largest / 8)  # the four sides sum to a finite float; one more point can widen one past the largest
    model = Model(n_estimators=2, random_state=0, classes=[0, 1, 2])
    for row, label in zip(X, y.tolist(), strict=True):
        model.learn_one(row, label)
    before = model_state(model)
    x = np.array([0.0, -0.95 * largest, 0.0, 0.0])
    with pytest.raises(ValueError, match="too wide a box"):
        model.learn_one(x, 0)
    assert_equal_nested(model_state(model), before)


def test_classes_are_learnt_as_they_come_unless_given_up_front():
    X, _ = _stream(10)
    model = AMFClassifier(n_estimators=2, random_state=0)
    assert model.predict_proba_one(X[0]) == {}  # river's "no prediction yet"
    assert model.predict_one(X[0]) is None
    model.learn_one(X[0], 1)
    assert list(model.classes_) == [1] and model.predict_proba_one(X[0]) == {1: 1.0}
    model.learn_one(X[1], 0)
    assert list(model.classes_) == [1, 0]  # in order of arrival
    model = AMFClassifier(n_estimators=2, random_state=0, classes=["b", "a", "c"])
    assert model.predict_proba_one(X[0]) == {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}
    assert model.predict_one(X[0]) == "a"
    model.learn_one(X[0], "c")
    assert list(model.classes_) == ["a", "b", "c"]
    with pytest.raises(ValueError, match=r"^learn_one: y contains labels not in classes_"):
        model.learn_one(X[1], "d")


def test_regressor_predicts_zero_before_any_sample():
    assert AMFRegressor().predict_one([0.1, 0.2]) == 0.0
    assert MondrianForestRegressor().predict_one({"a": 0.1}) == 0.0


def test_constructor_classes_name_every_label_for_fit_and_partial_fit():
    X, y = _stream(30)
    fitted = AMFClassifier(n_estimators=2, random_state=0, classes=[0, 1, 2, 3]).fit(X[y < 2], y[y < 2])
    assert list(fitted.classes_) == [0, 1, 2, 3]
    assert fitted.predict_proba(X[:2]).shape == (2, 4)
    with pytest.raises(ValueError, match="differs from the estimator's classes"):
        AMFClassifier(classes=[0, 1, 2]).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="labels not in classes_"):
        AMFClassifier(classes=[0, 1]).fit(X, y)


def test_parameters_set_between_samples_are_validated_and_taken_as_partial_fit_takes_them():
    X, y = _stream()
    one = AMFClassifier(n_estimators=2, random_state=0, classes=[0, 1, 2])
    rows = AMFClassifier(n_estimators=2, random_state=0, classes=[0, 1, 2])
    for i, (row, label) in enumerate(zip(X, y.tolist(), strict=True)):
        if i == 50:
            for model in (one, rows):
                model.set_params(step=3.0, use_aggregation=False)
        if i == 60:
            one.set_params(dirichlet=-1.0)
            before = model_state(one)
            with pytest.raises(ValueError, match="dirichlet"):
                one.learn_one(row, label)
            assert_equal_nested(model_state(one), before)
            one.set_params(dirichlet=0.5)
        one.learn_one(row, label)
        rows.partial_fit(X[i : i + 1], y[i : i + 1])
        assert list(one.predict_proba_one(row).values()) == rows.predict_proba(X[i : i + 1])[0].tolist()
    np.testing.assert_array_equal(one.predict_proba(X), rows.predict_proba(X))


def test_pickled_mid_stream_continues_the_same():
    X, y = _stream()
    whole = AMFClassifier(n_estimators=3, random_state=0, classes=[0, 1, 2])
    _one_by_one(whole, X, y)
    first = AMFClassifier(n_estimators=3, random_state=0, classes=[0, 1, 2])
    _one_by_one(first, X[:70], y[:70])
    restored = pickle.loads(pickle.dumps(first))
    assert "_typed_trees" not in vars(restored)
    copied = copy.deepcopy(first)
    for model in (restored, copied, first):
        _one_by_one(model, X[70:], y[70:])
        np.testing.assert_array_equal(model.predict_proba(X), whole.predict_proba(X))


def test_river_reads_supervised():
    """river's evaluate functions read ``_supervised`` (its Estimator's property) of the model they are given."""
    assert AMFClassifier()._supervised is True
