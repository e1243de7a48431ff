"""The node-array core (``mondrian._node_arrays``) both node layouts extend, and the tree classes on it.

- Both layouts start with the core's links and end with its counters; growth keeps every row in use, fills new rows
  with each column's fill, multiplies the rows by the layout's factor (2 for the Mondrian trees, 1.25 for BSP's) and
  leaves a tree with room as it is; trimming keeps the rows in use; ``take_node`` appends a leaf.
- Every tree is a ``BaseTree``; the online random tree is not a ``MondrianTree``; pickles keep the rows in use alone
  and a pickled tree grows and learns on as the original (the estimators' pickling tests: test_bsp.py, test_orf.py).
"""

import pickle

import numpy as np
import pytest

from mondrian import MondrianForestClassifier, OnlineBSPForestClassifier, OnlineRandomForestClassifier
from mondrian._base_tree import BaseTree
from mondrian._node_arrays import LINKS, NO_NODE, capacity, take_node
from mondrian._nodes import COLUMNS, TreeArrays, empty_tree, reserved
from mondrian.bsp._nodes import HULL_COLUMNS, NODE_COLUMNS, BSPArrays, empty_bsp_tree, with_room
from mondrian.tree import MondrianTree

LAYOUTS = [
    (TreeArrays, COLUMNS, lambda: empty_tree(3, capacity=4)),
    (BSPArrays, NODE_COLUMNS, lambda: empty_bsp_tree(3, 4, capacity=4)),
]


@pytest.mark.parametrize(("layout", "columns", "empty"), LAYOUTS)
def test_every_layout_extends_the_core(layout, columns, empty):
    assert layout._fields[:3] == tuple(LINKS)
    assert layout._fields[-2:] == ("n_nodes", "root")
    assert set(columns.fills) <= set(layout._fields)
    tree = empty()
    assert all(getattr(tree, name).shape[0] == capacity(tree) for name in columns.fills)
    assert tree.n_nodes[0] == 0 and tree.root[0] == NO_NODE


@pytest.mark.parametrize(("layout", "columns", "empty"), LAYOUTS)
def test_growth_keeps_the_rows_and_fills_the_new_ones(layout, columns, empty):
    tree = empty()
    for parent in (NO_NODE, 0, 0):
        take_node(tree, parent)
    for name in columns.fills:
        getattr(tree, name)[:3] = 7
    assert columns.with_room(tree, 1) is tree  # room for a 4th node: unchanged
    larger = columns.with_room(tree, 2)
    assert capacity(larger) == max(5, int(columns.growth * 4))
    for name, fill in columns.fills.items():
        a = getattr(larger, name)
        assert a.dtype == getattr(tree, name).dtype and a.shape[1:] == getattr(tree, name).shape[1:]
        assert (a[:3] == 7).all() and (a[4:] == a.dtype.type(fill)).all()
    assert larger.n_nodes is tree.n_nodes and larger.root is tree.root  # the counters are shared
    trimmed = columns.trimmed(larger, 3)
    assert all(getattr(trimmed, name).shape[0] == 3 for name in columns.fills)
    assert sorted(columns.arrays(larger)) == sorted(columns.fills)


def test_take_node_appends_a_leaf():
    tree = empty_tree(2, capacity=2)
    assert take_node(tree, NO_NODE) == 0 and take_node(tree, 0) == 1
    np.testing.assert_array_equal(tree.parent, [NO_NODE, 0])
    np.testing.assert_array_equal(tree.left, [NO_NODE, NO_NODE])
    assert tree.n_nodes[0] == 2


def test_the_layouts_grow_as_before():
    """Doubling for the Mondrian trees, by a quarter for BSP's (node arrays and hull tables apart)."""
    tree = empty_tree(2, capacity=16)
    tree.n_nodes[0] = 16
    assert capacity(reserved(tree, 1)) == 32 and capacity(reserved(tree, 40)) == 56
    bsp = empty_bsp_tree(1, 2, capacity=16)
    bsp.n_nodes[0] = 16
    grown = with_room(bsp, 1, 17)
    assert capacity(grown) == 20 and HULL_COLUMNS.rows(grown) == 20
    assert grown.pool is bsp.pool  # the pool grows in the kernels


def classification(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    return X, (X[:, 0] + X[:, 1] > 1).astype(int)


MODELS = [
    (MondrianForestClassifier, {}),
    (MondrianForestClassifier, {"lifetime": "increasing"}),
    (OnlineRandomForestClassifier, {"min_samples_split": 5}),
    (OnlineBSPForestClassifier, {}),
]


@pytest.mark.parametrize(("cls", "params"), MODELS)
def test_every_tree_is_a_base_tree_and_pickles_its_rows_in_use(cls, params):
    X, y = classification()
    model = cls(n_estimators=2, random_state=1, **params).partial_fit(X[:60], y[:60], classes=[0, 1])
    clone = pickle.loads(pickle.dumps(model))
    for tree, twin in zip(model.trees_, clone.trees_, strict=True):
        assert isinstance(tree, BaseTree)
        assert all(getattr(twin.nodes, name).shape[0] == max(tree.n_nodes, 1) for name in type(tree)._columns.fills)
    for m in (model, clone):
        m.partial_fit(X[60:], y[60:])
    for tree, twin in zip(model.trees_, clone.trees_, strict=True):
        assert tree.arrays().keys() == twin.arrays().keys()
        for name, a in tree.arrays().items():
            np.testing.assert_array_equal(a, twin.arrays()[name], err_msg=name)
    np.testing.assert_array_equal(model.predict_proba(X), clone.predict_proba(X))


def test_the_online_random_tree_is_not_a_mondrian_tree():
    X, y = classification()
    tree = OnlineRandomForestClassifier(n_estimators=1, random_state=0, min_samples_split=5).fit(X, y).trees_[0]
    assert not isinstance(tree, MondrianTree)
    pruned, origin = tree.pruned(np.inf)  # read as the Mondrian tree of its node arrays
    assert isinstance(pruned, MondrianTree) and pruned.n_leaves() == tree.n_leaves()
    np.testing.assert_array_equal(origin[pruned.apply(X)], tree.apply(X))
    before = tree.n_nodes
    tree.reserve(1000)
    assert capacity(tree.nodes) >= before + 1000 and tree.stats.slot.shape[0] >= before + 1000
