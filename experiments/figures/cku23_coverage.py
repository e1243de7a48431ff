"""cku23-coverage: coverage and width of nominal 95% intervals at x = (1/2, ..., 1/2) on CKU23's simulation design,
for the debiased Mondrian forest (J = 0, the plain forest, and J = 1) and the intervals users would pick instead (a
random forest's trees' spread, split-conformal around a random forest), each interval checked against both targets:
mu(x) (a confidence interval's) and a fresh Y at x (a prediction interval's).

Claims test CKU23's sentences on the Mondrian intervals only: the debiased forest's confidence interval is valid (its
coverage of mu(x) near nominal) with a bias negligible against its sd at the lifetime tuned for the plain forest; the
plain forest's interval at its MSE-optimal lifetime, where its bias does not shrink faster than its sd, covers less;
debiasing widens the interval and, in small samples, raises the error. The baselines are drawn and tabulated, no
sentence of the paper is about them.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import NullLocator
from scipy.stats import norm

from experiments.figures import Claim, Drawing, Table
from experiments.figures.tables import markdown_table
from experiments.protocols.intervals import AMSE_OPTIMAL, summarize

NOMINAL = 0.95
Z_TWO_SIDED = norm.ppf(0.995)  # the printed "-> 1 - alpha" read two-sided at level 1% (the project's)
Z_ONE_SIDED = norm.ppf(0.99)  # its weaker reading, "not below", one-sided at 1%
Z_BETTER = norm.ppf(0.95)  # a one-sided 95% bound for "larger" / "below"
JITTER = 1.025  # the factor between neighbouring methods' positions on the log n axis
NEGLIGIBLE = 0.25  # |bias| / sd at most this (the project's: it costs at most ~1 point of a 95% interval's coverage)

QUOTE_VALID = (
    "By combining these results with a carefully crafted debiasing approach and an accurate variance estimator, we "
    "present valid statistical inference methods for the unknown regression function."
)
WHERE_VALID = "CKU23 abstract (arXiv 2310.09702, revised version)"
QUOTE_NEGLIGIBLE = (
    "This results in an inflated lifetime estimate, guaranteeing the resulting bias is negligible when it is plugged "
    "into the fully debiased estimator."
)
WHERE_NEGLIGIBLE = "CKU23 Sec. 6 (Tuning parameter selection), on mu_d(x; lambda_AIMSE(J-1), J) for inference"
QUOTE_PLAIN = (
    "Using Theorem~\\ref{thm:clt} and Theorem~\\ref{thm:bias} together, along with an appropriate choice of lifetime "
    "parameter $\\lambda$, gives a central limit theorem for the Mondrian random forest estimator which can be used, "
    "for example, to build confidence intervals for the unknown regression function $\\mu(x)$ whenever the bias "
    "shrinks faster than the standard deviation."
)
WHERE_PLAIN = "CKU23 Sec. 3 (Inference with Mondrian random forests), after Theorem 'Bias of the Mondrian random forest estimator'"  # noqa: E501
QUOTE_WIDER = (
    "The limiting variance $\\Sigma_\\rd(x)$ of the debiased estimator is larger than that of the unbiased version "
    "(the extent of this increase depends on the choice of the debiasing parameters $a_r$), leading to wider "
    "confidence intervals and larger estimation error in small samples despite the theoretical asymptotic "
    "improvements."
)
WHERE_WIDER = "CKU23 Sec. 5 (Debiased Mondrian random forests), after Theorem 'Feasible confidence intervals using a debiased Mondrian random forest'"  # noqa: E501

SHOWN = ("d", "n", "label", "replications", "coverage_mu", "coverage_mu_se", "coverage_y", "coverage_y_se", "width",
         "bias", "sd", "rmse", "std_hat", "lifetime", "empty_share")  # fmt: skip
QUOTE_VARIANCE = (
    "In Theorem~\\ref{thm:variance_estimation} we show that this variance estimator is consistent and establish its "
    "rate of convergence."
)
WHERE_VARIANCE = "CKU23 Sec. 3, Variance estimation (Theorem 'Variance estimation')"
QUOTE_VARIANCE_DEBIASED = (
    "As before, we propose a variance estimator in order to conduct feasible inference and show that it is consistent."
)
WHERE_VARIANCE_DEBIASED = "CKU23 Sec. 5, Variance estimation (Theorem 'Variance estimation' of the debiased forest)"
VARIANCE_TOLERANCE = 0.10  # |mean se_hat / sd - 1| at most this, beyond the sd's Monte Carlo error (the project's)
BASELINES = {"forest_spread": "RF trees' spread", "split_conformal": "split conformal (MAPIE)"}


def tuned_order(run) -> int:
    """The debiasing order the run's lifetime is tuned for: 0 for the oracle, J - 1 (0 at J = 0) for the library's
    rule (CKU's inference recipe), -1 for a fixed number (tuned for none)."""
    lifetime = run.protocol["lifetime"]
    if lifetime == AMSE_OPTIMAL:
        return 0
    return max(int(run.protocol.get("debias_order", 0)) - 1, 0) if isinstance(lifetime, str) else -1


def forest_tag(run) -> str:
    """What the run's Mondrian forests of every order share: how their lifetime was set ("oracle", the plain
    forest's AMSE-optimal; the rule's name and the order it is tuned for, "polynomial0"; or the number), their trees
    per forest and, when not 0, their empty cells' prediction: "oracle_b1000", "polynomial0_b32_mean"."""
    settings = run.protocol
    lifetime = settings["lifetime"]
    if lifetime == AMSE_OPTIMAL:
        tag = "oracle"
    else:
        tag = f"{lifetime}{tuned_order(run)}" if isinstance(lifetime, str) else f"{float(lifetime):g}".replace(".", "p")
    empty = settings.get("empty_value", 0.0)
    return f"{tag}_b{int(settings['n_estimators'])}" + ("" if empty == 0 else f"_{empty}".replace(".", "p"))


def scales_tag(run) -> str:
    """The debiased forest's lifetime scales a_r = ratio^r as a tag ("a1.05"); "" for the library's default or J = 0."""
    ratio = run.protocol.get("debias_ratio")
    return "" if ratio is None or not run.protocol.get("debias_order", 0) else f"a{float(ratio):g}"


def method_label(run) -> str:
    """The legend's name of the run's method."""
    method = run.protocol["method"]
    if method != "mondrian":
        return BASELINES[method]
    lifetime = run.protocol["lifetime"]
    if lifetime == AMSE_OPTIMAL:
        tuned = "lam_AMSE(0), oracle"
    elif isinstance(lifetime, str):
        tuned = f"lam_{lifetime}({tuned_order(run)})"
    else:
        tuned = f"lam = {float(lifetime):g}"
    scales = f", a_r = {float(run.protocol['debias_ratio']):g}^r" if scales_tag(run) else ""
    empty = run.protocol.get("empty_value", 0.0)
    empty = "" if empty == 0 else f", empty cells: {empty}"
    trees = int(run.protocol["n_estimators"])
    trees = "sqrt(n)" if trees == math.ceil(math.sqrt(int(run.protocol["n_samples"]))) else str(trees)  # a series in n
    return f"Mondrian J = {int(run.protocol['debias_order'])}, {tuned}, B = {trees}{scales}{empty}"


def replications(runs) -> pd.DataFrame:
    """Every replication of every run, with its run's d, n, method, J, lifetime tag and seed."""
    frames = []
    for run in runs:
        settings = run.protocol
        frames.append(
            run.tables["replications"].assign(
                d=int(settings["dim"]),
                n=int(settings["n_samples"]),
                method=settings["method"],
                J=int(settings.get("debias_order", 0)),
                forest_tag=forest_tag(run),
                tuned_order=tuned_order(run) if settings["method"] == "mondrian" else -1,
                scales=scales_tag(run),
                label=method_label(run),
                seed=run.seed,
            )
        )
    return pd.concat(frames, ignore_index=True)


def summary(long: pd.DataFrame) -> pd.DataFrame:
    """Per (d, n, label): `summarize` over the replications of all its seeds."""
    keys = ["d", "n", "label", "method", "J", "forest_tag", "tuned_order", "scales"]
    rows = [dict(zip(keys, key, strict=True)) | summarize(group) for key, group in long.groupby(keys, sort=True)]
    return pd.DataFrame(rows)


def band(replications_count: float) -> float:
    """The half-width of the two-sided 95% Monte Carlo band of a coverage at nominal with this many replications."""
    return 1.96 * math.sqrt(NOMINAL * (1 - NOMINAL) / replications_count)


def plot(runs, spec) -> Drawing:
    table = summary(replications(runs))
    dims = sorted(table["d"].unique())
    fig, axes = plt.subplots(3, len(dims), figsize=(max(7.0, 5.2 * len(dims)), 9.5), squeeze=False, sharex=True)
    labels = sorted(table["label"].unique(), key=lambda s: (not s.startswith("Mondrian"), s))
    palette = plt.cm.tab20.colors[0::2] + plt.cm.tab20.colors[1::2]  # ten hues, then their light shades
    colors = dict(zip(labels, palette, strict=False))
    for column, d in enumerate(dims):
        at_d = table[table["d"] == d]
        for index, label in enumerate(labels):
            rows = at_d[at_d["label"] == label].sort_values("n")
            if rows.empty:
                continue
            style = {"color": colors[label], "marker": "o", "capsize": 3, "label": label}
            style["linestyle"] = "-" if label.startswith("Mondrian") else "--"
            sizes = rows["n"] * JITTER ** (index - (len(labels) - 1) / 2)  # side by side at a shared n
            for row, target in ((0, "mu"), (1, "y")):
                axes[row, column].errorbar(
                    sizes, rows[f"coverage_{target}"], yerr=1.96 * rows[f"coverage_{target}_se"], **style
                )
            axes[2, column].plot(sizes, rows["width"], **{k: v for k, v in style.items() if k != "capsize"})
        count = at_d["replications"].min()
        for row in (0, 1):
            ax = axes[row, column]
            ax.axhline(NOMINAL, color="black", linewidth=0.8)
            ax.axhspan(NOMINAL - band(count), NOMINAL + band(count), color="grey", alpha=0.2)
            ax.set_ylim(max(0.0, ax.get_ylim()[0]), 1.01)
        axes[0, column].set_title(f"d = {d}: coverage of mu(x)")
        axes[1, column].set_title(f"d = {d}: coverage of a fresh Y at x")
        axes[2, column].set_title(f"d = {d}: mean width")
        axes[2, column].set_xlabel("n (training points)")
        axes[2, column].set_xscale("log")
        axes[2, column].set_yscale("log")
        sizes = sorted(table["n"].unique())
        axes[2, column].set_xticks(sizes, [str(n) for n in sizes])
        axes[2, column].xaxis.set_minor_locator(NullLocator())
    axes[0, 0].set_ylabel("coverage (95% MC interval)")
    axes[1, 0].set_ylabel("coverage (95% MC interval)")
    axes[2, 0].set_ylabel("interval width")
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=2, frameon=False, fontsize=8)
    legend_rows = math.ceil(len(names) / 2)
    fig.suptitle(
        "CKU23 design: Y = sum_j sin(pi x_j) + N(0, 0.3^2), X ~ U[0,1]^d, x = (1/2, ...); nominal 95% intervals\n"
        f"nominal line and its 95% Monte Carlo band (grey, {int(count)} replications); bars: 95% MC intervals",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.01 + 0.022 * legend_rows, 1, 0.95))
    shown = table[[*SHOWN]]
    return Drawing(fig, {"": Table(shown, markdown_table(shown))})


