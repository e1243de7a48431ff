"""OnlineRandomForestClassifier, ORF-Saffari (Saffari et al. 2009), and its kernels (``mondrian._orf``).

- The split rule, exactly: replaying weighted updates through the kernel one at a time, a leaf splits iff it has
  seen a weight >= min_samples_split since its tests were drawn and its best test's Gini gain (recomputed here from
  class proportions) is > 0 and >= min_gain; it splits on that test, its children start from the test's side
  weights with fresh tests inside their ranges (none at max_depth); the root draws its tests once it has seen
  min_samples_split.
- Invariants of trees grown by partial_fit on random streams (hypothesis): no leaf is left that should have split,
  every test of a leaf has seen the same points, ranges stay inside the cells, slots are handed out once, depths,
  probabilities sum to 1.
- Laws: online bagging gives each tree a Poisson(n * passes) total weight and leaves a tree empty with probability
  e^-1 after one point (whose prediction is then uniform); random tests have uniform features and thresholds.
- Learning: a separable problem is learnt; more passes help early.
- The estimator API: the same model for any n_jobs, partial_fit in chunks == fit, progressive validation ==
  predict then partial_fit, pickling mid-stream, bad input raises ValueError and leaves the model as it was,
  scikit-learn's estimator checks.
"""

import copy
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_state import assert_equal_nested
from scipy import stats as scipy_stats
from sklearn.utils.estimator_checks import parametrize_with_checks

from mondrian import _orf
from mondrian._nodes import NO_NODE
from mondrian._route import leaf_of
from mondrian.orf import OnlineRandomForestClassifier, OnlineRandomTree

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Gains below ZERO are rounding of an exact 0: with integer weights summing to n <= 1000, a positive Gini gain
# w_l w_r sum_k (p_lk - p_rk)^2 is at least 1 / (n_l n_r n^2) >= 4 / n^4 > 1e-12.
ZERO = 1e-12


def separable(n, seed, d=2):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, (X[:, 0] > 0.5).astype(int)


def noisy(n, d=3, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.floor(X[:, 0] * n_classes).astype(int)
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, n_classes, size=flip.sum())
    return X, y


def gini_gain(sides):
    """Direct Gini decrease G(l + r) - n_l/n G(l) - n_r/n G(r), G(c) = 1 - sum_k (c_k / |c|)^2; 0 if a side is empty."""
    n_l, n_r = sides[0].sum(), sides[1].sum()
    if n_l == 0 or n_r == 0:
        return 0.0

    def gini(c):
        return 1.0 - ((c / c.sum()) ** 2).sum()

    n = n_l + n_r
    return gini(sides[0] + sides[1]) - n_l / n * gini(sides[0]) - n_r / n * gini(sides[1])


# -- what a model is, for comparisons -----------------------------------------------------------------------------


def tree_state(tree):
    """What defines a tree: node arrays and statistics in use, its root, max_depth and random stream."""
    stats = _orf.trimmed_stats(tree.stats, max(tree.n_nodes, 1))
    return tree.arrays(), tree.root, stats, tree.max_depth, copy.deepcopy(tree.rng.bit_generator.state)


def same_trees(a, b):
    assert len(a.trees_) == len(b.trees_)
    for t1, t2 in zip(a.trees_, b.trees_, strict=True):
        assert_equal_nested(tree_state(t1), tree_state(t2))


def model_state(model):
    """Everything a model is: its attributes, and its trees in full (whole arrays, capacity included)."""
    attributes = {k: copy.deepcopy(v) for k, v in vars(model).items() if k != "trees_"}
    trees = None
    if hasattr(model, "trees_"):
        trees = [
            (
                tuple(a.copy() for a in t.nodes),
                tuple(a.copy() for a in t.stats),
                copy.deepcopy(t.rng.bit_generator.state),
            )
            for t in model.trees_
        ]
    return attributes, trees


# -- the split rule, update by update -----------------------------------------------------------------------------


def structured_point(rng, d, n_classes):
    """A point whose class depends on its first two features, with 15% label noise."""
    x = rng.random(d)
    c = (int(x[0] > 0.3) + int(x[1] > 0.6)) % n_classes
    if rng.random() < 0.15:
        c = int(rng.integers(n_classes))
    return x, c


