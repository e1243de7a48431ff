"""bsp-fig1: a BSP tree in 3-D (its cuts as planes through their blocks' points) and the four steps of its root's
cut: the three projections' hulls, the pair drawn proportionally to their perimeters, the angle drawn with density
proportional to the width and the position uniform on the projection, the cut and the two sides' hulls."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.bsp_drawing import chord, draw_hull, polygons

PAIR_COLOURS = ("tab:blue", "tab:orange", "tab:green")


def _ranges(hulls, node: int) -> np.ndarray:
    """(3, 2): the node's points' range in each coordinate, read from its projected hulls."""
    out = np.array([[np.inf, -np.inf]] * 3)
    for _, f in hulls[hulls["node"] == node].groupby("pair"):
        pair = int(f["pair"].iloc[0])
        for axis, column in zip(((0, 1), (0, 2), (1, 2))[pair], ("x", "y"), strict=True):
            out[axis] = min(out[axis, 0], f[column].min()), max(out[axis, 1], f[column].max())
    return out


def _cut_planes(ax, nodes, hulls) -> None:
    """Each cut as the quadrilateral of its plane over its node's projected hull (chord) and the third range."""
    for _, row in nodes[nodes["left"] >= 0].iterrows():
        node, pair = int(row["node"]), int(row["pair"])
        own = hulls[(hulls["node"] == node) & (hulls["pair"] == pair)]
        segment = chord(own.sort_values("order")[["x", "y"]].to_numpy(), row["c"], row["s"], row["u"])
        if segment is None:
            continue
        d1, d2 = int(row["d1"]), int(row["d2"])
        other = 3 - d1 - d2
        low, high = _ranges(hulls, node)[other]
        corners = []
        for (a, b), level in zip((segment[0], segment[1], segment[1], segment[0]), (low, low, high, high), strict=True):
            corner = np.zeros(3)
            corner[[d1, d2, other]] = a, b, level
            corners.append(corner)
        ax.add_collection3d(Poly3DCollection([corners], alpha=0.25, facecolor="red", edgecolor="darkred", lw=0.6))


