"""ORF-Saffari kernels: the online random forest of Saffari, Leistner, Santner, Godec and Bischof (2009).

A tree grows from an empty root. Every leaf that may still split (depth < max_depth) keeps ``n_tests`` candidate
tests x[f] <= t, each with the class weights of the points it sent to either side, and the range of the data the
leaf has seen. A learnt point (x, c) with weight w (its online-bagging multiplicity) goes down to its leaf and is
added to the leaf's label counts, range and tests; the leaf then splits on its best test when it has seen a weight
>= min_samples_split (Saffari's alpha) since its tests were drawn and that test's Gini gain is > 0 and >= min_gain
(beta). Its two children start from the winning test's class weights on their side (their label distribution
until they learn more) and draw fresh tests; the point itself is not passed down. A tree predicts the label
distribution of the leaf holding x.

Candidate tests: a feature uniformly at random, a threshold uniform in the leaf's range of that feature at the
time the test is drawn. A child's range starts as its parent's range cut at the split (the data the parent saw on
the child's side) and it draws its tests at once. The root has seen no data when it is made: it first learns the
range of the data, and draws its tests when it has seen a weight >= min_samples_split (until then its tests are
marked undrawn, feature NO_NODE); it then collects as much again before it may split. Given the range the features
lie in before any data (``feature_range``, as Saffari's reference code reads it from the training set), the root's
range starts as that box and it draws its tests at once. Every range grows with the points its leaf sees.

Storage: the structure is the shared ``TreeArrays`` with zero-width boxes (ranges are only kept for leaves that
can split, see below) and split_time 0 at internal nodes (no Mondrian time: internal for lifetime inf).
``LeafStats`` holds one row per node (label counts in the leaf-mean layout, the node's slot) and one row per slot:
the range and candidate tests of a leaf that can still split. A leaf that splits hands its slot to its left child
and a new slot to its right child, or frees it when the children are at max_depth (they never split, so they keep
no tests); freed slots are reused first. Both kinds of rows grow by doubling, in Python between kernel calls: a
learning kernel stops before a point that may not fit, and ``learn``, ``progressive`` and ``update`` return the
(possibly new) arrays.
"""

from typing import NamedTuple

import numpy as np

from mondrian._compile import drives, kernel
from mondrian._leaf_mean import add_leaf_mean
from mondrian._nodes import NO_NODE, add_node, capacity, reserved, reserved_rows
from mondrian._process import set_split
from mondrian._route import leaf_of


class LeafStats(NamedTuple):
    counts: np.ndarray  # float64 (nodes, 1 + K): weight behind the node's label distribution, then per class
    slot: np.ndarray  # int64 (nodes,): the node's row in the arrays below, NO_NODE if it will never split
    lower: np.ndarray  # (slots, d), the X dtype: range of the data the slot's leaf has seen
    upper: np.ndarray  # (slots, d)
    test_feature: np.ndarray  # int64 (slots, n_tests)
    test_threshold: np.ndarray  # (slots, n_tests), the X dtype: x[feature] <= threshold is side 0
    test_counts: np.ndarray  # float64 (slots, n_tests, 2, K): weight per side and class since the leaf was made
    free: np.ndarray  # int64 (slots,): stack of freed slots, free[:n_free[0]]
    n_free: np.ndarray  # int64 (1,)
    n_slots: np.ndarray  # int64 (1,): slots handed out so far (freed ones included)


def empty_stats(n_features: int, n_classes: int, n_tests: int, dtype, capacity: int = 16) -> LeafStats:
    """Statistics for an empty tree: room for ``capacity`` nodes and ``capacity`` slots."""
    return LeafStats(
        counts=np.zeros((capacity, 1 + n_classes)),
        slot=np.full(capacity, NO_NODE, np.int64),
        lower=np.zeros((capacity, n_features), dtype),
        upper=np.zeros((capacity, n_features), dtype),
        test_feature=np.zeros((capacity, n_tests), np.int64),
        test_threshold=np.zeros((capacity, n_tests), dtype),
        test_counts=np.zeros((capacity, n_tests, 2, n_classes)),
        free=np.zeros(capacity, np.int64),
        n_free=np.zeros(1, np.int64),
        n_slots=np.zeros(1, np.int64),
    )


