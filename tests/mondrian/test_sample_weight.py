"""sample_weight in fit and partial_fit, w in learn_one (issue 47).

The leaf-mean trees (MondrianForestClassifier with smoothing="empirical" or vote="hard", MondrianForestRegressor
with prediction="leaf" or "path", a fixed lifetime) weigh rows: a row of integer weight k is, bit for bit, k copies
of it in a row, for the trees (their nodes, splits, times) and the counts; a regressor's label sums are w * y against
y + ... + y, equal within 1e-12 relative (summation order). Every estimator takes weights of 0 and 1: ones are the
unweighted model bit for bit, zeros drop their rows bit for bit. The others learn a whole weight k as k copies of
the row (bit for bit repeated rows, by construction) and refuse a fractional weight in a ValueError saying why
(IKN's customers, the increasing lifetime's point counts, BSP: ``weights_refused``). ORF multiplies each row's
Poisson counts by its weight. AMF weighs a row as river does: one learning
step whose loss counts w times in the aggregation weights, so only its trees and counts are repeated rows'.
"""

import pickle

import numpy as np
import pytest
from estimators import ONLINE, is_classifier
from model_state import assert_equal_nested, used_tree_state

from mondrian import (
    AMFClassifier,
    MondrianForestClassifier,
    MondrianForestRegressor,
    MondrianPartitionForestClassifier,
    MondrianPartitionForestRegressor,
)

WEIGHTED = {
    "mf-clf-empirical": lambda: MondrianForestClassifier(n_estimators=3, smoothing="empirical", random_state=0),
    "mf-reg": ONLINE["mf-reg"],
    "mf-reg-path": ONLINE["mf-reg-path"],
}
REFUSING = ["mf-clf", "mf-clf-increasing", "mf-reg-increasing-path", "bsp-clf", "bsp-reg"]
ORF = ["orf-clf", "orf-clf-reference"]
AMF = ["amf-clf", "amf-reg"]


def _data(classifier: bool, n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int) if classifier else X @ np.array([1.5, -2.0, 0.7])
    return X, y


def _prediction(model, X):
    return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)


def _trees(model):
    """Each tree's statistics, and the rest of what defines it (nodes, root, lifetime, random stream)."""
    out = []
    for tree in model.trees_:
        nodes, root, stats, lifetime, rng, _ = used_tree_state(tree)
        out.append(((nodes, root, lifetime, rng), stats))
    return out


def _same_trees(a, b, rtol=0.0):
    """Same trees and random streams and counts (column 0) bit for bit; the other statistics within rtol."""
    for (tree_a, stats_a), (tree_b, stats_b) in zip(_trees(a), _trees(b), strict=True):
        assert_equal_nested(tree_a, tree_b)
        np.testing.assert_array_equal(stats_a[:, 0], stats_b[:, 0])
        np.testing.assert_allclose(stats_a, stats_b, rtol=rtol, atol=0.0)


@pytest.mark.parametrize("name", WEIGHTED)
def test_integer_weights_are_repeated_rows(name):
    """fit then partial_fit (batch sampling, then online extension): a weight k is k copies of the row in a row.
    Label sums w * y may differ from y + ... + y by rounding (1e-12 relative), the rest is bit for bit."""
    X, y = _data("clf" in name)
    w = np.random.default_rng(1).integers(0, 4, X.shape[0])
    w[0] = 1  # (the first row starts the trees)
    weighted = WEIGHTED[name]().fit(X[:30], y[:30], sample_weight=w[:30])
    weighted.partial_fit(X[30:], y[30:], sample_weight=w[30:])
    repeated = WEIGHTED[name]().fit(np.repeat(X[:30], w[:30], 0), np.repeat(y[:30], w[:30]))
    repeated.partial_fit(np.repeat(X[30:], w[30:], 0), np.repeat(y[30:], w[30:]))
    _same_trees(weighted, repeated, rtol=0.0 if "clf" in name else 1e-12)
    np.testing.assert_allclose(_prediction(weighted, X), _prediction(repeated, X), rtol=1e-12)


@pytest.mark.parametrize("name", WEIGHTED)
def test_fractional_weights_scale_the_statistics(name):
    """A weight multiplies a row's count and label sum: halving every weight halves every statistic."""
    X, y = _data("clf" in name)
    w = np.random.default_rng(2).random(X.shape[0]) + 0.5
    full = WEIGHTED[name]().fit(X, y, sample_weight=w)
    half = WEIGHTED[name]().fit(X, y, sample_weight=w / 2)
    for (_, stats_full), (_, stats_half) in zip(_trees(full), _trees(half), strict=True):
        np.testing.assert_allclose(stats_half, stats_full / 2, rtol=1e-12)
    np.testing.assert_allclose(_prediction(full, X), _prediction(half, X), rtol=1e-12)


