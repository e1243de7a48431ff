"""amf-fig7: AMF's decision function along the stream (after t points), with the test AUC at each step."""

from __future__ import annotations

import matplotlib.pyplot as plt

from experiments.figures import Claim
from experiments.figures.decisions import decision_grid, draw_decision, train_points


def plot(runs, spec) -> plt.Figure:
    run = runs[0]
    curves = run.curves
    fig, axes = plt.subplots(1, len(curves), figsize=(2.6 * len(curves), 2.9), squeeze=False)
    for ax, (_, row) in zip(axes[0], curves.iterrows(), strict=True):
        step = int(row["step"])
        image = draw_decision(
            ax, *decision_grid(run, step), train_points(run, step), auc=row["auc"], title=f"t = {step}"
        )
    fig.colorbar(image, ax=axes[0].tolist(), fraction=0.015, label="P(class 1)")
    fig.suptitle(
        f"AMF ({run.trial['model']['estimator']['n_estimators']} trees) along the stream, moons", fontsize=10, y=1.04
    )
    return fig


def claims(runs, spec) -> list[Claim]:
    curves = runs[0].curves
    auc = curves.set_index("step")["auc"]
    listing = ", ".join(f"t={t}: {a:.3f}" for t, a in auc.items())
    return [
        Claim("a correct test AUC (above chance) from the first steps on", bool((auc > 0.5).all()), listing),
        Claim(
            "the test AUC at the end of the stream is high (>= 0.9)",
            bool(auc.iloc[-1] >= 0.9),
            f"t={auc.index[-1]}: {auc.iloc[-1]:.3f}",
        ),
        Claim(
            "the test AUC improves along the stream (last >= first)",
            bool(auc.iloc[-1] >= auc.iloc[0]),
            f"first {auc.iloc[0]:.3f}, last {auc.iloc[-1]:.3f}",
        ),
    ]
