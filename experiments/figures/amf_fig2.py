"""amf-fig2: a Mondrian partition (left) and its tree on the time axis (right), the split times marked on the axis."""

from __future__ import annotations

from experiments.figures import Claim, Drawing
from experiments.figures.partitions import partition_claims, partition_figure


def plot(runs, spec) -> Drawing:
    run = runs[0]
    lam = run.protocol["lifetime"]
    fig, _, ax_tree, _, _ = partition_figure(run.tables["nodes"], lam, (10, 4.6), 1.1, label_times=True)
    ticks = [t for t in range(int(lam) + 1) if lam - t > 0.15 * lam]
    ax_tree.set_yticks([*ticks, lam], [*map(str, ticks), f"$\\lambda$ = {lam:g}"])
    ax_tree.set(ylabel="time $\\tau$ (creation times of the nodes)", title="its tree over time: splits at their times")
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    return partition_claims(runs[0].tables["nodes"], runs[0].protocol["lifetime"])