@pytest.mark.parametrize("name", AMF)
def test_amf_integer_weights_grow_the_trees_of_repeated_rows(name):
    """AMF learns online: a row of weight k is one step, its loss charged k times before it is learnt, where k copies
    are k steps, each charged after learning the copies before. The trees, their random streams and the counts are
    the repeated rows' bit for bit (a copy lands in its own leaf's box: no split, no draw), the label sums within
    1e-12 (w * y against y + ... + y); the aggregation weights differ."""
    X, y = _data(is_classifier(name))
    w = np.random.default_rng(1).integers(0, 4, X.shape[0])
    w[0] = 1
    weighted = ONLINE[name]().fit(X, y, sample_weight=w)
    repeated = ONLINE[name]().fit(np.repeat(X, w, 0), np.repeat(y, w))
    m = weighted.trees_[0].stats.shape[1] - 2  # the columns before log w and log wbar
    for (tree_a, stats_a), (tree_b, stats_b) in zip(_trees(weighted), _trees(repeated), strict=True):
        assert_equal_nested(tree_a, tree_b)
        np.testing.assert_array_equal(stats_a[:, 0], stats_b[:, 0])
        np.testing.assert_allclose(stats_a[:, :m], stats_b[:, :m], rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("name", AMF)
def test_amf_weight_multiplies_the_loss(name):
    """A first row of weight w, the root of every tree: its count and label sum are w times the unweighted row's, and
    so is its log w, -step * w * loss of the empty forecaster (uniform over the classes, or 0 for a label y: y^2)."""
    X, y = _data(is_classifier(name))
    make = (lambda: ONLINE[name]().set_params(classes=[0, 1])) if is_classifier(name) else ONLINE[name]
    one, tripled = make().fit(X[:1], y[:1]), make().fit(X[:1], y[:1], sample_weight=[3.0])
    for a, b in zip(one.trees_, tripled.trees_, strict=True):
        assert a.n_nodes == b.n_nodes == 1
        np.testing.assert_allclose(b.stats[0, :-1], 3 * a.stats[0, :-1], rtol=1e-6)
    if not is_classifier(name):  # (the classifier's default weighting does not charge a new leaf)
        assert one.trees_[0].stats[0, -2] < 0.0


@pytest.mark.parametrize("name", ORF)
def test_orf_weight_multiplies_the_poisson_counts(name):
    """Online bagging draws each row's k ~ Poisson(1) whatever its weight w and learns it as k updates of weight w
    (or one of weight k * w): in trees that never split (the same draws), doubling every weight doubles the counts.
    A whole weight k is not k copies, each of which draws its own count."""
    X, y = _data(True)
    make = lambda: ONLINE[name]().set_params(min_samples_split=10**6)  # noqa: E731
    one = make().fit(X, y)
    two = make().fit(X, y, sample_weight=np.full(X.shape[0], 2.0))
    for a, b in zip(one.trees_, two.trees_, strict=True):
        assert a.n_nodes == b.n_nodes == 1
        np.testing.assert_array_equal(b.stats.counts[:1], 2 * a.stats.counts[:1])


@pytest.mark.parametrize("name", [*WEIGHTED, *AMF, *ORF, *REFUSING])
def test_ones_are_no_weights(name):
    make = {**ONLINE, **WEIGHTED}[name]
    X, y = _data(is_classifier(name))
    plain = make().fit(X[:40], y[:40]).partial_fit(X[40:], y[40:])
    ones = make().fit(X[:40], y[:40], sample_weight=np.ones(40)).partial_fit(X[40:], y[40:], sample_weight=[1] * 20)
    np.testing.assert_array_equal(_prediction(plain, X), _prediction(ones, X))


@pytest.mark.parametrize("name", [*WEIGHTED, *AMF, *ORF, *REFUSING])
def test_zero_weights_drop_their_rows(name):
    make = {**ONLINE, **WEIGHTED}[name]
    X, y = _data(is_classifier(name))
    w = (np.arange(X.shape[0]) % 3 != 1).astype(float)
    removed = make().fit(X[:40][w[:40] > 0], y[:40][w[:40] > 0]).partial_fit(X[40:][w[40:] > 0], y[40:][w[40:] > 0])
    zeros = make().fit(X[:40], y[:40], sample_weight=w[:40]).partial_fit(X[40:], y[40:], sample_weight=w[40:])
    np.testing.assert_array_equal(_prediction(removed, X), _prediction(zeros, X))


@pytest.mark.parametrize("name", REFUSING)
def test_whole_weights_are_copies_where_the_trees_cannot_weigh(name):
    """Trees that cannot weigh a row learn a weight k as k copies of it in a row, bit for bit, and refuse a
    fractional weight, the model unchanged."""
    X, y = _data(is_classifier(name))
    w = np.random.default_rng(1).integers(0, 4, X.shape[0])
    w[0] = 1
    weighted = (
        ONLINE[name]().fit(X[:30], y[:30], sample_weight=w[:30]).partial_fit(X[30:], y[30:], sample_weight=w[30:])
    )
    repeated = ONLINE[name]().fit(np.repeat(X[:30], w[:30], 0), np.repeat(y[:30], w[:30]))
    repeated.partial_fit(np.repeat(X[30:], w[30:], 0), np.repeat(y[30:], w[30:]))
    before = _prediction(weighted, X)
    np.testing.assert_array_equal(before, _prediction(repeated, X))
    with pytest.raises(ValueError, match="takes whole sample weights only"):
        weighted.partial_fit(X, y, sample_weight=np.full(X.shape[0], 2.5))
    np.testing.assert_array_equal(_prediction(weighted, X), before)


@pytest.mark.parametrize(
    "weights, message",
    [(-1.0, "Negative"), (np.nan, "NaN"), (np.inf, "infinity"), ("short", "sample_weight.shape")],
)
@pytest.mark.parametrize("name", ["mf-reg", "amf-clf"])
def test_invalid_weights_leave_the_model_unchanged(name, weights, message):
    X, y = _data(is_classifier(name))
    model = ONLINE[name]().fit(X, y)
    before = _prediction(model, X)
    bad = np.ones(X.shape[0] - 1) if weights == "short" else np.r_[np.ones(X.shape[0] - 1), weights]
    with pytest.raises(ValueError, match=message):
        model.partial_fit(X, y, sample_weight=bad)
    with pytest.raises(ValueError, match=message):
        ONLINE[name]().fit(X, y, sample_weight=bad)
    np.testing.assert_array_equal(_prediction(model, X), before)


def test_all_zero_weights_start_nothing():
    X, y = _data(False)
    with pytest.raises(ValueError, match="at least one non-zero"):
        MondrianForestRegressor(random_state=0).fit(X, y, sample_weight=np.zeros(X.shape[0]))
    model = MondrianForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    before = model.predict(X)
    model.partial_fit(X, y, sample_weight=np.zeros(X.shape[0]))  # a fitted model learns nothing from them
    np.testing.assert_array_equal(model.predict(X), before)


def test_weights_are_copied_not_changed():
    X, y = _data(False)
    w = np.linspace(0.0, 2.0, X.shape[0])
    kept = w.copy()
    MondrianForestRegressor(n_estimators=3, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(w, kept)


@pytest.mark.parametrize("w", [0.0, 1.0, 2.5])
@pytest.mark.parametrize("name", ["mf-clf-empirical", "mf-reg", *AMF, "orf-clf"])
def test_learn_one_weight_is_partial_fit_of_one_row(name, w):
    X, y = _data("clf" in name)
    make = {**ONLINE, **WEIGHTED}[name]
    one = make().fit(X[:30], y[:30])
    batch = make().fit(X[:30], y[:30])
    for i in range(30, 40):
        one.learn_one(X[i], y[i], w)
        batch.partial_fit(X[i : i + 1], y[i : i + 1], sample_weight=[w])
    if name not in ORF:  # (whose statistics are not the leaf-mean rows: its predictions say it)
        _same_trees(one, batch)
    np.testing.assert_array_equal(_prediction(one, X), _prediction(batch, X))


def test_learn_one_refuses_a_weight_bsp_cannot_weigh():
    X, y = _data(False)
    model = ONLINE["bsp-reg"]().fit(X, y)
    before = model.predict(X)
    with pytest.raises(ValueError, match="takes whole sample weights only"):
        model.learn_one(X[0], y[0], 2.5)
    model.learn_one(X[0], y[0], 0.0)  # learns nothing
    np.testing.assert_array_equal(model.predict(X), before)


PARTITION = [MondrianPartitionForestClassifier, MondrianPartitionForestRegressor]


@pytest.mark.parametrize("model", PARTITION)
def test_partition_integer_weights_are_repeated_rows(model):
    """The partition is drawn where the data lie, independently of the rows' order or number: a weight k gives the
    trees of k copies bit for bit, and counts k times (label sums within 1e-12); zero weights drop their rows."""
    X, y = _data(model is MondrianPartitionForestClassifier)
    w = np.random.default_rng(1).integers(0, 4, X.shape[0])
    weighted = model(n_estimators=3, random_state=0).fit(X, y, sample_weight=w)
    repeated = model(n_estimators=3, random_state=0).fit(np.repeat(X, w, 0), np.repeat(y, w))
    _same_trees(weighted, repeated, rtol=1e-12)
    np.testing.assert_allclose(_prediction(weighted, X), _prediction(repeated, X), rtol=1e-12)
    ones = model(n_estimators=3, random_state=0).fit(X, y, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_array_equal(_prediction(ones, X), _prediction(model(n_estimators=3, random_state=0).fit(X, y), X))


def test_partition_adaptive_lifetime_takes_whole_weights_only():
    X, y = _data(False)
    model = MondrianPartitionForestRegressor(lifetime="adaptive", random_state=0)
    with pytest.raises(ValueError, match="two halves"):
        model.fit(X, y, sample_weight=np.full(X.shape[0], 0.5))
    assert not hasattr(model, "trees_")


@pytest.mark.parametrize("w", [-1.0, float("nan"), float("inf")])
def test_learn_one_refuses_a_bad_w_in_its_own_words(w):
    model = AMFClassifier(n_estimators=2, random_state=0).partial_fit(np.eye(2), [0, 1])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=r"^learn_one: w must be a finite non-negative number"):
        model.learn_one(np.ones(2) / 2, 1, w=w)
    assert pickle.dumps(model) == before
