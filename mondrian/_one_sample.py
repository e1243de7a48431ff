"""One sample at a time, river's convention: a sample is a dict {feature name: value} or a 1-D array, and a forest
whose forecaster has one-sample kernels (``learn_one_forest``, ``predict_one_forest``) runs each call as one compiled
call over all its trees, given as numba typed lists (``TypedTrees``). The kernels take the sample as a (1,
n_features) row in double precision and cast it to the trees' precision themselves (``SAMPLE_DTYPE``)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from functools import lru_cache
from operator import itemgetter

import numba
import numpy as np
from numba.typed import List

from mondrian._compile import kernel
from mondrian._nodes import TreeArrays, capacity

# Nodes a tree may gain from one point (a new leaf and a new parent): what ``TypedTrees.room`` is counted in.
NODES_PER_POINT = 2
ROOM = 256
# The precision of the one-sample kernels' input row: Python floats' and most arrays', so that a sample is usually
# passed on without a conversion in Python (which costs more than casting in the kernel).
SAMPLE_DTYPE = np.float64


def sample_values(x: dict, known: tuple | None) -> tuple:
    """The values of the dict sample x in the model's feature order: ``known`` (learnt from the first dict, or the
    fitted feature names), or x's own order for a model that has learnt nothing yet. A missing or unknown feature is
    a ValueError naming it (a zero in its place would be a silent change of the data)."""
    if known is None:
        return tuple(x.values())
    # x holds exactly the known features if it has as many and each of them (a plain dict raises KeyError for a
    # missing one; a defaultdict would make it up)
    if len(x) == len(known) and (type(x) is dict or all(key in x for key in known)):
        try:
            return _values_of(known)(x)
        except KeyError:
            pass
    missing = [key for key in known if key not in x]
    unknown = [key for key in x if key not in set(known)]
    raise ValueError(
        f"x must hold the features the model learnt, {len(known)} of them: "
        + "; ".join(
            part
            for part in (f"missing {missing!r}" if missing else "", f"not learnt {unknown!r}" if unknown else "")
            if part
        )
    )


@lru_cache(maxsize=8)
def _values_of(keys: tuple) -> Callable[[dict], tuple]:
    """A function giving a dict's values at ``keys`` as a tuple, in C (a Python loop over the keys costs about as
    much as a one-sample kernel's work on a small tree)."""
    get = itemgetter(*keys)
    return get if len(keys) > 1 else lambda x: (get(x),)


def as_sample(x, named: bool):
    """x as the one-sample calls take it: a pandas Series (duck-typed: pandas is not imported) becomes a dict by its
    index when the model knows feature names (``named``) or, on a first sample, when its index is all names, as a
    DataFrame's row would be read; else its values in order. Anything else is returned as is."""
    if isinstance(x, (dict, np.ndarray)) or not (hasattr(x, "index") and hasattr(x, "to_numpy")):
        return x
    keys = list(x.index)
    if named or all(isinstance(key, str) for key in keys):
        return dict(zip(keys, x.to_numpy().tolist(), strict=True))
    return x.to_numpy()


def one_row(x, known_keys: tuple | None, n_features: int | None) -> np.ndarray:
    """The sample x as a (1, n_features) C-contiguous row of ``SAMPLE_DTYPE`` (values are checked by the caller's
    kernels or validation). ``known_keys``: the feature order a dict sample follows (None before any). A scalar or
    complex values are refused, as the batch methods refuse them."""
    values = sample_values(x, known_keys) if isinstance(x, dict) else x
    if np.ndim(values) == 0:
        raise ValueError(f"x must be one sample, a dict {{feature: value}} or a 1-D array, got the scalar {values!r}")
    if np.iscomplexobj(values) or (isinstance(values, tuple) and any(isinstance(v, complex) for v in values)):
        raise ValueError("x must hold real numbers, got complex values")
    # contiguous: a row of a Fortran-ordered array would compile anew. A value too large for SAMPLE_DTYPE: inf,
    # refused later, without numpy's warning about the cast (silenced only where it can occur: numpy's state costs
    # about a microsecond to set).
    wide = isinstance(values, np.ndarray) and values.dtype.itemsize > np.dtype(SAMPLE_DTYPE).itemsize
    try:
        with np.errstate(over="ignore") if wide else nullcontext():
            row = np.ascontiguousarray(values, dtype=SAMPLE_DTYPE)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"x must hold numbers: {error}") from None
    if row.ndim != 1:
        raise ValueError(
            f"x must be one sample, a dict {{feature: value}} or a 1-D array, got an array of shape {row.shape}; "
            "learn or predict many rows with partial_fit / predict"
        )
    if row.shape[0] == 0:
        raise ValueError("x must hold at least one feature, got none")
    if n_features is not None and row.shape[0] != n_features:
        raise ValueError(f"x has {row.shape[0]} features, but the model is expecting {n_features} features")
    return row.reshape(1, -1) if row.flags.writeable else row.reshape(1, -1).copy()  # read-only: compiled anew


