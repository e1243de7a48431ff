"""The node-array core every tree layout extends.

A tree is a struct of parallel arrays, a named tuple (what the numba kernels read) with one row per node, never a
Python object per node. Every layout has the links ``parent``, ``left`` and ``right`` (``NO_NODE`` for none) first
and the one-element counters ``n_nodes`` (rows in use) and ``root`` (``NO_NODE`` while the tree is empty) last; it
adds its own columns between them (``mondrian._nodes``: the Mondrian trees' split and box; ``mondrian.bsp._nodes``:
a BSP tree's cut, statistics, point lists and hulls).

The arrays grow in Python, between kernel calls: the caller makes room (``Columns.with_room``), or a kernel stops
before it could run out of it (kernels that copied a tree to grow it spent most of their compile time there). A
kernel takes the next free row for a node with ``take_node``. A pickled tree keeps its rows in use alone
(``Columns.trimmed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba.extending import overload

from mondrian._compile import kernel

NO_NODE = -1
MAX_ROWS = 1 << 62  # rows no table reaches: the bound of a table without one
LINKS = {"parent": NO_NODE, "left": NO_NODE, "right": NO_NODE}  # the links' fill: no node


def links(capacity: int) -> dict[str, np.ndarray]:
    """The link arrays of a tree with room for ``capacity`` nodes, all ``NO_NODE``."""
    return {name: np.full(capacity, fill, np.int32) for name, fill in LINKS.items()}


def counters() -> dict[str, np.ndarray]:
    """``n_nodes`` and ``root`` of a tree without nodes."""
    return {"n_nodes": np.zeros(1, np.int64), "root": np.full(1, NO_NODE, np.int64)}


def capacity(tree):
    """The rows the node arrays have room for (callable from Python and from the kernels)."""
    return tree.parent.shape[0]


@overload(capacity, inline="always")
def _capacity_in_kernels(tree):
    return lambda tree: tree.parent.shape[0]


def grown(a: np.ndarray, rows: int, fill) -> np.ndarray:
    """A copy of a per-node array with ``rows`` rows, the new ones set to ``fill``. A fill of 0 (the boxes, the
    statistics) takes numpy's zeroed allocation: the pages of rows never used, most of what a growth reserves, are
    then never written (the system maps them, zero, when a node first lands there)."""
    if fill == 0:
        out = np.zeros((rows, *a.shape[1:]), a.dtype)
    else:
        out = np.empty((rows, *a.shape[1:]), a.dtype)
        out[a.shape[0] :] = fill
    out[: a.shape[0]] = a
    return out


def reserved_rows(a: np.ndarray, rows: int, fill=0) -> np.ndarray:
    """Side array ``a`` (new rows set to ``fill``) with at least ``rows`` rows, doubling: per node, or per point."""
    if a.shape[0] >= rows:
        return a
    return grown(a, max(rows, 2 * a.shape[0]), fill)


def with_new_classes(stats: np.ndarray, n_classes: int, n_new: int) -> np.ndarray:
    """A classifier's node statistics (one row per node: the count in column 0, then the ``n_classes`` class counts,
    then any columns of the forecaster's own, as AMF's weights) with ``n_new`` zero class columns after the
    others: the classes appended to ``classes_``, seen nowhere yet."""
    at = 1 + n_classes
    zeros = np.zeros((stats.shape[0], n_new), stats.dtype)
    return np.concatenate([stats[:, :at], zeros, stats[:, at:]], axis=1)


@dataclass(frozen=True)
class Columns:
    """Columns of a layout that grow together, as the rows of one table.

    Parameters
    ----------
    fills : mapping of str to scalar
        The columns, by field name, and the value of the rows a growth adds.
    used : str
        The field of the one-element counter of the rows in use.
    growth : float
        The least factor by which a growth multiplies the rows.
    """

    fills: Mapping[str, Any]
    used: str
    growth: float

    def rows(self, tree) -> int:
        """The rows the columns have room for."""
        return getattr(tree, next(iter(self.fills))).shape[0]

    def with_room(self, tree, n_new: int, most: int | None = None):
        """``tree`` itself if its columns have room for ``n_new`` more rows, else a copy whose columns grew by
        ``growth`` at least; never beyond ``most`` rows (None: no bound), the room then what is left below it."""
        most = MAX_ROWS if most is None else most
        need, rows = min(int(getattr(tree, self.used)[0]) + n_new, most), self.rows(tree)
        if need <= rows:
            return tree
        rows = min(max(need, int(self.growth * rows)), most)
        return tree._replace(**{name: grown(getattr(tree, name), rows, fill) for name, fill in self.fills.items()})

    def trimmed(self, tree, rows: int):
        """``tree`` with copies of the first ``rows`` rows of its columns (what a pickle keeps)."""
        return tree._replace(**{name: getattr(tree, name)[:rows].copy() for name in self.fills})

    def arrays(self, tree) -> dict[str, np.ndarray]:
        """Copies of the columns' rows in use, by name."""
        n = int(getattr(tree, self.used)[0])
        return {name: getattr(tree, name)[:n].copy() for name in self.fills}


@kernel(inline="always")
def take_node(tree, parent):
    """The next free row of ``tree``, as a leaf below ``parent`` (the caller made room): its links set, the layout's
    own columns left for the caller to set."""
    node = tree.n_nodes[0]
    tree.n_nodes[0] = node + 1
    tree.parent[node] = parent
    tree.left[node] = NO_NODE
    tree.right[node] = NO_NODE
    return node


@kernel
def replace_child(left, right, root, parent, old, new):
    """Put node ``new`` where ``old`` was: under ``parent`` (NO_NODE: as the root)."""
    if parent == NO_NODE:
        root[0] = new
    elif left[parent] == old:
        left[parent] = new
    else:
        right[parent] = new