def paired(long: pd.DataFrame, d: int, n: int, tag: str, scales: str, value) -> tuple[float, float, int]:
    """Mean and standard error of value(J = 1 row) - value(J = 0 row) over the replications both Mondrian forests at
    lifetime ``tag`` ran on the same data (same seed and replication), and their number."""
    mondrian = long[(long["method"] == "mondrian") & (long["d"] == d) & (long["n"] == n) & (long["forest_tag"] == tag)]
    keys = ["seed", "replication"]
    debiased = mondrian[(mondrian["J"] == 1) & (mondrian["scales"] == scales)]
    both = debiased.merge(mondrian[mondrian["J"] == 0], on=keys, suffixes=("_1", "_0"))
    difference = value(both, "_1") - value(both, "_0")
    return float(difference.mean()), float(difference.std(ddof=1) / math.sqrt(len(both))), len(both)


def claims(runs, spec) -> list[Claim]:
    long = replications(runs)
    table = summary(long)
    out = []
    for (d, n), at in table[table["method"] == "mondrian"].groupby(["d", "n"]):
        for row in at[(at["J"] == 1) & (at["tuned_order"] == 0)].itertuples():
            out += debiased_claims(row, d, n)
        for row in at[(at["J"] == 0) & (at["tuned_order"] == 0)].itertuples():
            out.append(plain_claim(row, d, n))
        for row in at.itertuples():
            out.append(variance_claim(row, d, n))
        plain_tags = set(at.loc[at["J"] == 0, "forest_tag"])
        debiased = at.loc[at["J"] == 1, ["forest_tag", "scales"]].drop_duplicates()
        for tag, scales in debiased.itertuples(index=False):
            if tag in plain_tags:
                out += wider_claims(long, d, n, tag, scales)
    return out


