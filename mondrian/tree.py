"""A Mondrian tree as a Python object: its node arrays, node statistics, random stream and lifetime.

Also the entry points to the Mondrian process itself: ``sample_mondrian`` draws MP(lam, box), ``sample_split`` one
split of a box (LRT14's SplitCell: its time, dimension and threshold).
"""

from __future__ import annotations

import copy

import numpy as np

from mondrian._node_arrays import grown
from mondrian._nodes import MAX_ROWS, TreeArrays, capacity, empty_tree
from mondrian._points import NO_POINT, empty_lists
from mondrian._process import sample_partition
from mondrian._process import sample_split as _sample_split
from mondrian._prune import prune
from mondrian._split_tree import SplitTree
from mondrian._validation import check_cells, check_lifetime, check_random_state_seed, expected_cells

# The largest expected number of cells sample_mondrian draws by default (a full partition: every cell is allocated).
MAX_CELLS = 1e7

__all__ = ["MondrianTree", "sample_mondrian", "sample_split"]


class MondrianTree(SplitTree):
    """One Mondrian tree: its node arrays, node statistics, random stream and lifetime.

    The trees of the estimators (their ``trees_``) and of ``sample_mondrian``. Nodes are rows of parallel arrays;
    a node is a leaf when it has no children or when its split time is at least the lifetime read, so that one tree
    answers for every smaller lifetime (``pruned``, and the ``lifetime`` argument of the methods).

    Parameters
    ----------
    nodes : TreeArrays
        The node arrays.
    rng : numpy.random.Generator
        The tree's random stream.
    lifetime : float
        The tree's lifetime.
    n_stats : int, default=0
        The columns of the node statistics.
    stats_dtype : numpy dtype, default=np.float64
        The precision of the node statistics.

    Attributes
    ----------
    nodes : TreeArrays
        The structure, a named tuple of arrays with one row per node (capacity doubled as needed, ``n_nodes`` rows
        in use): ``parent``, ``left``, ``right`` (-1 for none), ``feature`` and ``threshold`` of the split (x goes
        left when ``x[feature] <= threshold``), ``split_time`` (inf at a leaf), and the box of the node's data,
        ``box_lower`` and ``box_upper``; ``n_nodes`` and ``root`` are one-element arrays.
    stats : ndarray of shape (capacity, n_stats)
        One row of statistics per node, whose columns the owning estimator defines.
    rng : numpy.random.Generator
        The tree's own random stream, kept across calls so that results depend neither on how the data is batched
        into calls nor on the number of threads.
    lifetime : float
        The tree's lifetime (an increasing lifetime's current value).
    first_point, next_point : ndarray or None
        The points each leaf holds, as linked lists into the forest's point store, for trees that revisit past
        points; None otherwise.
    max_nodes : int or None
        The most nodes the tree holds (its estimator's ``max_nodes``; None: no bound): the node arrays never grow
        beyond it, and a tree holding it, with no room for a split's 2 nodes, stops splitting.

    See Also
    --------
    sample_mondrian : Draw a Mondrian partition of a box.

    Examples
    --------
    >>> from mondrian import sample_mondrian
    >>> tree = sample_mondrian(3.0, [0.0, 0.0], [1.0, 1.0], random_state=1)
    >>> coarser, origin = tree.pruned(1.0)
    >>> bool(coarser.n_leaves() <= tree.n_leaves())
    True
    >>> sorted(tree.arrays())[:3]
    ['box_lower', 'box_upper', 'feature']
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
        self.max_nodes: int | None = None  # no bound; ``empty`` sets the estimator's

    @classmethod
    def empty(
        cls,
        n_features: int,
        rng,
        lifetime: float,
        n_stats: int = 0,
        dtype=np.float64,
        stats_dtype=np.float64,
        max_nodes: int | None = None,
    ) -> MondrianTree:
        """Make a tree with no node.

        Parameters
        ----------
        n_features : int
            The number of features.
        rng : numpy.random.Generator
            The tree's random stream.
        lifetime : float
            The tree's lifetime.
        n_stats : int, default=0
            The columns of the node statistics.
        dtype : numpy dtype, default=np.float64
            The precision of the boxes (that of the points the tree will hold).
        stats_dtype : numpy dtype, default=np.float64
            The precision of the statistics.
        max_nodes : int or None, default=None
            The most nodes the tree may hold (None: no bound).

        Returns
        -------
        MondrianTree
            The empty tree.
        """
        tree = cls(empty_tree(n_features, min(16, max_nodes or 16), dtype), rng, lifetime, n_stats, stats_dtype)
        tree.max_nodes = max_nodes
        return tree

    def reserve(self, n_new: int) -> None:
        """Make room for more nodes in the node arrays and their statistics (doubling the capacity).

        The arrays never grow beyond ``max_nodes`` rows.

        Parameters
        ----------
        n_new : int
            The number of nodes to make room for (fewer if ``max_nodes`` is nearer).
        """
        self.nodes = self._columns.with_room(self.nodes, n_new, self.max_nodes)
        self.stats = _per_node(self.stats, capacity(self.nodes), 0)
        if self.first_point is not None:
            self.first_point = _per_node(self.first_point, capacity(self.nodes), NO_POINT)

    def free_rows(self) -> int:
        """Return the nodes the tree may still add before its arrays must grow.

        Returns
        -------
        int
            The rows left, or ``MAX_ROWS`` once the arrays hold ``max_nodes`` rows: the tree then never grows (it
            stops splitting when it has no room left).
        """
        if capacity(self.nodes) == self.max_nodes:
            return MAX_ROWS
        return capacity(self.nodes) - self.n_nodes

    def keep_points(self, n_points: int) -> None:
        """Keep the points of each leaf, as indices into the forest's point store.

        Parameters
        ----------
        n_points : int
            The number of points the lists must be able to hold.
        """
        if self.first_point is None:
            self.first_point = empty_lists(capacity(self.nodes))
        super().keep_points(n_points)

    def pruned(self, lifetime: float) -> tuple[MondrianTree, np.ndarray]:
        """Return the tree pruned at a lifetime.

        Parameters
        ----------
        lifetime : float
            A positive lifetime (inf allowed).

        Returns
        -------
        tree : MondrianTree
            The pruned tree, at lifetime min(``lifetime``, the tree's), without statistics.
        origin : ndarray
            For each node of the pruned tree, the node of this tree it comes from.
        """
        nodes, origin = prune(self.nodes, check_lifetime(lifetime))
        return MondrianTree(nodes, copy.deepcopy(self.rng), min(lifetime, self.lifetime)), origin

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("max_nodes", None)  # a tree pickled before the bound has none

    def __getstate__(self):
        state = super().__getstate__()
        n = self._rows_kept()
        state["stats"] = self.stats[:n].copy()
        if self.first_point is not None:
            state["first_point"] = self.first_point[:n].copy()
        return state


def _per_node(a: np.ndarray, rows: int, fill) -> np.ndarray:
    """A per-node side array ``a`` with a row per row of the node arrays, ``rows`` (the new ones set to ``fill``)."""
    return a if a.shape[0] >= rows else grown(a, rows, fill)


def sample_mondrian(lifetime: float, lower, upper, random_state=None, max_cells: float = MAX_CELLS) -> MondrianTree:
    """Draw a Mondrian partition MP(lifetime, [lower, upper]) of a box, independent of any data.

    The whole process: every cell of the box is split until the lifetime (LRT14's SampleMondrianBlock, from the
    box itself rather than the range of data).

    Parameters
    ----------
    lifetime : float
        A positive finite lifetime lambda.
    lower, upper : array-like of shape (n_features,)
        The corners of the box, finite, ``lower <= upper``.
    random_state : int, RandomState, Generator or None, default=None
        The seed; the tree keeps the stream drawn from it. None: fresh entropy.
    max_cells : float, default=1e7
        The largest expected number of cells, prod_j (1 + lifetime (upper_j - lower_j)), drawn: a larger partition is
        refused before anything is allocated (1e7 cells take about 1.6 GB in two dimensions).

    Returns
    -------
    MondrianTree
        The partition as a tree: its leaves are the cells.

    Raises
    ------
    ValueError
        If the lifetime is not positive and finite, the box is not finite with ``lower <= upper``, or the partition
        has more than ``max_cells`` cells on average.

    See Also
    --------
    sample_split : One split of a box.
    MondrianTree : The tree it returns.

    Notes
    -----
    On [0, 1]^d the expected number of cells is (1 + lifetime)^d (MGS20, Proposition 2). The cell holding x has
    independent sides, each at a distance E / lifetime from x (E ~ Exp(1)) or on the box's side if that is nearer,
    and two points share a cell with probability ``exp(-lifetime ||x - x'||_1)`` (MGS20, Proposition 1).

    Examples
    --------
    >>> from mondrian import sample_mondrian
    >>> tree = sample_mondrian(2.0, [0.0, 0.0], [1.0, 1.0], random_state=0)
    >>> tree.n_leaves() >= 1  # (1 + 2)^2 = 9 leaves on average (MGS20, Proposition 2)
    True
    >>> tree.apply([[0.5, 0.5]]).shape  # the leaf of each point
    (1,)
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
    check_cells(lifetime, lower, upper, max_cells)
    rng = np.random.default_rng(check_random_state_seed(random_state))
    expected = expected_cells(lifetime, lower, upper)
    nodes = sample_partition(
        empty_tree(lower.shape[0], min(int(2 * expected) + 1, 1 << 20)), lower, upper, lifetime, rng
    )
    return MondrianTree(nodes, rng, lifetime)


def sample_split(lower, upper, start_time, lifetime, rng):
    """Draw the next split of a box in a Mondrian process (LRT14's SplitCell).

    The time to the split is exponential with rate the box's linear dimension (the sum of its sides); the dimension
    is chosen proportionally to the sides, the threshold uniformly on the chosen side. A numba kernel.

    Parameters
    ----------
    lower, upper : ndarray of shape (n_features,)
        The corners of the box, float64.
    start_time : float
        The time the box was created (its parent's split time; 0 for the root).
    lifetime : float
        The lifetime: no split at or after it.
    rng : numpy.random.Generator
        The random stream.

    Returns
    -------
    time : float
        The split time, inf when there is no split before the lifetime (or the box has no width).
    dimension : int
        The split dimension, -1 when there is no split.
    threshold : float
        The threshold (0.0 when there is no split).

    See Also
    --------
    sample_mondrian : A whole Mondrian partition.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian.tree import sample_split
    >>> time, dimension, threshold = sample_split(np.zeros(2), np.ones(2), 0.0, 5.0, np.random.default_rng(0))
    >>> bool(0.0 <= threshold <= 1.0) and dimension in (0, 1)
    True
    >>> sample_split(np.zeros(2), np.zeros(2), 0.0, 5.0, np.random.default_rng(0))  # a box of no width
    (inf, -1, 0.0)
    """
    return _sample_split(lower, upper, start_time, lifetime, rng)