@pytest.mark.parametrize(
    ("min_samples_split", "min_gain", "max_depth"),
    [(10.0, 0.0, 5), (25.0, 0.03, None), (6.0, 0.12, 4), (0.0, 0.0, 4)],
)
def test_a_leaf_splits_exactly_when_the_rule_says(min_samples_split, min_gain, max_depth):
    d, n_classes, n_tests = 3, 3, 4
    params = _orf.kernel_params(min_samples_split, min_gain, max_depth, 1)
    tree = OnlineRandomTree(d, n_classes, n_tests, max_depth, np.random.default_rng(1))
    nodes, stats = tree.nodes, tree.stats
    data, kernel_rng = np.random.default_rng(2), np.random.default_rng(3)
    depth_limit = np.inf if max_depth is None else max_depth
    outcomes = dict.fromkeys(
        ["split", "zero gain", "below min_gain", "too few", "root draws", "max depth", "ambiguous"], 0
    )
    for _ in range(1500):
        x, c = structured_point(data, d, n_classes)
        w = float(data.integers(1, 4))
        n_before = int(nodes.n_nodes[0])
        before = copy.deepcopy(stats)
        leaf = int(leaf_of(nodes, x, np.inf)) if n_before else 0
        nodes, stats = _orf.update(nodes, stats, x, c, w, params, kernel_rng)
        if n_before == 0:  # a new root: its range starts at x, its tests wait for min_samples_split
            assert nodes.root[0] == 0 and stats.slot[0] == 0 and nodes.n_nodes[0] == 1
            np.testing.assert_array_equal(stats.counts[0], np.r_[w, np.eye(n_classes)[c] * w])
            drawn = stats.test_feature[0, 0] != NO_NODE
            assert drawn == (w >= min_samples_split)
            outcomes["root draws"] += drawn
            continue
        s = before.slot[leaf]
        expected_counts = before.counts[leaf].copy()
        expected_counts[[0, 1 + c]] += w
        np.testing.assert_array_equal(stats.counts[leaf], expected_counts)
        if s == NO_NODE:  # a leaf at max_depth: counts only, it never splits
            outcomes["max depth"] += 1
            assert nodes.n_nodes[0] == n_before
            continue
        if before.test_feature[s, 0] == NO_NODE:  # the root learning the range of the data
            drawn = stats.test_feature[s, 0] != NO_NODE
            assert drawn == (expected_counts[0] >= min_samples_split)
            assert nodes.n_nodes[0] == n_before
            if drawn:
                outcomes["root draws"] += 1
                lo, hi = np.minimum(before.lower[s], x), np.maximum(before.upper[s], x)
                f = stats.test_feature[s]
                assert np.all((lo[f] <= stats.test_threshold[s]) & (stats.test_threshold[s] <= hi[f]))
                assert not stats.test_counts[s].any()
            continue
        sides = before.test_counts[s].copy()
        for k in range(n_tests):
            sides[k, 0 if x[before.test_feature[s, k]] <= before.test_threshold[s, k] else 1, c] += w
        seen = sides[0].sum()
        assert seen <= 1000  # ZERO's bound holds
        gains = np.array([gini_gain(sides[k]) for k in range(n_tests)])
        best = gains.max()
        split = nodes.n_nodes[0] == n_before + 2
        if seen < min_samples_split:
            outcomes["too few"] += 1
            assert not split
            np.testing.assert_array_equal(stats.test_counts[s], sides)
            continue
        if min_gain > 0 and abs(best - min_gain) < 1e-9:
            outcomes["ambiguous"] += 1
            continue
        assert split == (best > ZERO and best >= min_gain)
        if not split:
            outcomes["zero gain" if best <= ZERO else "below min_gain"] += 1
            np.testing.assert_array_equal(stats.test_counts[s], sides)
            continue
        outcomes["split"] += 1
        left, right = nodes.left[leaf], nodes.right[leaf]
        assert (left, right) == (n_before, n_before + 1)
        assert nodes.parent[left] == nodes.parent[right] == leaf and stats.slot[leaf] == NO_NODE
        chosen = np.flatnonzero(
            (before.test_feature[s] == nodes.feature[leaf]) & (before.test_threshold[s] == nodes.threshold[leaf])
        )
        assert len(chosen) > 0 and gains[chosen[0]] >= best - ZERO  # a best test (the first of exact ties)
        k = chosen[0]
        for child, side in ((left, 0), (right, 1)):
            np.testing.assert_array_equal(stats.counts[child], np.r_[sides[k, side].sum(), sides[k, side]])
        depth = 0
        node = leaf
        while nodes.parent[node] != NO_NODE:
            node, depth = nodes.parent[node], depth + 1
        if depth + 1 >= depth_limit:
            assert stats.slot[left] == stats.slot[right] == NO_NODE
            continue
        f, t = nodes.feature[leaf], nodes.threshold[leaf]
        assert stats.slot[left] == s  # the left child takes over the leaf's slot
        for child, cut in ((left, "upper"), (right, "lower")):
            r = stats.slot[child]
            lo, hi = np.minimum(before.lower[s], x), np.maximum(before.upper[s], x)
            (hi if cut == "upper" else lo)[f] = t
            np.testing.assert_array_equal(stats.lower[r], lo)
            np.testing.assert_array_equal(stats.upper[r], hi)
            g = stats.test_feature[r]
            assert np.all((lo[g] <= stats.test_threshold[r]) & (stats.test_threshold[r] <= hi[g]))
            assert not stats.test_counts[r].any()
    # every branch was taken (the rule was tested on both sides of each condition)
    assert outcomes["split"] >= 5 and outcomes["zero gain"] >= 5 and outcomes["root draws"] == 1, outcomes
    assert (outcomes["below min_gain"] >= 5) == (min_gain > 0), outcomes
    assert (outcomes["too few"] >= 10) == (min_samples_split > 0), outcomes
    assert (outcomes["max depth"] > 0) == (max_depth is not None), outcomes
    assert outcomes["ambiguous"] <= 5, outcomes