def debiased_claims(row, d: int, n: int) -> list[Claim]:
    """J = 1 at the lifetime tuned for J - 1 = 0 (CKU's inference recipe): coverage of mu(x) at nominal (two-sided;
    weaker: not below), and a bias negligible against the sd."""
    k = int(row.replications)
    se = math.sqrt(NOMINAL * (1 - NOMINAL) / k)
    key = case_key(row, d, n)
    values = {"coverage": row.coverage_mu, "se": row.coverage_mu_se, "replications": k, "width": row.width,
              "bias": row.bias, "sd": row.sd, "lifetime": row.lifetime, "std_hat": row.std_hat,
              "empty_share": row.empty_share}  # fmt: skip
    measured = f"coverage {row.coverage_mu:.3f} ± {row.coverage_mu_se:.3f} over {k} replications"
    where = f"d = {d}, n = {n}, {row.label}"
    printed = Claim(
        f"{where}: the debiased forest's 95% confidence interval covers mu(x) at the nominal rate: |coverage - 0.95| "
        f"<= {Z_TWO_SIDED:.3f} x {se:.4f} (a two-sided binomial test at 1% with {k} replications: the project's "
        "threshold, the theorem being a limit)",
        abs(row.coverage_mu - NOMINAL) <= Z_TWO_SIDED * se,
        measured,
        key=f"debiased_coverage_{key}",
        quote=QUOTE_VALID,
        where=WHERE_VALID,
        values=values,
    )
    weaker = printed.weaker(
        f"{where}: the debiased forest's 95% confidence interval covers mu(x) at least at the nominal rate (not "
        f"significantly below: coverage >= 0.95 - {Z_ONE_SIDED:.3f} x {se:.4f}, one-sided at 1%)",
        row.coverage_mu >= NOMINAL - Z_ONE_SIDED * se,
        measured,
        key=f"debiased_coverage_not_below_{key}",
        values=values,
    )
    ratio_upper = (abs(row.bias) + 1.96 * row.sd / math.sqrt(k)) / row.sd
    negligible = Claim(
        f"{where}: the debiased forest's bias at x is negligible against its sd: the upper end of the 95% interval of "
        f"|bias| / sd is <= {NEGLIGIBLE} (the project's threshold: a bias of a quarter of the sd lowers a 95% "
        "interval's coverage by about one point)",
        ratio_upper <= NEGLIGIBLE,
        f"bias {row.bias:.4f}, sd {row.sd:.4f}, |bias| / sd {abs(row.bias) / row.sd:.3f} (upper end {ratio_upper:.3f})",
        key=f"negligible_bias_{key}",
        quote=QUOTE_NEGLIGIBLE,
        where=WHERE_NEGLIGIBLE,
        values=values | {"ratio_upper": ratio_upper},
    )
    return [printed, weaker, negligible]


