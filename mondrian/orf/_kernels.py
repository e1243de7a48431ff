"""ORF-Saffari kernels: the online random forest of Saffari, Leistner, Santner, Godec and Bischof (2009).

A tree grows from an empty root. Every leaf that may still split (depth < max_depth) keeps ``n_tests`` candidate
tests, each with the class weights of the points it sent to either side, and the range of the data the leaf has
seen. A learnt point (x, c) with weight w (its online-bagging multiplicity) goes down to its leaf and is added to
the leaf's label counts, range and tests; the leaf then may split on its best test once it has seen a weight >=
min_samples_split (Saffari's alpha) since its tests were drawn. The rule (``params``): with a minimum gain beta
(min_gain, a number), it splits iff that test's gain is > 0 and >= beta; without one (min_gain None, Saffari's
reference code), iff its label counts hold two classes or more, whatever the gain. Its two children start from the
winning test's class weights on their side (their label distribution until they learn more; a side that received
nothing starts empty, and predicts uniformly until it learns a point) and draw fresh tests; the point itself is not
passed down. A tree predicts the label distribution of the leaf holding x.

Candidate tests, x goes left (side 0) iff sum_j w_j x[f_j] <= t:

- axis-aligned: one feature f uniformly at random, w = 1, t uniform in the range [lo_f, hi_f];
- projections (Saffari's reference code): ``p`` distinct features uniformly at random (``p`` is the third dimension
  of the test arrays), weights w_j uniform in [-1, 1], t uniform between sum_j w_j lo_{f_j} and sum_j w_j hi_{f_j}
  (the reference's range of a projection: not the projection's full range over the box when the signs differ).

The range [lo, hi] thresholds are drawn in is the leaf's (``thresholds="cell"``) or the box [low, high]^d given in
advance for every node (``"global"``, the reference code's: the training set's range). A leaf's range: a child's
starts as its parent's cut at the split (for an axis test the parent's range cut at t; for a projection the bounding
box of the parent's range on the child's side of the hyperplane, inside the parent's range), and every range grows
with the points its leaf sees, but with global thresholds, which do not read it (the reference code keeps no range,
and d comparisons per update are saved; on data inside the box the ranges are the same, as the root's is the box).
The root has seen no data when it is made: it first learns the range of the data, and draws its tests when it has
seen a weight >= min_samples_split (until then its tests are marked undrawn, feature NO_NODE); it then collects as
much again before it may split. Given the range the features lie in before any data (``feature_range``), the root's
range starts as that box and it draws its tests at once. Tests are drawn when a leaf is made.

Gains of a test from its class weights per side (``GAINS``): the decrease of the Gini impurity, the information gain
in bits, or Saffari's reference score 2 (H - H_post) / (H * H_split + 1e-10) (H the entropy of the test's class
weights, H_post the weighted entropy of its sides, H_split = -2 p log2 p with p the share of the right side: the
reference code adds the right side's term twice and the left side's never).

Online bagging (``BAGGINGS``): a tree learns a point k ~ Poisson(1) times, as one update of weight k, or as k
updates of weight 1 (the reference code; a leaf may then split between two copies, the later ones going down to
its children).

Storage: the structure is the shared ``TreeArrays`` with zero-width boxes (ranges are only kept for leaves that
can split, see below) and split_time 0 at internal nodes (no Mondrian time: internal for lifetime inf); its
feature and threshold hold a split's first feature and threshold, which route axis-aligned trees (``leaf_of``);
projection trees route by the split's features and weights kept in ``LeafStats``. ``LeafStats`` holds rows per
node (label counts in the leaf-mean layout, the split's test, the node's slot) and rows per slot: the range and
candidate tests of a leaf that can still split. A leaf that splits hands its slot to its left child and a new slot
to its right child, or frees it when the children are at max_depth (they never split, so they keep no tests);
freed slots are reused first. Both kinds of rows grow by doubling, in Python between kernel calls: a learning
kernel stops before an update that may not fit (keeping where it stopped, and a Poisson weight drawn and not yet
learnt, in a small state array), and ``learn``, ``progressive`` and ``update`` return the (possibly new) arrays.
"""

from typing import NamedTuple

import numpy as np

from mondrian._compile import kernel
from mondrian._leaf_mean import add_leaf_mean, weights_or_ones
from mondrian._node_arrays import with_new_classes
from mondrian._nodes import NO_NODE, add_node, capacity, reserved, reserved_rows
from mondrian._process import set_split
from mondrian._route import leaf_of

TESTS = ("axis", "projection")
THRESHOLDS = ("cell", "global")
GAINS = ("gini", "entropy", "saffari")
BAGGINGS = ("weight", "repeat")

# the kernel parameters (``kernel_params``), by position
MIN_SAMPLES_SPLIT, MIN_GAIN, MAX_DEPTH, N_PASSES, LOW, HIGH, GAIN, BAGGING, GLOBAL, PROJECTION = range(10)
GINI, ENTROPY, SAFFARI = range(3)


class LeafStats(NamedTuple):
    counts: np.ndarray  # float64 (nodes, 1 + K): weight behind the node's label distribution, then per class
    slot: np.ndarray  # int64 (nodes,): the node's row in the per-slot arrays below, NO_NODE if it will never split
    split_feature: np.ndarray  # int64 (nodes, p): the features of an internal node's test
    split_weight: np.ndarray  # (nodes, p), the X dtype: their weights (1 for an axis-aligned test)
    lower: np.ndarray  # (slots, d), the X dtype: range of the data the slot's leaf has seen
    upper: np.ndarray  # (slots, d)
    test_feature: np.ndarray  # int64 (slots, n_tests, p): the features of each candidate test
    test_weight: np.ndarray  # (slots, n_tests, p), the X dtype: their weights
    test_threshold: np.ndarray  # (slots, n_tests), the X dtype: sum_j weight_j x[feature_j] <= threshold is side 0
    test_counts: np.ndarray  # float64 (slots, n_tests, 2, K): weight per side and class since the leaf was made
    free: np.ndarray  # int64 (slots,): stack of freed slots, free[:n_free[0]]
    n_free: np.ndarray  # int64 (1,)
    n_slots: np.ndarray  # int64 (1,): slots handed out so far (freed ones included)


def empty_stats(
    n_features: int, n_classes: int, n_tests: int, dtype, capacity: int = 16, n_projection_features: int = 1
) -> LeafStats:
    """Statistics for an empty tree: room for ``capacity`` nodes and ``capacity`` slots, tests on
    ``n_projection_features`` features (1 for axis-aligned tests)."""
    p = n_projection_features
    return LeafStats(
        counts=np.zeros((capacity, 1 + n_classes)),
        slot=np.full(capacity, NO_NODE, np.int64),
        split_feature=np.zeros((capacity, p), np.int64),
        split_weight=np.zeros((capacity, p), dtype),
        lower=np.zeros((capacity, n_features), dtype),
        upper=np.zeros((capacity, n_features), dtype),
        test_feature=np.zeros((capacity, n_tests, p), np.int64),
        test_weight=np.zeros((capacity, n_tests, p), dtype),
        test_threshold=np.zeros((capacity, n_tests), dtype),
        test_counts=np.zeros((capacity, n_tests, 2, n_classes)),
        free=np.zeros(capacity, np.int64),
        n_free=np.zeros(1, np.int64),
        n_slots=np.zeros(1, np.int64),
    )


def with_classes_added(stats: LeafStats, n_new: int) -> LeafStats:
    """The statistics with zero weight for ``n_new`` more classes (appended): in the label counts and in every
    candidate test's sides."""
    n_classes = stats.test_counts.shape[-1]
    new = np.zeros((*stats.test_counts.shape[:-1], n_new))
    return stats._replace(
        counts=with_new_classes(stats.counts, n_classes, n_new),
        test_counts=np.concatenate([stats.test_counts, new], axis=-1),
    )


_PER_NODE = ("counts", "slot", "split_feature", "split_weight")
_SHARED = ("n_free", "n_slots")


def trimmed_stats(stats: LeafStats, n_nodes: int) -> LeafStats:
    """A copy of the rows in use (``n_nodes`` nodes, the slots handed out so far), for pickling."""
    n_slots = max(int(stats.n_slots[0]), 1)
    return LeafStats(
        *(
            a.copy() if name in _SHARED else a[: n_nodes if name in _PER_NODE else n_slots].copy()
            for name, a in zip(LeafStats._fields, stats, strict=True)
        )
    )