# -- invariants of grown trees ------------------------------------------------------------------------------------


def check_tree(tree, model):
    a, st_ = tree.arrays(), tree.stats
    n = tree.n_nodes
    if n == 0:
        assert tree.root == NO_NODE
        return
    depth = tree.depths()
    assert np.all(depth >= 0)
    limit = np.inf if model.max_depth is None else model.max_depth
    assert depth.max() <= limit
    internal = a["left"] != NO_NODE
    slot = st_.slot[:n]
    assert np.all(slot[internal] == NO_NODE)
    leaves = np.flatnonzero(~internal)
    np.testing.assert_array_equal(slot[leaves] != NO_NODE, depth[leaves] < limit)
    used = slot[slot != NO_NODE]
    free = st_.free[: st_.n_free[0]]
    assert len(set(used)) == len(used) and len(set(free)) == len(free)
    assert set(used) | set(free) == set(range(st_.n_slots[0])) and not set(used) & set(free)
    counts = st_.counts[:n]
    np.testing.assert_allclose(counts[:, 0], counts[:, 1:].sum(axis=1), rtol=1e-12)
    assert np.all(counts >= 0) and np.all(counts[leaves, 0] > 0)
    for leaf in leaves:
        s = slot[leaf]
        if s == NO_NODE:
            continue
        if st_.test_feature[s, 0] == NO_NODE:  # only the root, before it has seen min_samples_split
            assert leaf == tree.root and counts[leaf, 0] < model.min_samples_split
            continue
        tests = st_.test_counts[s]
        per_class = tests.sum(axis=1)  # every test has seen the same points
        np.testing.assert_array_equal(per_class, np.broadcast_to(per_class[0], per_class.shape))
        assert np.all(counts[leaf, 1:] >= per_class[0])  # the rest was inherited from the parent's test
        best = max(gini_gain(tests[k]) for k in range(tests.shape[0]))
        seen = per_class[0].sum()
        assert seen <= 1000  # ZERO's bound holds
        ready = (
            seen >= model.min_samples_split and best > ZERO and (model.min_gain == 0 or best >= model.min_gain + 1e-9)
        )
        assert not ready, "a leaf that should have split"
        lower, upper = st_.lower[s], st_.upper[s]
        tested = st_.test_feature[s]
        assert np.all((lower[tested] <= st_.test_threshold[s]) & (st_.test_threshold[s] <= upper[tested]))
        # its range stays inside its cell: below a split, x[f] <= t on the left, > t on the right
        node = leaf
        while a["parent"][node] != NO_NODE:
            p = a["parent"][node]
            f, t = a["feature"][p], a["threshold"][p]
            assert upper[f] <= t if a["left"][p] == node else lower[f] >= t
            node = p


