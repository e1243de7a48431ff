"""IKN forecaster kernels (LRT14, section 4 and 5): each node's label distribution G_j is the posterior mean of a
hierarchical normalized stable process (HNSP) over the tree, approximated by interpolated Kneser-Ney (IKN)
smoothing; a test point outside the data ranges on its path is predicted by averaging over the tree's extensions
to it, analytically. Classification only (``onehot`` True, labels are class indices 0..K-1).

Node statistics, one row per node: column 0 the number of points the node has seen, columns 1..K its IKN counts
c_k: the label counts at a leaf, at an internal node the sum of its children's tables t_k = min(c_k, 1) (each child
sends at most one customer per label up). At leaves the columns are the label counts that ``extend``'s pure-leaf
test reads. With a finite lifetime the leaves are the nodes of the tree pruned at it; nodes below are not visited.

Posterior mean at node j, with discount d_j = exp(-gamma (tau_j - tau_parent(j))) and tau_j = the lifetime at a
leaf (so d = 0 at the leaves of a tree with lifetime inf, and everywhere when gamma = inf):
G_j(k) = (c_k - d_j t_k + d_j t G_parent(j)(k)) / c with c = sum c_k, t = sum t_k, G_parent(root) uniform; a node
with c = 0 (it has seen no point) takes G_parent(j).

Prediction at x (the formulas of the authors' code, NOTES section 2) walks x's root-to-leaf path. At node j, x
lies eta = sum_d (l_jd - x_d)_+ + (x_d - u_jd)_+ outside j's data range, and an extension of the tree to x splits
just above j, at tau_parent(j) + E with E ~ Exp(eta), with probability p_sep = 1 - exp(-eta Delta), Delta =
tau_j - tau_parent(j) (inf at a leaf of a tree with lifetime inf: p_sep = 1 there). x then sits in a new leaf
below a new node given j's counts (the authors' choice; IKN would give it j's tables, x's leaf holding no label),
the base G_parent(j) and the expected discount dbar = E[exp(-gamma E) | E < Delta]; its posterior G_new weighs
P(no split higher up) * p_sep. Without a split on the path, x gets G_leaf.

``params`` = (gamma,) as float64: gamma > 0 the discount rate (LRT14: 10 * n_features, inf allowed). The first batch
into an empty tree is sampled at once (``sample_block``). LRT14's paused blocks, which need the leaves' points, are
in ``_paused``.
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._extend import SPLIT_LEAVES, extend, extend_along, extension_rate, first_outside, path_after
from mondrian._nodes import NO_NODE, add_node, capacity, is_leaf, parent_time
from mondrian._process import batch_fits, sample_block
from mondrian._route import path_of

# IKN's counts are customers of a Chinese restaurant process, each child sending one per label up (its tables
# t = min(c, 1)): its law has no fractional customer, so it takes no sample weights.
weights_refused = "IKN's counts are the customers of a Chinese restaurant process, which a weight cannot scale"

# A batch prediction computes every node's posterior once when it has at least one point per 16 nodes (a path
# visits about 20 nodes: below that, the nodes on the points' paths are fewer than the tree's).
TABLE_POINTS_PER_NODE = 16


def n_stats(n_outputs: int) -> int:
    return 1 + n_outputs


def kernel_params(gamma: float) -> np.ndarray:
    """(gamma,): gamma > 0 the HNSP discount rate (inf: no smoothing, d = 0 at every node)."""
    gamma = float(gamma)
    if not gamma > 0.0:
        raise ValueError(f"gamma must be positive (inf allowed), got {gamma!r}")
    return np.array([gamma])


@kernel
def _discount(gamma, delta):
    """d = exp(-gamma * delta); 0 when gamma = inf (also for delta = 0, where the product is undefined)."""
    return 0.0 if gamma == np.inf else np.exp(-gamma * delta)


@kernel
def _expected_discount(eta, gamma, delta):
    """E[exp(-gamma E) | E < delta] for E ~ Exp(eta): the mean discount of a new node inserted at tau_parent + E.
    eta / (eta + gamma) * (1 - exp(-(eta + gamma) delta)) / (1 - exp(-eta delta)), eta / (eta + gamma) when
    delta = inf; needs eta delta > 0."""
    if gamma == np.inf:
        return 0.0
    if eta + gamma == np.inf:  # x infinitely far in the trees' precision: E = 0, no discount (and no inf / inf)
        return 1.0
    return eta / (eta + gamma) * np.expm1(-(eta + gamma) * delta) / np.expm1(-eta * delta)


@kernel
def _posterior(stats, node, discount, base, out):
    """out = the IKN posterior mean of a node with the counts of ``node``, discount d and base G_parent:
    (c_k - d t_k + d t base_k) / c; the base itself when c = 0."""
    m = out.shape[0]
    customers = 0.0
    tables = 0.0
    for k in range(m):
        c = stats[node, 1 + k]
        customers += c
        tables += min(c, 1.0)
    if customers == 0.0:
        for k in range(m):
            out[k] = base[k]
        return
    share = discount * tables
    for k in range(m):
        c = stats[node, 1 + k]
        out[k] = (c - discount * min(c, 1.0) + share * base[k]) / customers


@kernel(inline="always")
def time_above(parent, split_time, j, leaf, lifetime):
    """Delta_j = tau_j - tau_parent(j), the time over which an extension of the tree may split just above node j
    (tau_j = the lifetime at a leaf of the tree pruned at it). Shared with the regressor's path rule
    (``_path_mean``)."""
    return (lifetime if leaf else split_time[j]) - parent_time(parent, split_time, j)


@kernel(inline="always")
def separate(eta, delta, not_separated):
    """One node j of x's path: an extension of the tree to x, eta outside j's range, splits just above j with
    probability p_sep = 1 - exp(-eta delta) (delta = ``time_above``). Returns (P(no split higher up) * p_sep, the
    weight of x being separated there; P(no split up to j)); (0, not_separated) when p_sep is 0 (eta delta = 0).
    Shared with the regressor's path rule (``_path_mean``)."""
    p_separated = -np.expm1(-eta * delta)
    if p_separated > 0.0:
        return not_separated * p_separated, not_separated * np.exp(-eta * delta)
    return 0.0, not_separated


