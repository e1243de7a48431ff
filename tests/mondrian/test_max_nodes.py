"""``max_nodes``: a bound on the nodes of each tree of the online forests (AMF, the Mondrian forests whose trees keep
no points), so that an endless stream takes bounded memory. A full tree stops splitting: each later point grows the
boxes on its path and joins the leaf it reaches, whose statistics keep learning."""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import is_classifier
from sklearn.utils._param_validation import InvalidParameterError

from mondrian import AMFClassifier, AMFRegressor, MondrianForestClassifier, MondrianForestRegressor
from mondrian._nodes import capacity
from mondrian._points import points_of
from tests.mondrian.model_state import assert_equal_nested, same_trees, single, used_tree_state
from tests.mondrian.test_mondrian_tree_invariants import check_restricted_tree

# The forests max_nodes bounds, as constructors of a small forest: the Mondrian forests with a fixed lifetime (IKN
# with and without paused blocks, whose trees keep their points; the leaf and path means), and AMF.
BOUNDED = {
    "mf-clf-paused": lambda **p: MondrianForestClassifier(**p),
    "amf-clf": lambda **p: AMFClassifier(**p),
    "amf-reg": lambda **p: AMFRegressor(**p),
    "mf-clf-ikn": lambda **p: MondrianForestClassifier(pausing=False, **p),
    "mf-clf-leaf": lambda **p: MondrianForestClassifier(smoothing="empirical", **p),
    "mf-reg": lambda **p: MondrianForestRegressor(**p),
    "mf-reg-path": lambda **p: MondrianForestRegressor(prediction="path", **p),
}
CLASSES = [0, 1]


def make(name, **params):
    return BOUNDED[name](**{"n_estimators": 3, "random_state": 0, **params})


def stream(n, d=3, seed=0):
    """A simple stream: uniform points in [0, 1]^d, in single precision (AMF's), labelled by x0 + x1 > 1."""
    X = single(np.random.default_rng(seed).uniform(size=(n, d)))
    return X, (X[:, 0] + X[:, 1] > 1.0).astype(int)


def partial_fit(model, X, y, block):
    """Learn (X, y) in blocks of ``block`` rows."""
    extra = {"classes": CLASSES} if is_classifier(model) else {}
    for start in range(0, X.shape[0], block):
        model.partial_fit(X[start : start + block], y[start : start + block], **extra)
    return model


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(BOUNDED)),
    n=st.integers(1, 300),
    d=st.integers(2, 4),
    max_nodes=st.integers(3, 80),
    block=st.integers(1, 400),
    seed=st.integers(0, 2**16),
)
def test_a_tree_never_exceeds_max_nodes_nor_reserves_beyond_it(name, n, d, max_nodes, block, seed):
    X, y = stream(n, d, seed)
    model = partial_fit(make(name, max_nodes=max_nodes), X, y, block)
    for tree in model.trees_:
        assert tree.n_nodes <= max_nodes
        assert capacity(tree.nodes) <= max_nodes and tree.stats.shape[0] <= max_nodes
        assert tree.n_nodes % 2 == 1  # a root and 2 nodes per split: an even bound holds one node less
        if tree.first_point is not None:  # paused blocks: the points kept are bounded too (arrays: at most twice, or
            # the 16 rows they start with)
            assert tree.first_point.shape[0] <= max_nodes and tree.next_point.shape[0] <= max(2 * max_nodes, 16)
    if hasattr(model, "points_"):
        assert model.points_.n == min(n, max_nodes) and model.points_.X.shape[0] <= max(2 * max_nodes, 16)


@settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["mf-clf-leaf", "mf-reg"]),
    n=st.integers(1, 200),
    max_nodes=st.integers(3, 40),
    block=st.integers(1, 300),
    seed=st.integers(0, 2**16),
)
def test_a_full_tree_is_a_restricted_tree_whose_leaves_hold_many_points(name, n, max_nodes, block, seed):
    """The leaf mean's trees keep every invariant of a restricted tree (boxes are the ranges of the points routed
    through them, leaves count exactly their points), their leaves holding several distinct points once full (read
    below the largest float lifetime, which skips the check that an infinite lifetime leaves one point per leaf)."""
    X, y = stream(n, 2, seed)
    model = partial_fit(make(name, max_nodes=max_nodes), X, y, block)
    for tree in model.trees_:
        check_restricted_tree(tree, X, y.astype(float), "clf" in name, np.finfo(np.float64).max)


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_until_the_bound_is_reached_the_model_is_the_unbounded_one_bit_for_bit(name):
    """Point by point, each tree is the tree learnt without max_nodes until the unbounded one holds more nodes. With
    paused blocks, until a leaf's new sampling may need more room than is left (2 nodes per point it holds, 4 p - 1
    nodes at worst after p points): a bounded tree then samples it again only if that worst case fits."""
    X, y = stream(300)
    max_nodes = 21
    free, bounded = make(name), make(name, max_nodes=max_nodes)
    reached = [False] * 3
    for i in range(X.shape[0]):
        partial_fit(free, X[i : i + 1], y[i : i + 1], 1)
        partial_fit(bounded, X[i : i + 1], y[i : i + 1], 1)
        for t, (a, b) in enumerate(zip(free.trees_, bounded.trees_, strict=True)):
            reached[t] |= a.n_nodes > max_nodes or (name == "mf-clf-paused" and 4 * (i + 1) - 1 > max_nodes)
            if not reached[t]:
                assert_equal_nested(used_tree_state(a), used_tree_state(b))
    assert all(reached)


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_a_bound_never_reached_changes_nothing(name):
    """fit and a progressive loop with a bound the trees never reach: the model without it, bit for bit."""
    X, y = stream(200)
    free, bounded = make(name).fit(X, y), make(name, max_nodes=401).fit(X, y)
    same_trees(free, bounded)
    np.testing.assert_array_equal(free.predict(X), bounded.predict(X))


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_full_trees_keep_learning(name):
    """Past the bound, the leaves' statistics keep learning: predictions change with the data and stay sensible."""
    X, y = stream(4000)
    model = partial_fit(make(name, max_nodes=31), X[:2000], y[:2000], 500)
    assert all(tree.n_nodes == 31 for tree in model.trees_)
    before = model.predict(X[2000:])
    partial_fit(model, X[2000:], 1 - y[2000:], 500)  # the labels flipped: the leaves' statistics follow
    assert all(tree.n_nodes == 31 for tree in model.trees_)
    assert not np.array_equal(model.predict(X[2000:]), before)
    fresh = partial_fit(make(name, max_nodes=31), X[:2000], y[:2000], 500)
    partial_fit(fresh, X[2000:], y[2000:], 500)
    score = fresh.score(X, y)
    assert score > (0.8 if "clf" in name else 0.3), score


@pytest.mark.parametrize("name", ["mf-clf-leaf", "mf-reg"])
def test_full_leaves_count_every_point(name):
    X, y = stream(3000)
    model = partial_fit(make(name, max_nodes=15), X, y, 700)
    for tree in model.trees_:
        assert tree.stats[tree.leaves(), 0].sum() == X.shape[0]


@pytest.mark.parametrize("name", ["amf-clf", "amf-reg"])
def test_amf_fit_partial_fit_in_blocks_and_learn_one_are_the_same_past_the_bound(name):
    X, y = stream(600)
    fitted = make(name, max_nodes=25).fit(X, y)
    blocks = partial_fit(make(name, max_nodes=25), X, y, 97)
    one = make(name, max_nodes=25, **({"classes": CLASSES} if name == "amf-clf" else {}))
    for row, label in zip(X, y, strict=True):
        one.learn_one(row, label)
    same_trees(fitted, blocks)
    same_trees(fitted, one)
    assert all(capacity(tree.nodes) <= 25 for tree in one.trees_)


@pytest.mark.parametrize("name", ["amf-clf", "mf-clf-ikn", "mf-clf-paused"])
def test_the_progressive_loop_grows_the_trees_fit_grows_past_the_bound(name):
    X, y = stream(600)
    fitted = make(name, max_nodes=25).fit(X, y)
    progressive = make(name, max_nodes=25)
    progressive.progressive_predict_proba(X, y)
    same_trees(fitted, progressive)