@SETTINGS
@given(
    n=st.integers(1, 160),
    d=st.integers(1, 4),
    n_classes=st.integers(1, 4),
    n_tests=st.integers(1, 6),
    min_samples_split=st.sampled_from([0, 1, 3.5, 8, 20]),
    min_gain=st.sampled_from([0.0, 0.02, 0.1]),
    max_depth=st.sampled_from([1, 2, 5, None]),
    n_passes=st.integers(1, 3),
    cuts=st.lists(st.integers(0, 160), max_size=3),
    seed=st.integers(0, 2**16),
)
def test_grown_trees_keep_their_invariants_and_probabilities_sum_to_one(
    n, d, n_classes, n_tests, min_samples_split, min_gain, max_depth, n_passes, cuts, seed
):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) * 4 - 1
    y = (np.floor(X[:, 0] * n_classes) + (rng.random(n) < 0.1)).astype(int) % n_classes
    model = OnlineRandomForestClassifier(
        n_estimators=3,
        n_tests=n_tests,
        min_samples_split=min_samples_split,
        min_gain=min_gain,
        max_depth=max_depth,
        n_passes=n_passes,
        random_state=seed,
    )
    bounds = [0, *sorted(c for c in cuts if 0 < c < n), n]
    for a, b in itertools.pairwise(bounds):
        if b > a:
            model.partial_fit(X[a:b], y[a:b], classes=np.arange(n_classes))
    for tree in model.trees_:
        check_tree(tree, model)
    Q = rng.random((50, d)) * 8 - 3
    proba = model.predict_proba(Q)
    assert proba.shape == (50, n_classes) and np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# -- laws ---------------------------------------------------------------------------------------------------------


def test_online_bagging_weights_are_poisson():
    """Without splits, each tree's root holds the total weight it learnt: a sum of n * passes Poisson(1) draws, so
    Poisson(n * passes), per class Poisson(n_c * passes), independently across trees."""
    X, y = noisy(1000, seed=3)
    n_trees, passes = 200, 3
    model = OnlineRandomForestClassifier(
        n_estimators=n_trees, min_samples_split=1e12, n_passes=passes, random_state=0
    ).fit(X, y)
    roots = np.array([t.stats.counts[t.root] for t in model.trees_])
    assert all(t.n_nodes == 1 for t in model.trees_)
    for column, mean in enumerate([len(y) * passes, *(np.bincount(y) * passes)]):
        totals = roots[:, column]
        assert abs(totals.mean() - mean) < 4 * np.sqrt(mean / n_trees)
        assert abs(totals.var(ddof=1) / mean - 1) < 4 * np.sqrt(2 / (n_trees - 1))


def test_a_tree_that_learnt_nothing_predicts_uniformly():
    """After one point, a tree is empty with probability e^-1 (its Poisson weight is 0) and predicts 1/K; the
    others predict the point's class."""
    n_trees = 400
    model = OnlineRandomForestClassifier(n_estimators=n_trees, random_state=4)
    model.partial_fit(np.array([[0.3, 0.7]]), [2], classes=[0, 1, 2])
    empty = sum(t.root == NO_NODE for t in model.trees_)
    p = np.exp(-1.0)
    assert abs(empty / n_trees - p) < 4 * np.sqrt(p * (1 - p) / n_trees)
    expected = (empty * np.full(3, 1 / 3) + (n_trees - empty) * np.eye(3)[2]) / n_trees
    np.testing.assert_allclose(model.predict_proba(np.array([[5.0, -1.0]]))[0], expected, rtol=1e-12)


def test_random_tests_have_uniform_features_and_thresholds_in_the_range():
    n_tests = 30000
    lower, upper = np.array([[0.0, -2.0, 5.0]]), np.array([[1.0, 3.0, 5.0]])
    feature = np.zeros((1, n_tests), np.int64)
    threshold = np.zeros((1, n_tests))
    counts = np.ones((1, n_tests, 2, 2))
    _orf.draw_tests(lower, upper, feature, threshold, counts, 0, np.random.default_rng(5))
    assert not counts.any()
    assert scipy_stats.chisquare(np.bincount(feature[0], minlength=3)).pvalue > 1e-3
    for f in (0, 1):
        t = threshold[0, feature[0] == f]
        assert scipy_stats.kstest((t - lower[0, f]) / (upper[0, f] - lower[0, f]), "uniform").pvalue > 1e-3
    np.testing.assert_array_equal(threshold[0, feature[0] == 2], 5.0)  # a constant feature: its one value


