"""A Mondrian tree as a Python object: its node arrays, node statistics, random stream and lifetime.

Also the entry points to the Mondrian process itself: ``sample_mondrian`` draws MP(lam, box), ``sample_split`` one
split of a box (LRT14's SplitCell: its time, dimension and threshold).
"""

from __future__ import annotations

import copy

import numpy as np

from mondrian._nodes import (
    NO_NODE,
    TreeArrays,
    capacity,
    depths,
    empty_tree,
    reserved,
    reserved_rows,
)
from mondrian._points import NO_POINT, empty_lists
from mondrian._process import sample_partition, sample_split
from mondrian._prune import prune
from mondrian._route import apply
from mondrian._validation import check_lifetime, check_random_state_seed

__all__ = ["MondrianTree", "sample_mondrian", "sample_split"]


class MondrianTree:
    """One Mondrian tree.

    ``nodes`` holds the structure (see ``TreeArrays``); ``stats`` one row of node
    statistics per node whose columns the owning estimator defines; ``rng`` is the
    tree's own random stream, kept across calls so that results do not depend on how
    the data is batched into calls or on the number of threads.
    """

    def __init__(
        self, nodes: TreeArrays, rng: np.random.Generator, lifetime: float, n_stats: int = 0, stats_dtype=np.float64
    ):
        self.nodes = nodes
        self.rng = rng
        self.lifetime = float(lifetime)
        self.stats = np.zeros((capacity(nodes), n_stats), stats_dtype)
        # the points each leaf holds (``_points``), for trees that revisit past points; None otherwise
        self.first_point: np.ndarray | None = None
        self.next_point: np.ndarray | None = None

    @classmethod
    def empty(
        cls, n_features: int, rng, lifetime: float, n_stats: int = 0, dtype=np.float64, stats_dtype=np.float64
    ) -> MondrianTree:
        """A tree with no node whose boxes hold points of ``dtype`` and whose statistics are ``stats_dtype``."""
        return cls(empty_tree(n_features, dtype=dtype), rng, lifetime, n_stats, stats_dtype)

    def reserve(self, n_new: int) -> None:
        """Make room for ``n_new`` more nodes (doubling capacity) in the nodes and their statistics."""
        nodes = reserved(self.nodes, n_new)
        self.stats = reserved_rows(self.stats, capacity(nodes))
        if self.first_point is not None:
            self.first_point = reserved_rows(self.first_point, capacity(nodes), NO_POINT)
        self.nodes = nodes

    def keep_points(self, n_points: int) -> None:
        """Keep the points of each leaf (as indices into the forest's ``PointStore``), room for ``n_points``."""
        if self.first_point is None:
            self.first_point = empty_lists(capacity(self.nodes))
            self.next_point = empty_lists(n_points)
        self.next_point = reserved_rows(self.next_point, n_points, NO_POINT)

    # -- reading the tree (the node arrays trimmed to the nodes in use) ---------------------------
    @property
    def n_nodes(self) -> int:
        return int(self.nodes.n_nodes[0])

    @property
    def root(self) -> int:
        return int(self.nodes.root[0])

    def arrays(self) -> dict[str, np.ndarray]:
        """The node arrays in use, by name (a copy)."""
        n = self.n_nodes
        return {
            name: getattr(self.nodes, name)[:n].copy() for name in TreeArrays._fields if name not in ("n_nodes", "root")
        }

    def is_leaf(self, lifetime: float | None = None) -> np.ndarray:
        lifetime = self.lifetime if lifetime is None else lifetime
        n = self.n_nodes
        return (self.nodes.left[:n] == NO_NODE) | (self.nodes.split_time[:n] >= lifetime)

    def depths(self, lifetime: float | None = None) -> np.ndarray:
        """Depth of each node (root 0), -1 for nodes that pruning at ``lifetime`` removes."""
        return depths(self.nodes, self.lifetime if lifetime is None else lifetime)

    def leaves(self, lifetime: float | None = None) -> np.ndarray:
        """Indices of the leaves of the tree pruned at ``lifetime``."""
        return np.flatnonzero(self.is_leaf(lifetime) & (self.depths(lifetime) >= 0))

    def n_leaves(self, lifetime: float | None = None) -> int:
        return int(self.leaves(lifetime).shape[0])

    def apply(self, X: np.ndarray, lifetime: float | None = None) -> np.ndarray:
        """Index of the leaf holding each row of X."""
        if self.root == NO_NODE:
            raise ValueError("the tree is empty")
        X = np.ascontiguousarray(X, dtype=self.nodes.box_lower.dtype)  # the precision the tree was grown in
        return apply(self.nodes, X, self.lifetime if lifetime is None else lifetime)

    def pruned(self, lifetime: float) -> tuple[MondrianTree, np.ndarray]:
        """The tree pruned at ``lifetime`` (statistics dropped) and, per node, the node it comes from."""
        nodes, origin = prune(self.nodes, check_lifetime(lifetime))
        return MondrianTree(nodes, copy.deepcopy(self.rng), min(lifetime, self.lifetime)), origin

    def __getstate__(self):
        state = dict(self.__dict__)
        n = max(self.n_nodes, 1)
        state["nodes"] = TreeArrays(
            *(
                a if name in ("n_nodes", "root") else a[:n].copy()
                for name, a in zip(TreeArrays._fields, self.nodes, strict=False)
            )
        )
        state["stats"] = self.stats[:n].copy()
        if self.first_point is not None:
            state["first_point"] = self.first_point[:n].copy()
        return state


def sample_mondrian(lifetime: float, lower, upper, random_state=None) -> MondrianTree:
    """Draw MP(lifetime, [lower, upper]): a full Mondrian partition of the box, independent of any data.

    Examples
    --------
    >>> from mondrian import sample_mondrian
    >>> tree = sample_mondrian(2.0, [0.0, 0.0], [1.0, 1.0], random_state=0)
    >>> tree.n_leaves() >= 1  # (1 + 2)^2 = 9 leaves on average (MGS20, Proposition 2)
    True
    >>> tree.apply([[0.5, 0.5]]).shape  # the leaf of each point
    (1,)
    >>> import numpy as np
    >>> from mondrian.tree import sample_split
    >>> time, dimension, threshold = sample_split(np.zeros(2), np.ones(2), 0.0, 5.0, np.random.default_rng(0))
    >>> bool(0.0 <= threshold <= 1.0) and dimension in (0, 1)
    True
    """
    lifetime = check_lifetime(lifetime)
    if not np.isfinite(lifetime):
        raise ValueError("a full Mondrian partition needs a finite lifetime")
    lower = np.atleast_1d(np.asarray(lower, dtype=np.float64))
    upper = np.atleast_1d(np.asarray(upper, dtype=np.float64))
    if lower.shape != upper.shape or lower.ndim != 1 or not np.all(lower <= upper):
        raise ValueError("lower and upper must be 1-D arrays of the same length with lower <= upper")
    if not (np.isfinite(lower).all() and np.isfinite(upper).all()):
        raise ValueError(f"lower and upper must be finite (a box of finite size), got {lower!r} and {upper!r}")
    rng = np.random.default_rng(check_random_state_seed(random_state))
    expected = float(np.prod(1.0 + lifetime * (upper - lower)))
    nodes = sample_partition(
        empty_tree(lower.shape[0], min(int(2 * expected) + 1, 1 << 20)), lower, upper, lifetime, rng
    )
    return MondrianTree(nodes, rng, lifetime)