def trimmed_stats(stats: LeafStats, n_nodes: int) -> LeafStats:
    """A copy of the rows in use (``n_nodes`` nodes, the slots handed out so far), for pickling."""
    n_slots = max(int(stats.n_slots[0]), 1)
    return LeafStats(
        counts=stats.counts[:n_nodes].copy(),
        slot=stats.slot[:n_nodes].copy(),
        lower=stats.lower[:n_slots].copy(),
        upper=stats.upper[:n_slots].copy(),
        test_feature=stats.test_feature[:n_slots].copy(),
        test_threshold=stats.test_threshold[:n_slots].copy(),
        test_counts=stats.test_counts[:n_slots].copy(),
        free=stats.free[:n_slots].copy(),
        n_free=stats.n_free.copy(),
        n_slots=stats.n_slots.copy(),
    )


def kernel_params(
    min_samples_split: float, min_gain: float, max_depth: int | None, n_passes: int, feature_range=None
) -> np.ndarray:
    """(min_samples_split, min_gain, max_depth (inf for None), n_passes, the feature range's low and high (nan for
    None)) as float64."""
    low, high = (np.nan, np.nan) if feature_range is None else feature_range
    depth = np.inf if max_depth is None else max_depth
    return np.array([min_samples_split, min_gain, depth, n_passes, low, high], np.float64)


# -- growth, outside the kernels ---------------------------------------------------------------------------------
# A learning kernel never grows the arrays: it stops before a point that may need more room than is left, and its
# Python driver grows them (doubling) and calls it again from that point. Kernels that grew them themselves, and
# returned the tree and statistics from every function that may split, cost most of the compile time.
ROOM_NODES, ROOM_SLOTS = 2, 1  # what one update may take: a split's two children and a slot (a new root: 1 and 1)


def _with_room(tree, stats: LeafStats, n_nodes: int, n_slots: int):
    """The tree and its statistics with room for ``n_nodes`` more nodes and ``n_slots`` more slots (copies grown by
    doubling when needed)."""
    tree = reserved(tree, n_nodes)
    rows, slots = capacity(tree), int(stats.n_slots[0]) + n_slots
    return tree, LeafStats(
        reserved_rows(stats.counts, rows, 0.0),
        reserved_rows(stats.slot, rows, NO_NODE),
        reserved_rows(stats.lower, slots, 0.0),
        reserved_rows(stats.upper, slots, 0.0),
        reserved_rows(stats.test_feature, slots, 0),
        reserved_rows(stats.test_threshold, slots, 0.0),
        reserved_rows(stats.test_counts, slots, 0.0),
        reserved_rows(stats.free, slots, 0),
        stats.n_free,
        stats.n_slots,
    )


@kernel
def _has_room(tree, stats, n_nodes, n_slots):
    """Whether ``n_nodes`` more nodes and ``n_slots`` more slots fit (``_with_room`` grows them together)."""
    return (
        tree.n_nodes[0] + n_nodes <= min(capacity(tree), stats.slot.shape[0])
        and stats.n_slots[0] + n_slots <= stats.free.shape[0]
    )


@kernel
def _take_slot(free, n_free, n_slots):
    """A freed slot if any, else a new one (the caller made room)."""
    if n_free[0] > 0:
        n_free[0] -= 1
        return free[n_free[0]]
    n_slots[0] += 1
    return n_slots[0] - 1


# -- candidate tests ---------------------------------------------------------------------------------------------
@kernel
def draw_tests(lower, upper, test_feature, test_threshold, test_counts, s, rng):
    """Fresh candidate tests in slot s: each a feature uniformly at random and a threshold uniform in the slot's
    range of that feature; no point seen yet."""
    n_features = lower.shape[1]
    for k in range(test_feature.shape[1]):
        f = rng.integers(0, n_features)
        test_feature[s, k] = f
        test_threshold[s, k] = lower[s, f] + (upper[s, f] - lower[s, f]) * rng.random()
    test_counts[s] = 0.0


@kernel
def gini_gain(sides):
    """Decrease of the Gini impurity G = 1 - sum_k p_k^2 from a node to its two sides weighted by their shares,
    G(node) - w_l G(left) - w_r G(right), for class weights ``sides`` (2, K); 0 when a side is empty. Computed as
    w_l w_r sum_k (p_lk - p_rk)^2 (the same, as w_l + w_r = 1): never negative, and exactly 0 when both sides have
    the same class proportions (integer weights: both quotients round the same number)."""
    n_l = n_r = 0.0
    for k in range(sides.shape[1]):
        n_l += sides[0, k]
        n_r += sides[1, k]
    if n_l == 0.0 or n_r == 0.0:
        return 0.0
    spread = 0.0
    for k in range(sides.shape[1]):
        d = sides[0, k] / n_l - sides[1, k] / n_r
        spread += d * d
    n = n_l + n_r
    return (n_l / n) * (n_r / n) * spread