def kernel_params(
    min_samples_split: float,
    min_gain: float | None,
    max_depth: int | None,
    n_passes: int,
    feature_range=None,
    *,
    tests: str = "axis",
    thresholds: str = "cell",
    gain: str = "gini",
    bagging: str = "weight",
) -> np.ndarray:
    """The parameters as float64, by position (``MIN_SAMPLES_SPLIT`` ...): min_samples_split, min_gain (nan for
    None: no gain condition), max_depth (inf for None), n_passes, the feature range's low and high (nan for None),
    then the codes of ``gain``, ``bagging``, ``thresholds`` (1 for "global", which needs the feature range) and
    ``tests`` (1 for "projection")."""
    low, high = (np.nan, np.nan) if feature_range is None else feature_range
    depth = np.inf if max_depth is None else max_depth
    beta = np.nan if min_gain is None else min_gain
    codes = (GAINS.index(gain), BAGGINGS.index(bagging), THRESHOLDS.index(thresholds), TESTS.index(tests))
    return np.array([min_samples_split, beta, depth, n_passes, low, high, *codes], np.float64)


# -- growth, outside the kernels ---------------------------------------------------------------------------------
# A learning kernel never grows the arrays: it stops before an update that may need more room than is left, and its
# Python driver grows them (doubling) and calls it again from there. Kernels that grew them themselves, and
# returned the tree and statistics from every function that may split, cost most of the compile time.
ROOM_NODES, ROOM_SLOTS = 2, 1  # what one update may take: a split's two children and a slot (a new root: 1 and 1)
# where a learning kernel is (``learn``, ``progressive``): the row (learn: the position over all passes), the pass
# (progressive), the Poisson weight drawn for it and not yet learnt (-1: none drawn), whether its prediction is made
ROW, PASS, PENDING, PREDICTED = range(4)


def _start_state() -> np.ndarray:
    return np.array([0, 0, -1, 0], np.int64)


