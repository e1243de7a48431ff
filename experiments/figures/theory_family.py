"""What the theory figures share: their runs' risk curves as one long table, geometric means over seeds, the fitted
slopes of log risk on log n with their intervals (over all n or the late half), the rule that decides a rate claim
(an upper bound one-sided, with a stated power), the family-wise z of a theorem check's simultaneous tests, the empty
cells' share of the risk, the log-log panels, and the claims' keys for a number."""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from scipy import stats

from experiments.figures import NOT_CHECKED, Claim
from experiments.figures.tables import long_table as runs_table

# A theorem check tests many points at once (every lifetime, dimension, point x): each within the Bonferroni z of
# this family-wise error, so that the check fails by chance once in a thousand figures.
FAMILY = 0.001
# A rate is a statement about slopes over seeds: 95% one-sided intervals, and a pass counts only when the interval
# is this narrow (the project's power requirement, fixed before the runs: well below 0.133 = 4/5 - 2/3, the smallest
# gap between the rates these figures tell apart). A wider interval that does not fail is "not checked".
CONFIDENCE = 0.95
HALF_WIDTH = 0.05


def bonferroni_z(tests: int, family: float = FAMILY) -> float:
    """The |z| that each of ``tests`` two-sided z tests must stay within, for a family-wise error ``family``."""
    return float(stats.norm.isf(family / (2 * max(tests, 1))))


def number_key(value: float) -> str:
    """A number as a claim's key spells it: 2.0 -> "2", 0.5 -> "0p5"."""
    return format(value, "g").replace(".", "p").replace("-", "m")


def long_table(runs, label: Callable, values=("risk",), extra: Callable | None = None) -> pd.DataFrame:
    """d, variant (``label(run)``), the columns ``extra(run)`` gives (a dict), seed, n and the curves' ``values``."""

    def labels(run) -> dict:
        more = extra(run) if extra else {}
        return {"d": int(run.data_settings["n_features"]), "variant": label(run), **more, "seed": run.seed}

    return runs_table(runs, labels, ["step", *values]).rename(columns={"step": "n"})


def rate_table(runs, label: Callable, extra: Callable | None = None) -> pd.DataFrame:
    """``long_table`` with the lifetime, the empty cells' share of the risk (empty_share, recorded by the rates
    protocol) and the rest of the risk, risk_nonempty = risk (1 - empty_share)."""
    long = long_table(runs, label, ("risk", "empty_share", "lifetime"), extra)
    return long.assign(risk_nonempty=long["risk"] * (1.0 - long["empty_share"]))


def geometric_mean(long: pd.DataFrame, by: list[str], value: str = "risk") -> pd.Series:
    """The geometric mean of ``value`` over seeds, per group of ``by``."""
    return np.exp(np.log(long[value]).groupby([long[column] for column in by]).mean())


def one_sided(values: pd.Series) -> tuple[float, float, float]:
    """The mean over seeds of per-seed numbers (paired differences), its one-sided 95% lower and upper bounds."""
    k = len(values)
    half = stats.t.ppf(CONFIDENCE, k - 1) * values.std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
    mean = float(values.mean())
    return mean, mean - half, mean + half


