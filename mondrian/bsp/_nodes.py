"""Node-array storage of a BSP tree (Fan, Li and Sisson 2020).

One row per node, as every tree of the project, plus hull tables and a pool of hull vertices: the block of a node is
the convex hull of the points it holds, kept through its 2-D projections, one per dimension pair
(``mondrian.bsp.hull``).
A node that keeps hulls has a row r = ``hull_row[v]`` of the hull tables: its hull in pair p is
``pool[hull_start[r, p] : hull_start[r, p] + hull_size[r, p]]`` (row indices of the forest's point store,
counter-clockwise, int32), its perimeter ``perimeter[r, p]`` (``hull.perimeter`` of those vertices, kept so that an
update computes only the perimeters of the hulls that grow). A leaf of at most ``MAX_UNCUT`` points keeps none
(``NO_HULLS``): they are computed from its points when needed, with ``initial_points``, the number it was made with
(``_small_blocks``). A hull lives in a slot of the pool of its size (``slot_length``: larger hulls, rare, in slots
of a power of 2); a hull whose size changes moves to a slot of its new class, a free one (``free_slots``, a list per
class) or one at the end of the pool, and its old slot goes to its class's list, so that the pool holds little more
than the hulls.
Leaves keep their points in linked lists (``_points``); ``stats`` counts the points below a node (column 0) and
their one-hot labels or the sum of their targets (columns 1..). The cut of an internal node is the line
x[d1] cos + x[d2] sin = position in the pair (d1, d2) = ``pair_dims(pair)``; points on or below it go left.
``split_time`` is the cost time of the cut from the root (inf at a leaf): children start at their parent's time;
a leaf that may be cut (more than 3 points) has had no cut up to ``sampled_until``, its budget so far.
The node arrays grow between kernel calls, by a quarter at least (``GROWTH``: little room to spare; a call stops before
a point the tree may lack room for); the pool grows in the kernels, as much, and they pass it along apart from the
tree.
"""

from typing import NamedTuple

import numpy as np

from mondrian._compile import kernel
from mondrian._node_arrays import LINKS, NO_NODE, Columns, counters, links, take_node
from mondrian._points import NO_POINT

MAX_UNCUT = 3  # a block holding at most this many points is never cut (the paper's rule)
NO_SLOT = -1
NO_HULLS = -1  # the hull row of a node that keeps no hulls
EXACT = 16  # hulls of up to this many vertices (most of them) take slots of their size, larger ones of a power of 2
SLOT_CLASSES = EXACT + 32  # a free list per slot class: 1 .. EXACT, then EXACT + c for slots of 2^c > EXACT
GROWTH = 1.25  # the factor by which the node arrays and the pool grow, at least
MAX_POOL = 2**31 - 1  # pool offsets, and the point-store rows the pool holds, are int32


class BSPArrays(NamedTuple):
    parent: np.ndarray  # int32 (capacity,), NO_NODE at the root
    left: np.ndarray  # int32 (capacity,), NO_NODE at a leaf
    right: np.ndarray  # int32 (capacity,)
    pair: np.ndarray  # int32 (capacity,), the dimension pair of the cut
    direction: np.ndarray  # float64 (capacity, 2), (cos theta, sin theta) of the cut
    position: np.ndarray  # float64 (capacity,), u: the cut is the line of points whose projection equals u
    split_time: np.ndarray  # float64 (capacity,), inf at a leaf
    sampled_until: np.ndarray  # float64 (capacity,), a leaf's budget so far: it has no cut before this time
    stats: np.ndarray  # float64 (capacity, n_stats)
    first_point: np.ndarray  # int64 (capacity,), the leaf's point list (_points)
    initial_points: np.ndarray  # int8 (capacity,), the points a leaf held when made, up to MAX_UNCUT + 1
    hull_row: np.ndarray  # int32 (capacity,), the node's row of the hull tables, NO_HULLS for a small leaf
    hull_start: np.ndarray  # int32 (hull capacity, n_pairs): a row per node that keeps hulls
    hull_size: np.ndarray  # int32 (hull capacity, n_pairs)
    perimeter: np.ndarray  # float64 (hull capacity, n_pairs)
    hull_rows_used: np.ndarray  # int64 (1,)
    pool: np.ndarray  # int32 (pool capacity,), hull vertices as point-store rows
    pool_used: np.ndarray  # int64 (1,)
    free_slots: np.ndarray  # int64 (SLOT_CLASSES,), the first free slot of each class, NO_SLOT if none
    n_nodes: np.ndarray  # int64 (1,)
    root: np.ndarray  # int64 (1,), NO_NODE while the tree is empty