def _with_room(tree, stats: LeafStats, n_nodes: int, n_slots: int):
    """The tree and its statistics with room for ``n_nodes`` more nodes and ``n_slots`` more slots (copies grown by
    doubling when needed)."""
    tree = reserved(tree, n_nodes)
    rows, slots = capacity(tree), int(stats.n_slots[0]) + n_slots
    return tree, LeafStats(
        *(
            a
            if name in _SHARED
            else reserved_rows(a, rows if name in _PER_NODE else slots, NO_NODE if name == "slot" else 0)
            for name, a in zip(LeafStats._fields, stats, strict=True)
        )
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
def draw_tests(lower, upper, test_feature, test_weight, test_threshold, test_counts, s, projection, low, high, rng):
    """Fresh candidate tests in slot s, no point seen yet. Axis-aligned (``projection`` False): each a feature
    uniformly at random, weight 1, and a threshold uniform in [lo, hi] of that feature; projections: each on
    test_feature.shape[2] distinct features drawn uniformly (by rejection), weights uniform in [-1, 1], a threshold
    uniform between sum_j w_j lo_j and sum_j w_j hi_j. [lo, hi] is the slot's range, or [low, high] for every
    feature unless ``low`` is nan."""
    n_features = lower.shape[1]
    in_range = np.isnan(low)
    for k in range(test_feature.shape[1]):
        if not projection:
            f = rng.integers(0, n_features)
            test_feature[s, k, 0] = f
            test_weight[s, k, 0] = 1.0
            if in_range:
                test_threshold[s, k] = lower[s, f] + (upper[s, f] - lower[s, f]) * rng.random()
            else:
                test_threshold[s, k] = low + (high - low) * rng.random()
            continue
        start = end = 0.0
        for j in range(test_feature.shape[2]):
            fresh = False
            while not fresh:
                f = rng.integers(0, n_features)
                fresh = True
                for i in range(j):
                    if test_feature[s, k, i] == f:
                        fresh = False
            w = 2.0 * rng.random() - 1.0
            test_feature[s, k, j] = f
            test_weight[s, k, j] = w
            start += w * (lower[s, f] if in_range else low)
            end += w * (upper[s, f] if in_range else high)
        test_threshold[s, k] = start + (end - start) * rng.random()
    test_counts[s] = 0.0


@kernel(inline="always")
def _draw(stats, s, params, rng):
    """``draw_tests`` in slot s as the parameters say (tests, thresholds)."""
    low = params[LOW] if params[GLOBAL] > 0.0 else np.nan
    draw_tests(
        stats.lower,
        stats.upper,
        stats.test_feature,
        stats.test_weight,
        stats.test_threshold,
        stats.test_counts,
        s,
        params[PROJECTION] > 0.0,
        low,
        params[HIGH],
        rng,
    )


@kernel(inline="always")
def _projected(x, feature, weight, a, b):
    """sum_j weight[a, b, j] x[feature[a, b, j]], from j = 0 (an axis-aligned test: x[feature] itself, weight 1)."""
    value = weight[a, b, 0] * x[feature[a, b, 0]]
    for j in range(1, feature.shape[2]):
        value += weight[a, b, j] * x[feature[a, b, j]]
    return value


@kernel(inline="always")
def _projected_at(x, feature, weight, node):
    """As ``_projected`` for a node's split test."""
    value = weight[node, 0] * x[feature[node, 0]]
    for j in range(1, feature.shape[1]):
        value += weight[node, j] * x[feature[node, j]]
    return value


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
def entropy_gain(sides):
    """Information gain in bits H(node) - w_l H(left) - w_r H(right), H(c) = -sum_k p_k log2 p_k, for class
    weights ``sides`` (2, K); 0 when a side is empty. Computed as sum_s w_s sum_k p_sk log2(p_sk / p_k) (the same):
    exactly 0 when both sides have the same class proportions (integer weights: p_sk and p_k round the same
    number)."""
    n_l = n_r = 0.0
    for k in range(sides.shape[1]):
        n_l += sides[0, k]
        n_r += sides[1, k]
    if n_l == 0.0 or n_r == 0.0:
        return 0.0
    n = n_l + n_r
    gain = 0.0
    for side in range(2):
        n_side = n_l if side == 0 else n_r
        divergence = 0.0
        for k in range(sides.shape[1]):
            if sides[side, k] > 0.0:
                p = sides[side, k] / n_side
                divergence += p * np.log2(p / ((sides[0, k] + sides[1, k]) / n))
        gain += n_side / n * divergence
    return gain


@kernel
def _entropy_of_side(sides, side, total):
    """-sum_k p_k log2 p_k of one side's class weights (``total`` their sum, > 0)."""
    h = 0.0
    for k in range(sides.shape[1]):
        p = sides[side, k] / total
        if p > 0.0:
            h -= p * np.log2(p)
    return h


@kernel
def saffari_score(sides):
    """Saffari's reference score of a test (its RandomTest::score), for class weights ``sides`` (2, K), side 1
    the right one (the reference's "true", x beyond the threshold): 2 (H - H_post) / (H H_split + 1e-10), with H the
    entropy (bits) of the test's class weights, H_post the sides' entropies weighted by their shares, and H_split
    = -2 p log2 p, p the right side's share (the reference's split entropy counts the right side twice and the left
    side never). 0 when the test has seen nothing or separates nothing (p = 0 or 1)."""
    n_l = n_r = 0.0
    for k in range(sides.shape[1]):
        n_l += sides[0, k]
        n_r += sides[1, k]
    n = n_l + n_r
    if n == 0.0:
        return 0.0
    split = 0.0
    if n_r > 0.0:
        p = n_r / n
        split = -2.0 * p * np.log2(p)
    prior = 0.0
    for k in range(sides.shape[1]):
        p = (sides[0, k] + sides[1, k]) / n
        if p > 0.0:
            prior -= p * np.log2(p)
    right = _entropy_of_side(sides, 1, n_r) if n_r > 0.0 else 0.0
    left = _entropy_of_side(sides, 0, n_l) if n_l > 0.0 else 0.0
    posterior = (n_r * right + n_l * left) / n
    return 2.0 * (prior - posterior) / (prior * split + 1e-10)


@kernel
def gain_of(sides, gain):
    """The gain of a test with class weights ``sides`` (2, K): ``gini_gain``, ``entropy_gain`` or
    ``saffari_score`` for codes GINI, ENTROPY, SAFFARI."""
    if gain == GINI:
        return gini_gain(sides)
    if gain == ENTROPY:
        return entropy_gain(sides)
    return saffari_score(sides)


@kernel
def best_test(test_counts, s, gain):
    """The candidate test of slot s with the largest gain (``gain_of``; the first of ties) and that gain."""
    best, best_gain = 0, -np.inf
    for k in range(test_counts.shape[1]):
        value = gain_of(test_counts[s, k], gain)
        if value > best_gain:
            best, best_gain = k, value
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
def _impure(counts, node):
    """Whether the node's label counts hold two classes or more."""
    seen = 0
    for c in range(1, counts.shape[1]):
        if counts[node, c] > 0.0:
            seen += 1
    return seen > 1


@kernel
def _leaf(tree, stats, x, projection):
    """The leaf holding x: ``leaf_of`` for axis-aligned tests, the splits' projections otherwise."""
    if not projection:
        return leaf_of(tree, x, np.inf)
    left, right, threshold = tree.left, tree.right, tree.threshold
    feature, weight = stats.split_feature, stats.split_weight
    j = tree.root[0]
    while left[j] != NO_NODE:
        j = left[j] if _projected_at(x, feature, weight, j) <= threshold[j] else right[j]
    return j


@kernel
def _add_point(counts, slot, lower, upper, test_feature, test_weight, test_threshold, test_counts, node, x, c, w, grow):
    """Add the point (x, class c) with weight w to the leaf's label counts and, if it can split, to its range (if
    ``grow``) and to the side statistics of its candidate tests (once drawn)."""
    counts[node, 0] += w
    counts[node, 1 + c] += w
    s = slot[node]
    if s == NO_NODE:
        return
    if grow:
        for f in range(x.shape[0]):
            lower[s, f] = min(lower[s, f], x[f])
            upper[s, f] = max(upper[s, f], x[f])
    if test_feature[s, 0, 0] == NO_NODE:
        return
    for k in range(test_feature.shape[1]):
        side = 0 if _projected(x, test_feature, test_weight, s, k) <= test_threshold[s, k] else 1
        test_counts[s, k, side, c] += w


@kernel(inline="always")
def _new_root(tree, stats, x, params, rng):
    """The root of an empty tree (a fresh row: zero counts, no slot). If it can split, its range starts at x with
    its tests left undrawn or, for a feature range [low, high] known in advance (low not nan), at that box with its
    tests drawn at once. The caller made room."""
    root = add_node(tree, NO_NODE, tree.box_lower[0], tree.box_upper[0])
    tree.root[0] = root
    if params[MAX_DEPTH] > 0:
        s = _take_slot(stats.free, stats.n_free, stats.n_slots)
        stats.slot[root] = s
        if np.isnan(params[LOW]):
            for f in range(x.shape[0]):
                stats.lower[s, f] = x[f]
                stats.upper[s, f] = x[f]
            stats.test_feature[s] = NO_NODE
        else:
            stats.lower[s] = params[LOW]
            stats.upper[s] = params[HIGH]
            _draw(stats, s, params, rng)


@kernel
def _cut_projection(lower, upper, feature, weight, threshold, s, k, r):
    """The children's ranges after a split of slot s's leaf on its projection test k, rows s (left, the leaf's
    range) and r (right, a copy of it): on each side the bounding box of the range's points on that side of the
    hyperplane, inside the leaf's range (a side the range misses, for a threshold beyond the range's projections,
    keeps the range's edge nearest the hyperplane)."""
    low_sum = high_sum = 0.0  # the least and the largest projection over the range
    for j in range(feature.shape[2]):
        f, w = feature[s, k, j], weight[s, k, j]
        low_sum += min(w * lower[s, f], w * upper[s, f])
        high_sum += max(w * lower[s, f], w * upper[s, f])
    for j in range(feature.shape[2]):
        f, w = feature[s, k, j], weight[s, k, j]
        if w == 0.0:
            continue
        least, most = min(w * lower[s, f], w * upper[s, f]), max(w * lower[s, f], w * upper[s, f])
        below = (threshold - (low_sum - least)) / w  # left: w x[f] <= t - (least of the others)
        beyond = (threshold - (high_sum - most)) / w  # right: w x[f] > t - (largest of the others)
        if w > 0.0:
            upper[s, f] = max(lower[s, f], min(upper[s, f], below))
            lower[r, f] = min(upper[r, f], max(lower[r, f], beyond))
        else:
            lower[s, f] = min(upper[s, f], max(lower[s, f], below))
            upper[r, f] = max(lower[r, f], min(upper[r, f], beyond))


@kernel(inline="always")
def _split(tree, stats, leaf, k, params, rng):
    """Split the leaf on its candidate test k: children labelled with the test's side weights, fresh tests in
    their ranges (the leaf's range cut at the test) unless they sit at max_depth. The caller made room."""
    s = stats.slot[leaf]
    t = stats.test_threshold[s, k]
    left = add_node(tree, leaf, tree.box_lower[leaf], tree.box_upper[leaf])
    right = add_node(tree, leaf, tree.box_lower[leaf], tree.box_upper[leaf])
    set_split(tree, leaf, 0.0, stats.test_feature[s, k, 0], t, left, right)
    for j in range(stats.test_feature.shape[2]):
        stats.split_feature[leaf, j] = stats.test_feature[s, k, j]
        stats.split_weight[leaf, j] = stats.test_weight[s, k, j]
    counts = stats.counts
    for side in range(2):
        child = left if side == 0 else right
        total = 0.0
        for c in range(counts.shape[1] - 1):
            counts[child, 1 + c] = stats.test_counts[s, k, side, c]
            total += counts[child, 1 + c]
        counts[child, 0] = total
    stats.slot[leaf] = NO_NODE
    if _depth(tree.parent, leaf) + 1 >= params[MAX_DEPTH]:
        stats.free[stats.n_free[0]] = s
        stats.n_free[0] += 1
        stats.slot[left] = NO_NODE
        stats.slot[right] = NO_NODE
        return
    r = _take_slot(stats.free, stats.n_free, stats.n_slots)
    for d in range(stats.lower.shape[1]):
        stats.lower[r, d] = stats.lower[s, d]
        stats.upper[r, d] = stats.upper[s, d]
    if params[PROJECTION] > 0.0:
        _cut_projection(stats.lower, stats.upper, stats.test_feature, stats.test_weight, t, s, k, r)
    else:
        f = stats.test_feature[s, k, 0]
        stats.upper[s, f] = t  # the left child's points have x[f] <= t, the right child's x[f] > t
        stats.lower[r, f] = t
    stats.slot[left] = s
    stats.slot[right] = r
    for slot in (s, r):
        _draw(stats, slot, params, rng)


def update(tree, stats: LeafStats, x, c, w, params, rng):
    """Learn the point (x, class c) with weight w > 0 as one update: add it to its leaf, then split the leaf on its
    best test if the rule says so (see the module). The root draws its tests once it has seen a weight >=
    min_samples_split, or at once for a known feature range. Returns the (possibly grown) tree and statistics."""
    tree, stats = _with_room(tree, stats, ROOM_NODES, ROOM_SLOTS)
    _update(tree, stats, x, c, w, params, rng)
    return tree, stats


@kernel
def _update(tree, stats, x, c, w, params, rng):
    """``update`` in a tree with room for it."""
    min_samples_split, min_gain = params[MIN_SAMPLES_SPLIT], params[MIN_GAIN]
    if tree.root[0] == NO_NODE:
        _new_root(tree, stats, x, params, rng)
    leaf = _leaf(tree, stats, x, params[PROJECTION] > 0.0)
    _add_point(
        stats.counts,
        stats.slot,
        stats.lower,
        stats.upper,
        stats.test_feature,
        stats.test_weight,
        stats.test_threshold,
        stats.test_counts,
        leaf,
        x,
        c,
        w,
        params[GLOBAL] == 0.0 or np.isnan(params[LOW]),
    )
    s = stats.slot[leaf]
    if s == NO_NODE:
        return
    if stats.test_feature[s, 0, 0] == NO_NODE:  # the root, still learning the range of the data
        if stats.counts[leaf, 0] >= min_samples_split:
            _draw(stats, s, params, rng)
        return
    seen = 0.0  # the weight seen since the tests were drawn: test 0's, both sides
    for side in range(2):
        for k in range(stats.test_counts.shape[3]):
            seen += stats.test_counts[s, 0, side, k]
    if seen < min_samples_split:
        return
    if np.isnan(min_gain):  # no gain condition: any leaf whose labels are not all one class
        if _impure(stats.counts, leaf):
            k, _ = best_test(stats.test_counts, s, int(params[GAIN]))
            _split(tree, stats, leaf, k, params, rng)
        return
    k, gain = best_test(stats.test_counts, s, int(params[GAIN]))
    if gain > 0.0 and gain >= min_gain:
        _split(tree, stats, leaf, k, params, rng)


@kernel
def _learn_bagged(tree, stats, x, c, w, params, rng, state):
    """Online bagging: the tree learns the point of weight w k ~ Poisson(1) times (k drawn into state[PENDING] unless
    drawn already), as one update of weight k * w or as k updates of weight w. Returns False, with what is left of k in
    state[PENDING], if the tree may not have room for the next update; True once learnt (state[PENDING] = -1)."""
    if state[PENDING] < 0:
        state[PENDING] = rng.poisson(1.0)
    if params[BAGGING] > 0.0:
        while state[PENDING] > 0:
            if not _has_room(tree, stats, ROOM_NODES, ROOM_SLOTS):
                return False
            _update(tree, stats, x, c, w, params, rng)
            state[PENDING] -= 1
    elif state[PENDING] > 0:
        if not _has_room(tree, stats, ROOM_NODES, ROOM_SLOTS):
            return False
        _update(tree, stats, x, c, float(state[PENDING]) * w, params, rng)
    state[PENDING] = -1
    return True


@kernel
def _learn_from(tree, stats, X, y, w, params, rng, state):
    """``learn`` from state[ROW] on (row i of pass p is position p * len(X) + i) until the end, or until the tree
    may not have room for the next update (state then says where it stopped)."""
    end = int(params[N_PASSES]) * X.shape[0]
    while state[ROW] < end:
        i = state[ROW] % X.shape[0]
        if not _learn_bagged(tree, stats, X[i], int(y[i]), w[i], params, rng, state):
            return
        state[ROW] += 1


def learn(tree, stats: LeafStats, X, y, onehot, lifetime, params, rng, w=None):
    """n_passes passes over the rows of (X, y) (class indices as floats), in order, each with fresh Poisson
    weights (times the rows' weights ``w``; None: all one). Returns the (possibly grown) tree and statistics."""
    state, end, w = _start_state(), int(params[N_PASSES]) * X.shape[0], weights_or_ones(X, w)
    while True:
        _learn_from(tree, stats, X, y, w, params, rng, state)
        if state[ROW] == end:
            return tree, stats
        tree, stats = _with_room(tree, stats, ROOM_NODES, ROOM_SLOTS)


@kernel
def _add_prediction(tree, stats, x, projection, prior, out):
    """out += the label distribution of the leaf holding x, or ``prior`` for a tree that has learnt nothing or a
    leaf that holds no weight (a child on the side of a split that received none)."""
    if tree.root[0] == NO_NODE:
        for k in range(out.shape[0]):
            out[k] += prior[k]
        return
    leaf = _leaf(tree, stats, x, projection)
    if stats.counts[leaf, 0] > 0.0:
        add_leaf_mean(stats.counts, leaf, out)
    else:
        for k in range(out.shape[0]):
            out[k] += prior[k]


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i] += the tree's class probabilities at X[i] (uniform for a tree that has learnt nothing)."""
    prior = np.full(out.shape[1], 1.0 / out.shape[1])
    projection = params[PROJECTION] > 0.0
    for i in range(X.shape[0]):
        _add_prediction(tree, stats, X[i], projection, prior, out[i])


