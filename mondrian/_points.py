"""Leaf point stores: which of a forest's stored points each leaf of a tree holds.

A forest that must revisit past points (MGS17's increasing lifetime splits leaves long after their points arrived)
keeps every point once, in arrival order, and each tree keeps one linked list per node: ``first[node]`` is the last
point added to the node, ``next_point[i]`` the point added to the same node before i, ``NO_POINT`` ends a list.
Adding a point is O(1); splitting a leaf walks its list once. Only leaves hold points.
"""

import numpy as np

from mondrian._compile import kernel

NO_POINT = -1


@kernel
def add_point(first, next_point, node, i):
    next_point[i] = first[node]
    first[node] = i


@kernel
def points_of(first, next_point, node, out):
    """Write the points of ``node`` into out[:n] (most recent first) and return n."""
    n = 0
    i = first[node]
    while i != NO_POINT:
        out[n] = i
        n += 1
        i = next_point[i]
    return n


def empty_lists(capacity: int) -> np.ndarray:
    """``first`` (or ``next_point``) for ``capacity`` nodes (or points), every list empty."""
    return np.full(max(int(capacity), 1), NO_POINT, np.int64)


class PointStore:
    """Every point a forest has learnt, once for all its trees: rows of ``X`` and encoded targets ``y`` in arrival
    order (``n`` of them; capacity doubles as points arrive), and the box they span (``lower``, ``upper``)."""

    def __init__(self, n_features: int, dtype=np.float64):
        self.X = np.zeros((16, n_features), dtype)
        self.y = np.zeros(16)
        self.n = 0
        self.lower = np.full(n_features, np.inf, dtype)
        self.upper = np.full(n_features, -np.inf, dtype)

    def append(self, X: np.ndarray, y: np.ndarray) -> int:
        """Keep the rows (X, y); returns the index of the first."""
        start, end = self.n, self.n + X.shape[0]
        if end > self.X.shape[0]:
            rows = max(end, 2 * self.X.shape[0])
            self.X = np.concatenate([self.X[:start], np.zeros((rows - start, self.X.shape[1]), self.X.dtype)])
            self.y = np.concatenate([self.y[:start], np.zeros(rows - start)])
        self.X[start:end] = X
        self.y[start:end] = y
        self.n = end
        if X.shape[0]:
            np.minimum(self.lower, X.min(axis=0), out=self.lower)
            np.maximum(self.upper, X.max(axis=0), out=self.upper)
        return start

    def __getstate__(self):
        return {
            "X": self.X[: self.n].copy(),
            "y": self.y[: self.n].copy(),
            "n": self.n,
            "lower": self.lower,
            "upper": self.upper,
        }
