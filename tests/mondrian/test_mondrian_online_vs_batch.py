"""Online growth (partial_fit point by point, LRT14's extension) and batch sampling (fit) give
restricted Mondrian trees with the same law MT(lifetime, data), whatever the order of the data.

Many trees (the trees of one forest are independent), fixed seeds, two-sample tests with
p > 1e-3; where the law is known exactly (d = 1 leaf counts, the root's split time) the
trees are also checked against it.
"""

import numpy as np
import pytest
from scipy import stats

from mondrian import MondrianForestRegressor

P_MIN = 1e-3


def batch_trees(X, lifetime, n_trees, seed):
    model = MondrianForestRegressor(n_estimators=n_trees, lifetime=lifetime, random_state=seed)
    return model.fit(X, np.zeros(X.shape[0])).trees_


def online_trees(X, lifetime, n_trees, seed):
    model = MondrianForestRegressor(n_estimators=n_trees, lifetime=lifetime, random_state=seed)
    for i in range(X.shape[0]):
        model.partial_fit(X[i : i + 1], np.zeros(1))
    return model.trees_


def leaf_counts(trees):
    return np.array([t.n_leaves() for t in trees])


def mean_leaf_depths(trees):
    return np.array([t.depths()[t.leaves()].mean() for t in trees])


def root_split_times(trees):
    return np.array([t.nodes.split_time[t.root] for t in trees])


def chi2_two_sample(a, b, min_count=20):
    """Chi-square test that two integer samples have the same law (adjacent values pooled)."""
    values = np.unique(np.concatenate([a, b]))
    edges = []
    acc = 0
    for v in values:
        acc += np.sum(a == v) + np.sum(b == v)
        if acc >= min_count:
            edges.append(v)
            acc = 0
    if acc and edges:
        edges.pop()  # merge a small last bin into the previous one
    bins = np.searchsorted(np.array(edges), np.concatenate([a, b]), side="left")
    k = len(edges) + 1
    table = np.array([np.bincount(bins[: len(a)], minlength=k), np.bincount(bins[len(a) :], minlength=k)])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 1.0
    return stats.chi2_contingency(table).pvalue


def split_features(trees):
    """Number of splits on each feature, per tree."""
    return np.array(
        [np.bincount(t.arrays()["feature"][~t.is_leaf()], minlength=t.nodes.box_lower.shape[1]) for t in trees]
    )


def assert_same_law(batch, online):
    features_b, features_o = split_features(batch), split_features(online)
    share_b = features_b[:, 0] / np.maximum(features_b.sum(axis=1), 1)
    share_o = features_o[:, 0] / np.maximum(features_o.sum(axis=1), 1)
    assert stats.ks_2samp(share_b, share_o).pvalue > P_MIN, (share_b.mean(), share_o.mean())
    assert stats.chi2_contingency([features_b.sum(axis=0), features_o.sum(axis=0)]).pvalue > P_MIN
    counts_b, counts_o = leaf_counts(batch), leaf_counts(online)
    depth_b, depth_o = mean_leaf_depths(batch), mean_leaf_depths(online)
    assert chi2_two_sample(counts_b, counts_o) > P_MIN, (counts_b.mean(), counts_o.mean())
    assert stats.mannwhitneyu(counts_b, counts_o).pvalue > P_MIN
    assert stats.ks_2samp(depth_b, depth_o).pvalue > P_MIN, (depth_b.mean(), depth_o.mean())
    assert stats.mannwhitneyu(depth_b, depth_o).pvalue > P_MIN


def points_2d(n, seed):
    return np.random.default_rng(seed).random((n, 2)) * [1.0, 2.0]


@pytest.mark.parametrize(
    ("lifetime", "n_points", "order"),
    [
        pytest.param(2.0, 200, "given", marks=pytest.mark.slow),  # 11 s on 2 cores; lifetime 5 stays
        (5.0, 100, "given"),
        (5.0, 100, "permuted"),
        (5.0, 50, "sorted"),
    ],
)
def test_online_and_batch_trees_have_the_same_law(lifetime, n_points, order):
    X = points_2d(n_points, seed=11)
    batch = batch_trees(X, lifetime, 600, seed=1)
    if order == "permuted":
        X = X[np.random.default_rng(5).permutation(n_points)]
    elif order == "sorted":
        X = X[np.argsort(X[:, 0] + X[:, 1])]  # the most adversarial order for an online learner
    online = online_trees(X, lifetime, 600, seed=2)
    assert_same_law(batch, online)
    # The root's split: time Exp(linear dimension of the data range), no split after the lifetime,
    # feature chosen with probability proportional to the side of the range.
    sides = np.ptp(X, axis=0)
    rate = sides.sum()
    for trees in (batch, online):
        times = root_split_times(trees)
        split = times < np.inf
        assert abs(split.mean() - (1 - np.exp(-rate * lifetime))) < 4 * np.sqrt(0.25 / len(trees))
        truncated = stats.truncexpon(b=rate * lifetime, scale=1 / rate)
        assert stats.kstest(times[split], truncated.cdf).pvalue > P_MIN
        on_first = np.array([t.nodes.feature[t.root] == 0 for t in trees])[split]
        p_first = sides[0] / rate
        assert abs(on_first.mean() - p_first) < 4 * np.sqrt(p_first * (1 - p_first) / on_first.shape[0])