@kernel
def _add_separated(stats, j, eta, gamma, delta, base, g, not_separated, out):
    """out += P(no split higher up) * p_sep * G_new (``separate``): x, separated just above j, sits below a new node
    with j's counts, base G_parent(j) (``base``) and the expected discount (``g`` is scratch); returns P(no split up
    to j)."""
    weight, not_separated = separate(eta, delta, not_separated)
    if weight > 0.0:
        _posterior(stats, j, _expected_discount(eta, gamma, delta), base, g)
        for k in range(out.shape[0]):
            out[k] += weight * g[k]
    return not_separated


@kernel
def add_prediction(tree, stats, x, lifetime, gamma, path, base, g, out):
    """out += the tree's prediction at x, averaged over the extensions of the tree to x; the model is unchanged.
    ``base`` and ``g`` are scratch rows of K entries. Leaves x's root-to-leaf path in ``path``; returns its length."""
    parent, split_time = tree.parent, tree.split_time
    lower, upper = tree.box_lower, tree.box_upper
    m = out.shape[0]
    n = path_of(tree, x, lifetime, path)
    base[:] = 1.0 / m  # G_parent(root): uniform over the classes
    not_separated = 1.0
    outside = first_outside(lower, upper, path, n, x)  # eta = 0 above: the boxes there hold x
    for i in range(n):
        j = path[i]
        delta = time_above(parent, split_time, j, i == n - 1, lifetime)
        eta = extension_rate(lower, upper, j, x) if i >= outside else 0.0
        if eta > 0.0:
            not_separated = _add_separated(stats, j, eta, gamma, delta, base, g, not_separated, out)
            if not_separated == 0.0:
                return n
        _posterior(stats, j, _discount(gamma, delta), base, g)
        base, g = g, base
    for k in range(m):
        out[k] += not_separated * base[k]
    return n


