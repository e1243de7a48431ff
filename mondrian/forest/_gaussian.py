"""Gaussian forecaster kernels: the regressor's ``prediction="gaussian"``, LRT16's hierarchical Gaussian prior over
the node means and its predictive distribution.

Model (LRT16). The node means along a tree follow a Brownian motion in the time s(t) = sigma_mu^2 *
sigmoid(gamma * t) of the Mondrian's split times: the root mean is N(m, phi_root) and a child's N(parent's mean,
phi_j) with phi_j = s(tau_j) - s(tau_parent(j)) (tau_j = the lifetime at a leaf of the tree pruned at it,
tau_parent(root) = 0: phi_root = s(tau_root) - sigma_mu^2 / 2); a label in leaf l is N(mu_l, sigma_y^2). LRT16's
text on the model is not reachable offline: these are the formulas of the authors' code (balajiln/mondrianforest,
``optype=real``).

Posterior (exact Gaussian belief propagation on the tree). Upward, children first: a leaf with n points of label
sum S tells its mean precision P = n / sigma_y^2 around M = S / n; a node sends its parent the precision
q = P / (1 + P phi) around M (the message through the Brownian increment phi), and an internal node's (P, M) is
the product of its children's messages. Downward, parents first: the ``cavity`` of node j is the law of its
parent's mean given every label outside j's subtree (the root's: m exactly, variance 0); j's prior given those
labels is N(cavity mean, cavity variance + phi_j), and its posterior that times its own (P, M).

Prediction at x: x's path is walked as the path rule walks it (``_ikn.separate``, ``_ikn.time_above``): an extension
of the tree to x branches off just above node j of the path with probability P(no branching higher up) *
(1 - exp(-eta_j Delta_j)), eta_j how far x lies outside j's box, at a time t = tau_parent(j) + E[E | E < Delta_j]
with E ~ Exp(eta_j) (the truncated exponential's mean). x is then predicted, as the authors' code does, by node j's
posterior with the variance s(t) - s(tau_parent(j)) added (the new node's increment from the parent, at the
expected time: the code's approximation, E[s(t)] != s(E[t])) and sigma_y^2. Or (``exact``, this library's reading,
beside the code's): the exact law of x's new leaf given t: the Brownian motion splits the edge above j into s(t) -
s(tau_parent) and s(tau_j) - s(t), so a new node j' has prior N(cavity mean of j, cavity variance of j + s(t) -
s(tau_parent)) and hears j's subtree through s(tau_j) - s(t); x's leaf adds s(lifetime) - s(t), then sigma_y^2. The
code's law centres x on j's posterior, the root's far from the data (x branching off near the root), a small variance;
the exact law there is the prior's. Without branching x falls in its leaf: its posterior plus sigma_y^2. A tree's
predictive is the mixture of these Gaussians; ``predict`` adds its mean and its second moment about m.

The trees and their learning are the leaf mean's (only predictions differ); the leaves' statistics (count, label
sum) are all the posterior reads. ``params`` = (sigma_y^2, sigma_mu^2, m, gamma, exact) as float64
(``kernel_params``).
"""

import numpy as np

from mondrian import _leaf_mean
from mondrian._compile import kernel
from mondrian._extend import extension_rate, first_outside
from mondrian._nodes import NO_NODE, is_leaf, parent_time
from mondrian._route import path_of
from mondrian.forest._ikn import separate, time_above

# The trees and their learning are the leaf mean's: only predictions differ.
n_stats = _leaf_mean.n_stats
learn = _leaf_mean.learn
weights_refused = _leaf_mean.weights_refused  # a leaf's count and label sum are then weighted ones

# The authors' code's bound on K in its default noise variance var(y) / K, K = min(2 n, 500)
MAX_NOISE_DIVISOR = 500.0
# The largest |label| the Gaussian rule learns: their squares, summed, stay finite (as AMF's bound)
MAX_LABEL = 1e150


def learn_label_moments(forest, targets: np.ndarray, weights: np.ndarray | None) -> None:
    """Add the labels learnt (of ``weights``, None: all one) to ``forest.label_moments_`` (the data-dependent m and
    sigma_mu^2 read them), one after the other in a kernel: the same floats whatever the chunks. A new array, so that
    a failed call restores the previous one; nan (unknown) for trees learnt before the forest kept them."""
    moments = getattr(forest, "label_moments_", None)
    if moments is None:
        moments = np.full(3, np.nan) if hasattr(forest, "trees_") else np.zeros(3)
    moments = moments.copy()
    label_moments(moments, targets, np.ones(targets.shape[0]) if weights is None else weights)
    forest.label_moments_ = moments


