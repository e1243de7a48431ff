"""mgs20-fig3: the modified construction of MGS20's proof of Proposition 2 (its Figure 3).

Above and left of the square, the two one-dimensional Mondrian partitions Pi'_1 (of x1) and Pi'_2 (of x2): each split
appears at its threshold at its split time and stays until the lifetime. In the square, the modified nested partition
they build: each node splits at the earliest split of its sides' intervals, so a split of Pi'_j cuts every cell whose
j-th side holds it at the same time, and the leaves are the product grid of the two partitions. Beside it the tree on
its split-time axis (splits coloured by their time), and the Monte Carlo mean number of cells at each time t of the
modified process and of the Mondrian process (drawn by the library), both against the exact (1 + t)^d of Prop. 2.

The claims are theorem checks: the Mondrian process's mean (Proposition 2 itself), the modified process's mean (the
proof's (10.3): Fact 1's Poisson splits in each coordinate, given the product grid) and the modified nodes' split
law (the proof's memorylessness step, on which E N = E N' rests); the product grid and the partition's structure are
properties of the construction (invariants).
"""

from __future__ import annotations

from itertools import pairwise, product

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import colors
from matplotlib.gridspec import GridSpec

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.partitions import boxes, draw_splits, draw_time_tree, number_leaves, partition_claims
from experiments.figures.theory_family import FAMILY, bonferroni_z

LAW_CHECKS = {
    "rate": "splits minus exposure sum |C| dt (rate |C|)",
    "coordinate": "splits on x1 minus sum side_1 / |C| (coordinate law)",
    "position": "sum of (threshold's position in its side - 1/2) (uniform threshold)",
}


def lifetime(run) -> float:
    return float(run.protocol["lifetime"])


def dim(run) -> int:
    return int(run.protocol["dim"])


def draw_axis_partition(ax, axes: pd.DataFrame, coordinate: int, lam: float, cmap, norm) -> None:
    """Pi'_j beside the square: each split a dot at (threshold, split time) with its line on to the lifetime; time
    runs towards the square (downwards above it, rightwards left of it)."""
    splits = axes[axes["coordinate"] == coordinate]
    for _, s in splits.iterrows():
        colour = cmap(norm(s["split_time"]))
        ends = ([s["threshold"]] * 2, [s["split_time"], lam])
        ax.plot(*(ends if coordinate == 0 else ends[::-1]), color=colour, lw=1.6)
        point = (s["threshold"], s["split_time"])
        ax.scatter(*(point if coordinate == 0 else point[::-1]), color=colour, s=22, zorder=3)
    name = f"$\\Pi'_{coordinate + 1}$ of $x_{coordinate + 1}$: {len(splits)} splits"
    if coordinate == 0:
        ax.set(ylim=(lam, 0), ylabel="time")
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelbottom=False)
    else:
        ax.set(xlim=(0, lam), xlabel="time", ylabel=name)


def draw_counts(ax, counts: pd.DataFrame, d: int) -> None:
    """Mean number of cells against time: modified process (band of 2 SE), Mondrian process, exact (1 + t)^d."""
    t = counts["time"]
    grid = np.linspace(0, t.max(), 200)
    ax.plot(grid, (1 + grid) ** d, color="k", lw=1.2, label=f"exact $(1+t)^{d}$")
    for name, colour, marker, label in (
        ("modified", "tab:red", "o", "modified process (product grid)"),
        ("mondrian", "tab:blue", "s", "Mondrian process (library)"),
    ):
        mean, se = counts[f"{name}_mean"], counts[f"{name}_se"]
        ax.errorbar(t, mean, yerr=2 * se, fmt=marker, ms=4, color=colour, capsize=2, label=label)
    ax.set(xlabel="time $t$", ylabel="mean number of cells")
    ax.legend(fontsize=8)


