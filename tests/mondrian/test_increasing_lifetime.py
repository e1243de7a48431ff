"""MGS17's increasing lifetime: the tree after n points has the law of MT(lam_n, data), lam_n = scale n^(1/(d+2)),
and its leaves keep exactly their points.

The law is checked against trees sampled in batch at the fixed lifetime lam_n (``sample_block``, the law tested in
test_mondrian_process_laws.py): number of leaves, depth of the leaf holding a given point and time of the first
split, compared by two-sample z-tests on the means and a chi-square test on the distribution of the leaf count.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_state import leaf_points
from scipy import stats

from mondrian import MondrianForestClassifier, MondrianForestRegressor
from mondrian._nodes import NO_NODE

N_TREES = 600  # trees per sample: independent streams of one forest


def tree_summaries(model, X):
    """Per tree: number of leaves, depth of the leaf of each point, time of the root's split (inf if none)."""
    leaves, depth, first_split = [], [], []
    for tree in model.trees_:
        leaves.append(tree.n_leaves())
        depth.append(tree.depths()[tree.apply(X)])
        root = tree.root
        first_split.append(tree.nodes.split_time[root] if tree.nodes.left[root] != NO_NODE else np.inf)
    return np.array(leaves), np.array(depth), np.array(first_split)


def two_sample_z(a, b):
    return (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))


@pytest.mark.slow
@pytest.mark.parametrize("feed", ["one at a time", "in chunks"])
def test_online_tree_after_n_points_has_the_law_of_the_batch_tree_at_lifetime_n(feed):
    rng = np.random.default_rng(0)
    n, d, scale = 40, 2, 3.0
    X = rng.random((n, d))
    y = rng.integers(0, 2, n)
    lam_n = scale * n ** (1 / (d + 2))
    online = MondrianForestClassifier(N_TREES, lifetime="increasing", lifetime_scale=scale, random_state=1)
    cuts = range(n + 1) if feed == "one at a time" else [0, 1, 7, 8, 25, n]
    for start, stop in itertools.pairwise(cuts):
        online.partial_fit(X[start:stop], y[start:stop], classes=[0, 1])
    assert all(t.lifetime == pytest.approx(lam_n) for t in online.trees_)
    batch = MondrianForestClassifier(N_TREES, lifetime=lam_n, smoothing="empirical", random_state=2).fit(X, y)
    a, b = tree_summaries(online, X), tree_summaries(batch, X)
    assert abs(two_sample_z(a[0].astype(float), b[0].astype(float))) < 4
    # the depth of each point's leaf: which leaves split, not only how many (40 tests: |z| < 4.5)
    for i in range(n):
        assert abs(two_sample_z(a[1][:, i].astype(float), b[1][:, i].astype(float))) < 4.5, i
    # the root's split time (lam_n when it has none): Exp(linear dimension of the data range) truncated at lam_n
    assert abs(two_sample_z(np.minimum(a[2], lam_n), np.minimum(b[2], lam_n))) < 4
    # leaf-count distributions: chi-square on the pooled bins
    values = np.concatenate([a[0], b[0]])
    edges = np.unique(np.quantile(values, np.linspace(0, 1, 7)))
    table = np.array([np.histogram(a[0], edges)[0], np.histogram(b[0], edges)[0]])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table).pvalue > 1e-3


def check_tree(tree, X, y_index, n_classes, scale):
    n, d = X.shape
    assert tree.lifetime == pytest.approx(scale * n ** (1 / (d + 2)))
    a = tree.arrays()
    internal = a["left"] != NO_NODE
    assert np.all(a["split_time"][internal] < tree.lifetime)
    assert np.all(np.isinf(a["split_time"][~internal]))
    lists = leaf_points(tree)
    held = np.concatenate(lists)
    np.testing.assert_array_equal(np.sort(held), np.arange(n))  # every point once
    routed = tree.apply(X)
    for j in range(tree.n_nodes):
        points = lists[j]
        if internal[j]:
            assert len(points) == 0
            continue
        np.testing.assert_array_equal(np.sort(points), np.flatnonzero(routed == j))  # the points routed to it
        if len(points) == 0:
            continue
        np.testing.assert_array_equal(a["box_lower"][j], X[points].min(axis=0))  # its range is theirs
        np.testing.assert_array_equal(a["box_upper"][j], X[points].max(axis=0))
        expected = np.bincount(y_index[points], minlength=n_classes)
        np.testing.assert_array_equal(tree.stats[j], [len(points), *expected])
    for j in np.flatnonzero(internal):  # nested ranges
        for child in (a["left"][j], a["right"][j]):
            assert np.all(a["box_lower"][j] <= a["box_lower"][child])
            assert np.all(a["box_upper"][child] <= a["box_upper"][j])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    d=st.integers(1, 3),
    scale=st.sampled_from([0.5, 2.0, 8.0]),
    duplicates=st.booleans(),
    chunks=st.lists(st.integers(1, 20), min_size=1, max_size=6),
)
def test_leaves_hold_exactly_their_points_and_the_tree_stays_restricted(seed, n, d, scale, duplicates, chunks):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    if duplicates:
        X = np.round(X * 3) / 3  # many repeated points and ties
    y = rng.integers(0, 3, n)
    model = MondrianForestClassifier(n_estimators=2, lifetime="increasing", lifetime_scale=scale, random_state=seed)
    start = 0
    for size in [*chunks, n]:
        stop = min(start + size, n)
        if stop > start:
            model.partial_fit(X[start:stop], y[start:stop], classes=[0, 1, 2])
        start = stop
    for tree in model.trees_:
        check_tree(tree, X, y, 3, scale)