def forest_params(forest) -> np.ndarray:
    """The kernels' parameters from the forest's ``prior_mean``, ``prior_variance``, ``noise_variance``, ``gamma``
    and ``branch_law`` or, as the authors' code sets them, from the n labels learnt (their weight), of mean m and
    variance v (1 if it is 0): with K = min(2n, 500), sigma_y^2 = v / K, sigma_mu^2 = 2 v K / (K + 2) and
    gamma = d / (2 log2 n) (n at least 2)."""
    weight, mean, m2 = getattr(forest, "label_moments_", np.full(3, np.nan))
    if np.isnan(weight):
        raise ValueError(
            "prediction='gaussian' reads the mean and variance of the labels learnt, which a model pickled before "
            "it does not hold: fit it again"
        )
    if not np.isfinite(m2):
        raise ValueError(
            f"prediction='gaussian' needs labels within +-{MAX_LABEL:.3g} (it squares them), but these trees learnt "
            "larger ones: scale y and fit again"
        )
    variance = m2 / weight if m2 > 0.0 else 1.0
    k = min(2.0 * weight, MAX_NOISE_DIVISOR)
    prior_variance = 2.0 * variance * k / (k + 2.0) if forest.prior_variance is None else float(forest.prior_variance)
    noise = variance / k if forest.noise_variance is None else float(forest.noise_variance)
    prior_mean = mean if forest.prior_mean is None else float(forest.prior_mean)
    gamma = forest.n_features_in_ / (2.0 * np.log2(max(weight, 2.0))) if forest.gamma is None else float(forest.gamma)
    return kernel_params(noise, prior_variance, prior_mean, gamma, forest.branch_law == "exact")


def predictive_center(params: np.ndarray) -> float:
    """m: ``predict`` adds the trees' second moments about it (a forest with a predictive distribution)."""
    return float(params[2])


def kernel_params(
    noise_variance: float, prior_variance: float, prior_mean: float, gamma: float, exact: bool = False
) -> np.ndarray:
    """(sigma_y^2, sigma_mu^2, m, gamma, exact): positive variances, a finite mean, a positive gamma; ``exact``: x
    branching off above node j is predicted by the exact law of its new leaf (``add_moments``)."""
    return np.array([noise_variance, prior_variance, prior_mean, gamma, float(exact)], dtype=np.float64)


@kernel
def label_moments(moments, y, w):
    """The weighted count, mean and sum of squared deviations of the labels learnt, ``moments`` = (W, mean, M2)
    updated in place with the labels y of weights w, one after the other (West's weighted form of Welford's
    recurrence): the same floats whatever the chunks the labels come in."""
    total, mean, m2 = moments[0], moments[1], moments[2]
    for i in range(y.shape[0]):
        total += w[i]
        d = y[i] - mean
        mean += d * (w[i] / total)
        m2 += w[i] * d * (y[i] - mean)
    moments[0], moments[1], moments[2] = total, mean, m2


@kernel(inline="always")
def _s(t, params):
    """s(t) = sigma_mu^2 * sigmoid(gamma t), the Brownian motion's time at split time t (sigma_mu^2 at t = inf)."""
    return params[1] / (1.0 + np.exp(-params[3] * t))


@kernel(inline="always")
def _s_above(parent, s_time, j, params):
    """s(tau_parent(j)) (``s_time``: s(tau) of every node); s(0) = sigma_mu^2 / 2 at the root (tau_parent(root) = 0)."""
    p = parent[j]
    return 0.5 * params[1] if p == NO_NODE else s_time[p]


@kernel(inline="always")
def _node_time(left, split_time, j, lifetime):
    """tau_j: the split time, the lifetime at a leaf of the tree pruned at it."""
    return lifetime if is_leaf(left, split_time, j, lifetime) else split_time[j]


@kernel(inline="always")
def _message(precision, increment):
    """The precision P / (1 + P phi) a node with precision P tells its parent through the increment phi."""
    return precision / (1.0 + precision * increment)


@kernel(inline="always")
def _combine(mean_a, variance_a, precision_b, mean_b):
    """The product of N(mean_a, variance_a) and a message of precision ``precision_b`` around ``mean_b``: (mean,
    variance). A variance 0 (the root's parent: m exactly) wins."""
    if variance_a == 0.0:
        return mean_a, 0.0
    precision = 1.0 / variance_a + precision_b
    if precision_b == 0.0:
        return mean_a, variance_a
    return (mean_a / variance_a + precision_b * mean_b) / precision, 1.0 / precision


