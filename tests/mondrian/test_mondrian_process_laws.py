"""Statistical tests of ``sample_mondrian`` against the exact laws of MP(lam, C) (NOTES.md section 1).

Fixed seeds; means are compared with |mean - exact| < 4 standard errors, laws with scipy
goodness-of-fit or two-sample tests required to give p > 1e-3.
"""

import numpy as np
import pytest
from scipy import stats

from mondrian import sample_mondrian

P_MIN = 1e-3


def draws(lifetime, lower, upper, n, seed0):
    return [sample_mondrian(lifetime, lower, upper, random_state=seed0 + s) for s in range(n)]


def assert_mean(sample, exact, se=None):
    sample = np.asarray(sample, dtype=float)
    if se is None:
        se = sample.std(ddof=1) / np.sqrt(sample.shape[0])
    assert abs(sample.mean() - exact) < 4 * se, (sample.mean(), exact, se)


def assert_frequency(hits, p):
    hits = np.asarray(hits, dtype=float)
    se = np.sqrt(p * (1 - p) / hits.shape[0])
    assert abs(hits.mean() - p) < 4 * se, (hits.mean(), p, se)


def chi2_gof_counts(counts, pmf, min_expected=5.0):
    """Chi-square goodness of fit of integer counts to a pmf on 0, 1, ... (tail pooled into the last bin)."""
    n = len(counts)
    k = 0
    while n * pmf(k) >= min_expected or k < 1:
        k += 1
    probs = np.array([pmf(j) for j in range(k)] + [0.0])
    probs[-1] = 1.0 - probs[:-1].sum()
    observed = np.bincount(np.minimum(counts, k), minlength=k + 1)
    return stats.chisquare(observed, n * probs).pvalue


def cell_of(tree, x):
    leaf = tree.apply(np.asarray(x, dtype=float)[None, :])[0]
    return tree.nodes.box_lower[leaf].copy(), tree.nodes.box_upper[leaf].copy()