def plot(runs, spec) -> Drawing:
    run = runs[0]
    nodes, axes, lam = run.tables["nodes"], run.tables["axes"], lifetime(run)
    norm, cmap = colors.Normalize(0, lam), plt.get_cmap("viridis")
    fig = plt.figure(figsize=(16, 5.2))
    grid = GridSpec(2, 4, figure=fig, width_ratios=[0.7, 2.6, 2.6, 2.8], height_ratios=[0.7, 2.6])
    ax_cells = fig.add_subplot(grid[1, 1])
    ax_top, ax_side = fig.add_subplot(grid[0, 1], sharex=ax_cells), fig.add_subplot(grid[1, 0], sharey=ax_cells)
    ax_tree, ax_counts = fig.add_subplot(grid[:, 2]), fig.add_subplot(grid[:, 3])
    draw_axis_partition(ax_top, axes, 0, lam, cmap, norm)
    draw_axis_partition(ax_side, axes, 1, lam, cmap, norm)
    ax_cells.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.5))
    lower, upper = boxes(nodes)
    draw_splits(ax_cells, nodes, lower, upper, lambda n: cmap(norm(n["split_time"])))
    leaves = draw_time_tree(ax_tree, nodes, lam, cmap, norm)
    number_leaves(ax_cells, nodes, leaves, lower, upper)
    ax_cells.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02))
    ax_cells.tick_params(labelleft=False)
    ax_cells.set_xlabel(f"the modified partition at $\\lambda$ = {lam:g}: {len(leaves)} cells, the product grid",
                        fontsize=9)  # fmt: skip
    ax_tree.set_title("its tree: a split of $\\Pi'_j$ cuts every cell whose side holds it, at one time", fontsize=9)
    draw_counts(ax_counts, run.tables["counts"], dim(run))
    ax_counts.set_title(f"{run.metrics['replicates']:.0f} samples: mean number of cells at time t", fontsize=9)
    fig.suptitle("MGS20 Fig. 3 (proof of Prop. 2): the modified process built from one-dimensional Mondrian "
                 "partitions, and its expected number of cells", fontsize=10)  # fmt: skip
    fig.tight_layout()
    return Drawing(fig)


def grid_cells(axes: pd.DataFrame, d: int) -> set[tuple]:
    """The cells of the product grid of the one-dimensional partitions, as rounded (lowers, uppers) tuples."""
    sides = []
    for j in range(d):
        cuts = np.sort(axes.loc[axes["coordinate"] == j, "threshold"].to_numpy())
        sides.append(list(pairwise(np.concatenate([[0.0], cuts, [1.0]]))))
    return {tuple(np.round([*(s[0] for s in cell), *(s[1] for s in cell)], 12)) for cell in product(*sides)}


def leaf_cells(nodes: pd.DataFrame, d: int) -> set[tuple]:
    leaves = nodes[nodes["left"] < 0]
    columns = [f"{side}_{j}" for side in ("lower", "upper") for j in range(d)]
    return {tuple(np.round(row, 12)) for row in leaves[columns].to_numpy()}


def count_check(counts: pd.DataFrame, name: str) -> tuple[bool, str, list[str], dict]:
    """Is the mean number of cells within the Bonferroni z of (1 + t)^d at every time? With what was measured, the
    exceptions and the numbers."""
    z = (counts[f"{name}_mean"] - counts["exact"]) / counts[f"{name}_se"]
    bound = bonferroni_z(len(counts))
    worst = int(np.argmax(np.abs(z.to_numpy())))
    last = counts.iloc[-1]
    text = (
        f"at t = {last['time']:g}: {last[f'{name}_mean']:.3f} ± {last[f'{name}_se']:.3f} vs {last['exact']:.3f}; "
        f"largest |z| {abs(z.iloc[worst]):.2f} at t = {counts['time'].iloc[worst]:g} ({len(counts)} times); z: "
        + ", ".join(f"{v:+.2f}" for v in z)
    )
    exceptions = [f"t = {t:g}: z = {v:+.2f}" for t, v in zip(counts["time"], z, strict=True) if abs(v) > bound]
    values = {
        "max_z": float(np.abs(z).max()),
        "z_bound": bound,
        "last_mean": float(last[f"{name}_mean"]),
        "last_se": float(last[f"{name}_se"]),
        "last_exact": float(last["exact"]),
    }
    return bool(np.all(np.abs(z) <= bound)), text, exceptions, values