@kernel
def posteriors(tree, stats, lifetime, params, s_time, precision, mean, cavity_mean, cavity_variance, order):
    """Belief propagation over the tree pruned at ``lifetime``: for every node j, ``s_time[j]`` = s(tau_j),
    ``precision[j]`` and ``mean[j]`` what its subtree's labels tell of its mean, ``cavity_mean[j]`` and
    ``cavity_variance[j]`` the law of its parent's mean given the labels outside its subtree. ``order`` is scratch
    room of the tree's size."""
    left, right, split_time, parent = tree.left, tree.right, tree.split_time, tree.parent
    noise = params[0]
    order[0] = tree.root[0]  # breadth first: a node comes after its parent
    filled = 1
    i = 0
    while i < filled:
        node = order[i]
        i += 1
        s_time[node] = _s(_node_time(left, split_time, node, lifetime), params)
        if not is_leaf(left, split_time, node, lifetime):
            order[filled] = left[node]
            order[filled + 1] = right[node]
            filled += 2
    for i in range(filled - 1, -1, -1):  # upward: children first
        j = order[i]
        if is_leaf(left, split_time, j, lifetime):
            count = stats[j, 0]
            precision[j] = count / noise
            mean[j] = stats[j, 1] / count if count > 0.0 else 0.0
        else:
            a, b = left[j], right[j]
            qa = _message(precision[a], s_time[a] - s_time[j])
            qb = _message(precision[b], s_time[b] - s_time[j])
            precision[j] = qa + qb
            mean[j] = (qa * mean[a] + qb * mean[b]) / precision[j] if precision[j] > 0.0 else 0.0
    root = order[0]
    cavity_mean[root], cavity_variance[root] = params[2], 0.0
    for i in range(filled):  # downward: parents first
        j = order[i]
        if is_leaf(left, split_time, j, lifetime):
            continue
        prior_variance = cavity_variance[j] + s_time[j] - _s_above(parent, s_time, j, params)
        for child, other in ((left[j], right[j]), (right[j], left[j])):
            q = _message(precision[other], s_time[other] - s_time[j])
            cavity_mean[child], cavity_variance[child] = _combine(cavity_mean[j], prior_variance, q, mean[other])


@kernel(inline="always")
def _truncated_mean(eta, delta):
    """E[E | E < delta] for E ~ Exp(eta): 1 / eta - delta / (exp(eta delta) - 1), 1 / eta when delta = inf (a
    series near eta delta = 0, where the difference cancels)."""
    if delta == np.inf:
        return 1.0 / eta
    r = eta * delta
    if r < 1e-4:
        return delta * (0.5 - r / 12.0)
    return 1.0 / eta - delta / np.expm1(r)


@kernel
def add_moments(tree, x, lifetime, params, s_time, precision, mean, cavity_mean, cavity_variance, path, out):
    """out[0] += the tree's predictive mean at x, and out[1] (if there) its second moment about m (the tables are
    ``posteriors``'; ``path`` is scratch room)."""
    parent, split_time = tree.parent, tree.split_time
    lower, upper = tree.box_lower, tree.box_upper
    noise, center = params[0], params[2]
    s_end = _s(lifetime, params)
    n = path_of(tree, x, lifetime, path)
    not_separated = 1.0
    total_mean = 0.0
    total_second = 0.0
    for i in range(first_outside(lower, upper, path, n, x), n + 1):  # eta > 0 from there on: the boxes are nested
        j = path[min(i, n - 1)]  # i = n: x not separated down to its leaf, the leaf's posterior
        s_above = _s_above(parent, s_time, j, params)
        m, v = _combine(cavity_mean[j], cavity_variance[j] + s_time[j] - s_above, precision[j], mean[j])
        if i == n:
            weight = not_separated
        else:
            delta = time_above(parent, split_time, j, i == n - 1, lifetime)
            eta = extension_rate(lower, upper, j, x)
            weight, not_separated = separate(eta, delta, not_separated)
            if weight > 0.0:
                t = parent_time(parent, split_time, j) + min(_truncated_mean(eta, delta), delta)
                s_t = _s(t, params)
                if params[4] > 0.0:  # the new node j' at t: its prior and j's subtree heard through s(tau_j) - s(t)
                    above = cavity_variance[j] + s_t - s_above
                    m, v = _combine(cavity_mean[j], above, _message(precision[j], s_time[j] - s_t), mean[j])
                    v += s_end - s_t  # x's new leaf below j', at the lifetime
                else:
                    v += s_t - s_above
        if weight > 0.0:
            total_mean += weight * m
            total_second += weight * (v + noise + (m - center) ** 2)
    out[0] += total_mean
    if out.shape[0] > 1:
        out[1] += total_second


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i, 0] += the tree's predictive mean at X[i]; out[i, 1] += its second moment about m if out has that
    column. The posterior tables are computed once for the call."""
    if tree.root[0] == NO_NODE:
        return
    n_nodes = tree.n_nodes[0]
    s_time, precision, mean = np.empty(n_nodes), np.empty(n_nodes), np.empty(n_nodes)
    cavity_mean, cavity_variance = np.empty(n_nodes), np.empty(n_nodes)
    path = np.empty(n_nodes, np.int64)
    posteriors(tree, stats, lifetime, params, s_time, precision, mean, cavity_mean, cavity_variance, path)
    for i in range(X.shape[0]):
        add_moments(tree, X[i], lifetime, params, s_time, precision, mean, cavity_mean, cavity_variance, path, out[i])
