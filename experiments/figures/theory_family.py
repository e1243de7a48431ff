"""What the theory figures share: their runs' risk curves as one long table, geometric means over seeds, the fitted
slopes of log risk on log n with their intervals, the empty cells' share of the risk, the log-log panels, and the
claims' keys for a number."""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from scipy import stats

from experiments.figures.tables import long_table as runs_table


def number_key(value: float) -> str:
    """A number as a claim's key spells it: 2.0 -> "2", 0.5 -> "0p5"."""
    return format(value, "g").replace(".", "p").replace("-", "m")


def long_table(runs, label: Callable, values=("risk",)) -> pd.DataFrame:
    """d, variant (``label(run)``), seed, n and the curves' ``values``."""

    def labels(run) -> dict:
        return {"d": int(run.data_settings["n_features"]), "variant": label(run), "seed": run.seed}

    return runs_table(runs, labels, ["step", *values]).rename(columns={"step": "n"})


def rate_table(runs, label: Callable) -> pd.DataFrame:
    """``long_table`` with the empty cells' share of the risk (empty_share, recorded by the rates protocol) and the
    rest of the risk, risk_nonempty = risk (1 - empty_share)."""
    long = long_table(runs, label, ("risk", "empty_share"))
    return long.assign(risk_nonempty=long["risk"] * (1.0 - long["empty_share"]))


def geometric_mean(long: pd.DataFrame, by: list[str], value: str = "risk") -> pd.Series:
    """The geometric mean of ``value`` over seeds, per group of ``by``."""
    return np.exp(np.log(long[value]).groupby([long[column] for column in by]).mean())


def slopes(long: pd.DataFrame, value: str = "risk") -> pd.DataFrame:
    """Per d and variant: the least-squares slope of log ``value`` on log n for each seed, their mean and 95%
    interval."""
    per_seed = (
        long.groupby(["d", "variant", "seed"])
        .apply(lambda g: np.polyfit(np.log(g["n"]), np.log(g[value]), 1)[0], include_groups=False)
        .rename("slope")
        .reset_index()
    )
    rows = []
    for (d, name), part in per_seed.groupby(["d", "variant"]):
        k = len(part)
        mean = part["slope"].mean()
        half = stats.t.ppf(0.975, k - 1) * part["slope"].std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
        rows.append({"d": d, "variant": name, "slope": mean, "low": mean - half, "high": mean + half, "seeds": k})
    out = pd.DataFrame(rows)
    out["minimax"] = -2.0 / (out["d"] + 2.0)
    return out


def empty_shares(long: pd.DataFrame) -> pd.Series:
    """The empty cells' mean share of the risk over seeds, per d, variant and n."""
    return long.groupby(["d", "variant", "n"])["empty_share"].mean()


def interval(row) -> str:
    return f"{row.slope:.3f} [{row.low:.3f}, {row.high:.3f}]"


def rate_measured(fitted, rest, shares, d, variant) -> str:
    """A variant's fitted slope, the empty cells' share of its risk at the smallest and largest n, and the slope of
    the rest of its risk (without the empty cells' part)."""
    row, other = (f[(f["d"] == d) & (f["variant"] == variant)].iloc[0] for f in (fitted, rest))
    share = shares[d, variant]
    return (
        f"slope {interval(row)} over {row.seeds} seeds; empty cells {share.iloc[0]:.1%} of the risk at "
        f"n = {share.index[0]}, {share.iloc[-1]:.1%} at n = {share.index[-1]}; the rest of the risk: slope "
        f"{interval(other)}"
    )


LEGEND_PLACES = {
    "inside": {"loc": "lower left"},
    "right": {"loc": "center left", "bbox_to_anchor": (1.02, 0.5)},
    "below": {"loc": "upper center", "bbox_to_anchor": (0.5, -0.18)},
}


def log_axes(ax: plt.Axes, title: str) -> None:
    """A log-log panel of the risk against n, with its title."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("n", fontsize=9)
    ax.grid(alpha=0.3, which="both", lw=0.5)
    ax.tick_params(labelsize=8)


def draw(
    long: pd.DataFrame, fitted: pd.DataFrame, title: str, panel_title, rates=None, legend: str = "inside"
) -> plt.Figure:
    """One log-log panel per d: each variant's risk per seed (dots), their geometric mean (line, legend with the
    fitted slope, and the empty cells' share of the risk at the smallest and largest n when the table has it) and the
    reference slopes ``rates(d)`` (slope, label, variant): a line from the variant's first point (None: all
    variants'); by default the minimax -2/(d+2). Each panel's legend ``legend``: "inside" (its lower left corner),
    "right" of it or "below" it."""
    rates = rates or (lambda d: [(-2.0 / (d + 2), f"minimax slope -2/(d+2) = {-2.0 / (d + 2):.2f}", None)])
    dims = sorted(long["d"].unique())
    variants = list(dict.fromkeys(long["variant"]))
    shares = empty_shares(long) if "empty_share" in long else None
    width = max(4.2 * len(dims), 7.0) + (4.0 if legend == "right" else 0.0)
    fig, axes = plt.subplots(1, len(dims), figsize=(width, 5.2 if legend == "below" else 3.9), squeeze=False)
    for ax, d in zip(axes[0], dims, strict=True):
        part = long[long["d"] == d]
        for name, curve in part.groupby("variant", sort=False):
            color = f"C{variants.index(name)}"
            mean = geometric_mean(curve, ["n"])
            row = fitted[(fitted["d"] == d) & (fitted["variant"] == name)].iloc[0]
            label = f"{name}: slope {row['slope']:.2f} [{row['low']:.2f}, {row['high']:.2f}]"
            if shares is not None:
                label += f"\n  empty cells: {shares[d, name].iloc[0]:.0%} -> {shares[d, name].iloc[-1]:.0%} of the risk"
            ax.plot(mean.index, mean.values, "o-", color=color, ms=4, lw=1.3, label=label)
            ax.scatter(curve["n"], curve["risk"], color=color, s=5, alpha=0.3)
        n = np.array(sorted(part["n"].unique()), float)
        for style, (slope, label, variant) in zip(("k--", "k:"), rates(d), strict=False):
            first = part[(part["n"] == n[0]) & ((part["variant"] == variant) if variant else True)]
            anchor = np.exp(np.log(first["risk"]).mean())
            ax.plot(n, anchor * (n / n[0]) ** slope, style, lw=1, label=label)
        log_axes(ax, panel_title(d))
        ax.legend(fontsize=7, **LEGEND_PLACES[legend])
    axes[0, 0].set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig
