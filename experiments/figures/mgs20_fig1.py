"""mgs20-fig1: a Mondrian partition of the unit square and its tree on a vertical split-time axis."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import cm, colors

from experiments.figures import Claim


def _layout(nodes: pd.DataFrame) -> tuple[dict[int, float], list[int]]:
    """x position of each node (leaves in order, parents centred over their children) and the leaf order."""
    left, right = nodes["left"].to_numpy(), nodes["right"].to_numpy()
    root = int(nodes.loc[nodes["parent"] < 0, "node"].iloc[0])
    leaves: list[int] = []
    x: dict[int, float] = {}

    def visit(j: int) -> None:
        if left[j] < 0:
            x[j] = float(len(leaves))
            leaves.append(j)
            return
        visit(int(left[j]))
        visit(int(right[j]))
        x[j] = (x[int(left[j])] + x[int(right[j])]) / 2

    visit(root)
    return x, leaves


def plot(runs, spec) -> plt.Figure:
    run = runs[0]
    nodes = run.tables["nodes"]
    lam = run.trial["protocol"]["run"]["lifetime"]
    internal = nodes[nodes["left"] >= 0]
    norm = colors.Normalize(0, lam)
    cmap = plt.get_cmap("viridis")
    fig, (ax_cells, ax_tree) = plt.subplots(1, 2, figsize=(11, 5), gridspec_kw={"width_ratios": [1, 1.3]})

    ax_cells.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.5))
    for _, n in internal.iterrows():
        t = n["threshold"]
        if n["feature"] == 0:
            seg = ([t, t], [n["lower_1"], n["upper_1"]])
        else:
            seg = ([n["lower_0"], n["upper_0"]], [t, t])
        ax_cells.plot(*seg, color=cmap(norm(n["split_time"])), lw=2)
    x, leaves = _layout(nodes)
    for k, j in enumerate(leaves):
        n = nodes.loc[j]
        ax_cells.text(
            (n["lower_0"] + n["upper_0"]) / 2,
            (n["lower_1"] + n["upper_1"]) / 2,
            str(k + 1),
            ha="center",
            va="center",
            fontsize=7,
            color="0.3",
        )
    ax_cells.set(
        xlim=(-0.02, 1.02),
        ylim=(-0.02, 1.02),
        aspect="equal",
        xlabel="$x_1$",
        ylabel="$x_2$",
        title=f"Mondrian partition MP($\\lambda$ = {lam:g}, $[0,1]^2$): {len(leaves)} cells",
    )

    time = {int(n["node"]): (n["split_time"] if n["left"] >= 0 else lam) for _, n in nodes.iterrows()}
    for _, n in nodes[nodes["parent"] >= 0].iterrows():
        j, p = int(n["node"]), int(n["parent"])
        ax_tree.plot([x[p], x[j], x[j]], [time[p], time[p], time[j]], color="0.5", lw=1)
    root = int(nodes.loc[nodes["parent"] < 0, "node"].iloc[0])
    ax_tree.plot([x[root], x[root]], [0, time[root]], color="0.5", lw=1)
    ax_tree.scatter(
        [x[j] for j in internal["node"]],
        internal["split_time"],
        c=internal["split_time"],
        cmap=cmap,
        norm=norm,
        s=40,
        zorder=3,
    )
    for _, n in internal.iterrows():
        ax_tree.annotate(
            f"$x_{int(n['feature']) + 1}$",
            (x[int(n["node"])], n["split_time"]),
            textcoords="offset points",
            xytext=(4, -9),
            fontsize=7,
        )
    ax_tree.scatter([x[j] for j in leaves], [lam] * len(leaves), marker="s", s=12, color="0.3", zorder=3)
    for k, j in enumerate(leaves):
        ax_tree.text(x[j], lam * 1.03, str(k + 1), ha="center", va="top", fontsize=7, color="0.3")
    ax_tree.axhline(lam, ls="--", color="0.6", lw=0.8)
    ax_tree.set(
        ylim=(lam * 1.1, -0.05 * lam),
        xticks=[],
        ylabel="split time",
        title="its tree: each split at its time (colour as in the partition)",
    )
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax_tree, label="split time", fraction=0.04)
    fig.tight_layout()
    return fig


def claims(runs, spec) -> list[Claim]:
    nodes = runs[0].tables["nodes"].set_index("node")
    lam = runs[0].trial["protocol"]["run"]["lifetime"]
    internal = nodes[nodes["left"] >= 0]
    children = nodes[nodes["parent"] >= 0]
    parent_time = nodes.loc[children["parent"], "split_time"].to_numpy()
    child_time = np.where(children["left"] >= 0, children["split_time"], np.inf)
    increasing = bool(np.all(child_time > parent_time) and np.all(internal["split_time"] < lam))

    leaves = nodes[nodes["left"] < 0]
    areas = (leaves["upper_0"] - leaves["lower_0"]) * (leaves["upper_1"] - leaves["lower_1"])
    lo = np.stack([leaves["lower_0"], leaves["lower_1"]], 1)
    hi = np.stack([leaves["upper_0"], leaves["upper_1"]], 1)
    overlap = np.clip(np.minimum(hi[:, None], hi[None]) - np.maximum(lo[:, None], lo[None]), 0, None).prod(-1)
    np.fill_diagonal(overlap, 0)

    mismatches = 0
    for _j, n in internal.iterrows():
        f, t = int(n["feature"]), n["threshold"]
        for child, side in ((int(n["left"]), "upper"), (int(n["right"]), "lower")):
            expected = {f"lower_{d}": n[f"lower_{d}"] for d in (0, 1)} | {f"upper_{d}": n[f"upper_{d}"] for d in (0, 1)}
            expected[f"{side}_{f}"] = t
            mismatches += any(nodes.loc[child, k] != v for k, v in expected.items())
    return [
        Claim(
            "split times increase down the tree and stay below the lifetime",
            increasing,
            f"{len(internal)} splits, last at {internal['split_time'].max():.3f} < lambda = {lam:g}",
        ),
        Claim(
            "the leaves tile the square: total area 1, no overlap",
            bool(abs(areas.sum() - 1) < 1e-12 and overlap.max() == 0),
            f"{len(leaves)} leaves, total area {areas.sum():.15f}, max pairwise overlap {overlap.max():.1e}",
        ),
        Claim(
            "each split cuts its cell in two at the threshold",
            mismatches == 0,
            f"{2 * len(internal)} children checked, {mismatches} mismatches",
        ),
    ]