@pytest.mark.parametrize("name", ["mf-clf-ikn", "mf-clf-leaf", "mf-reg"])
def test_mondrian_fit_past_the_bound_learns_point_by_point(name):
    """A first batch that may take more than max_nodes is learnt point by point: fit is a first point (sampled at
    once: a root, nothing drawn) then partial_fit in blocks. The same trees and leaves (the leaf mean's internal
    nodes keep the sums copied when they were made, which depend on the blocks: only the leaves' are read)."""
    X, y = stream(600)
    fitted = make(name, max_nodes=25).fit(X, y)
    blocks = partial_fit(make(name, max_nodes=25), X[:1], y[:1], 1)
    partial_fit(blocks, X[1:], y[1:], 97)
    for a, b in zip(fitted.trees_, blocks.trees_, strict=True):
        assert_equal_nested(a.arrays(), b.arrays())
        assert a.rng.bit_generator.state == b.rng.bit_generator.state
        np.testing.assert_array_equal(a.stats[a.leaves()], b.stats[b.leaves()])


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_threads_change_nothing(name):
    X, y = stream(800)
    one = partial_fit(make(name, max_nodes=33, n_jobs=1), X, y, 300)
    two = partial_fit(make(name, max_nodes=33, n_jobs=2), X, y, 300)
    same_trees(one, two)


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_a_pickled_bounded_forest_learns_on_as_the_original(name):
    X, y = stream(900)
    model = partial_fit(make(name, max_nodes=20), X[:400], y[:400], 400)
    copy = pickle.loads(pickle.dumps(model))
    assert all(tree.max_nodes == 20 for tree in copy.trees_)
    partial_fit(model, X[400:], y[400:], 250)
    partial_fit(copy, X[400:], y[400:], 250)
    same_trees(model, copy)
    assert all(capacity(tree.nodes) <= 20 for tree in copy.trees_)


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_a_change_of_max_nodes_between_partial_fit_calls_is_refused(name):
    X, y = stream(100)
    model = partial_fit(make(name, max_nodes=21), X[:50], y[:50], 50)
    for value in (23, None):
        model.set_params(max_nodes=value)
        with pytest.raises(ValueError, match=r"max_nodes=.*started with max_nodes=21.*call fit"):
            partial_fit(model, X[50:], y[50:], 50)
    model.set_params(max_nodes=21)
    partial_fit(model, X[50:], y[50:], 50)
    model.set_params(max_nodes=None).fit(X, y)  # fit starts again


@pytest.mark.parametrize("Model", [AMFClassifier, AMFRegressor, MondrianForestClassifier, MondrianForestRegressor])
@pytest.mark.parametrize("value", [0, 1, 2, -5, 3.0, "10", True])
def test_invalid_values_are_refused(Model, value):
    X, y = stream(10)
    with pytest.raises(InvalidParameterError, match=r"'max_nodes' parameter .* int in the range \[3, inf\) or None"):
        Model(max_nodes=value).fit(X, y)


@pytest.mark.parametrize("Model", [MondrianForestClassifier, MondrianForestRegressor])
def test_the_increasing_lifetime_refuses_a_bound(Model):
    X, y = stream(10)
    with pytest.raises(ValueError, match="max_nodes=9 needs a fixed lifetime: the increasing lifetime splits"):
        Model(max_nodes=9, lifetime="increasing").fit(X, y)


def test_paused_blocks_past_their_budget_of_points_sample_no_leaf_again():
    """With paused blocks, the forest keeps its first max_nodes points; the trees learn on past them (counts, and
    extension splits until the bound), sampling no leaf again: the leaves' lists hold the kept points only."""
    X, y = stream(3000)
    model = partial_fit(make("mf-clf-paused", max_nodes=201), X, y, 400)
    assert model.points_.n == 201
    for tree in model.trees_:
        leaves = tree.leaves()
        assert tree.stats[leaves, 0].sum() > 201  # IKN's column 0: the points each leaf has seen, all of them
        scratch = np.empty(201, np.int64)
        linked = [i for leaf in leaves for i in scratch[: points_of(tree.first_point, tree.next_point, leaf, scratch)]]
        assert sorted(linked) == list(range(201))
    assert model.score(X, y) > 0.85


@pytest.mark.parametrize("name", ["amf-clf", "mf-reg"])
def test_a_model_pickled_before_the_bound_learns_on_unbounded(name):
    """A model and trees pickled without max_nodes (before it existed) read as unbounded."""
    X, y = stream(300)
    model, reference = make(name).fit(X[:150], y[:150]), make(name).fit(X[:150], y[:150])
    del model.max_nodes
    for tree in model.trees_:
        del tree.max_nodes
    old = pickle.loads(pickle.dumps(model))
    assert old.max_nodes is None and old.get_params()["max_nodes"] is None
    partial_fit(old, X[150:], y[150:], 150)
    partial_fit(reference, X[150:], y[150:], 150)
    same_trees(old, reference)