@kernel
def best_test(test_counts, s):
    """The candidate test of slot s with the largest Gini gain (the first of ties) and that gain."""
    best, best_gain = 0, -np.inf
    for k in range(test_counts.shape[1]):
        gain = gini_gain(test_counts[s, k])
        if gain > best_gain:
            best, best_gain = k, gain
    return best, best_gain


# -- learning ----------------------------------------------------------------------------------------------------
@kernel
def _depth(parent, node):
    depth = 0
    while parent[node] != NO_NODE:
        node = parent[node]
        depth += 1
    return depth


@kernel
def _add_point(counts, slot, lower, upper, test_feature, test_threshold, test_counts, node, x, c, w):
    """Add the point (x, class c) with weight w to the leaf's label counts and, if it can split, to its range and
    to the side statistics of its candidate tests (once drawn)."""
    counts[node, 0] += w
    counts[node, 1 + c] += w
    s = slot[node]
    if s == NO_NODE:
        return
    for f in range(x.shape[0]):
        lower[s, f] = min(lower[s, f], x[f])
        upper[s, f] = max(upper[s, f], x[f])
    if test_feature[s, 0] == NO_NODE:
        return
    for k in range(test_feature.shape[1]):
        side = 0 if x[test_feature[s, k]] <= test_threshold[s, k] else 1
        test_counts[s, k, side, c] += w


@kernel(inline="always")
def _new_root(tree, stats, x, max_depth, low, high, rng):
    """The root of an empty tree (a fresh row: zero counts, no slot). If it can split, its range starts at x with
    its tests left undrawn or, for a feature range [low, high] known in advance (low not nan), at that box with its
    tests drawn at once. The caller made room."""
    root = add_node(tree, NO_NODE, tree.box_lower[0], tree.box_upper[0])
    tree.root[0] = root
    if max_depth > 0:
        s = _take_slot(stats.free, stats.n_free, stats.n_slots)
        stats.slot[root] = s
        if np.isnan(low):
            for f in range(x.shape[0]):
                stats.lower[s, f] = x[f]
                stats.upper[s, f] = x[f]
            stats.test_feature[s] = NO_NODE
        else:
            stats.lower[s] = low
            stats.upper[s] = high
            draw_tests(stats.lower, stats.upper, stats.test_feature, stats.test_threshold, stats.test_counts, s, rng)


@kernel(inline="always")
def _split(tree, stats, leaf, k, max_depth, rng):
    """Split the leaf on its candidate test k: children labelled with the test's side weights, fresh tests in
    their ranges (the leaf's range cut at the threshold) unless they sit at max_depth. The caller made room."""
    s = stats.slot[leaf]
    f, t = stats.test_feature[s, k], stats.test_threshold[s, k]
    left = add_node(tree, leaf, tree.box_lower[leaf], tree.box_upper[leaf])
    right = add_node(tree, leaf, tree.box_lower[leaf], tree.box_upper[leaf])
    set_split(tree, leaf, 0.0, f, t, left, right)
    counts = stats.counts
    for side in range(2):
        child = left if side == 0 else right
        total = 0.0
        for c in range(counts.shape[1] - 1):
            counts[child, 1 + c] = stats.test_counts[s, k, side, c]
            total += counts[child, 1 + c]
        counts[child, 0] = total
    stats.slot[leaf] = NO_NODE
    if _depth(tree.parent, leaf) + 1 >= max_depth:
        stats.free[stats.n_free[0]] = s
        stats.n_free[0] += 1
        stats.slot[left] = NO_NODE
        stats.slot[right] = NO_NODE
        return
    r = _take_slot(stats.free, stats.n_free, stats.n_slots)
    for d in range(stats.lower.shape[1]):
        stats.lower[r, d] = stats.lower[s, d]
        stats.upper[r, d] = stats.upper[s, d]
    stats.upper[s, f] = t  # the left child's points have x[f] <= t, the right child's x[f] > t
    stats.lower[r, f] = t
    stats.slot[left] = s
    stats.slot[right] = r
    for slot in (s, r):
        draw_tests(stats.lower, stats.upper, stats.test_feature, stats.test_threshold, stats.test_counts, slot, rng)


def update(tree, stats: LeafStats, x, c, w, params, rng):
    """Learn the point (x, class c) with weight w > 0: add it to its leaf, then split the leaf on its best test if
    the leaf has seen a weight >= min_samples_split since its tests were drawn and that test's gain is > 0 and
    >= min_gain. The root draws its tests once it has seen a weight >= min_samples_split, or at once for a known
    feature range. Returns the (possibly grown) tree and statistics."""
    tree, stats = _with_room(tree, stats, ROOM_NODES, ROOM_SLOTS)
    _update(tree, stats, x, c, w, params, rng)
    return tree, stats


