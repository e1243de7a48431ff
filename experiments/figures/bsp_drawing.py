"""Drawing BSP trees from their tables (``experiments.protocols.bsp_illustrations``): a node's hull as a polygon,
its cut as the chord of the cut line inside the hull, the tree as a graph."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures.partitions import root_of, tree_layout


def polygons(hulls: pd.DataFrame) -> dict[int, np.ndarray]:
    """Per node, its hull's vertices (k, 2) in order."""
    return {int(v): f.sort_values("order")[["x", "y"]].to_numpy() for v, f in hulls.groupby("node")}


def chord(vertices: np.ndarray, c: float, s: float, u: float) -> np.ndarray | None:
    """The segment (2, 2) of the line {p : p . (c, s) = u} inside the convex polygon, None if it misses it."""
    along = vertices @ np.array([c, s]) - u
    hits = []
    for i in range(len(vertices)):
        j = (i + 1) % len(vertices)
        if along[i] == 0:
            hits.append(vertices[i])
        elif along[i] * along[j] < 0:
            t = along[i] / (along[i] - along[j])
            hits.append(vertices[i] + t * (vertices[j] - vertices[i]))
    if not hits:
        return None
    hits = np.array(hits)
    position = hits @ np.array([-s, c])
    return hits[[np.argmin(position), np.argmax(position)]]


def draw_hull(ax, vertices: np.ndarray, **style) -> None:
    closed = np.vstack([vertices, vertices[:1]])
    ax.plot(closed[:, 0], closed[:, 1], **style)


def draw_partition(ax, nodes: pd.DataFrame, hulls: pd.DataFrame, colour=lambda row: "k", lw: float = 1.2) -> None:
    """Every node's hull dashed and every cut solid (its chord in its node's hull); colour(row of nodes)."""
    shapes = polygons(hulls)
    for _, row in nodes.iterrows():
        vertices = shapes.get(int(row["node"]))
        if vertices is None:
            continue
        draw_hull(ax, vertices, ls="--", lw=0.7, color=colour(row), alpha=0.8)
        if row["left"] >= 0:
            segment = chord(vertices, row["c"], row["s"], row["u"])
            if segment is not None:
                ax.plot(segment[:, 0], segment[:, 1], color=colour(row), lw=lw)


def draw_tree(ax, nodes: pd.DataFrame, colour=lambda row: "k") -> int:
    """The tree top-down, leaves in order; colour(row of nodes). Returns its depth."""
    nodes = nodes.sort_values("node").reset_index(drop=True)  # row = node id, as tree_layout reads it
    x, _ = tree_layout(nodes)
    depth = {root_of(nodes): 0}
    stack = [root_of(nodes)]
    while stack:
        v = stack.pop()
        for child in (int(nodes.loc[v, "left"]), int(nodes.loc[v, "right"])):
            if child >= 0:
                depth[child] = depth[v] + 1
                stack.append(child)
    for _, row in nodes.iterrows():
        v = int(row["node"])
        if row["parent"] >= 0:
            p = int(row["parent"])
            ax.plot([x[p], x[v]], [-depth[p], -depth[v]], color="0.5", lw=0.8, zorder=1)
    for _, row in nodes.iterrows():
        v = int(row["node"])
        ax.scatter(x[v], -depth[v], s=30, color=colour(row), marker="s" if row["left"] < 0 else "o", zorder=2)
    ax.set_axis_off()
    return max(depth.values())
