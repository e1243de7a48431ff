"""LRT14's paused Mondrian blocks (MondrianForestClassifier(pausing=True), the default with IKN smoothing).

- A pure block is never split, and a paused leaf is un-paused (sampled again from its points) by a point of a new
  label that lands in it: checked on hand-made streams.
- After any stream (hypothesis), each leaf holds exactly the points routed to it, its range is theirs, the IKN
  counts equal a recount from the leaves' points, and with lifetime inf every leaf is paused.
- A tree that runs out of room mid-batch (the kernel stops before a paused leaf may be sampled again, the forest
  grows the tree, the kernel resumes) ends as the same model, with the same progressive predictions, as one that
  had room to spare.
- Online and batch paused trees have the same law (statistical: leaf counts and the depth of each point's leaf).
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_state import assert_equal_nested, leaf_points, used_tree_state
from test_ikn import assert_counts_exact

from mondrian import MondrianForestClassifier
from mondrian._extend import is_paused
from mondrian._nodes import NO_NODE
from mondrian.forest import _paused
from mondrian.forest._family_points import PointFamily


def paused_forest(**params):
    return MondrianForestClassifier(**{"n_estimators": 5, "random_state": 0, **params})


def test_a_pure_block_is_never_split_and_a_new_label_unpauses_its_leaf():
    rng = np.random.default_rng(0)
    cluster = 0.4 + 0.2 * rng.random((30, 2))
    model = paused_forest().fit(cluster, np.zeros(30, int))
    assert all(t.n_nodes == 1 for t in model.trees_)  # one label: the root is a paused leaf
    model = paused_forest().partial_fit(cluster[:10], np.zeros(10, int), classes=[0, 1])
    for x in [*cluster[10:], [0.0, 0.0], [1.0, 1.0]]:  # the same label, inside and outside the range
        model.partial_fit(np.array([x]), [0])
        assert all(t.n_nodes == 1 for t in model.trees_)
    np.testing.assert_array_equal(model.trees_[0].nodes.box_lower[0], [0.0, 0.0])  # the range grew
    model.partial_fit(np.array([[0.5, 0.5]]), [1])  # a new label inside the range: un-paused, sampled again
    for tree in model.trees_:
        assert tree.n_nodes > 1
        leaves = tree.leaves()
        assert all(is_paused(tree.nodes, tree.stats, j) for j in leaves)
        assert np.count_nonzero(tree.stats[leaves, 2]) == 1  # the label-1 point sits alone in its leaf
    np.testing.assert_array_equal(model.predict([[0.5, 0.5], [0.41, 0.41]]), [1, 0])


def test_pausing_false_splits_down_to_distinct_points():
    rng = np.random.default_rng(1)
    X = rng.random((40, 2))
    model = paused_forest(pausing=False).fit(X, np.zeros(40, int))
    assert all(t.n_leaves() == 40 for t in model.trees_)
    assert all(t.first_point is None for t in model.trees_)  # no point store without pausing


def check_paused_tree(tree, X, y, n_classes):
    lists = leaf_points(tree)
    routed = tree.apply(X)
    leaves = tree.leaves()
    np.testing.assert_array_equal(np.sort(np.concatenate(lists)), np.arange(len(X)))
    for j in range(tree.n_nodes):
        if j not in set(leaves):
            assert len(lists[j]) == 0
            continue
        np.testing.assert_array_equal(np.sort(lists[j]), np.flatnonzero(routed == j))
        np.testing.assert_array_equal(tree.nodes.box_lower[j], X[lists[j]].min(axis=0))
        np.testing.assert_array_equal(tree.nodes.box_upper[j], X[lists[j]].max(axis=0))
        if tree.lifetime == np.inf:
            assert is_paused(tree.nodes, tree.stats, j)
    assert_counts_exact(tree, X, y.astype(float), n_classes)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 50),
    d=st.integers(1, 3),
    lifetime=st.sampled_from([np.inf, 1.0, 5.0]),
    grid=st.booleans(),
    chunks=st.lists(st.integers(1, 15), min_size=1, max_size=5),
    progressive=st.booleans(),
)
def test_leaves_hold_their_points_and_counts_stay_exact(seed, n, d, lifetime, grid, chunks, progressive):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    if grid:
        X = np.round(X * 4) / 4  # duplicates, ties, points inside paused ranges
    y = np.where(rng.random(n) < 0.7, (X[:, 0] > 0.5).astype(int), rng.integers(0, 3, n))
    model = MondrianForestClassifier(n_estimators=2, lifetime=lifetime, random_state=seed)
    bounds = sorted({0, n, *itertools.accumulate(chunks)} & set(range(n + 1)))
    for start, stop in itertools.pairwise(bounds):
        if progressive:
            out = model.progressive_predict_proba(X[start:stop], y[start:stop], classes=[0, 1, 2])
            np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)
        else:
            model.partial_fit(X[start:stop], y[start:stop], classes=[0, 1, 2])
    for tree in model.trees_:
        check_paused_tree(tree, X, y, 3)


@pytest.mark.parametrize("progressive", [False, True])
def test_a_tree_grown_mid_batch_is_the_tree_grown_beforehand(progressive, monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.random((400, 2))
    y = (X[:, 0] > 0.5).astype(int) + (rng.random(400) < 0.1)
    y[:300] = 0  # the first batch is one paused leaf of 300 points: the next label 1 or 2 samples it again
    stops = []
    for name in ("learn", "progressive"):
        kernel = getattr(_paused, name)

        def counted(*args, kernel=kernel):
            done = kernel(*args)
            stops[-1].append(done[0] < args[7])  # stopped before the end of the batch
            return done

        monkeypatch.setattr(_paused, name, counted)
    grow_for = PointFamily._grow_for
    models, outputs = [], []
    for room in (0, 5000):  # the forest's own reservation; room for the whole stream beforehand
        monkeypatch.setattr(
            PointFamily,
            "_grow_for",
            lambda self, forest, tree, n, room=room: (grow_for(self, forest, tree, n), tree.reserve(room)),
        )
        stops.append([])
        model = MondrianForestClassifier(n_estimators=3, random_state=4)
        out = []
        for start, stop in [(0, 300), (300, 350), (350, 400)]:
            if progressive:
                out.append(model.progressive_predict_proba(X[start:stop], y[start:stop], classes=[0, 1, 2]))
            else:
                model.partial_fit(X[start:stop], y[start:stop], classes=[0, 1, 2])
        models.append(model)
        outputs.append(out)
    assert any(stops[0]) and not any(stops[1])  # the first model's trees ran out of room, the second's never
    assert_equal_nested([used_tree_state(t) for t in models[0].trees_], [used_tree_state(t) for t in models[1].trees_])
    assert_equal_nested(outputs[0], outputs[1])
    np.testing.assert_array_equal(models[0].predict_proba(X), models[1].predict_proba(X))


def summaries(model, X):
    leaves = np.array([t.n_leaves() for t in model.trees_], float)
    depth = np.array([t.depths()[t.apply(X)] for t in model.trees_], float)
    return leaves, depth


def z(a, b):
    spread = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return 0.0 if spread == 0 else (a.mean() - b.mean()) / spread


@pytest.mark.slow
@pytest.mark.parametrize("lifetime", [np.inf, 4.0])
def test_online_and_batch_paused_trees_have_the_same_law(lifetime):
    rng = np.random.default_rng(2)
    n = 30
    X = rng.random((n, 2))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0.5).astype(int)
    batch = MondrianForestClassifier(600, lifetime=lifetime, random_state=1).fit(X, y)
    online = MondrianForestClassifier(600, lifetime=lifetime, random_state=2)
    for i in range(n):
        online.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    (leaves_b, depth_b), (leaves_o, depth_o) = summaries(batch, X), summaries(online, X)
    assert abs(z(leaves_b, leaves_o)) < 4
    for i in range(n):
        assert abs(z(depth_b[:, i], depth_o[:, i])) < 4.5, i
    if lifetime == np.inf:  # two labels: the root is never paused
        assert all(t.nodes.left[t.root] != NO_NODE for t in batch.trees_)
