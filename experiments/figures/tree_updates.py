"""Drawing and checking one online update of a tree, node table before and after (AMF Figs. 4 and 6).

The node tables are ``process.partition_table``'s (node, parent, left, right, feature, threshold, split_time, box
lower_j / upper_j), one per state, with node indices kept across states. Nodes are named as AMF names them, by their
binary word: the root is epsilon, the left child of v is v0 (x_feature <= threshold), the right child v1.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures.partitions import members, root_of, tree_layout

ROOT_WORD = "ε"
PATH = "tab:red"


def state(run, k: int) -> pd.DataFrame:
    """The node table of state k, indexed by node (node order)."""
    nodes = run.tables["nodes"]
    table = nodes[nodes["state"] == k].drop(columns="state").sort_values("node")
    return table.set_index("node", drop=False)


def seen(run, k: int) -> tuple[np.ndarray, list[str]]:
    """The coordinates (n, 2) of the points seen up to state k and their names in AMF's notation: x1, x2, ... in the
    order they arrived."""
    points = run.tables["points"]
    points = points[points["state"] <= k]
    return points[["x0", "x1"]].to_numpy(), [f"x{i + 1}" for i in range(len(points))]


def words(nodes: pd.DataFrame) -> dict[int, str]:
    """Each node's binary word: '' for the root (drawn as epsilon), then 0 for a left child, 1 for a right one."""
    out, stack = {root_of(nodes): ""}, [root_of(nodes)]
    while stack:
        j = stack.pop()
        if nodes.at[j, "left"] >= 0:
            for letter, side in (("0", "left"), ("1", "right")):
                child = int(nodes.at[j, side])
                out[child] = out[j] + letter
                stack.append(child)
    return out


def draw_word_tree(ax, nodes: pd.DataFrame, X: np.ndarray, names: list[str], path: list[int], colour=None) -> None:
    """The tree top-down with each node's word; leaves filled (with their points' names) or empty (no point); the
    path to the new point's leaf bold; ``colour(node)`` colours a node's marker (default black)."""
    x = layout(nodes)
    name = words(nodes)
    depth = {j: len(w) for j, w in name.items()}
    below = members(nodes, X)
    on_path = set(path)
    for j, n in nodes[nodes["parent"] >= 0].iterrows():
        p = int(n["parent"])
        bold = j in on_path and p in on_path
        ax.plot([x[p], x[j]], [-depth[p], -depth[j]], color=PATH if bold else "0.45", lw=2.6 if bold else 1.0,
                zorder=1)  # fmt: skip
    for j in nodes.index:
        c = colour(j) if colour else "k"
        empty = nodes.at[j, "left"] < 0 and len(below[j]) == 0
        ax.scatter(x[j], -depth[j], s=70, zorder=3, facecolor="white" if empty else c, edgecolor=c, lw=1.4)
        ax.annotate(name[j] or ROOT_WORD, (x[j], -depth[j]), xytext=(6, 4), textcoords="offset points", fontsize=7,
                    color="0.3")  # fmt: skip
        if nodes.at[j, "left"] < 0 and len(below[j]):
            ax.annotate(", ".join(math_name(names[i]) for i in below[j]), (x[j], -depth[j]), xytext=(0, -15),
                        fontsize=9, textcoords="offset points", ha="center")  # fmt: skip
    ax.set(xlim=(min(x.values()) - 0.6, max(x.values()) + 0.6), ylim=(-max(depth.values()) - 0.7, 0.5))
    ax.set_axis_off()


def layout(nodes: pd.DataFrame) -> dict[int, float]:
    """partitions.tree_layout's x positions for a table whose node indices need not be 0..n-1 (a subtree)."""
    order = {int(j): k for k, j in enumerate(nodes["node"])}
    renumbered = pd.DataFrame(
        {
            "node": range(len(nodes)),
            "parent": [order.get(int(p), -1) for p in nodes["parent"]],
            "left": [order.get(int(c), -1) for c in nodes["left"]],
            "right": [order.get(int(c), -1) for c in nodes["right"]],
        }
    )
    x, _ = tree_layout(renumbered)
    back = list(order)
    return {back[k]: v for k, v in x.items()}


def math_name(name: str) -> str:
    """x5 as $x_{5}$."""
    return f"${name[0]}_{{{name[1:]}}}$"


def draw_points(ax, X: np.ndarray, names: list[str], new: int | None = None) -> None:
    """The points with their names, the new one (index ``new``) in the path's colour."""
    for i, (x, name) in enumerate(zip(X, names, strict=True)):
        colour = PATH if i == new else "k"
        ax.scatter(*x, s=30, color=colour, zorder=4)
        ax.annotate(math_name(name), x, xytext=(4, 4), textcoords="offset points", fontsize=10, color=colour)


def square(ax, title: str) -> None:
    """The unit square's frame, axes off, with a title."""
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.4))
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), aspect="equal")
    ax.set_axis_off()
    ax.set_title(title, fontsize=9)


UPDATES = (
    "updates along the path of $x_t$, upwards:\n"
    "$w_{v,t+1} = w_{v,t}\\,\\exp(-\\eta\\,\\ell(\\hat y_{v,t}, y_t))$\n"
    "$\\bar w_{v,t+1} = \\frac{1}{2} w_{v,t+1} + \\frac{1}{2}\\bar w_{v0,t+1}\\,\\bar w_{v1,t+1}$\n"
    "$\\hat y_{v,t+1} = h((y_s)_{s \\leq t,\\, x_s \\in C_v})$"
)


def same_node(before: pd.Series, after: pd.Series) -> bool:
    """Same split (feature, threshold, time) and same box, up to the single precision AMF keeps its boxes in."""
    columns = [c for c in before.index if c in ("feature", "threshold", "split_time") or c[:6] in ("lower_", "upper_")]
    return bool(np.allclose(before[columns].astype(float), after[columns].astype(float), rtol=0, atol=1e-6))