def test_fit_and_progressive_keep_the_same_invariants():
    rng = np.random.default_rng(3)
    X = rng.random((300, 2))
    y = (X[:, 0] > X[:, 1]).astype(int)
    fitted = MondrianForestClassifier(n_estimators=3, lifetime="increasing", random_state=0).fit(X, y)
    progressive = MondrianForestClassifier(n_estimators=3, lifetime="increasing", random_state=0)
    out = progressive.progressive_predict_proba(X, y)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    for model in (fitted, progressive):
        for tree in model.trees_:
            check_tree(tree, X, y, 2, 1.0)


def test_hard_vote_gives_the_fraction_of_trees_voting_for_each_class():
    rng = np.random.default_rng(4)
    X = rng.random((200, 2))
    y = rng.integers(0, 3, 200)
    soft = MondrianForestClassifier(n_estimators=7, lifetime="increasing", random_state=0).fit(X, y)
    hard = MondrianForestClassifier(n_estimators=7, lifetime="increasing", vote="hard", random_state=0).fit(X, y)
    Q = rng.random((50, 2))
    votes = np.zeros((50, 3))
    for tree in soft.trees_:
        counts = tree.stats[tree.apply(Q), 1:]
        votes[np.arange(50), counts.argmax(axis=1)] += 1
    np.testing.assert_array_equal(hard.predict_proba(Q), votes / 7)
    soft.set_params(vote="hard")  # the vote can change at any time
    np.testing.assert_array_equal(soft.predict_proba(Q), votes / 7)


def test_more_points_give_a_deeper_forest_and_a_better_fit():
    """The schedule grows the trees with n (lam_n -> inf, consistency) while a fixed lifetime stays put."""
    rng = np.random.default_rng(5)
    X = rng.random((4000, 2))
    f = np.sin(6 * X[:, 0]) + X[:, 1]
    target = f + 0.1 * rng.standard_normal(4000)
    Q = rng.random((500, 2))
    fq = np.sin(6 * Q[:, 0]) + Q[:, 1]
    increasing = MondrianForestRegressor(n_estimators=10, lifetime="increasing", lifetime_scale=3.0, random_state=0)
    errors, leaves = [], []
    for start, stop in [(0, 250), (250, 1000), (1000, 4000)]:
        increasing.partial_fit(X[start:stop], target[start:stop])
        errors.append(np.mean((increasing.predict(Q) - fq) ** 2))
        leaves.append(np.mean([t.n_leaves() for t in increasing.trees_]))
    assert leaves[0] < leaves[1] < leaves[2]
    assert errors[2] < errors[1] < errors[0]


@pytest.mark.parametrize("feed", ["fit", "one at a time", "progressive"])
def test_min_samples_split_cuts_only_blocks_of_that_many_points_and_every_such_block_by_a_long_lifetime(feed):
    """BSP's rule for the Mondrian forests of its experiments: a block is cut only while it holds more than 3 points
    (min_samples_split=4). Every split node then holds at least 4 points; with a lifetime far beyond the data's
    scale, every leaf of 4 points or more is cut too (the rate of the next split counts it), so leaves end with
    1 to 3 points; the tree stays restricted (check_tree)."""
    rng = np.random.default_rng(6)
    X = rng.random((300, 2))
    y = rng.integers(0, 3, 300)
    for scale, cut_down in ((0.7, False), (1e4, True)):
        model = MondrianForestClassifier(
            n_estimators=4, lifetime="increasing", lifetime_scale=scale, min_samples_split=4, random_state=0
        )
        if feed == "fit":
            model.fit(X, y)
        elif feed == "progressive":
            model.progressive_predict_proba(X, y)
        else:
            for i in range(len(X)):
                model.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1, 2])
        for tree in model.trees_:
            check_tree(tree, X, y, 3, scale)
            a = tree.arrays()
            held = [len(points) for points in leaf_points(tree)]
            for j in reversed(np.argsort(a["split_time"])):  # children split after their parent: bottom-up
                if a["left"][j] != NO_NODE:
                    held[j] = held[a["left"][j]] + held[a["right"][j]]
            held = np.array(held)
            internal = a["left"] != NO_NODE
            assert held[internal].min() >= 4
            assert held[~internal].max() <= 3 if cut_down else held[~internal].max() >= 4


