"""bsp-fig2: the online update of a 2-D BSP tree, one arrival per column: hulls (dashed) and cuts (solid), what is
new or grown at this step in red, the arriving point as a star; the tree beneath (new nodes in red)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.bsp_drawing import draw_partition, draw_tree, polygons

CASES = ("absorbed", "leaf cut", "cut above", "extended")


def _changed(row) -> str:
    return "red" if row["new"] or row["grown"] else "k"


def plot(runs, spec) -> Drawing:
    run = runs[0]
    steps, nodes, hulls = run.tables["steps"], run.tables["nodes"], run.tables["hulls"]
    n = len(steps)
    fig, axes = plt.subplots(2, n, figsize=(2.3 * n, 5.0), gridspec_kw={"height_ratios": [1.2, 1]}, squeeze=False)
    depth = 0
    for k, step in steps.iterrows():
        top, bottom = axes[0][k], axes[1][k]
        at = nodes[nodes["step"] == step["step"]]
        draw_partition(top, at, hulls[hulls["step"] == step["step"]], _changed)
        seen = steps.iloc[: k + 1]
        top.scatter(seen["x"][:-1], seen["y"][:-1], s=12, color="k", zorder=3)
        top.scatter([step["x"]], [step["y"]], s=90, marker="*", color="red", zorder=4)
        for _, p in seen.iterrows():
            top.annotate(p["label"], (p["x"], p["y"]), textcoords="offset points", xytext=(3, 3), fontsize=8)
        top.set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05), xticks=[], yticks=[], aspect="equal")
        top.set_title(f"{step['label']} arrives:\n{step['events']}", fontsize=8)
        depth = max(depth, draw_tree(bottom, at, lambda row: "red" if row["new"] else "k"))
    for bottom in axes[1]:
        bottom.set_ylim(-depth - 0.5, 0.5)
    fig.suptitle(
        f"BSP Fig. 2: online updates of one BSP tree (budget {run.protocol['budget']:g}, seed {run.seed}); dashed: "
        "hulls, solid: cuts, red: new or grown at this step",
        fontsize=10,
    )
    fig.tight_layout()
    return Drawing(fig)


def _sides_hold(vertices: np.ndarray, row, left: bool) -> bool:
    along = vertices @ np.array([row["c"], row["s"]]) - row["u"]
    return bool((along <= 1e-12).all()) if left else bool((along > -1e-12).all())


def claims(runs, spec) -> list[Claim]:
    """What the drawing must show (every case of the update, for the seed chosen) and what the update keeps by
    construction (a cut never crosses its children's hulls)."""
    run = runs[0]
    steps, nodes, hulls = run.tables["steps"], run.tables["nodes"], run.tables["hulls"]
    seen = {e for events in steps["events"].fillna("") for e in events.split(", ") if e}
    out = [
        Claim(
            "the arrivals show every case of the online update (absorbed, leaf cut, cut above, extended)",
            set(CASES) <= seen,
            "; ".join(f"{s['label']}: {s['events']}" for _, s in steps.iterrows()),
            key="every_update_case_shown",
            kind=INVARIANT,
        )
    ]
    separated, above, checked_above = 0, 0, True
    for step, at in nodes.groupby("step"):
        shapes = polygons(hulls[hulls["step"] == step])
        for _, row in at[at["left"] >= 0].iterrows():
            left_ok = _sides_hold(shapes[int(row["left"])], row, True)
            right_ok = _sides_hold(shapes[int(row["right"])], row, False)
            separated += left_ok and right_ok
            if row["new"] and not (at.set_index("node").loc[[row["left"], row["right"]], "new"]).all():
                above += 1  # a cut put above an old node: the old node's hull lies on one side
                checked_above &= left_ok and right_ok
    total = sum(len(at[at["left"] >= 0]) for _, at in nodes.groupby("step"))
    out.append(
        Claim(
            "every cut leaves its children's hulls on its two sides (new cuts above a node do not cross its hull)",
            separated == total and checked_above,
            f"{separated} of {total} (node, step) cuts; {above} new cuts above an old node",
            key="cuts_separate_children_hulls",
            kind=INVARIANT,
        )
    )
    return out