def plot(runs, spec) -> Drawing:
    run = runs[0]
    t, m = run.tables, run.metrics
    points, pairs = t["points"], t["pairs"]
    chosen = int(m["pair"])
    d1, d2 = int(pairs.loc[chosen, "d1"]), int(pairs.loc[chosen, "d2"])
    fig = plt.figure(figsize=(19, 4.2))
    ax3 = fig.add_subplot(1, 5, 1, projection="3d")
    ax3.scatter(points["x0"], points["x1"], points["x2"], s=8, c=np.where(points["left"], "tab:purple", "tab:cyan"))
    _cut_planes(ax3, t["nodes"], t["hulls"])
    ax3.set(xlabel="x0", ylabel="x1", zlabel="x2", xlim=(0, 1), ylim=(0, 1), zlim=(0, 1))
    ax3.set_title(f"a BSP tree in 3-D ({m['n_leaves']:.0f} leaves), cuts in red", fontsize=9)
    axes = [fig.add_subplot(1, 5, k) for k in range(2, 6)]
    root = int(t["nodes"].loc[t["nodes"]["parent"] < 0, "node"].iloc[0])
    root_hulls = t["hulls"][t["hulls"]["node"] == root]
    for p, f in root_hulls.groupby("pair"):
        vertices = f.sort_values("order")[["x", "y"]].to_numpy()
        label = f"(x{pairs.loc[p, 'd1']}, x{pairs.loc[p, 'd2']}): perimeter {pairs.loc[p, 'perimeter']:.2f}"
        draw_hull(axes[0], vertices, color=PAIR_COLOURS[p], lw=1.5, label=label)
    axes[0].set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05), aspect="equal")
    axes[0].legend(fontsize=7, loc="lower left")
    axes[0].set_title("(a) the block's three projected hulls", fontsize=9)
    names = [f"(x{a}, x{b})" for a, b in zip(pairs["d1"], pairs["d2"], strict=True)]
    bars = axes[1].bar(names, pairs["probability"], color=PAIR_COLOURS[: len(pairs)], alpha=0.5)
    bars[chosen].set_alpha(1.0)
    bars[chosen].set_edgecolor("k")
    axes[1].set_title(f"(b) pair drawn ∝ perimeter: {names[chosen]}", fontsize=9)
    axes[1].set_ylabel("probability")
    widths = t["widths"]
    axes[2].plot(widths["theta"], widths["width"] / (widths["width"].mean() * np.pi), color=PAIR_COLOURS[chosen])
    axes[2].axvline(m["theta"], color="red", label=f"theta = {m['theta']:.2f}")
    axes[2].set(xlabel="theta", ylabel="density ∝ width", xlim=(0, np.pi))
    axes[2].legend(fontsize=8)
    axes[2].set_title("(c) angle ∝ the projection's width", fontsize=9)
    sides = t["sides"]
    for side, colour in (("left", "tab:purple"), ("right", "tab:cyan")):
        f = sides[sides["side"] == side]
        if len(f):
            draw_hull(axes[3], f.sort_values("order")[["x", "y"]].to_numpy(), color=colour, ls="--", lw=1.2)
    block = polygons(root_hulls[root_hulls["pair"] == chosen])[root]
    draw_hull(axes[3], block, color=PAIR_COLOURS[chosen], lw=1.0)
    c, s = np.cos(m["theta"]), np.sin(m["theta"])
    segment = chord(block, c, s, m["u"])
    axes[3].plot(segment[:, 0], segment[:, 1], color="red", lw=2)
    for level, style in ((m["lo"], ":"), (m["hi"], ":")):
        axes[3].plot(*(level * np.array([c, s])[:, None] + np.outer([-s, c], [-2, 2])), color="0.5", ls=style, lw=0.8)
    axes[3].scatter(points[f"x{d1}"], points[f"x{d2}"], s=6, c=np.where(points["left"], "tab:purple", "tab:cyan"))
    axes[3].set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05), aspect="equal", xlabel=f"x{d1}", ylabel=f"x{d2}")
    axes[3].set_title(f"(d) u uniform on [{m['lo']:.2f}, {m['hi']:.2f}]: the cut, two sides", fontsize=9)
    fig.suptitle("BSP Fig. 1: a 3-D BSP partition (left) and the four steps of its first cut, as the library drew it",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """What the drawing shows of the sampler, all holding by construction: the sampler draws again until both sides
    hold points, u is drawn on [lo, hi], and pi x the mean width is the perimeter (Cauchy's formula)."""
    t, m = runs[0].tables, runs[0].metrics
    pairs, widths = t["pairs"], t["widths"]
    chosen = int(m["pair"])
    cauchy = float(widths["width"].mean() * np.pi)
    return [
        Claim(
            "the cut separates the block's points into two non-empty sides",
            m["n_left"] > 0 and m["n_right"] > 0,
            f"{m['n_left']:.0f} left, {m['n_right']:.0f} right",
            key="two_nonempty_sides",
            kind=INVARIANT,
        ),
        Claim(
            "the widths over theta integrate to the perimeter (Cauchy), so the angle's density is width / perimeter",
            abs(cauchy - pairs.loc[chosen, "perimeter"]) <= 1e-3 * pairs.loc[chosen, "perimeter"],
            f"pi x mean width {cauchy:.4f}, perimeter {pairs.loc[chosen, 'perimeter']:.4f}",
            key="widths_integrate_to_perimeter",
            kind=INVARIANT,
        ),
        Claim(
            "the position u lies in the projection range [lo, hi] of the hull on theta",
            m["lo"] <= m["u"] <= m["hi"],
            f"u = {m['u']:.3f} in [{m['lo']:.3f}, {m['hi']:.3f}]",
            key="position_in_projection",
            kind=INVARIANT,
        ),
    ]