def test_gini_gain_kernel_matches_the_direct_decrease():
    rng = np.random.default_rng(6)
    for _ in range(200):
        sides = rng.integers(0, 6, size=(2, int(rng.integers(1, 5)))).astype(float)
        assert _orf.gini_gain(sides) == pytest.approx(gini_gain(sides), abs=1e-12)
    same_proportions = np.array([[1.0, 2.0, 4.0], [3.0, 6.0, 12.0]])
    assert _orf.gini_gain(same_proportions) == 0.0  # exactly: no split on a test that separates nothing


# -- learning -----------------------------------------------------------------------------------------------------


def test_a_separable_problem_is_learnt_and_more_passes_help_early():
    X, y = separable(3000, seed=7)
    Q, truth = separable(4000, seed=8)
    streamed = OnlineRandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    assert np.mean(streamed.predict(Q) == truth) > 0.98
    # 200 points: one pass is too few for the root to draw its tests and then split (140 + 140); ten passes are not
    early = [
        OnlineRandomForestClassifier(n_estimators=20, n_passes=p, random_state=0).fit(X[:200], y[:200]) for p in (1, 10)
    ]
    accuracy = [np.mean(m.predict(Q) == truth) for m in early]
    assert accuracy[0] < 0.6 < 0.95 < accuracy[1]
    assert all(t.n_nodes == 1 for t in early[0].trees_)


def test_a_known_feature_range_lets_the_root_split_after_min_samples_split():
    """With feature_range the root starts from that box and draws its tests at its first point (thresholds inside
    the box), so it splits once it has seen min_samples_split, not twice that."""
    X, y = separable(400, seed=7)
    X[:, 1] = 0.25 + 0.5 * X[:, 1]  # a feature whose data range is narrower than the box
    split_at = {}
    for feature_range in (None, (0.0, 1.0)):
        model = OnlineRandomForestClassifier(n_estimators=30, min_samples_split=20, feature_range=feature_range,
                                             random_state=0)  # fmt: skip
        model.partial_fit(X[:1], y[:1], classes=[0, 1])
        if feature_range is not None:
            for tree in (t for t in model.trees_ if t.root != NO_NODE):
                s = tree.stats.slot[tree.root]
                assert (tree.stats.test_feature[s] != NO_NODE).all()
                np.testing.assert_array_equal(tree.stats.lower[s], 0.0)
                np.testing.assert_array_equal(tree.stats.upper[s], 1.0)
        model.partial_fit(X[1:], y[1:])
        split_at[feature_range] = [t.stats.counts[t.root, 0] for t in model.trees_ if t.n_nodes > 1]
    assert len(split_at[None]) == len(split_at[0.0, 1.0]) == 30
    assert all(20 <= w < 40 for w in split_at[0.0, 1.0])
    assert all(w >= 40 for w in split_at[None])


# -- the estimator API --------------------------------------------------------------------------------------------


def test_same_seed_same_model_for_any_n_jobs():
    X, y = noisy(400, seed=9)
    Q = np.random.default_rng(10).random((60, 3)) * 1.4 - 0.2
    params = dict(n_estimators=6, min_samples_split=20, n_passes=2, random_state=3)
    runs = []
    for n_jobs in (1, 2):
        fitted = OnlineRandomForestClassifier(**params, n_jobs=n_jobs).fit(X, y)
        online = OnlineRandomForestClassifier(**params, n_jobs=n_jobs)
        for a, b in [(0, 1), (1, 150), (150, 400)]:
            online.partial_fit(X[a:b], y[a:b], classes=[0, 1, 2])
        progressive = OnlineRandomForestClassifier(**params, n_jobs=n_jobs)
        out = progressive.progressive_predict_proba(X, y)
        runs.append((fitted, online, progressive, out, [m.predict_proba(Q) for m in (fitted, online, progressive)]))
    for k in range(3):
        same_trees(runs[0][k], runs[1][k])
    np.testing.assert_array_equal(runs[0][3], runs[1][3])
    for p0, p1 in zip(runs[0][4], runs[1][4], strict=True):
        np.testing.assert_array_equal(p0, p1)
    other = OnlineRandomForestClassifier(**{**params, "random_state": 4}).fit(X, y)
    assert not np.array_equal(other.predict_proba(Q), runs[0][4][0])


