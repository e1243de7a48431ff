"""Kernels of the Mondrian process: the SplitCell step and the two batch samplers.

``sample_block`` is LRT14's SampleMondrianBlock: the box of a node is the range of
its points (restricted tree). ``sample_partition`` draws MP(lam, C) on a fixed box C,
independently of any data (the purely random partitions of MGS20 and the theory);
``sample_partition_around`` draws the same partition only where data lie: a cell
holding no point is left whole (MGS20's estimators predict a constant there).
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._nodes import NO_NODE, add_node, capacity, parent_time, reserved


@kernel
def uniform_below(low, high, rng):
    """U[low, high) with high excluded even after rounding, so both sides of a cut are non-empty."""
    while True:
        u = low + (high - low) * rng.random()
        if u < high:
            return u


@kernel
def store_uniform_below(a, i, low, high, rng):
    """a[i] = U[low, high), drawn again until the stored value, rounded to a's precision, is still below high."""
    while True:
        a[i] = uniform_below(low, high, rng)
        if a[i] < high:
            return a[i]


@kernel
def choose_proportional(weights, total, rng):
    """Index j with probability weights[j] / total."""
    target = total * rng.random()
    acc = 0.0
    last = 0
    for j in range(weights.shape[0]):
        if weights[j] > 0.0:
            last = j
            acc += weights[j]
            if target < acc:
                return j
    return last


@kernel
def sample_split(lower, upper, start_time, lifetime, rng):
    """SplitCell on the box [lower, upper] from ``start_time``.

    E ~ Exp(linear dimension), split iff start_time + E < lifetime, dimension chosen
    proportionally to the side lengths, threshold uniform on the side.
    Returns (split time, dimension, threshold); the time is inf when there is no split.
    """
    sides = upper - lower
    rate = sides.sum()
    if rate <= 0.0:
        return np.inf, NO_NODE, 0.0
    time = start_time + rng.exponential(1.0 / rate)
    if not time < lifetime:
        return np.inf, NO_NODE, 0.0
    dim = choose_proportional(sides, rate, rng)
    return time, dim, uniform_below(lower[dim], upper[dim], rng)


@kernel(inline="always")
def set_split(tree, node, time, dim, threshold, left, right):
    tree.split_time[node] = time
    tree.feature[node] = dim
    tree.threshold[node] = threshold
    tree.left[node] = left
    tree.right[node] = right


@kernel
def _partition(X, samples, start, end, dim, threshold):
    """Reorder samples[start:end] so that points with x[dim] <= threshold come first; returns the cut."""
    i = start
    j = end - 1
    while i <= j:
        if X[samples[i], dim] <= threshold:
            i += 1
        else:
            samples[i], samples[j] = samples[j], samples[i]
            j -= 1
    return i


@kernel
def _data_range(X, samples, start, end, lower, upper):
    first = X[samples[start]]
    for d in range(first.shape[0]):
        lower[d] = first[d]
        upper[d] = first[d]
    for k in range(start + 1, end):
        x = X[samples[k]]
        for d in range(x.shape[0]):
            if x[d] < lower[d]:
                lower[d] = x[d]
            elif x[d] > upper[d]:
                upper[d] = x[d]


@kernel
def _same_labels(y, samples, start, end):
    for k in range(start + 1, end):  # noqa: SIM110 (numba: no generator expressions)
        if y[samples[k]] != y[samples[start]]:
            return False
    return True


def batch_fits(tree, n_points: int) -> bool:
    """The tree is empty with room for the nodes ``sample_block`` may make from ``n_points`` points (2 per point).
    False when the tree's max_nodes is nearer: the batch is then learnt point by point, as a stream (an online
    tree stops splitting at the bound; a batch one would spend it all on the first blocks it splits, depth first)."""
    return tree.root[0] == NO_NODE and capacity(tree) >= 2 * n_points


@kernel(inline="always")
def sample_block(tree, X, samples, node, lifetime, rng, leaf_of):
    """SampleMondrianBlock(node, X[samples], lifetime) of LRT14, without recursion.

    ``node`` is an existing row whose parent is set; its box and subtree are sampled
    from the points ``samples`` (reordered in place). ``leaf_of[i]`` receives the leaf of
    each point i in ``samples``. Needs room for 2 * len(samples) new nodes.
    """
    _sample_blocks(tree, X, X[:0, 0], samples, node, lifetime, rng, leaf_of)


@kernel(inline="always")
def sample_paused_block(tree, X, y, samples, node, lifetime, rng, leaf_of):
    """``sample_block`` with LRT14's pausing: a block whose labels y are all the same is not split (a leaf)."""
    _sample_blocks(tree, X, y, samples, node, lifetime, rng, leaf_of)