@kernel
def _seat(stats, path, n, label):
    """Count a point of class ``label`` at the leaf path[n - 1] and at its ancestors path[:n - 1]: every node's
    column 0 grows; the label's IKN count grows at the leaf, then at each parent as long as the child below opened a
    new table (its count of the label was 0), so only the counts whose tables change are touched."""
    new_table = True
    for i in range(n - 1, -1, -1):
        node = path[i]
        stats[node, 0] += 1.0
        if new_table:
            new_table = stats[node, label] == 0.0
            stats[node, label] += 1.0


@kernel
def learn_one(tree, stats, x, y, lifetime, leaf_rule, rng, path, n):
    """Extend the tree by (x, y) and keep every IKN count exact. A new parent p above j (``extend`` copied j's row
    to it) gets c(p) = t(j) + t(new leaf): j's tables here, x's table through ``_seat``. path[:n] is x's
    root-to-leaf path when the caller has routed x already (n = 0: not yet); the counts are seated along it (the
    path held in cache, not the parent links). Returns x's leaf."""
    n_before = tree.n_nodes[0]
    if n == 0 and tree.root[0] != NO_NODE:
        n = path_of(tree, x, lifetime, path)
    if n == 0:
        leaf = extend(tree, stats, x, y, lifetime, leaf_rule, rng, path)
    else:
        leaf = extend_along(tree, stats, x, y, lifetime, leaf_rule, rng, path, n)
    if leaf >= n_before:  # a new leaf: the first point, or x split off above a node j by a new parent p
        stats[leaf] = 0.0
        p = tree.parent[leaf]
        if p != NO_NODE:
            j = tree.left[p] if tree.right[p] == leaf else tree.right[p]
            for k in range(1, stats.shape[1]):
                stats[p, k] = min(stats[j, k], 1.0)
    _seat(stats, path, path_after(tree, path, n, leaf), 1 + int(y))
    return leaf


@kernel
def count_up(tree, stats, lifetime, top):
    """Column 0 and the IKN counts of every internal node of the subtree of ``top`` from its children's, children
    first, given the leaves'."""
    left, right, split_time = tree.left, tree.right, tree.split_time
    order = np.empty(tree.n_nodes[0], np.int64)  # breadth first: a node comes after its parent
    order[0] = top
    filled = 1
    i = 0
    while i < filled:
        node = order[i]
        i += 1
        if not is_leaf(left, split_time, node, lifetime):
            order[filled] = left[node]
            order[filled + 1] = right[node]
            filled += 2
    for i in range(filled - 1, -1, -1):
        node = order[i]
        if is_leaf(left, split_time, node, lifetime):
            continue
        a, b = left[node], right[node]
        stats[node, 0] = stats[a, 0] + stats[b, 0]
        for k in range(1, stats.shape[1]):
            stats[node, k] = min(stats[a, k], 1.0) + min(stats[b, k], 1.0)


@kernel
def _sample_first(tree, stats, X, y, lifetime, rng):
    """``learn`` into an empty tree: the points sampled at once, the counts then computed bottom-up."""
    n = X.shape[0]
    tree.root[0] = add_node(tree, NO_NODE, X[0], X[0])
    leaves = np.empty(n, np.int64)
    sample_block(tree, X, np.arange(n), tree.root[0], lifetime, rng, leaves)
    stats[: tree.n_nodes[0]] = 0.0
    for i in range(n):
        stats[leaves[i], 0] += 1.0
        stats[leaves[i], 1 + int(y[i])] += 1.0
    count_up(tree, stats, lifetime, tree.root[0])


@kernel
def _learn_each(tree, stats, X, y, lifetime, rng):
    """``learn`` into a non-empty tree, or a first batch the tree's max_nodes cuts short (``batch_fits``): online
    extension point by point, the counts updated along the path."""
    path = np.empty(capacity(tree), np.int64)
    for i in range(X.shape[0]):
        learn_one(tree, stats, X[i], y[i], lifetime, SPLIT_LEAVES, rng, path, 0)