@pytest.mark.parametrize(
    ("lifetime", "lower", "upper"),
    [
        (4.0, [0.0], [1.0]),
        (3.0, [0.0, 0.0], [1.0, 1.0]),
        (2.0, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        (1.5, [-1.0, 2.0], [1.5, 2.5]),
        (1.0, [0.0, 3.0, -2.0], [2.0, 3.0, -1.5]),  # a flat side never gets cut
    ],
)
def test_expected_number_of_leaves(lifetime, lower, upper):
    trees = draws(lifetime, lower, upper, 4000, seed0=1000)
    exact = np.prod(1.0 + lifetime * (np.array(upper) - np.array(lower)))
    assert_mean([t.n_leaves() for t in trees], exact)


def test_one_dimensional_cuts_are_a_poisson_process():
    lifetime, a, b = 3.0, -0.5, 1.5
    mean = lifetime * (b - a)
    trees = draws(lifetime, [a], [b], 5000, seed0=2000)
    cuts = [t.arrays()["threshold"][~t.is_leaf()] for t in trees]
    counts = np.array([c.shape[0] for c in cuts])
    np.testing.assert_array_equal(counts + 1, [t.n_leaves() for t in trees])
    # Count ~ Poisson(lam * length): mean, variance (SE from the Poisson fourth moment), whole law.
    assert_mean(counts, mean, se=np.sqrt(mean / counts.shape[0]))
    n = counts.shape[0]
    mu4 = mean * (1 + 3 * mean)
    var_se = np.sqrt((mu4 - (n - 3) / (n - 1) * mean**2) / n)
    assert abs(counts.var(ddof=1) - mean) < 4 * var_se
    assert chi2_gof_counts(counts, stats.poisson(mean).pmf) > P_MIN
    # Positions uniform on the segment, and distinct within a draw.
    positions = np.concatenate(cuts)
    assert stats.kstest(positions, stats.uniform(a, b - a).cdf).pvalue > P_MIN
    assert all(np.unique(c).shape[0] == c.shape[0] for c in cuts)


def truncated_exp_sides(values, lifetime, cap):
    """Check values ~ min(E / lam, cap), E ~ Exp(1); returns their randomized probability transform."""
    atom = values >= cap
    assert np.all(values <= cap)
    assert_frequency(atom, np.exp(-lifetime * cap))
    below = values[~atom]
    mass = 1.0 - np.exp(-lifetime * cap)
    assert stats.kstest(below, lambda t: (1.0 - np.exp(-lifetime * t)) / mass).pvalue > P_MIN
    rng = np.random.default_rng(0)
    u = 1.0 - np.exp(-lifetime * values)
    u[atom] = mass + (1.0 - mass) * rng.random(atom.sum())  # spread the atom uniformly on its cdf jump
    return u


@pytest.mark.parametrize(
    ("lifetime", "x", "lower", "upper"),
    [
        (2.0, [0.3, 0.75], [0.0, 0.0], [1.0, 1.0]),
        (3.0, [0.2, 1.9, -0.5], [0.0, 1.0, -1.0], [0.5, 2.0, 0.0]),
    ],
)
def test_cell_of_a_point_has_independent_truncated_exponential_sides(lifetime, x, lower, upper):
    x, lower, upper = (np.array(v, dtype=float) for v in (x, lower, upper))
    d = x.shape[0]
    n = 4000
    cells = [cell_of(t, x) for t in draws(lifetime, lower, upper, n, seed0=3000)]
    left = np.array([x - low for low, _ in cells])  # x_j - L_j = min(E_j / lam, x_j - a_j)
    right = np.array([up - x for _, up in cells])  # R_j - x_j = min(E'_j / lam, b_j - x_j)
    u = np.column_stack(
        [truncated_exp_sides(left[:, j], lifetime, x[j] - lower[j]) for j in range(d)]
        + [truncated_exp_sides(right[:, j], lifetime, upper[j] - x[j]) for j in range(d)]
    )
    # Independence of the 2d sides: the transformed sides are iid U(0, 1).
    for k in range(2 * d):
        assert stats.kstest(u[:, k], "uniform").pvalue > P_MIN
        for m in range(k):
            assert abs(np.corrcoef(u[:, k], u[:, m])[0, 1]) < 4 / np.sqrt(n)
    assert stats.kstest(u.min(axis=1), stats.beta(1, 2 * d).cdf).pvalue > P_MIN
    assert stats.kstest(u.max(axis=1), stats.beta(2 * d, 1).cdf).pvalue > P_MIN


def test_probability_that_two_points_share_a_cell():
    lifetime = 2.0
    pairs = [
        ([0.2, 0.2], [0.3, 0.25]),
        ([0.5, 0.5], [0.5, 0.9]),
        ([0.1, 0.9], [0.6, 0.4]),
        ([0.0, 0.0], [1.0, 1.0]),
    ]
    trees = draws(lifetime, [0.0, 0.0], [1.0, 1.0], 4000, seed0=4000)
    for x, z in pairs:
        points = np.array([x, z])
        together = [np.unique(t.apply(points)).shape[0] == 1 for t in trees]
        assert_frequency(together, np.exp(-lifetime * np.abs(points[0] - points[1]).sum()))


@pytest.mark.slow  # 6,000 draws: 7 to 17 s on 2 cores
def test_pruning_a_sample_gives_the_law_at_the_smaller_lifetime():
    big, small, d = 5.0, 1.5, 2
    lower, upper = np.zeros(d), np.ones(d)
    x = np.array([0.35, 0.6])
    pruned = [t.pruned(small)[0] for t in draws(big, lower, upper, 3000, seed0=5000)]
    fresh = draws(small, lower, upper, 3000, seed0=6000)
    leaves_pruned = np.array([t.n_leaves() for t in pruned])
    leaves_fresh = np.array([t.n_leaves() for t in fresh])
    assert_mean(leaves_pruned, (1 + small) ** d)
    assert stats.mannwhitneyu(leaves_pruned, leaves_fresh).pvalue > P_MIN
    table = np.array([np.bincount(np.minimum(v, 14), minlength=15) for v in (leaves_pruned, leaves_fresh)])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table).pvalue > P_MIN

    def volume(t):
        low, up = cell_of(t, x)
        return np.prod(up - low)

    assert stats.ks_2samp([volume(t) for t in pruned], [volume(t) for t in fresh]).pvalue > P_MIN
    assert all(np.all(t.arrays()["split_time"][~t.is_leaf()] < small) for t in pruned)


@pytest.mark.parametrize(
    ("d", "lifetime", "n"),
    [
        pytest.param(1, 10.0, 20000, marks=pytest.mark.slow),  # 20,000 draws: 10 to 13 s on 2 cores
        (2, 4.0, 4000),
        (3, 6.0, 4000),
    ],
)
def test_cell_diameter_tail_bound(d, lifetime, n):
    """P(D >= delta) <= d (1 + lam delta / sqrt d) exp(-lam delta / sqrt d) for the cell of an interior x.

    In d = 1 at the centre and lam = 10 the bound is attained up to the truncation at the
    box (probability e^-5), so a sampler with slightly too large cells fails.
    """
    x = np.full(d, 0.5)
    diameters = np.array(
        [
            np.linalg.norm(up - low)
            for low, up in (cell_of(t, x) for t in draws(lifetime, np.zeros(d), np.ones(d), n, 7000))
        ]
    )
    for u in (0.5, 1.0, 2.0, 3.0, 4.0):
        delta = u * np.sqrt(d) / lifetime
        bound = d * (1 + u) * np.exp(-u)
        p = min(bound, 1.0)
        hits = diameters >= delta
        assert hits.mean() <= bound + 4 * np.sqrt(p * (1 - p) / n) + 1e-12, (u, hits.mean(), bound)
    if d == 1:
        # Exact law there: D = min(E, lam/2)/lam + min(E', lam/2)/lam, a truncated Gamma(2, lam) sum.
        e = np.random.default_rng(1).exponential(size=(2, n))
        reference = np.minimum(e / lifetime, 0.5).sum(axis=0)
        assert stats.ks_2samp(diameters, reference).pvalue > P_MIN