@kernel
def _sample_blocks(tree, X, y, samples, node, lifetime, rng, leaf_of):
    """The two samplers: blocks with one label are paused when labels ``y`` are given (non-empty)."""
    pause = y.shape[0] > 0
    n = samples.shape[0]
    stack_node = np.empty(n, np.int64)
    stack_start = np.empty(n, np.int64)
    stack_end = np.empty(n, np.int64)
    stack_node[0], stack_start[0], stack_end[0] = node, 0, n
    top = 1
    while top > 0:
        top -= 1
        j, start, end = stack_node[top], stack_start[top], stack_end[top]
        lower = tree.box_lower[j]
        upper = tree.box_upper[j]
        _data_range(X, samples, start, end, lower, upper)
        if pause and _same_labels(y, samples, start, end):
            time = np.inf
        else:
            time, dim, threshold = sample_split(
                lower, upper, parent_time(tree.parent, tree.split_time, j), lifetime, rng
            )
        if time == np.inf:
            for k in range(start, end):
                leaf_of[samples[k]] = j
            continue
        cut = _partition(X, samples, start, end, dim, threshold)
        left = add_node(tree, j, lower, upper)
        right = add_node(tree, j, lower, upper)
        set_split(tree, j, time, dim, threshold, left, right)
        stack_node[top], stack_start[top], stack_end[top] = left, start, cut
        stack_node[top + 1], stack_start[top + 1], stack_end[top + 1] = right, cut, end
        top += 2


@kernel
def _split_cell(tree, j, time, dim, threshold):
    """Split node j's cell (its box) at ``threshold`` along ``dim`` at ``time``: two children holding the two halves
    (the caller ensured room for them). Returns (left, right)."""
    left = add_node(tree, j, tree.box_lower[j], tree.box_upper[j])
    right = add_node(tree, j, tree.box_lower[j], tree.box_upper[j])
    tree.box_upper[left, dim] = threshold
    tree.box_lower[right, dim] = threshold
    set_split(tree, j, time, dim, threshold, left, right)
    return left, right


def sample_partition(tree, lower, upper, lifetime, rng):
    """MP(lifetime, [lower, upper]) into the empty ``tree``; grows it as needed and returns it."""
    tree.root[0] = add_node(tree, NO_NODE, lower, upper)
    stack = np.empty(64, np.int64)  # the cells left to sample, last in first out
    stack[0] = tree.root[0]
    top = 1
    while True:
        top = _partition_from(tree, lifetime, rng, stack, top)
        if top == 0:
            return tree
        tree, stack = reserved(tree, 2), _room_on(stack, top)


@kernel
def _partition_from(tree, lifetime, rng, stack, top):
    """``sample_partition`` from the cells stack[:top] on, until none is left (returns 0) or until the tree or the
    stack may not have room for the next cell's split (returns top, nothing drawn for that cell): the driver grows
    them, in Python, and calls again (growth inside the kernels cost most of their compile time)."""
    while top > 0:
        if tree.n_nodes[0] + 2 > capacity(tree) or top + 1 > stack.shape[0]:
            return top
        top -= 1
        j = stack[top]
        time, dim, threshold = sample_split(
            tree.box_lower[j], tree.box_upper[j], parent_time(tree.parent, tree.split_time, j), lifetime, rng
        )
        if time == np.inf:
            continue
        left, right = _split_cell(tree, j, time, dim, threshold)
        stack[top] = left
        stack[top + 1] = right
        top += 2
    return top


def _room_on(stack: np.ndarray, top: int) -> np.ndarray:
    """The stack (cells along its last axis), doubled if it has no room to push one more cell after a pop."""
    if top + 1 <= stack.shape[-1]:
        return stack
    return np.concatenate((stack, np.empty_like(stack)), axis=-1)


def sample_partition_around(tree, X, samples, lifetime, rng, leaf_of):
    """MP(lifetime, root box) below the existing root of the empty-below ``tree``, split only in cells holding some
    of the points X[samples] (reordered in place): a cell without points is a leaf. The cells holding points have
    the law of those of a full sample (the process in a cell does not depend on the other cells). ``leaf_of[i]``
    receives the leaf of each point i; grows the tree as needed and returns it."""
    stack = np.empty((3, 64), np.int64)  # the cells left to sample, last in first out: node, start, end of samples
    stack[:, 0] = tree.root[0], 0, samples.shape[0]
    top = 1
    while True:
        top = partition_around_from(tree, X, samples, lifetime, rng, leaf_of, stack, top)
        if top == 0:
            return tree
        tree, stack = reserved(tree, 2), _room_on(stack, top)


@kernel
def partition_around_from(tree, X, samples, lifetime, rng, leaf_of, stack, top):
    """``sample_partition_around`` from the cells stack[:, :top] on, as ``_partition_from``."""
    while top > 0:
        if tree.n_nodes[0] + 2 > capacity(tree) or top + 1 > stack.shape[1]:
            return top
        top -= 1
        j, start, end = stack[0, top], stack[1, top], stack[2, top]
        if end == start:
            continue
        time, dim, threshold = sample_split(
            tree.box_lower[j], tree.box_upper[j], parent_time(tree.parent, tree.split_time, j), lifetime, rng
        )
        if time == np.inf:
            for k in range(start, end):
                leaf_of[samples[k]] = j
            continue
        cut = _partition(X, samples, start, end, dim, threshold)
        left, right = _split_cell(tree, j, time, dim, threshold)
        stack[0, top], stack[1, top], stack[2, top] = left, start, cut
        stack[0, top + 1], stack[1, top + 1], stack[2, top + 1] = right, cut, end
        top += 2
    return top
