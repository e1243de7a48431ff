"""The text's update of the weights and node predictions along the path of a new point, checked on a tree's node
statistics before and after it (amf-fig4: Algorithm 2 on the unrestricted partition; amf-fig6: Algorithms 4 and 5
on the library's restricted tree).

A state's statistics are one row per node, indexed by node: ``count`` (the points that went through it), ``sum_0``,
..., ``sum_{m-1}`` (their label sum in regression, their class counts in classification), ``log_w`` and ``log_wbar``:
the layout the ``unrestricted_updates`` and ``lrt14_updates`` protocols log. The text's update (AMF Sec. 2.2,
Algorithm 2 lines 12-18, Algorithm 4 lines 7-14) runs bottom-up along the path from the leaf of x_t to the root:
w_v <- w_v exp(-eta l(yhat_v, y_t)) with the node's forecast before the point; wbar_v <- w_v at the leaf, else
w_v / 2 + wbar_v0 wbar_v1 / 2 with the child on the path already updated; the forecaster learns y_t. The nodes off
the path keep their values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim

STATISTICS = ("count", "log_w", "log_wbar")  # and the sums sum_0, ..., sum_{m-1}
# AMF Sec. 2.2: "we update the values of w, wbar, yhat for each v along an upwards recursion from v_t to the root,
# while the values of nodes outside of the path are kept unchanged" (the clean end of the sentence).
OUTSIDE_KEPT = "to the root, while the values of nodes outside of the path are kept unchanged"


@dataclass(frozen=True)
class Forecaster:
    """A node's forecaster and loss: the empirical mean and the square loss (regression, Eq. (4); 0 before any
    label), or Krichevsky-Trofimov with prior ``dirichlet`` and the log loss (classification, Eq. (5)); ``step`` is
    eta."""

    kind: str = "mean"
    step: float = 1.0
    dirichlet: float = 0.5

    @classmethod
    def of(cls, estimator: dict, statistics: pd.DataFrame) -> Forecaster:
        """The forecaster of an AMF whose node ``statistics`` are given: regression keeps one label sum, a classifier
        a count per class (two at least); ``step`` and ``dirichlet`` from its ``model.estimator`` settings (the
        library's defaults when absent)."""
        regression = len(sum_columns(statistics.columns)) == 1
        return cls("mean" if regression else "kt", float(estimator.get("step", 1.0)),
                   float(estimator.get("dirichlet", 0.5)))  # fmt: skip

    def loss(self, row: pd.Series, y: float) -> float:
        """The loss of the node's forecast before it learns y."""
        sums = row[sum_columns(row.index)].to_numpy(dtype=float)
        if self.kind == "mean":
            return float(((sums[0] / row["count"] if row["count"] > 0 else 0.0) - y) ** 2)
        return float(-np.log((sums[int(y)] + self.dirichlet) / (row["count"] + len(sums) * self.dirichlet)))

    def learn(self, row: pd.Series, y: float) -> pd.Series:
        """The node's count and sums once it has learnt y."""
        row = row.copy()
        row["count"] += 1.0
        if self.kind == "mean":
            row["sum_0"] += y
        else:
            row[f"sum_{int(y)}"] += 1.0
        return row


def sum_columns(columns) -> list[str]:
    return [c for c in columns if str(c).startswith("sum_")]


def statistics(run, state: int) -> pd.DataFrame:
    """The node statistics of ``state``, indexed by node (empty when the run logged none)."""
    if "stats" not in run.tables:
        return pd.DataFrame(columns=["node", *STATISTICS])
    table = run.tables["stats"]
    table = table[table["state"] == state].drop(columns="state").set_index("node").sort_index()
    return table.astype(float)


def empty_node(like: pd.DataFrame) -> pd.Series:
    """A node that has seen no point: count and sums 0, w = wbar = 1 (log 0), h(empty)."""
    return pd.Series(0.0, index=like.columns)


def updated(before: pd.DataFrame, nodes: pd.DataFrame, path: list[int], y: float, forecaster: Forecaster,
            children_first: bool = True) -> pd.DataFrame:  # fmt: skip
    """The statistics of the path's nodes (root first) after learning y by the text's upward recursion, from
    ``before``: the values before the update of every node of the updated tree ``nodes`` (a new node: its value as
    the update creates it). ``children_first=False`` reads the child on the path before its update (the wrong order,
    to show that the check tells them apart)."""
    out: dict[int, pd.Series] = {}
    for i in range(len(path) - 1, -1, -1):
        j = path[i]
        row = before.loc[j].copy()
        row["log_w"] -= forecaster.step * forecaster.loss(row, y)
        if i == len(path) - 1:
            row["log_wbar"] = row["log_w"]
        else:
            child = path[i + 1]
            sibling = int(nodes.at[j, "right"] if int(nodes.at[j, "left"]) == child else nodes.at[j, "left"])
            below = (out[child] if children_first else before.loc[child])["log_wbar"] + before.at[sibling, "log_wbar"]
            row["log_wbar"] = np.logaddexp(row["log_w"], below) + np.log(0.5)
        out[j] = forecaster.learn(row, y)
    return pd.DataFrame(out).T.loc[path]


@dataclass
class UpdateCheck:
    """The statistics after the update against the text's update of those before: on the path (largest gap, and
    the gap when the children are read before their update) and off it (the nodes whose values changed). Statistics
    that do not describe the tree's nodes fail both (an infinite gap, the unmatched nodes as changed)."""

    path: list[int]
    gap: float
    wrong_order_gap: float
    off_path: list[int]
    changed: list[int]

    @classmethod
    def of(cls, before: pd.DataFrame, after: pd.DataFrame, nodes: pd.DataFrame, path: list[int], y: float,
           forecaster: Forecaster) -> UpdateCheck:  # fmt: skip
        unmatched = sorted(set(nodes.index) ^ set(after.index))  # statistics of nodes the tree lacks, or missing
        if unmatched:
            return cls(path, np.inf, wrong_order_gap=np.inf, off_path=unmatched, changed=unmatched)
        columns = list(after.columns)
        expected = updated(before, nodes, path, y, forecaster)[columns]
        wrong = updated(before, nodes, path, y, forecaster, children_first=False)[columns]
        gap = float(np.abs(after.loc[path, columns].to_numpy() - expected.to_numpy()).max())
        wrong_gap = float(np.abs(after.loc[path, columns].to_numpy() - wrong.to_numpy()).max())
        off = [j for j in after.index if j not in set(path)]
        changed = [j for j in off if not np.array_equal(after.loc[j, columns].to_numpy(), before.loc[j, columns])]
        return cls(path, gap, wrong_order_gap=wrong_gap, off_path=off, changed=changed)

    def claims(self, names: dict[int, str], tolerance: float, quote: str, where: str, created: str) -> list[Claim]:
        """The two invariants: the path's values are the text's update of those before; no node off it changes
        (``created`` says how the update starts the nodes it creates)."""
        route = " -> ".join(names.get(j, str(j)) for j in self.path)
        return [
            Claim(
                "on the path of x_t the weights w, wbar and the forecasters (count, label sums) after the update are "
                "the text's upward recursion applied to their values before it: w_v exp(-eta l(yhat_v, y_t)), wbar_v "
                f"from the child already updated, the forecaster learning y_t ({created}); to {tolerance:g}",
                self.gap <= tolerance,
                f"path {route}: max |after - text| = {self.gap:.1e} over {len(self.path)} nodes; reading the child on "
                f"the path before its update instead: {self.wrong_order_gap:.1e} (the order of the recursion shows)",
                key="path_values_updated",
                kind=INVARIANT,
                quote=quote,
                where=where,
            ),
            Claim(
                "no node off the path of x_t changes: its weights and forecaster keep their values exactly",
                bool(self.off_path) and not self.changed,
                f"{len(self.changed)} of {len(self.off_path)} nodes off the path changed"
                + (f" ({', '.join(names.get(j, str(j)) for j in self.changed)})" if self.changed else ""),
                key="off_path_unchanged",
                kind=INVARIANT,
                quote=OUTSIDE_KEPT,
                where="AMF Sec. 2.2",
            ),
        ]


def missing(reason: str, quote: str, where: str) -> list[Claim]:
    """The two invariants, failed, when the run has no node statistics to check."""
    return [
        Claim("the path's weights and forecasters are the text's update of their values before", False, reason,
              key="path_values_updated", kind=INVARIANT, quote=quote, where=where),
        Claim("no node off the path of x_t changes", False, reason, key="off_path_unchanged", kind=INVARIANT,
              quote=OUTSIDE_KEPT, where="AMF Sec. 2.2"),
    ]  # fmt: skip


def path_values(before: pd.DataFrame, after: pd.DataFrame, path: list[int], names: dict[int, str]) -> str:
    """The path's values before and after the update, one line per node from the leaf up (a drawing's text box)."""
    lines = ["values on the path (before → after the update):"]
    for j in reversed(path):
        b, a = before.loc[j], after.loc[j]
        lines.append(
            f"{names.get(j, str(j))}: n {b['count']:.0f} → {a['count']:.0f}, "
            f"log w {b['log_w']:+.3f} → {a['log_w']:+.3f}, log w̄ {b['log_wbar']:+.3f} → {a['log_wbar']:+.3f}"
        )
    return "\n".join(lines)