def bonferroni_text(tests: int) -> str:
    return f"within {bonferroni_z(tests):.2f} SE: Bonferroni over the {tests} tests at family-wise {FAMILY}"


def claims(runs, spec) -> list[Claim]:
    """Prop. 2's mean number of cells for the Mondrian process, the proof's (10.3) for the modified one and its split
    law (claims: theorem checks); the product grid and the partition's structure (invariants)."""
    run = runs[0]
    m, counts, d = run.metrics, run.tables["counts"], dim(run)
    nodes, lam = run.tables["nodes"], lifetime(run)
    modified, modified_text, modified_off, modified_values = count_check(counts, "modified")
    mondrian, mondrian_text, mondrian_off, mondrian_values = count_check(counts, "mondrian")
    expected, drawn = grid_cells(run.tables["axes"], d), leaf_cells(nodes, d)
    law = {name: (m[f"{name}_excess"], m[f"{name}_excess_se"]) for name in LAW_CHECKS}
    law_bound = bonferroni_z(len(law))
    return [
        Claim(
            f"the Mondrian process MP(t, [0,1]^{d}) has (1 + t)^d cells on average at every time t of the grid "
            f"(the library's sampler pruned at t; {bonferroni_text(len(counts))})",
            mondrian,
            mondrian_text,
            key="mondrian_mean_cells",
            paper="E[#cells] = (1 + lambda)^d (Prop. 2)",
            quote="If denotes the number of cells in , we have .",
            where="MGS20 Proposition 2 (Sec. 4; the formula is not in the text here)",
            exceptions=mondrian_off,
            values=mondrian_values,
        ),
        Claim(
            f"the modified process (the product of {d} independent one-dimensional Mondrian partitions) has "
            f"(1 + t)^d cells on average at every time t of the grid: each one-dimensional partition's splits are "
            f"a Poisson process of intensity t (Fact 1), so prod_j (1 + N_j(t)) has mean (1 + t)^d "
            f"({bonferroni_text(len(counts))})",
            modified,
            modified_text,
            key="modified_mean_cells",
            paper="E[#cells] = (1 + lambda)^d ((10.3), Fact 1)",
            quote="By Fact 1, the splits of the Mondrian partition are distributed as a Poisson point process on of "
            "intensity , so that the expected number of cells in such a partition is .",
            where="MGS20 Supplement Sec. 10, proof of Proposition 2 ((10.3), Fact 1)",
            exceptions=modified_off,
            values=modified_values,
        ),
        Claim(
            "each node of the modified process, which splits at the earliest pending split of its sides' "
            "one-dimensional intervals (drawn before the node was born), splits as in the Mondrian process: at rate "
            "|C|, on coordinate j with probability side_j / |C|, at a uniform threshold; tested by the three "
            "compensator sums' means (first moments of the law: necessary conditions; each "
            f"{bonferroni_text(len(law))})",
            all(abs(mean) <= law_bound * se for mean, se in law.values()),
            "; ".join(
                f"{LAW_CHECKS[k]}: {mean:+.3f} ± {se:.3f} per sample (z {mean / se:+.2f})"
                for k, (mean, se) in law.items()
            ),
            key="split_law",
            quote="It can be seen that, for both and , these variables have the same conditional distribution given "
            "as the independent ones.",
            where="MGS20 Sec. 7, sketch of the proof of Proposition 2 (Supplement Sec. 10, Lemma 2)",
            exceptions=[f"{k}: z = {mean / se:+.2f}" for k, (mean, se) in law.items() if abs(mean) > law_bound * se],
            values={f"{k}_z": mean / se for k, (mean, se) in law.items()},
        ),
        Claim(
            "the leaves of the modified partition are the product grid of the one-dimensional partitions",
            drawn == expected and m["not_grid"] == 0,
            f"drawn sample: {len(drawn)} leaves, {len(expected)} grid cells, {len(drawn ^ expected)} differ; "
            f"{m['not_grid']:.0f} of {m['replicates']:.0f} samples whose leaf count is not the grid's",
            key="product_grid",
            kind=INVARIANT,
        ),
        *partition_claims(nodes, lam),
    ]
