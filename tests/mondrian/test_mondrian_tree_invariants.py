"""Property tests (hypothesis) of the structural invariants of Mondrian trees.

Restricted trees (LRT14's MT(lifetime, data)) grown by ``fit`` (batch sampling), by
``partial_fit`` (online extension, one point at a time or in chunks) and by
``progressive_predict_proba``; full partitions MP(lifetime, box) from ``sample_mondrian``
and their prunings. Every check is an exact statement about the node arrays.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mondrian import MondrianForestClassifier, MondrianForestRegressor, sample_mondrian
from mondrian._nodes import NO_NODE, TreeArrays

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

LIFETIMES = [0.3, 2.0, 10.0, np.inf]
MODES = ["fit", "partial_fit_each", "partial_fit_chunks", "progressive"]

# Coordinates: a few repeated values (duplicates and ties on a feature are the hard cases)
# and floats rounded to a 1e-6 grid (no subnormal gaps, whose Exp(1/gap) rates overflow).
coordinate = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 0.5]),
    st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 6)),
)


@st.composite
def datasets(draw, max_points=25, max_features=3, n_classes=3):
    d = draw(st.integers(1, max_features))
    n = draw(st.integers(1, max_points))
    X = np.array(draw(st.lists(st.lists(coordinate, min_size=d, max_size=d), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    return X.reshape(n, d), y


def grow(model, X, y, mode, classes=None):
    """The fitted model, grown from (X, y) in one of the ways the library offers."""
    extra = {} if classes is None else {"classes": classes}
    if mode == "fit":
        model.fit(X, y)
    elif mode == "partial_fit_each":
        for i in range(X.shape[0]):
            model.partial_fit(X[i : i + 1], y[i : i + 1], **extra)
    elif mode == "partial_fit_chunks":
        for start in range(0, X.shape[0], 4):
            model.partial_fit(X[start : start + 4], y[start : start + 4], **extra)
    elif mode == "progressive":
        if isinstance(model, MondrianForestClassifier):
            model.progressive_predict_proba(X, y, **extra)
        else:
            model.progressive_predict(X, y)
    else:
        raise AssertionError(mode)
    return model


def route(tree, x):
    """Root-to-leaf path of x through the splits (x[feature] <= threshold goes left)."""
    nodes, is_leaf = tree.nodes, tree.is_leaf()
    j = tree.root
    path = [j]
    while not is_leaf[j]:
        j = int(nodes.left[j] if x[nodes.feature[j]] <= nodes.threshold[j] else nodes.right[j])
        path.append(j)
    return path


def check_links(tree, lifetime):
    """Parent/child links form one tree over all nodes in use; split times increase and stay < lifetime."""
    a = tree.arrays()
    n = tree.n_nodes
    is_leaf = tree.is_leaf()
    assert 0 <= tree.root < n
    assert a["parent"][tree.root] == NO_NODE
    seen = np.zeros(n, bool)
    stack = [tree.root]
    while stack:
        j = stack.pop()
        assert not seen[j], "a node is reachable twice"
        seen[j] = True
        parent_time = 0.0 if a["parent"][j] == NO_NODE else a["split_time"][a["parent"][j]]
        if is_leaf[j]:
            assert a["left"][j] == NO_NODE and a["right"][j] == NO_NODE
            assert a["split_time"][j] == np.inf
        else:
            assert parent_time < a["split_time"][j] < lifetime
            assert 0 <= a["feature"][j] < a["box_lower"].shape[1]
            for child in (a["left"][j], a["right"][j]):
                assert a["parent"][child] == j
                stack.append(int(child))
    assert seen.all(), "some nodes in use are unreachable from the root"


def check_restricted_tree(tree, X, targets, onehot, lifetime):
    """Every invariant of a restricted tree grown on the points X with encoded targets."""
    check_links(tree, lifetime)
    a = tree.arrays()
    is_leaf = tree.is_leaf()
    members = [[] for _ in range(tree.n_nodes)]
    leaf_of = np.empty(X.shape[0], np.int64)
    for i, x in enumerate(X):
        path = route(tree, x)
        for j in path:
            members[j].append(i)
        leaf_of[i] = path[-1]
    np.testing.assert_array_equal(tree.apply(X), leaf_of)
    for j in range(tree.n_nodes):
        assert members[j], f"node {j} holds no point"
        pts = X[members[j]]
        # The box of a node is exactly the range of the points routed through it.
        np.testing.assert_array_equal(a["box_lower"][j], pts.min(axis=0))
        np.testing.assert_array_equal(a["box_upper"][j], pts.max(axis=0))
        if is_leaf[j]:
            low, up = a["box_lower"][j], a["box_upper"][j]
            points = X
            inside = np.all((points >= low) & (points <= up), axis=1)
            np.testing.assert_array_equal(np.flatnonzero(inside), np.sort(members[j]))
            assert tree.stats[j, 0] == len(members[j])
            if onehot:
                expected = np.bincount(targets[members[j]].astype(int), minlength=tree.stats.shape[1] - 1)
                np.testing.assert_array_equal(tree.stats[j, 1:], expected)
            else:
                np.testing.assert_allclose(tree.stats[j, 1], targets[members[j]].sum(), rtol=1e-12, atol=1e-9)
            if lifetime == np.inf:
                assert np.all(pts == pts[0]), "with an infinite lifetime a leaf holds one distinct point"
        else:
            f, thr = a["feature"][j], a["threshold"][j]
            left, right = a["left"][j], a["right"][j]
            goes_left = pts[:, f] <= thr
            np.testing.assert_array_equal(np.sort(np.array(members[j])[goes_left]), np.sort(members[left]))
            np.testing.assert_array_equal(np.sort(np.array(members[j])[~goes_left]), np.sort(members[right]))
            # The split separates the children's ranges, inside the node's range.
            assert a["box_upper"][left, f] <= thr < a["box_lower"][right, f]
            assert a["box_lower"][j, f] <= thr < a["box_upper"][j, f]
    assert tree.stats[: tree.n_nodes][is_leaf, 0].sum() == X.shape[0]


def snapshot_trees(model):
    return [
        (
            {name: np.array(arr, copy=True) for name, arr in zip(TreeArrays._fields, t.nodes, strict=True)},
            t.stats.copy(),
            t.lifetime,
            repr(t.rng.bit_generator.state),
        )
        for t in model.trees_
    ]


def assert_same_trees(before, after):
    assert len(before) == len(after)
    for (arrays0, stats0, life0, rng0), (arrays1, stats1, life1, rng1) in zip(before, after, strict=True):
        assert arrays0.keys() == arrays1.keys()
        for name in arrays0:
            np.testing.assert_array_equal(arrays0[name], arrays1[name], err_msg=name)
            assert arrays0[name].dtype == arrays1[name].dtype
        np.testing.assert_array_equal(stats0, stats1)
        assert life0 == life1
        assert rng0 == rng1


@SETTINGS
@given(
    data=datasets(),
    lifetime=st.sampled_from(LIFETIMES),
    mode=st.sampled_from(MODES),
    seed=st.integers(0, 2**32 - 1),
)
def test_classifier_trees_are_restricted_mondrian_trees(data, lifetime, mode, seed):
    X, y = data
    model = grow(
        MondrianForestClassifier(n_estimators=3, lifetime=lifetime, pausing=False, random_state=seed),
        X,
        y,
        mode,
        classes=None if mode == "fit" else [0, 1, 2],
    )  # paused trees: tests/mondrian/test_pausing.py
    targets = np.searchsorted(model.classes_, y)
    for tree in model.trees_:
        assert tree.lifetime == lifetime
        check_restricted_tree(tree, X, targets, True, lifetime)


@SETTINGS
@given(
    data=datasets(),
    lifetime=st.sampled_from(LIFETIMES),
    mode=st.sampled_from(MODES),
    seed=st.integers(0, 2**32 - 1),
)
def test_regressor_trees_are_restricted_mondrian_trees(data, lifetime, mode, seed):
    X, y = data
    y = y * 1.5 - 0.25
    model = grow(MondrianForestRegressor(n_estimators=2, lifetime=lifetime, random_state=seed), X, y, mode)
    for tree in model.trees_:
        check_restricted_tree(tree, X, y, False, lifetime)


@SETTINGS
@given(
    data=datasets(),
    queries=st.lists(st.lists(coordinate, min_size=3, max_size=3), min_size=1, max_size=10),
    lifetime=st.sampled_from(LIFETIMES),
    mode=st.sampled_from(MODES),
    seed=st.integers(0, 2**32 - 1),
    smoothing=st.sampled_from(["ikn", "empirical"]),
)
@example(  # one class, x outside the range: the weighted sum of distributions rounded to 1 + 2e-16 before clipping
    data=(np.array([[1.0, 56.429688]]), np.array([0])),
    queries=[[1.0, 1.0, 0.0]],
    lifetime=0.3,
    mode="fit",
    seed=0,
    smoothing="ikn",
)
def test_predict_proba_is_a_distribution_and_prediction_leaves_the_model_unchanged(
    data, queries, lifetime, mode, seed, smoothing
):
    X, y = data
    Q = np.array(queries)[:, : X.shape[1]] * 3.0  # also far outside the training range
    model = grow(
        MondrianForestClassifier(n_estimators=3, lifetime=lifetime, smoothing=smoothing, random_state=seed),
        X,
        y,
        mode,
        classes=None if mode == "fit" else [0, 1, 2, 3],
    )
    n_classes = len(model.classes_)
    np.testing.assert_array_equal(model.classes_, np.unique(y) if mode == "fit" else [0, 1, 2, 3])
    before = snapshot_trees(model)
    attributes = {k: v for k, v in vars(model).items() if k != "trees_"}
    for Z in (X, Q):
        proba = model.predict_proba(Z)
        assert proba.shape == (Z.shape[0], n_classes)
        assert np.all((proba >= 0.0) & (proba <= 1.0))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        if mode != "fit" and smoothing == "empirical":
            assert np.all(proba[:, 3] == 0.0), "a class never seen gets probability 0"
        elif mode != "fit":  # IKN: from the uniform base measure, never more than a class seen
            seen = np.unique(y)
            assert np.all(proba[:, 3] <= proba[:, seen].min(axis=1) + 1e-12)
        np.testing.assert_array_equal(model.predict(Z), model.classes_[np.argmax(proba, axis=1)])
    assert_same_trees(before, snapshot_trees(model))
    assert vars(model).keys() == attributes.keys() | {"trees_"}
    for k, v in attributes.items():
        assert np.array_equal(getattr(model, k), v)
    regressor = grow(MondrianForestRegressor(n_estimators=2, lifetime=lifetime, random_state=seed), X, y * 1.0, mode)
    before = snapshot_trees(regressor)
    prediction = regressor.predict(Q)
    assert np.all((prediction >= y.min()) & (prediction <= y.max()))
    assert_same_trees(before, snapshot_trees(regressor))


@st.composite
def boxes(draw, max_expected_leaves=300.0):
    d = draw(st.integers(1, 3))
    lower = np.array(draw(st.lists(st.floats(-5, 5).map(lambda v: round(v, 6)), min_size=d, max_size=d)))
    width = np.array(
        draw(
            st.lists(
                st.one_of(st.just(0.0), st.floats(1e-3, 3.0).map(lambda v: round(v, 6))),
                min_size=d,
                max_size=d,
            )
        )
    )
    lifetime = draw(st.floats(0.01, 8.0))
    if np.prod(1.0 + lifetime * width) > max_expected_leaves:
        lifetime = float((max_expected_leaves ** (1.0 / d) - 1.0) / max(width.max(), 1e-3))
    return lower, lower + width, lifetime


def check_full_partition(tree, lower, upper, lifetime):
    check_links(tree, lifetime)
    a = tree.arrays()
    is_leaf = tree.is_leaf()
    np.testing.assert_array_equal(a["box_lower"][tree.root], lower)
    np.testing.assert_array_equal(a["box_upper"][tree.root], upper)
    for j in np.flatnonzero(~is_leaf):
        f, thr = a["feature"][j], a["threshold"][j]
        left, right = a["left"][j], a["right"][j]
        assert a["box_lower"][j, f] <= thr < a["box_upper"][j, f]
        # The children split the parent's box at the threshold on the split feature.
        expected_left_upper = a["box_upper"][j].copy()
        expected_left_upper[f] = thr
        expected_right_lower = a["box_lower"][j].copy()
        expected_right_lower[f] = thr
        np.testing.assert_array_equal(a["box_lower"][left], a["box_lower"][j])
        np.testing.assert_array_equal(a["box_upper"][left], expected_left_upper)
        np.testing.assert_array_equal(a["box_lower"][right], expected_right_lower)
        np.testing.assert_array_equal(a["box_upper"][right], a["box_upper"][j])


@SETTINGS
@given(box=boxes(), seed=st.integers(0, 2**32 - 1), fraction=st.floats(0.05, 1.0))
def test_sample_mondrian_is_a_partition_and_pruning_keeps_the_early_splits(box, seed, fraction):
    lower, upper, lifetime = box
    tree = sample_mondrian(lifetime, lower, upper, random_state=seed)
    check_full_partition(tree, lower, upper, lifetime)
    a = tree.arrays()
    is_leaf = tree.is_leaf()
    # Points of the box land in a leaf whose box holds them, as the splits say.
    points = lower + (upper - lower) * np.random.default_rng(seed).random((20, lower.shape[0]))
    leaves = tree.apply(points)
    assert np.all(is_leaf[leaves])
    assert np.all((a["box_lower"][leaves] <= points) & (points <= a["box_upper"][leaves]))
    for x, leaf in zip(points, leaves, strict=True):
        assert route(tree, x)[-1] == leaf
    # Pruning at a smaller lifetime keeps exactly the splits made before it.
    small = fraction * lifetime
    pruned, origin = tree.pruned(small)
    check_full_partition(pruned, lower, upper, small)
    p = pruned.arrays()
    kept = np.flatnonzero(tree.depths(small) >= 0)
    np.testing.assert_array_equal(np.sort(origin), kept)
    assert pruned.n_leaves() == tree.n_leaves(small) == int(np.sum(is_leaf[kept] | (a["split_time"][kept] >= small)))
    for k, j in enumerate(origin):
        np.testing.assert_array_equal(p["box_lower"][k], a["box_lower"][j])
        np.testing.assert_array_equal(p["box_upper"][k], a["box_upper"][j])
        if a["split_time"][j] < small:
            assert (p["split_time"][k], p["feature"][k], p["threshold"][k]) == (
                a["split_time"][j],
                a["feature"][j],
                a["threshold"][j],
            )
            assert origin[p["left"][k]] == a["left"][j] and origin[p["right"][k]] == a["right"][j]
        else:
            assert p["left"][k] == NO_NODE and p["split_time"][k] == np.inf
    # Routing in the pruned tree ends at the ancestor (at the smaller lifetime) of the full tree's leaf.
    np.testing.assert_array_equal(origin[pruned.apply(points)], tree.apply(points, small))


@pytest.mark.parametrize("lifetime", [0.5, np.inf])
def test_restricted_tree_separates_ties_only_when_values_differ(lifetime):
    """Duplicates and ties on a coordinate: the worst case for the threshold draws."""
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 1.0], [np.nextafter(0.0, 1.0) * 2**60, 0.0], [1.0, 1.0]] * 3)
    y = np.arange(X.shape[0]) % 2
    for mode in MODES:
        model = grow(
            MondrianForestClassifier(n_estimators=20, lifetime=lifetime, random_state=1),
            X,
            y,
            mode,
            classes=None if mode == "fit" else [0, 1],
        )
        for tree in model.trees_:
            check_restricted_tree(tree, X, y, True, lifetime)
            if lifetime == np.inf:
                assert tree.n_leaves() == np.unique(X, axis=0).shape[0]