@kernel
def _put_tree(
    forest, t, parent, left, right, feature, threshold, split_time, box_lower, box_upper, n_nodes, root, stats, rng
):
    """forest[t] = (the node arrays, stats, rng), appended if t is the list's length. The arrays come one by one:
    numba types an array argument in C, but a tuple of them in Python (about 0.2 ms for a tree's)."""
    item = (
        TreeArrays(parent, left, right, feature, threshold, split_time, box_lower, box_upper, n_nodes, root),
        stats,
        rng,
    )
    if t == len(forest):
        forest.append(item)
    else:
        forest[t] = item


class Scratch:
    """The one-sample kernels' scratch room (a model's calls take turns, ``_threads``, so one is enough): ``target``
    (the encoded label being learnt), ``out`` (a prediction), ``branch`` (a tree's prediction), ``row`` (the sample in
    the trees' precision), ``path`` and ``below`` (a value per node of the largest tree, grown by ``sized``)."""

    def __init__(self, n_outputs: int, row: np.ndarray, stats_dtype):
        self.target = np.empty(1)
        self.out = np.empty((1, n_outputs))
        self.branch = np.empty(n_outputs)
        self.row = np.empty_like(row)
        self.path = np.empty(0, np.int64)
        self.below = np.empty(0, stats_dtype)

    def sized(self, rows: int) -> Scratch:
        """The scratch, with room for trees of ``rows`` nodes."""
        if self.path.shape[0] < rows:
            self.path = np.empty(rows, np.int64)
            self.below = np.empty(rows, self.below.dtype)
        return self


class TypedTrees:
    """The fitted trees as one numba typed list of (node arrays, statistics, random stream), ``forest``, which a
    compiled call receives at the cost of one argument (a tuple of trees would be typed element by element on every
    call). The list holds the trees' own arrays and generators, so the kernels change the trees themselves. Valid
    while the trees keep their arrays: built again when ``trees_`` is replaced and after any call that learnt through
    the arrays path (which may grow them); ``room`` counts the points every tree can still take, and ``make_room``
    grows the trees when it runs out. Also the kernels' scratch room (``scratch``), so that a call allocates nothing."""

    def __init__(self, trees: list, widest: float, n_outputs: int):
        self.trees = trees  # the list these were built from (``trees_`` replaced: built again)
        self._list_trees()
        self.widest = widest  # the widest side a box may have (the tree family's ``widest_side``)
        # the parameters the last learn_one validated (values by identity) and their kernel parameters
        self.learnt_with: tuple | None = None
        self.learn_params: np.ndarray | None = None
        self.predicted_with: tuple | None = None  # the same for predictions, with the learnt parameters
        self.predict_params: np.ndarray | None = None
        row = np.empty((1, trees[0].nodes.box_lower.shape[1]), trees[0].nodes.box_lower.dtype)
        self._scratch = Scratch(n_outputs, row, trees[0].stats.dtype)
        self.class_index: dict | None = None  # a classifier's label -> index in classes_, made on first use

    def _list_trees(self) -> None:
        """Put the trees' current arrays in ``forest`` (made on the first call), and size the room and scratch."""
        if not hasattr(self, "forest"):
            first = self.trees[0]
            self.forest = List.empty_list(numba.typeof((first.nodes, first.stats, first.rng)))
        for t, tree in enumerate(self.trees):
            _put_tree(self.forest, t, *tree.nodes, tree.stats, tree.rng)
        self.room = min(tree.free_rows() for tree in self.trees) // NODES_PER_POINT
        self.rows = max(capacity(tree.nodes) for tree in self.trees)  # the scratch's room per node

    def scratch(self) -> Scratch:
        """The scratch room, with room for the trees' nodes."""
        return self._scratch.sized(self.rows)

    def make_room(self) -> None:
        """Grow every tree to room for as many more points as it has nodes (at least ROOM), so that this happens
        rarely; the caller knows the next sample will be learnt (a refused sample changes no tree)."""
        for tree in self.trees:
            tree.reserve(NODES_PER_POINT * max(ROOM, tree.n_nodes))
        self._list_trees()