def learn(tree, stats, X, y, onehot, lifetime, params, rng):
    """Add the points (X, y) to the tree: batch sampling into an empty tree with room for them (counts then computed
    bottom-up), else online extension point by point (counts updated along the path). The caller reserved 2 *
    len(X) nodes, or up to max_nodes. The two ways are two kernels, so that a first fit compiles only the first."""
    if not onehot:
        raise ValueError("IKN smoothing is for classification only")
    if X.shape[0] == 0:
        return
    if batch_fits(tree, X.shape[0]):
        _sample_first(tree, stats, X, y, lifetime, rng)
    else:
        _learn_each(tree, stats, X, y, lifetime, rng)


@kernel
def prediction_scratch(tree, onehot, n_classes):
    """Scratch room for ``add_prediction``: a root-to-leaf path and two rows of class probabilities."""
    if not onehot:
        raise ValueError("IKN smoothing is for classification only")
    return np.empty(capacity(tree), np.int64), np.empty(n_classes), np.empty(n_classes)


@kernel
def _posteriors(tree, stats, lifetime, gamma, table):
    """table[j] = G_j, the posterior mean of every node j of the tree pruned at ``lifetime`` (parents first)."""
    left, right, parent, split_time = tree.left, tree.right, tree.parent, tree.split_time
    uniform = np.full(table.shape[1], 1.0 / table.shape[1])
    stack = np.empty(tree.n_nodes[0], np.int64)
    stack[0] = tree.root[0]
    top = 1
    while top > 0:
        top -= 1
        j = stack[top]
        leaf = is_leaf(left, split_time, j, lifetime)
        delta = time_above(parent, split_time, j, leaf, lifetime)
        base = uniform if parent[j] == NO_NODE else table[parent[j]]
        _posterior(stats, j, _discount(gamma, delta), base, table[j])
        if not leaf:
            stack[top] = left[j]
            stack[top + 1] = right[j]
            top += 2


@kernel
def _add_prediction_from(tree, stats, table, uniform, x, lifetime, gamma, path, g, out):
    """``add_prediction`` given every node's posterior mean (``_posteriors``; ``uniform`` the root's base): only
    the nodes whose box does not hold x, where an extension may separate it, are computed."""
    parent, split_time = tree.parent, tree.split_time
    lower, upper = tree.box_lower, tree.box_upper
    m = out.shape[0]
    n = path_of(tree, x, lifetime, path)
    not_separated = 1.0
    for i in range(first_outside(lower, upper, path, n, x), n):
        j = path[i]
        delta = time_above(parent, split_time, j, i == n - 1, lifetime)
        base = uniform if i == 0 else table[path[i - 1]]
        not_separated = _add_separated(stats, j, extension_rate(lower, upper, j, x), gamma, delta, base, g,
                                       not_separated, out)  # fmt: skip
        if not_separated == 0.0:
            return
    leaf = table[path[n - 1]]
    for k in range(m):
        out[k] += not_separated * leaf[k]


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i] += the tree's IKN prediction at X[i], averaged over the extensions to X[i]; the model is unchanged.
    Many points (a node's posterior then serves several): the posteriors of all nodes first, once."""
    path, base, g = prediction_scratch(tree, onehot, out.shape[1])
    if X.shape[0] * TABLE_POINTS_PER_NODE < tree.n_nodes[0]:
        for i in range(X.shape[0]):
            add_prediction(tree, stats, X[i], lifetime, params[0], path, base, g, out[i])
        return
    table = np.empty((tree.n_nodes[0], out.shape[1]))
    _posteriors(tree, stats, lifetime, params[0], table)
    base[:] = 1.0 / out.shape[1]
    for i in range(X.shape[0]):
        _add_prediction_from(tree, stats, table, base, X[i], lifetime, params[0], path, g, out[i])


@kernel
def progressive(tree, stats, X, y, onehot, lifetime, params, rng, prior, out):
    """Progressive validation: out[i] += prediction at X[i] before learning (X[i], y[i]); then learn it."""
    path, base, g = prediction_scratch(tree, onehot, out.shape[1])
    for i in range(X.shape[0]):
        n = 0
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i, k] += prior[k]
        else:
            n = add_prediction(tree, stats, X[i], lifetime, params[0], path, base, g, out[i])
        learn_one(tree, stats, X[i], y[i], lifetime, SPLIT_LEAVES, rng, path, n)
