"""What every tree of the library is (``BaseTree``): node arrays of a layout, node statistics, a random stream, a
lifetime and the links of the leaves' point lists."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mondrian._node_arrays import Columns, reserved_rows
from mondrian._points import NO_POINT, empty_lists


class BaseTree:
    """The base of the library's trees: what the forests hold and read of every tree.

    A subclass names its layout's growing columns (``_columns``) and sets the attributes below in its constructor.

    Attributes
    ----------
    nodes : NamedTuple
        The node arrays (``mondrian._node_arrays``): one row per node, ``n_nodes`` rows in use.
    stats : ndarray or NamedTuple
        The node statistics, whose columns the owning estimator defines.
    rng : numpy.random.Generator
        The tree's own random stream, kept across calls so that results depend neither on how the data is batched
        into calls nor on the number of threads.
    lifetime : float or tuple
        The tree's lifetime (or the budget setting it follows).
    next_point : ndarray or None
        The links of the leaves' point lists, one per point of the forest's store (``mondrian._points``), for trees
        that revisit past points; None otherwise.
    """

    _columns: ClassVar[Columns]  # the layout's per-node columns
    nodes: Any
    rng: np.random.Generator
    lifetime: Any
    next_point: np.ndarray | None

    @property
    def n_nodes(self) -> int:
        """The number of nodes in use."""
        return int(self.nodes.n_nodes[0])

    @property
    def root(self) -> int:
        """The index of the root node, -1 while the tree is empty."""
        return int(self.nodes.root[0])

    def arrays(self) -> dict[str, np.ndarray]:
        """Return the node arrays in use, by name.

        Returns
        -------
        dict of str to ndarray
            A copy of each per-node array of ``nodes``, trimmed to the nodes in use.
        """
        return self._columns.arrays(self.nodes)

    def reserve(self, n_new: int) -> None:
        """Make room for more nodes in the node arrays (growing their capacity).

        Parameters
        ----------
        n_new : int
            The number of nodes to make room for.
        """
        self.nodes = self._columns.with_room(self.nodes, n_new)

    def keep_points(self, n_points: int) -> None:
        """Make room for the links of the leaves' point lists (doubling).

        Parameters
        ----------
        n_points : int
            The number of points the lists must be able to hold.
        """
        if self.next_point is None:
            self.next_point = empty_lists(n_points)
        self.next_point = reserved_rows(self.next_point, n_points, NO_POINT)

    def __getstate__(self):
        """The tree's attributes, its node arrays trimmed to the nodes in use (one row at least)."""
        state = dict(self.__dict__)
        state["nodes"] = self._columns.trimmed(self.nodes, self._rows_kept())
        return state

    def _rows_kept(self) -> int:
        """The rows of the per-node arrays a pickle keeps: those in use, one at least."""
        return max(self.n_nodes, 1)