# the per-node columns and the fill of new rows, then the hull tables' (a row per node that keeps hulls): both grow
# by GROWTH at least
NODE_COLUMNS = Columns(
    {
        **LINKS, "pair": NO_NODE, "direction": 0.0, "position": 0.0, "split_time": np.inf, "sampled_until": 0.0,
        "stats": 0.0, "first_point": NO_POINT, "initial_points": 0, "hull_row": NO_HULLS,
    },
    used="n_nodes",
    growth=GROWTH,
)  # fmt: skip
HULL_COLUMNS = Columns({"hull_start": 0, "hull_size": 0, "perimeter": 0}, used="hull_rows_used", growth=GROWTH)


def empty_bsp_tree(n_pairs: int, n_stats: int, capacity: int = 16) -> BSPArrays:
    capacity = max(int(capacity), 1)
    return BSPArrays(
        **links(capacity),
        pair=np.full(capacity, NO_NODE, np.int32),
        direction=np.zeros((capacity, 2)),
        position=np.zeros(capacity),
        split_time=np.full(capacity, np.inf),
        sampled_until=np.zeros(capacity),
        stats=np.zeros((capacity, n_stats)),
        first_point=np.full(capacity, NO_POINT, np.int64),
        initial_points=np.zeros(capacity, np.int8),
        hull_row=np.full(capacity, NO_HULLS, np.int32),
        hull_start=np.zeros((capacity, n_pairs), np.int32),
        hull_size=np.zeros((capacity, n_pairs), np.int32),
        perimeter=np.zeros((capacity, n_pairs)),
        hull_rows_used=np.zeros(1, np.int64),
        pool=np.zeros(capacity * n_pairs * 2, np.int32),
        pool_used=np.zeros(1, np.int64),
        free_slots=np.full(SLOT_CLASSES, NO_SLOT, np.int64),
        **counters(),
    )


def with_room(tree: BSPArrays, n_new: int, n_new_hulls: int) -> BSPArrays:
    """``tree`` with room for ``n_new`` more nodes and ``n_new_hulls`` more rows of hull tables (a copy whose node
    arrays, or hull tables, grew by a quarter at least, ``GROWTH``, if needed). Called from Python between kernel
    calls: they never grow these (only the pool, see ``set_hull``)."""
    return HULL_COLUMNS.with_room(NODE_COLUMNS.with_room(tree, n_new), n_new_hulls)


@kernel(inline="always")
def new_node(tree, parent):
    """Index of a fresh leaf under ``parent`` (room was made before the kernel ran, ``with_room``)."""
    node = take_node(tree, parent)
    tree.pair[node] = NO_NODE
    tree.split_time[node] = np.inf
    tree.sampled_until[node] = 0.0
    tree.stats[node] = 0.0
    tree.first_point[node] = NO_POINT
    tree.initial_points[node] = 1
    tree.hull_row[node] = NO_HULLS
    return node


@kernel(inline="always")
def vertices(tree, pool, node, p):
    """The vertices of the node's stored hull in pair p (a view into the pool, which the kernels hold apart from the
    tree: it may grow while they run, ``set_hull``)."""
    row = tree.hull_row[node]
    start = tree.hull_start[row, p]
    return pool[start : start + tree.hull_size[row, p]]


@kernel(inline="always")
def hull_size(tree, node, p):
    """The number of vertices of the node's hull in pair p, as int64 (what the hull functions are compiled for)."""
    return np.int64(tree.hull_size[tree.hull_row[node], p])


@kernel(inline="always")
def perimeters(tree, node):
    """The perimeters of the node's hulls, by pair (a view into its row of the hull tables)."""
    return tree.perimeter[tree.hull_row[node]]


@kernel
def slot_class(size):
    """The class of the slot that holds a hull of ``size`` vertices: the size itself up to ``EXACT``; above, EXACT + c
    for the least c with 2^c >= size."""
    if size <= EXACT:
        return size
    c = 5
    while (1 << c) < size:
        c += 1
    return EXACT + c


@kernel
def class_length(c):
    """The length of the slots of class c (``slot_class``)."""
    return c if c <= EXACT else 1 << (c - EXACT)


@kernel
def slot_length(size):
    """The length of the slot that holds a hull of ``size`` vertices."""
    return class_length(slot_class(size))