@pytest.mark.slow  # 4 x 1,500 trees, half grown point by point: 13 to 24 s each on 2 cores
@pytest.mark.parametrize("lifetime", [0.7, 3.0])
def test_one_dimensional_leaf_counts_match_the_exact_law(lifetime):
    """In d = 1 a gap g between consecutive distinct points is cut with probability 1 - exp(-lam g),
    independently of the other gaps: #leaves = 1 + a sum of independent Bernoullis; the threshold
    of a cut is uniform on its gap."""
    rng = np.random.default_rng(3)
    X = np.round(rng.random((40, 1)) * 2.0, 2)  # with repeated values
    values = np.unique(X[:, 0])
    gaps = np.diff(values)
    p_cut = 1 - np.exp(-lifetime * gaps)
    exact_mean = 1 + p_cut.sum()
    exact_se = np.sqrt((p_cut * (1 - p_cut)).sum())
    n_trees = 1500
    for order in range(2):
        Xo = X if order == 0 else X[rng.permutation(X.shape[0])]
        for trees in (
            batch_trees(Xo, lifetime, n_trees, seed=10 + order),
            online_trees(Xo, lifetime, n_trees, 20 + order),
        ):
            counts = leaf_counts(trees)
            assert abs(counts.mean() - exact_mean) < 4 * exact_se / np.sqrt(n_trees), (
                counts.mean(),
                exact_mean,
            )
            # Sample variance: its SE from the fourth cumulant of the Bernoulli sum.
            variance = exact_se**2
            kappa4 = (p_cut * (1 - p_cut) * (1 - 6 * p_cut * (1 - p_cut))).sum()
            assert abs(counts.var(ddof=1) - variance) < 4 * np.sqrt((kappa4 + 2 * variance**2) / n_trees)
            thresholds = np.concatenate([t.arrays()["threshold"][~t.is_leaf()] for t in trees])
            gap = np.searchsorted(values, thresholds, side="right")  # gap (values[gap-1], values[gap])
            assert np.all((gap >= 1) & (gap < values.shape[0]))
            position = (thresholds - values[gap - 1]) / (values[gap] - values[gap - 1])
            assert stats.kstest(position, "uniform").pvalue > P_MIN
            cut_gaps = np.bincount(gap - 1, minlength=gaps.shape[0]) / n_trees
            assert np.all(np.abs(cut_gaps - p_cut) < 4 * np.sqrt(p_cut * (1 - p_cut) / n_trees) + 1e-12)


def test_infinite_lifetime_leaves_hold_one_distinct_point_in_both_modes():
    rng = np.random.default_rng(4)
    distinct = rng.random((30, 2))
    X = distinct[rng.integers(0, 30, size=80)]  # duplicates
    n_distinct = np.unique(X, axis=0).shape[0]
    batch = batch_trees(X, np.inf, 300, seed=5)
    online = online_trees(X, np.inf, 300, seed=6)
    for trees in (batch, online):
        for t in trees:
            leaves = t.apply(X)
            assert np.unique(leaves).shape[0] == n_distinct == t.n_leaves()
            for leaf in np.unique(leaves):
                pts = X[leaves == leaf]
                assert np.all(pts == pts[0])
    # Same law of the shape too (the splits are the whole Mondrian process restricted to the data).
    depth_b, depth_o = mean_leaf_depths(batch), mean_leaf_depths(online)
    assert stats.ks_2samp(depth_b, depth_o).pvalue > P_MIN
    rate = np.ptp(X, axis=0).sum()
    for trees in (batch, online):
        assert stats.kstest(root_split_times(trees), stats.expon(scale=1 / rate).cdf).pvalue > P_MIN


def test_batching_of_partial_fit_calls_does_not_change_the_law():
    """Online in chunks after a batch start: 30 points by fit, the rest by partial_fit in chunks of 7."""
    X = points_2d(100, seed=12)
    lifetime = 5.0
    batch = batch_trees(X, lifetime, 600, seed=3)
    model = MondrianForestRegressor(n_estimators=600, lifetime=lifetime, random_state=4).fit(X[:30], np.zeros(30))
    for start in range(30, 100, 7):
        model.partial_fit(X[start : start + 7], np.zeros(X[start : start + 7].shape[0]))
    assert_same_law(batch, model.trees_)
