"""Gaussian forecaster kernels: the regressor's ``prediction="gaussian"``, LRT16's hierarchical Gaussian prior over
the node means and its predictive distribution.

Model (LRT16). The node means along a tree follow a Brownian motion in the time s(t) = sigma_mu^2 *
sigmoid(gamma * t) of the Mondrian's split times: the root mean is N(m, phi_root) and a child's N(parent's mean,
phi_j) with phi_j = s(tau_j) - s(tau_parent(j)) (tau_j = the lifetime at a leaf of the tree pruned at it); the
motion starts from m at s = 0 (t = -inf), phi_root = s(tau_root), so that a leaf's mean has prior variance
s(lifetime), sigma_mu^2 with an infinite lifetime (this library's reading: see ``_s_above``); a label in leaf l is
N(mu_l, sigma_y^2).

Posterior (exact Gaussian belief propagation on the tree). Upward, children first: a leaf with n points of label
sum S tells its mean precision P = n / sigma_y^2 around M = S / n; a node sends its parent the precision
q = P / (1 + P phi) around M (the message through the Brownian increment phi), and an internal node's (P, M) is
the product of its children's messages. Downward, parents first: the ``cavity`` of node j is the law of its
parent's mean given every label outside j's subtree (the root's: m exactly, variance 0); j's prior given those
labels is N(cavity mean, cavity variance + phi_j), and its posterior that times its own (P, M).

Prediction at x (LRT16): x's path is walked as the path rule walks it (``_ikn.separate``,
``_ikn.time_above``): an extension of the tree to x branches off just above node j of the path with probability
P(no branching higher up) * (1 - exp(-eta_j Delta_j)), eta_j how far x lies outside j's box. Branching there
inserts a new node j' between parent(j) and j at a time t in (tau_parent(j), tau_j), with x alone in a new leaf
below it. The Brownian motion splits the edge into two increments, s(t) - s(tau_parent) above j' and s(tau_j) - s(t)
below, so the rest of the model is unchanged: j' has prior N(cavity mean of j, cavity variance of j + s(t) -
s(tau_parent)) and hears j's subtree through the increment s(tau_j) - s(t); x's leaf mean adds s(lifetime) - s(t)
and a label sigma_y^2. t is the expected branching time, tau_parent + E[E | E < Delta] with E ~ Exp(eta) (the
choice of this library, as LRT14's IKN takes the expected discount: the exact law, a mixture over t, is not
Gaussian). Without branching x falls in its leaf: its posterior plus sigma_y^2. A tree's predictive is the mixture
of these Gaussians; ``predict`` adds its mean and its second moment about m.

The trees and their learning are the leaf mean's (only predictions differ); the leaves' statistics (count, label
sum) are all the posterior reads. ``params`` = (sigma_y^2, sigma_mu^2, m, gamma) as float64 (``kernel_params``);
gamma <= 0 means the default, ``DEFAULT_GAMMA`` times the sum of the root box's sides (the rate of the root's split
time: gamma * E[tau_root] = ``DEFAULT_GAMMA``).
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

# The default gamma over the rate of the root's split time (the sum of the root box's sides): this library's choice,
# the best of 1, 0.1 and 0.01 in test R^2 and log-likelihood on sin(6 x) in 1 and 2 features, Friedman #1 and the
# diabetes data (half for training, 10 trees).
DEFAULT_GAMMA = 0.1


def kernel_params(noise_variance: float, prior_variance: float, prior_mean: float, gamma: float) -> np.ndarray:
    """(sigma_y^2, sigma_mu^2, m, gamma): positive variances, a finite mean, gamma > 0 (0: the root box's default)."""
    return np.array([noise_variance, prior_variance, prior_mean, gamma], dtype=np.float64)


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
def _s(t, params, gamma):
    """s(t) = sigma_mu^2 * sigmoid(gamma t), the Brownian motion's time at split time t (sigma_mu^2 at t = inf)."""
    return params[1] / (1.0 + np.exp(-gamma * t))


@kernel(inline="always")
def _s_above(parent, s_time, j):
    """s(tau_parent(j)) (``s_time``: s(tau) of every node), 0 at the root: the motion starts from m at s = 0, so that
    the root's mean has prior variance s(tau_root) >= sigma_mu^2 / 2 and a leaf's s(lifetime), sigma_mu^2 with an
    infinite lifetime (the labels' variance by default); s(0) at the root would leave a leaf s(lifetime) -
    sigma_mu^2 / 2, nearly nothing with a short lifetime."""
    p = parent[j]
    return 0.0 if p == NO_NODE else s_time[p]


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
def _root_gamma(tree, params):
    """gamma: the parameter, or (<= 0) ``DEFAULT_GAMMA`` times the sum of the root box's sides (1 for a box of one
    point)."""
    if params[3] > 0.0:
        return params[3]
    root = tree.root[0]
    total = 0.0
    for d in range(tree.box_lower.shape[1]):
        total += tree.box_upper[root, d] - tree.box_lower[root, d]
    return DEFAULT_GAMMA * total if total > 0.0 else 1.0


@kernel
def posteriors(tree, stats, lifetime, params, gamma, s_time, precision, mean, cavity_mean, cavity_variance, order):
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
        s_time[node] = _s(_node_time(left, split_time, node, lifetime), params, gamma)
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
        prior_variance = cavity_variance[j] + s_time[j] - _s_above(parent, s_time, j)
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
def add_moments(tree, x, lifetime, params, gamma, s_time, precision, mean, cavity_mean, cavity_variance, path, out):
    """out[0] += the tree's predictive mean at x, and out[1] (if there) its second moment about m (the tables are
    ``posteriors``'; ``path`` is scratch room)."""
    parent, split_time = tree.parent, tree.split_time
    lower, upper = tree.box_lower, tree.box_upper
    noise, center = params[0], params[2]
    s_end = _s(lifetime, params, gamma)
    n = path_of(tree, x, lifetime, path)
    not_separated = 1.0
    total_mean = 0.0
    total_second = 0.0
    for i in range(first_outside(lower, upper, path, n, x), n):  # eta > 0 from there on: the boxes are nested
        j = path[i]
        leaf = i == n - 1
        delta = time_above(parent, split_time, j, leaf, lifetime)
        eta = extension_rate(lower, upper, j, x)
        weight, not_separated = separate(eta, delta, not_separated)
        if weight > 0.0:
            tau_parent = parent_time(parent, split_time, j)
            t = tau_parent + min(_truncated_mean(eta, delta), delta)
            s_t = _s(t, params, gamma)
            above = cavity_variance[j] + s_t - _s_above(parent, s_time, j)
            m, v = _combine(cavity_mean[j], above, _message(precision[j], s_time[j] - s_t), mean[j])
            v += s_end - s_t + noise
            total_mean += weight * m
            total_second += weight * (v + (m - center) ** 2)
    if not_separated > 0.0:  # x in its leaf: the leaf's posterior
        j = path[n - 1]
        prior = cavity_variance[j] + s_time[j] - _s_above(parent, s_time, j)
        m, v = _combine(cavity_mean[j], prior, precision[j], mean[j])
        v += noise
        total_mean += not_separated * m
        total_second += not_separated * (v + (m - center) ** 2)
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
    gamma = _root_gamma(tree, params)
    posteriors(tree, stats, lifetime, params, gamma, s_time, precision, mean, cavity_mean, cavity_variance, path)
    for i in range(X.shape[0]):
        add_moments(tree, X[i], lifetime, params, gamma, s_time, precision, mean, cavity_mean, cavity_variance, path,
                    out[i])  # fmt: skip
