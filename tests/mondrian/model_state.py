"""Helpers shared by the estimator tests: what a fitted model is (its attributes, trees and random streams, for tests
that compare models), and data in the single precision AMF works in."""

import copy

import numpy as np

from mondrian._nodes import TreeArrays
from mondrian._points import PointStore, points_of


def _copy(a):
    return None if a is None else a.copy()


def tree_state(tree):
    """A tree in full: every node array (capacity included), statistics, lifetime, rng state, point lists."""
    return (
        {name: np.array(a, copy=True) for name, a in zip(TreeArrays._fields, tree.nodes, strict=True)},
        tree.stats.copy(),
        tree.lifetime,
        copy.deepcopy(tree.rng.bit_generator.state),
        _copy(tree.first_point),
        _copy(tree.next_point),
    )


def used_tree_state(tree):
    """What defines a tree: arrays of the nodes in use, its root, their statistics, lifetime, rng state, and the
    points of its leaves."""
    n = tree.n_nodes
    rng = copy.deepcopy(tree.rng.bit_generator.state)
    return (tree.arrays(), tree.root, tree.stats[:n].copy(), tree.lifetime, rng, leaf_points(tree))


def leaf_points(tree):
    """The points each node holds, in list order (None for a tree that keeps no points)."""
    if tree.first_point is None:
        return None
    scratch = np.empty(tree.next_point.shape[0], np.int64)
    return [scratch[: points_of(tree.first_point, tree.next_point, j, scratch)].copy() for j in range(tree.n_nodes)]


def assert_equal_nested(a, b, path="model"):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for k in a:
            assert_equal_nested(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, tuple | list):
        assert type(a) is type(b) and len(a) == len(b), path
        for k, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_equal_nested(u, v, f"{path}[{k}]")
    elif isinstance(a, PointStore):
        assert isinstance(b, PointStore), path
        assert_equal_nested(a.__getstate__(), b.__getstate__(), path)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, path
        np.testing.assert_array_equal(a, b, err_msg=path)
    else:
        assert a == b or (a != a and b != b), path


def model_state(model):
    """Everything a model is: its attributes, and its trees in full (whole node arrays and rng states)."""
    # _typed_trees: a cache over the trees for the one-sample calls (numba typed lists of the trees' own arrays)
    attributes = {k: copy.deepcopy(v) for k, v in vars(model).items() if k not in ("trees_", "_typed_trees")}
    trees = [tree_state(t) for t in model.trees_] if hasattr(model, "trees_") else None
    return attributes, trees


def same_trees(m1, m2):
    assert len(m1.trees_) == len(m2.trees_)
    for t1, t2 in zip(m1.trees_, m2.trees_, strict=True):
        assert_equal_nested(used_tree_state(t1), used_tree_state(t2))


def single(X):
    """X rounded to single precision, the precision AMF works in, so that float64 references see the same points."""
    return np.asarray(X, dtype=np.float32).astype(np.float64)