@kernel
def _update(tree, stats, x, c, w, params, rng):
    """``update`` in a tree with room for it."""
    min_samples_split, min_gain, max_depth = params[0], params[1], params[2]
    if tree.root[0] == NO_NODE:
        _new_root(tree, stats, x, max_depth, params[4], params[5], rng)
    leaf = leaf_of(tree, x, np.inf)
    _add_point(
        stats.counts,
        stats.slot,
        stats.lower,
        stats.upper,
        stats.test_feature,
        stats.test_threshold,
        stats.test_counts,
        leaf,
        x,
        c,
        w,
    )
    s = stats.slot[leaf]
    if s == NO_NODE:
        return
    if stats.test_feature[s, 0] == NO_NODE:  # the root, still learning the range of the data
        if stats.counts[leaf, 0] >= min_samples_split:
            draw_tests(stats.lower, stats.upper, stats.test_feature, stats.test_threshold, stats.test_counts, s, rng)
        return
    seen = 0.0  # the weight seen since the tests were drawn: test 0's, both sides
    for side in range(2):
        for k in range(stats.test_counts.shape[3]):
            seen += stats.test_counts[s, 0, side, k]
    if seen < min_samples_split:
        return
    k, gain = best_test(stats.test_counts, s)
    if gain > 0.0 and gain >= min_gain:
        _split(tree, stats, leaf, k, max_depth, rng)


@kernel(inline="always")
def _learn_bagged(tree, stats, x, c, params, rng):
    """Online bagging: the tree learns the point k ~ Poisson(1) times, as one update with weight k."""
    w = rng.poisson(1.0)
    if w > 0:
        _update(tree, stats, x, c, float(w), params, rng)


@kernel
def _learn_from(tree, stats, X, y, params, rng, position):
    """``learn`` from ``position`` on (row i of pass p is position p * len(X) + i) until the end, or until the tree
    may not have room for the next row; returns the position reached."""
    end = int(params[3]) * X.shape[0]
    while position < end:
        if not _has_room(tree, stats, ROOM_NODES, ROOM_SLOTS):
            return position
        i = position % X.shape[0]
        _learn_bagged(tree, stats, X[i], int(y[i]), params, rng)
        position += 1
    return position


@drives(_learn_from)
def learn(tree, stats: LeafStats, X, y, onehot, lifetime, params, rng):
    """n_passes passes over the rows of (X, y) (class indices as floats), in order, each with fresh Poisson
    weights. Returns the (possibly grown) tree and statistics."""
    position, end = 0, int(params[3]) * X.shape[0]
    while True:
        position = _learn_from(tree, stats, X, y, params, rng, position)
        if position == end:
            return tree, stats
        tree, stats = _with_room(tree, stats, ROOM_NODES, ROOM_SLOTS)


@kernel
def _add_prediction(tree, counts, x, prior, out):
    """out += the label distribution of the leaf holding x, or ``prior`` for a tree that has learnt nothing."""
    if tree.root[0] == NO_NODE:
        for k in range(out.shape[0]):
            out[k] += prior[k]
    else:
        add_leaf_mean(counts, leaf_of(tree, x, np.inf), out)


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i] += the tree's class probabilities at X[i] (uniform for a tree that has learnt nothing)."""
    prior = np.full(out.shape[1], 1.0 / out.shape[1])
    for i in range(X.shape[0]):
        _add_prediction(tree, stats.counts, X[i], prior, out[i])


@kernel
def _progressive_from(tree, stats, X, y, params, rng, prior, out, i):
    """``progressive`` from row i on, until the end or until the tree may not have room for the next row (checked
    before its prediction is added); returns the row reached."""
    passes = int(params[3])
    while i < X.shape[0]:
        if not _has_room(tree, stats, passes * ROOM_NODES, passes * ROOM_SLOTS):
            return i
        _add_prediction(tree, stats.counts, X[i], prior, out[i])
        for _ in range(passes):
            _learn_bagged(tree, stats, X[i], int(y[i]), params, rng)
        i += 1
    return i


def progressive(tree, stats: LeafStats, X, y, onehot, lifetime, params, rng, prior, out):
    """Progressive validation: out[i] += the prediction at X[i] before learning it, then learn (X[i], y[i]) as a
    one-row ``learn`` would (n_passes Poisson weights). Returns the (possibly grown) tree and statistics."""
    i, passes = 0, int(params[3])
    while True:
        i = _progressive_from(tree, stats, X, y, params, rng, prior, out, i)
        if i == X.shape[0]:
            return tree, stats
        tree, stats = _with_room(tree, stats, passes * ROOM_NODES, passes * ROOM_SLOTS)
