"""mgs20-fig1: a Mondrian partition of the unit square and its tree on a vertical split-time axis."""

from __future__ import annotations

from matplotlib import cm

from experiments.figures import Claim, Drawing
from experiments.figures.partitions import partition_claims, partition_figure


def plot(runs, spec) -> Drawing:
    run = runs[0]
    lam = run.protocol["lifetime"]
    fig, _, ax_tree, cmap, norm = partition_figure(run.tables["nodes"], lam, (11, 5), 1.3)
    ax_tree.set_title("its tree: each split at its time (colour as in the partition)")
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax_tree, label="split time", fraction=0.04)
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    return partition_claims(runs[0].tables["nodes"], runs[0].protocol["lifetime"])