def case_key(row, d: int, n: int) -> str:
    """The claims' key of a summary row: "d1_n1000_oracle", "d2_n1000_polynomial0_a1p05"."""
    scales = f"_{row.scales.replace('.', 'p')}" if row.scales else ""
    return f"d{d}_n{n}_{row.forest_tag}{scales}"


def variance_claim(row, d: int, n: int) -> Claim:
    """The variance estimator is consistent: the mean estimated standard error matches the estimate's sd."""
    k = int(row.replications)
    ratio = row.std_hat / row.sd
    slack = VARIANCE_TOLERANCE + 1.96 / math.sqrt(2 * k)  # the sd's own Monte Carlo error, relative: 1 / sqrt(2k)
    return Claim(
        f"d = {d}, n = {n}, {row.label}: the variance estimator is consistent: the mean estimated standard error "
        f"is within {VARIANCE_TOLERANCE:.0%} of the estimate's sd over the replications, plus the sd's Monte Carlo "
        f"error ({1.96 / math.sqrt(2 * k):.3f}; the project's threshold)",
        abs(ratio - 1) <= slack,
        f"mean estimated se {row.std_hat:.4f}, sd {row.sd:.4f}: ratio {ratio:.3f}",
        key=f"variance_estimator_j{row.J}_{case_key(row, d, n)}",
        quote=QUOTE_VARIANCE if row.J == 0 else QUOTE_VARIANCE_DEBIASED,
        where=WHERE_VARIANCE if row.J == 0 else WHERE_VARIANCE_DEBIASED,
        values={"ratio": ratio, "std_hat": row.std_hat, "sd": row.sd, "empty_share": row.empty_share},
    )