class Slots(NamedTuple):
    """The arrays of the hulls' slots (the tree's fields of the same names), what ``set_hull`` and the pool's room
    take instead of the whole tree: a call hands numba every array of its arguments (and a function handed the tree
    compiles the handling of every node array), and these run for every hull an update stores."""

    hull_row: np.ndarray
    hull_start: np.ndarray
    hull_size: np.ndarray
    perimeter: np.ndarray
    hull_rows_used: np.ndarray
    pool_used: np.ndarray
    free_slots: np.ndarray


@kernel(inline="always")
def slots(tree):
    """The tree's ``Slots``."""
    return Slots(
        tree.hull_row, tree.hull_start, tree.hull_size, tree.perimeter, tree.hull_rows_used, tree.pool_used,
        tree.free_slots,
    )  # fmt: skip


@kernel
def slot_room(slots, node, p, size):
    """The room at the end of the pool ``set_hull`` may take to store a hull of ``size`` vertices for the node in pair
    p: none when the node's slot is of its class, else a slot of its class."""
    row = slots.hull_row[node]
    old = 0 if row == NO_HULLS else slots.hull_size[row, p]
    return 0 if old > 0 and slot_class(size) == slot_class(old) else slot_length(size)


@kernel(inline="always")
def with_pool_room(slots, pool, room):
    """``pool`` if it has ``room`` entries beyond those in use, else a copy grown by a quarter at least (the caller
    passes it on). Offsets are int32: a pool holds at most MAX_POOL entries. Inlined: the check runs per hull stored,
    a call would count references to the slots' arrays each time; the growth, rare, is a call."""
    if slots.pool_used[0] + room <= pool.shape[0]:
        return pool
    return _grown_pool(slots.pool_used[0] + room, pool, slots.pool_used[0])


@kernel
def _grown_pool(need, pool, used):
    """A copy of the pool's first ``used`` entries with room for ``need`` (``with_pool_room``)."""
    if need > MAX_POOL:
        raise MemoryError("a BSP tree holds more than 2^31 hull vertices (its pool offsets are int32)")
    # zeros, not empty: entries beyond those in use are pickled with the tree, and must not depend on memory
    larger = np.zeros(min(max(need, int(GROWTH * pool.shape[0])), MAX_POOL), np.int32)
    for k in range(used):
        larger[k] = pool[k]
    return larger


@kernel
def set_hull(slots, pool, node, p, rows, at, size, perimeter):
    """Store rows[at : at + size] as the node's hull in pair p, with its perimeter; the pool has room for it
    (``slot_room``, ``with_pool_room``: a kernel grows it once for all the hulls it stores at a step).

    The slot is rewritten in place when it is of the new hull's class (of its size, for most hulls); else it goes
    to its class's free list (each free slot's first entry links the next) and the hull moves to a slot of the
    class it needs, a free one if any. ``rows`` may be the pool itself. A node's first hull takes it a row of the
    hull tables (the tree has room for it, ``with_room``). Copies go element by element: a slice assignment compiles
    numba's shape-error message.
    """
    row = slots.hull_row[node]
    if row == NO_HULLS:  # a fresh row: its sizes are 0
        row = slots.hull_rows_used[0]
        slots.hull_rows_used[0] = row + 1
        slots.hull_row[node] = row
    old = slots.hull_size[row, p]
    c = slot_class(size)
    if old > 0 and c == slot_class(old):
        start = slots.hull_start[row, p]
    else:
        if old > 0:
            freed = slots.hull_start[row, p]
            pool[freed] = slots.free_slots[slot_class(old)]
            slots.free_slots[slot_class(old)] = freed
        start = slots.free_slots[c]
        if start != NO_SLOT:
            slots.free_slots[c] = pool[start]
        else:
            start = slots.pool_used[0]
            slots.pool_used[0] = start + class_length(c)
    for k in range(size):
        pool[start + k] = rows[at + k]
    slots.hull_start[row, p] = start
    slots.hull_size[row, p] = size
    slots.perimeter[row, p] = perimeter


@kernel(inline="always")
def goes_left(tree, node, x, pairs):
    """Whether the point x (all its features) is on or below the node's cut line."""
    p = tree.pair[node]
    along = x[pairs[p, 0]] * tree.direction[node, 0] + x[pairs[p, 1]] * tree.direction[node, 1]
    return along <= tree.position[node]


@kernel(refcounts=False)
def leaf_of(tree, x, pairs):
    """The leaf whose cell holds x (any point of the space: the cuts' sides route it)."""
    node = tree.root[0]
    while tree.left[node] != NO_NODE:
        node = tree.left[node] if goes_left(tree, node, x, pairs) else tree.right[node]
    return node