@kernel
def apply(tree, stats, X, projection):
    """The leaf holding each row of X, in a tree that is not empty."""
    out = np.empty(X.shape[0], np.int64)
    for i in range(X.shape[0]):
        out[i] = _leaf(tree, stats, X[i], projection)
    return out


@kernel
def _progressive_from(tree, stats, X, y, params, rng, prior, out, state):
    """``progressive`` from the row state[ROW] (its prediction made if state[PREDICTED], its passes before
    state[PASS] learnt) on, until the end or until the tree may not have room for the next update."""
    passes, projection = int(params[N_PASSES]), params[PROJECTION] > 0.0
    while state[ROW] < X.shape[0]:
        i = state[ROW]
        if state[PREDICTED] == 0:
            _add_prediction(tree, stats, X[i], projection, prior, out[i])
            state[PREDICTED] = 1
        while state[PASS] < passes:
            if not _learn_bagged(tree, stats, X[i], int(y[i]), 1.0, params, rng, state):
                return
            state[PASS] += 1
        state[ROW] += 1
        state[PASS] = 0
        state[PREDICTED] = 0


def progressive(tree, stats: LeafStats, X, y, onehot, lifetime, params, rng, prior, out):
    """Progressive validation: out[i] += the prediction at X[i] before learning it, then learn (X[i], y[i]) as a
    one-row ``learn`` would (n_passes Poisson weights). Returns the (possibly grown) tree and statistics."""
    state = _start_state()
    while True:
        _progressive_from(tree, stats, X, y, params, rng, prior, out, state)
        if state[ROW] == X.shape[0]:
            return tree, stats
        tree, stats = _with_room(tree, stats, ROOM_NODES, ROOM_SLOTS)