def plain_claim(row, d: int, n: int) -> Claim:
    """J = 0 at its MSE-optimal lifetime (bias and sd of one order): its interval covers mu(x) below nominal."""
    upper = row.coverage_mu + Z_BETTER * row.coverage_mu_se
    return Claim(
        f"d = {d}, n = {n}, {row.label}: at the plain forest's MSE-optimal lifetime, where its bias does not shrink "
        f"faster than its sd, its 95% interval covers mu(x) significantly below nominal (the one-sided 95% upper end "
        "of its coverage < 0.95)",
        upper < NOMINAL,
        f"coverage {row.coverage_mu:.3f} ± {row.coverage_mu_se:.3f} (upper end {upper:.3f}); |bias| / sd "
        f"{abs(row.bias) / row.sd:.3f}",
        key=f"plain_undercovers_{case_key(row, d, n)}",
        quote=QUOTE_PLAIN,
        where=WHERE_PLAIN,
        values={
            "coverage": row.coverage_mu,
            "upper": upper,
            "bias_over_sd": abs(row.bias) / row.sd,
            "bias": row.bias,
            "sd": row.sd,
            "std_hat": row.std_hat,
            "empty_share": row.empty_share,
        },
    )


def wider_claims(long: pd.DataFrame, d: int, n: int, tag: str, scales: str) -> list[Claim]:
    """J = 1 against J = 0 at the same lifetime, paired over replications: a wider interval and a larger error."""
    width, width_se, k = paired(long, d, n, tag, scales, lambda f, s: f[f"width{s}"])
    error, error_se, _ = paired(long, d, n, tag, scales, lambda f, s: (f[f"estimate{s}"] - f[f"mu{s}"]) ** 2)
    where = f"d = {d}, n = {n}, lifetime {tag}" + (f", scales {scales}" if scales else "")
    tag = tag + (f"_{scales.replace('.', 'p')}" if scales else "")
    return [
        Claim(
            f"{where}: the debiased forest's (J = 1) 95% interval is wider than the plain one's (J = 0) at the same "
            "lifetime: the one-sided 95% lower end of the mean paired width difference is > 0",
            width - Z_BETTER * width_se > 0,
            f"width difference {width:.4f} ± {width_se:.4f} over {k} paired replications",
            key=f"wider_debiased_d{d}_n{n}_{tag}",
            quote=QUOTE_WIDER,
            where=WHERE_WIDER,
            values={"difference": width, "se": width_se},
        ),
        Claim(
            f"{where}: the debiased forest's estimation error is larger than the plain one's at the same lifetime "
            f"(n = {n} read as a small sample): the one-sided 95% lower end of the mean paired difference of squared "
            "errors is > 0",
            error - Z_BETTER * error_se > 0,
            f"squared-error difference {error:.5f} ± {error_se:.5f} over {k} paired replications",
            key=f"larger_error_debiased_d{d}_n{n}_{tag}",
            quote=QUOTE_WIDER,
            where=WHERE_WIDER,
            values={"difference": error, "se": error_se},
        ),
    ]
