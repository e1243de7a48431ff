"""mgs20-fig1: a Mondrian partition of the unit square and its tree on a vertical split-time axis."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib import cm

from experiments.figures import Claim
from experiments.figures.partitions import partition_claims, partition_figure


def plot(runs, spec) -> plt.Figure:
    run = runs[0]
    lam = run.trial["protocol"]["run"]["lifetime"]
    fig, _, ax_tree, cmap, norm = partition_figure(run.tables["nodes"], lam, (11, 5), 1.3)
    ax_tree.set_title("its tree: each split at its time (colour as in the partition)")
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax_tree, label="split time", fraction=0.04)
    fig.tight_layout()
    return fig


def claims(runs, spec) -> list[Claim]:
    return partition_claims(runs[0].tables["nodes"], runs[0].trial["protocol"]["run"]["lifetime"])