def late_half(long: pd.DataFrame) -> pd.DataFrame:
    """The rows of the larger half of each d's sizes (n = 8000 ... 64000 of 500 ... 64000), where a rate, an
    asymptotic statement, is read."""
    sizes = long.groupby("d")["n"].transform(lambda n: np.sort(n.unique())[len(n.unique()) // 2])
    return long[long["n"] >= sizes]


def seed_slopes(long: pd.DataFrame, value: str = "risk", by=("d", "variant")) -> pd.DataFrame:
    """Per group of ``by`` and seed: the least-squares slope of log ``value`` on log n."""
    return (
        long.groupby([*by, "seed"])
        .apply(lambda g: np.polyfit(np.log(g["n"]), np.log(g[value]), 1)[0], include_groups=False)
        .rename("slope")
        .reset_index()
    )


def slopes(long: pd.DataFrame, value: str = "risk", by=("d", "variant")) -> pd.DataFrame:
    """Per group of ``by``: the mean over seeds of the per-seed slope of log ``value`` on log n, its 95% interval
    (low, high), its one-sided 95% half-width (``half``: the slope is significantly above ``slope - half``), the
    standard deviation over seeds and their number; and the minimax -2/(d+2)."""
    rows = []
    for group, part in seed_slopes(long, value, by).groupby(list(by)):
        k, mean, sd = len(part), part["slope"].mean(), part["slope"].std(ddof=1)
        se = sd / np.sqrt(k) if k > 1 else np.nan
        two = stats.t.ppf(1 - (1 - CONFIDENCE) / 2, k - 1) * se if k > 1 else np.nan
        one = stats.t.ppf(CONFIDENCE, k - 1) * se if k > 1 else np.nan
        rows.append(
            {
                **dict(zip(by, group, strict=True)),
                "slope": mean,
                "low": mean - two,
                "high": mean + two,
                "half": one,
                "sd": sd,
                "seeds": k,
            }
        )
    out = pd.DataFrame(rows)
    out["minimax"] = -2.0 / (out["d"] + 2.0)
    return out


def upper_rate(row, rate: float) -> tuple[str, bool | None, float]:
    """An upper bound on the risk's rate, O(n^rate), read on a fitted slope (a row of ``slopes``): it fails only
    where the slope is significantly shallower (its one-sided 95% lower end ``slope - half`` above ``rate``); it
    holds where not, if the interval is at most ``HALF_WIDTH`` wide, and is not checked (underpowered) otherwise.
    Returns the verdict ("holds", "fails", "underpowered"), ``passed`` (None: not checked) and the margin
    rate - (slope - half), > 0 where the bound is not contradicted."""
    margin = rate - (row.slope - row.half)
    if margin < 0:
        return "fails", False, margin
    return ("holds", True, margin) if row.half <= HALF_WIDTH else ("underpowered", None, margin)


def two_sided_rate(row, rate: float) -> tuple[str, bool | None, float]:
    """A rate read as printed "the same rate" (two-sided) on a fitted slope: it fails where ``rate`` is outside the
    95% interval; it holds where inside, if the interval's half-width is at most ``HALF_WIDTH``, and is not checked
    (underpowered) otherwise. Returns the verdict, ``passed`` and the margin, the distance from ``rate`` to the
    interval's nearer end (> 0 inside)."""
    margin = min(rate - row.low, row.high - rate)
    if margin < 0:
        return "fails", False, margin
    return ("holds", True, margin) if (row.high - row.low) / 2 <= HALF_WIDTH else ("underpowered", None, margin)


def rate_claim(statement: str, verdict: tuple[str, bool | None, float], measured: str, **fields) -> Claim:
    """The claim of a rate decided by ``upper_rate`` or ``two_sided_rate``: an underpowered one is not checked, its
    measured text saying why."""
    name, passed, _ = verdict
    if name == "underpowered":
        why = f"underpowered: the interval is wider than the project's {HALF_WIDTH} and does not contradict the rate"
        return Claim(statement, None, f"{why}; {measured}", status=NOT_CHECKED, **fields)
    return Claim(statement, passed, measured, **fields)


def empty_shares(long: pd.DataFrame) -> pd.Series:
    """The empty cells' mean share of the risk over seeds, per d, variant and n."""
    return long.groupby(["d", "variant", "n"])["empty_share"].mean()


def interval(row) -> str:
    return f"{row.slope:.3f} [{row.low:.3f}, {row.high:.3f}]"


def rate_fits(long: pd.DataFrame, by=("d", "variant")) -> dict[str, pd.DataFrame | pd.Series]:
    """A rate table's fits: the slopes over the late half of n (``late``, the claims'), over all n (``all``), of the
    rest of the risk without the empty cells' part over the late half (``rest``); the empty cells' mean share and
    the geometric mean risk and lifetime per n."""
    late = late_half(long)
    return {
        "late": slopes(late, by=by),
        "all": slopes(long, by=by),
        "rest": slopes(late, "risk_nonempty", by=by),
        "shares": long.groupby([*by, "n"])["empty_share"].mean(),
        "risk": geometric_mean(long, [*by, "n"]),
        "lifetime": geometric_mean(long, [*by, "n"], "lifetime"),
    }


def row_of(frame: pd.DataFrame, group: tuple, by=("d", "variant")) -> pd.Series:
    """The row of a fitted frame (``slopes``) whose columns ``by`` hold ``group``."""
    mask = np.all([frame[column] == value for column, value in zip(by, group, strict=True)], axis=0)
    return frame[mask].iloc[0]


def rate_reading(fits: dict, group: tuple, rate: float, by=("d", "variant")) -> tuple[str, dict]:
    """What a variant's rate claim shows (its measured text) and its numbers by name (its values): the late-half
    slope with its one-sided 95% lower end, half-width, seeds and per-seed sd; the slope over all n; the empty cells'
    share at the first and last n and the late-half slope of the rest of the risk; the lifetime and the risk scaled
    by n^-rate at the first and last n (rising: the rate regime not yet reached)."""
    late, every, rest = (row_of(fits[name], group, by) for name in ("late", "all", "rest"))
    shares, risk, lifetime = (fits[name].loc[group] for name in ("shares", "risk", "lifetime"))
    first, last = risk.index[0], risk.index[-1]
    late_first = int(np.sort(risk.index)[len(risk) // 2])
    scaled = risk * np.asarray(risk.index, float) ** -rate
    values = {
        "rate": rate,
        "slope": late.slope,
        "lower_end": late.slope - late.half,
        "upper_end": late.slope + late.half,
        "half_width": late.half,
        "low": late.low,
        "high": late.high,
        "seeds": int(late.seeds),
        "sd": late.sd,
        "slope_all": every.slope,
        "low_all": every.low,
        "high_all": every.high,
        "rest_slope": rest.slope,
        "empty_first": shares.iloc[0],
        "empty_last": shares.iloc[-1],
        "n_first": int(first),
        "n_last": int(last),
        "n_late": late_first,
        "lifetime_first": lifetime.iloc[0],
        "lifetime_last": lifetime.iloc[-1],
        "scaled_first": scaled.iloc[0],
        "scaled_last": scaled.iloc[-1],
    }
    measured = (
        f"late half (n = {late_first} to {last}): slope {late.slope:.3f}, one-sided 95% interval "
        f"[{late.slope - late.half:.3f}, {late.slope + late.half:.3f}] (half-width {late.half:.3f}; {late.seeds} "
        f"seeds, per-seed sd {late.sd:.3f}); all n: {interval(every)}; empty cells {shares.iloc[0]:.1%} of the risk "
        f"at n = {first}, {shares.iloc[-1]:.1%} at n = {last}, the rest of the risk: late-half slope "
        f"{rest.slope:.3f}; lam {lifetime.iloc[0]:.1f} to {lifetime.iloc[-1]:.1f}; risk x n^{-rate:.3f}: "
        f"{scaled.iloc[0]:.3g} at n = {first}, {scaled.iloc[-1]:.3g} at n = {last}"
    )
    return measured, values


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
            label = f"{name}: slope {row['slope']:.2f} [{row['low']:.2f}, {row['high']:.2f}], {row['seeds']} seeds"
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