def batch_leaves_with_min_split(X, lifetime, min_split, rng):
    """The number of leaves of MT(lifetime, X) whose blocks split only while they hold at least ``min_split`` points,
    sampled in batch from the process's definition (independently of the library): a block born at time b splits at
    b + Exp(the linear dimension of its points' range) if before the lifetime, in a dimension drawn proportionally to
    the sides, at a uniform threshold; its children are the points on each side, with their range."""
    leaves, blocks = 0, [(np.arange(len(X)), 0.0)]
    while blocks:
        rows, birth = blocks.pop()
        sides = X[rows].max(axis=0) - X[rows].min(axis=0)
        time = birth + rng.exponential(1 / sides.sum()) if len(rows) >= min_split and sides.sum() > 0 else np.inf
        if not time < lifetime:
            leaves += 1
            continue
        dim = rng.choice(len(sides), p=sides / sides.sum())
        left = X[rows, dim] <= rng.uniform(X[rows, dim].min(), X[rows, dim].max())
        blocks += [(rows[left], time), (rows[~left], time)]
    return leaves


@pytest.mark.slow
def test_min_samples_split_keeps_the_batch_law_whatever_the_order():
    """With min_samples_split=4 the online tree after n points has the law of the batch tree with the same rule,
    whether the points come in a random order or sorted (most then arrive outside the leaves' ranges): a leaf of 3
    points that a fourth one reaches is sampled from its birth. Under the rule's first implementation (x's extension
    alone) the trees had 13.5 leaves on average in the given order and 18.5 sorted, for 23.4 in batch."""
    rng = np.random.default_rng(0)
    n, d, scale, split = 60, 2, 3.0, 4
    X, y = rng.random((n, d)), rng.random(n)
    lam_n = scale * n ** (1 / (d + 2))
    batch = np.array([batch_leaves_with_min_split(X, lam_n, split, np.random.default_rng(k)) for k in range(N_TREES)])
    for order in (np.arange(n), np.argsort(X[:, 0] + 0.5 * X[:, 1])):
        online = MondrianForestRegressor(
            N_TREES, lifetime="increasing", lifetime_scale=scale, min_samples_split=split, random_state=1
        )
        for i in order:  # one point per call, as a stream
            online.partial_fit(X[i : i + 1], y[i : i + 1])
        leaves = np.array([tree.n_leaves() for tree in online.trees_])
        assert abs(two_sample_z(leaves.astype(float), batch.astype(float))) < 4
        assert stats.ks_2samp(leaves, batch).pvalue > 1e-3
        assert stats.mannwhitneyu(leaves, batch).pvalue > 1e-3


def test_min_samples_split_is_checked_and_two_changes_nothing():
    rng = np.random.default_rng(7)
    X, y = rng.random((200, 3)), rng.random(200)
    default = MondrianForestRegressor(n_estimators=3, lifetime="increasing", random_state=0).fit(X, y)
    two = MondrianForestRegressor(n_estimators=3, lifetime="increasing", min_samples_split=2, random_state=0)
    np.testing.assert_array_equal(two.fit(X, y).predict(X), default.predict(X))
    for bad in (1, 0, 2.5, True, "4"):
        with pytest.raises(ValueError, match=r"'min_samples_split' parameter .* an int in the range \[2, inf\)"):
            MondrianForestRegressor(lifetime="increasing", min_samples_split=bad).fit(X, y)
    with pytest.raises(ValueError, match="applies to lifetime='increasing' only"):
        MondrianForestRegressor(lifetime=2.0, min_samples_split=4).fit(X, y)
    with pytest.raises(ValueError, match="min_samples_split=4: the trees being extended were started with"):
        default.set_params(min_samples_split=4).partial_fit(X, y)