def test_partial_fit_in_chunks_is_fit_in_one_call():
    X, y = noisy(500, seed=11)
    fitted = OnlineRandomForestClassifier(n_estimators=5, min_samples_split=15, random_state=2).fit(X, y)
    online = OnlineRandomForestClassifier(n_estimators=5, min_samples_split=15, random_state=2)
    for a, b in [(0, 1), (1, 2), (2, 77), (77, 300), (300, 500)]:
        online.partial_fit(X[a:b], y[a:b], classes=[0, 1, 2])
    same_trees(fitted, online)
    assert max(t.n_nodes for t in fitted.trees_) > 5


@pytest.mark.parametrize("n_passes", [1, 2])
def test_progressive_predict_proba_is_predict_then_partial_fit(n_passes):
    X, y = noisy(150, n_classes=4, seed=12)
    classes = np.arange(4)
    model = OnlineRandomForestClassifier(n_estimators=4, min_samples_split=8, n_passes=n_passes, random_state=5)
    out = model.progressive_predict_proba(X, y, classes=classes)
    reference = OnlineRandomForestClassifier(n_estimators=4, min_samples_split=8, n_passes=n_passes, random_state=5)
    expected = np.empty_like(out)
    for i in range(len(y)):
        expected[i] = 0.25 if i == 0 else reference.predict_proba(X[i : i + 1])[0]
        reference.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    same_trees(model, reference)


def test_pickle_mid_stream_then_continue_identically():
    X, y = noisy(300, seed=13)
    Q = np.random.default_rng(14).random((40, 3)) * 2 - 0.5
    model = OnlineRandomForestClassifier(n_estimators=5, min_samples_split=10, n_passes=2, random_state=6, n_jobs=2)
    model.partial_fit(X[:120], y[:120], classes=[0, 1, 2])
    twin = pickle.loads(pickle.dumps(model))
    assert twin.get_params() == model.get_params()
    same_trees(model, twin)
    np.testing.assert_array_equal(twin.predict_proba(Q), model.predict_proba(Q))
    for m in (model, twin):
        m.partial_fit(X[120:200], y[120:200])
        m.partial_fit(X[200:], y[200:])
    same_trees(model, twin)
    np.testing.assert_array_equal(twin.predict_proba(Q), model.predict_proba(Q))


def failing_calls():
    """(description, call(model), message pattern) for calls that must raise ValueError on a fitted model."""
    X, y = noisy(30, seed=15)
    nan, inf = X.copy(), X.copy()
    nan[3, 1] = np.nan
    inf[0, 0] = -np.inf
    bad_params = {
        "n_estimators": [0, 2.5],
        "n_tests": [0, 1.5, True, None],
        "min_samples_split": [-1, np.nan, np.inf, "10"],
        "min_gain": [-0.1, np.nan, np.inf, None],
        "max_depth": [0, 2.5, -1, "deep"],
        "n_passes": [0, 1.0, False],
        "feature_range": [(1.0, 0.0), (0.0, np.inf), (0.0,), "01", (False, True)],
    }
    calls = [
        ("fit NaN", lambda m: m.fit(nan, y), "NaN"),
        ("partial_fit NaN", lambda m: m.partial_fit(nan, y), "NaN"),
        ("partial_fit inf", lambda m: m.partial_fit(inf, y), "infinity"),
        ("predict_proba NaN", lambda m: m.predict_proba(nan), "NaN"),
        ("partial_fit features", lambda m: m.partial_fit(X[:, :2], y), "features"),
        ("predict features", lambda m: m.predict(X[:, :1]), "features"),
        ("fit empty", lambda m: m.fit(X[:0], y[:0]), "0 sample"),
        ("partial_fit empty", lambda m: m.partial_fit(X[:0], y[:0]), "0 sample"),
        ("fit 1-D X", lambda m: m.fit(X[:, 0], y), "2D"),
        ("fit y 2-D", lambda m: m.fit(X, np.column_stack([y, y])), "1d"),
        ("partial_fit length mismatch", lambda m: m.partial_fit(X[:5], y[:6]), "inconsistent numbers of samples"),
        ("unknown label", lambda m: m.partial_fit(X[:3], [0, 1, 7]), "not in classes_"),
        ("classes differ", lambda m: m.partial_fit(X[:3], y[:3], classes=[0, 1, 2, 5]), "differs"),
        ("continuous y", lambda m: m.fit(X, y + 0.5), "continuous"),
        ("bad random_state", lambda m: m.set_params(random_state=-3).fit(X, y), "random_state"),
        ("bad random_state str", lambda m: m.set_params(random_state="seed").fit(X, y), "random_state"),
        ("progressive NaN", lambda m: m.progressive_predict_proba(nan, y), "NaN"),
        ("more trees midway", lambda m: m.set_params(n_estimators=4).partial_fit(X, y), "call fit"),
        ("other n_tests midway", lambda m: m.set_params(n_tests=3).partial_fit(X, y), "call fit"),
        ("other max_depth midway", lambda m: m.set_params(max_depth=None).partial_fit(X, y), "call fit"),
        (
            "bad random_state after new data",
            lambda m: m.set_params(random_state=-1).fit(np.hstack([X, X]), y + 1),
            "random_state",
        ),
    ]
    for name, values in bad_params.items():
        for value in values:
            calls.append((f"fit {name}={value!r}", lambda m, kw={name: value}: m.set_params(**kw).fit(X, y), name))
            calls.append(
                (
                    f"partial_fit {name}={value!r}",
                    lambda m, kw={name: value}: m.set_params(**kw).partial_fit(X, y),
                    name,
                )
            )
    return X, y, calls


def test_failed_calls_raise_value_error_and_leave_the_model_unchanged():
    X, y, calls = failing_calls()
    model = OnlineRandomForestClassifier(n_estimators=3, min_samples_split=5, max_depth=4, random_state=1).fit(X, y)
    model.partial_fit(X[:7] + 0.5, y[:7])
    Q = np.random.default_rng(16).random((30, 3)) * 2 - 0.5
    params = model.get_params()
    before = model_state(model)
    predictions = model.predict_proba(Q)
    for name, call, message in calls:
        with pytest.raises(ValueError, match=message):
            call(model)
        model.set_params(**params)
        assert_equal_nested(model_state(model), before, path=name)
        np.testing.assert_array_equal(model.predict_proba(Q), predictions, err_msg=name)
    twin = OnlineRandomForestClassifier(n_estimators=3, min_samples_split=5, max_depth=4, random_state=1).fit(X, y)
    twin.partial_fit(X[:7] + 0.5, y[:7])
    for m in (model, twin):
        m.partial_fit(X[7:20] - 0.3, y[7:20])
    same_trees(model, twin)


def test_failed_first_call_leaves_an_unfitted_model():
    X, y = noisy(20, seed=17)
    model = OnlineRandomForestClassifier(n_tests=0)
    for call in (lambda: model.partial_fit(X, y, classes=np.unique(y)), lambda: model.fit(X, y)):
        with pytest.raises(ValueError, match="n_tests"):
            call()
        assert vars(model) == OnlineRandomForestClassifier(n_tests=0).get_params()


_SLOW_FROM_ONE_PASS = (
    "With its defaults ORF learns little from one pass over 300 points: the root draws its tests after a weight of "
    "min_samples_split=140 and needs as much again to split, so a tree splits at most once on the check's three "
    "blobs and the training accuracy stays below 0.83. The instance with min_samples_split=5 and 4 passes passes it."
)
ONE_PASS_FAILURES = {
    name: _SLOW_FROM_ONE_PASS
    for name in (
        "check_classifiers_train",
        "check_classifiers_train(readonly_memmap=True)",
        "check_classifiers_train(readonly_memmap=True,X_dtype=float32)",
    )
}


@parametrize_with_checks(
    [
        OnlineRandomForestClassifier(n_estimators=20),
        OnlineRandomForestClassifier(n_estimators=5, min_samples_split=5, n_passes=4, max_depth=None),
    ],
    expected_failed_checks=lambda estimator: ONE_PASS_FAILURES if estimator.n_passes == 1 else {},
    xfail_strict=True,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
