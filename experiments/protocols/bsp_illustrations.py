"""The BSP paper's illustrations, computed by the library: the four steps of one cut (Fig. 1), the online update of
a small 2-D example (Fig. 2), and a BSP tree beside a Mondrian tree on the same data with a line slice (Fig. 6).

Trees are the estimators' own (``OnlineBSPForestRegressor`` / ``Classifier``, one tree, or many for the line slice)
and the steps of a cut use the kernels of ``mondrian.bsp.hull``; the tables hold what the figures draw: hull vertices
(long format: node, pair, order, x, y), cuts (pair, direction (c, s), position u, time) and points.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.protocols.process import partition_table
from experiments.protocols.result import TrialResult
from mondrian import MondrianForestClassifier, OnlineBSPForestClassifier, OnlineBSPForestRegressor
from mondrian.bsp.hull import hull_of, perimeter, projection_range

# The illustrations draw the BSP process itself (a realisation at a budget, Lemma 2's line slice) and its online
# update, whose Fig. 2 text has new cuts in a leaf come from "a larger budget tau_7": the leaf rule that keeps the
# process's law at each budget (``leaf_sampling="law"``), not the text's re-sampling at every arrival.
LAW = "law"


def hull_rows(X: np.ndarray, rows: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """The rows of X[rows] on their convex hull in the pair (d1, d2), counter-clockwise (the library's hull)."""
    out = np.empty(len(rows), np.int64)
    return out[: hull_of(X, np.asarray(rows, np.int64), len(rows), d1, d2, out)]


def _vertices(X: np.ndarray, vertices: np.ndarray, d1: int, d2: int, **keys) -> pd.DataFrame:
    return pd.DataFrame({**keys, "order": np.arange(len(vertices)), "x": X[vertices, d1], "y": X[vertices, d2]})


def tree_tables(model, tree_index: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(nodes, hulls) of one tree: per node its parent, children, cut (pair, d1, d2, c, s, u, time) and number of
    points; per node and pair its hull's vertices in that pair's plane."""
    tree = model.trees_[tree_index]
    nodes = tree.nodes
    X = model.points_.X
    n = int(nodes.n_nodes[0])
    pairs = model.pairs_
    pair = np.where(nodes.left[:n] >= 0, nodes.pair[:n], 0)
    table = pd.DataFrame(
        {
            "node": np.arange(n),
            "parent": nodes.parent[:n],
            "left": nodes.left[:n],
            "right": nodes.right[:n],
            "pair": np.where(nodes.left[:n] >= 0, nodes.pair[:n], -1),
            "d1": pairs[pair, 0],
            "d2": pairs[pair, 1],
            "c": nodes.direction[:n, 0],
            "s": nodes.direction[:n, 1],
            "u": nodes.position[:n],
            "time": nodes.split_time[:n],
            "n_points": nodes.stats[:n, 0],
        }
    )
    hulls = [
        _vertices(X, tree.hull(v, p, X, pairs), pairs[p, 0], pairs[p, 1], node=v, pair=p)
        for v in range(n)
        for p in range(len(pairs))
    ]
    return table, pd.concat(hulls, ignore_index=True)


def cut_steps(seed: int, n_points: int = 40, budget: float = 1.5, n_angles: int = 360) -> TrialResult:
    """BSP Fig. 1: a BSP tree on n_points uniform points of [0,1]^3 (fixed budget), and its root's cut in four
    steps: the three projections' hulls and perimeters (the pair is drawn proportionally to them), the width of the
    chosen projection against theta (the angle's density) with the drawn theta, the projection range [lo, hi] on
    theta where u was drawn uniformly, and the two sides' hulls."""
    X = np.random.default_rng(seed).uniform(size=(n_points, 3))
    model = OnlineBSPForestRegressor(1, budget=budget, leaf_sampling=LAW, random_state=seed).fit(X, np.zeros(n_points))
    nodes, hulls = tree_tables(model)
    root = int(nodes.loc[nodes["parent"] < 0, "node"].iloc[0])
    cut = nodes.loc[root]
    pairs = model.pairs_
    rows = np.arange(n_points)
    perimeters = np.array(
        [perimeter(X, hull_rows(X, rows, a, b), len(hull_rows(X, rows, a, b)), a, b) for a, b in pairs]
    )
    chosen = hull_rows(X, rows, int(cut["d1"]), int(cut["d2"]))
    thetas = np.linspace(0.0, np.pi, n_angles + 1)[1:]
    ranges = np.array(
        [projection_range(X, chosen, len(chosen), int(cut["d1"]), int(cut["d2"]), np.cos(t), np.sin(t)) for t in thetas]
    )
    theta = float(np.arctan2(cut["s"], cut["c"]))
    lo, hi = projection_range(X, chosen, len(chosen), int(cut["d1"]), int(cut["d2"]), cut["c"], cut["s"])
    along = X[:, int(cut["d1"])] * cut["c"] + X[:, int(cut["d2"])] * cut["s"]
    sides = {"left": rows[along <= cut["u"]], "right": rows[along > cut["u"]]}
    side_hulls = pd.concat(
        [
            _vertices(X, hull_rows(X, r, int(cut["d1"]), int(cut["d2"])), int(cut["d1"]), int(cut["d2"]), side=name)
            for name, r in sides.items()
            if len(r)
        ]
    )
    points = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(left=along <= cut["u"])
    return TrialResult(
        summary={
            "theta": theta,
            "u": float(cut["u"]),
            "lo": lo,
            "hi": hi,
            "pair": float(cut["pair"]),
            "n_left": float(len(sides["left"])),
            "n_right": float(len(sides["right"])),
            "n_leaves": float(model.n_leaves()[0]),
        },
        tables={
            "nodes": nodes,
            "hulls": hulls,
            "points": points,
            "pairs": pd.DataFrame(
                {
                    "d1": pairs[:, 0],
                    "d2": pairs[:, 1],
                    "perimeter": perimeters,
                    "probability": perimeters / perimeters.sum(),
                }
            ),
            "widths": pd.DataFrame({"theta": thetas, "width": ranges[:, 1] - ranges[:, 0]}),
            "sides": side_hulls,
        },
    )


def _signatures(hulls: pd.DataFrame) -> pd.Series:
    """Per node, its hull's vertices (pair 0) as a tuple: two equal signatures, the same hull."""
    return hulls.groupby("node")[["x", "y"]].apply(lambda f: tuple(map(tuple, f.to_numpy())))


def _events(before: pd.DataFrame, after: pd.DataFrame) -> str:
    """What an arrival did to the tree: 'absorbed' (no new node), 'leaf cut' (an old leaf got children), 'cut above'
    (a new node above an old one), 'extended' (an old internal node's hull grew: its cut is extended)."""
    old = set(before["node"])
    new = after[after["new"]]
    events = []
    if not old:
        return "root"
    if new.empty:
        events.append("absorbed")
    if (new["parent"].isin(old) & ~new["left"].isin(old) & ~new["right"].isin(old) & (new["left"] < 0)).any():
        events.append("leaf cut")
    if (new["left"].isin(old) | new["right"].isin(old)).any():
        events.append("cut above")
    if (after["grown"] & after["node"].isin(before.loc[before["left"] >= 0, "node"])).any():
        events.append("extended")
    return ", ".join(events)


def online_steps(seed: int, n_points: int = 7, budget: float = 3.0) -> TrialResult:
    """BSP Fig. 2: one tree learning n_points uniform points of [0,1]^2 one at a time (partial_fit), the tree after
    each arrival (nodes, hulls; new nodes and grown hulls marked) and what the arrival did (events)."""
    X = np.random.default_rng(seed).uniform(size=(n_points, 2))
    model = OnlineBSPForestRegressor(1, budget=budget, leaf_sampling=LAW, random_state=seed)
    node_tables, hull_tables, steps = [], [], []
    before, before_signatures = pd.DataFrame({"node": [], "left": []}), pd.Series(dtype=object)
    for i in range(n_points):
        model.partial_fit(X[i : i + 1], np.zeros(1))
        nodes, hulls = tree_tables(model)
        signatures = _signatures(hulls)
        nodes["new"] = ~nodes["node"].isin(before["node"])
        nodes["grown"] = [v in before_signatures.index and signatures[v] != before_signatures[v] for v in nodes["node"]]
        steps.append(
            {"step": i, "label": chr(ord("a") + i), "x": X[i, 0], "y": X[i, 1], "events": _events(before, nodes)}
        )
        node_tables.append(nodes.assign(step=i))
        hull_tables.append(hulls.assign(step=i))
        before, before_signatures = nodes, signatures
    return TrialResult(
        summary={"n_leaves": float(model.n_leaves()[0]), "n_nodes": float(len(before))},
        tables={"steps": pd.DataFrame(steps), "nodes": pd.concat(node_tables), "hulls": pd.concat(hull_tables)},
    )


def _area(x: np.ndarray, y: np.ndarray) -> float:
    """The area of a polygon given counter-clockwise (shoelace)."""
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def slice_crossings(
    trees, a: np.ndarray, b: np.ndarray, pairs: np.ndarray, rule: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per tree, where its cuts meet the segment [a, b]: (counts: rule, tree, crossings, first_half, second_half;
    positions: rule, tree, s in [0, 1] along the segment)."""
    cuts = [t.cuts_on_segment(a, b, pairs) for t in trees]
    counts = pd.DataFrame({"rule": rule, "tree": np.arange(len(cuts)), "crossings": [len(c) for c in cuts],
                           "first_half": [int((c < 0.5).sum()) for c in cuts],
                           "second_half": [int((c >= 0.5).sum()) for c in cuts]})  # fmt: skip
    positions = pd.DataFrame({"rule": rule, "tree": np.repeat(np.arange(len(cuts)), [len(c) for c in cuts]),
                              "s": np.concatenate(cuts) if cuts else []})  # fmt: skip
    return counts, positions


def hulls_and_slice(
    seed: int,
    n_points: int = 60,
    lifetime: float = 3.0,
    budget: float = 3.0,
    slice_points: int = 4000,
    slice_budget: float = 5.0,
    slice_trees: int = 200,
    segment: tuple = ((0.1, 0.2), (0.9, 0.7)),
    text_slice_trees: int = 0,
) -> TrialResult:
    """BSP Fig. 6: left, a Mondrian tree (LRT14, boxes restricted to the data's range) and a BSP tree (convex hulls)
    on the same labelled 2-D points (three blobs); right, a line slice: the cuts of BSP trees with a fixed budget on
    dense uniform points meet a segment, counted over slice_trees trees against the line-slice lemma's Poisson law
    (intensity 2 rate_scale tau per unit length), with every crossing's position (the law's "homogeneous"); and
    beside them, text_slice_trees trees on the same points under the text's leaf rule (Algorithm 4 as printed),
    whose trees are not the process the lemma is about (0: none)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.3, 0.3], [0.7, 0.35], [0.5, 0.75]])
    y = rng.integers(0, 3, n_points)
    X = np.clip(centres[y] + 0.12 * rng.standard_normal((n_points, 2)), 0.0, 1.0)
    mondrian = MondrianForestClassifier(1, lifetime=lifetime, random_state=seed).fit(X, y)
    boxes = partition_table(mondrian.trees_[0])
    bsp = OnlineBSPForestClassifier(1, budget=budget, leaf_sampling=LAW, random_state=seed).fit(X, y)
    nodes, hulls = tree_tables(bsp)
    leaf_boxes = boxes[boxes["left"] < 0]
    box_area = float(
        ((leaf_boxes["upper_0"] - leaf_boxes["lower_0"]) * (leaf_boxes["upper_1"] - leaf_boxes["lower_1"])).sum()
    )
    leaf_hulls = hulls[hulls["node"].isin(nodes.loc[nodes["left"] < 0, "node"])]
    hull_area = sum(_area(f["x"].to_numpy(), f["y"].to_numpy()) for _, f in leaf_hulls.groupby("node") if len(f) > 2)
    spans = leaf_hulls.groupby("node")[["x", "y"]].agg(np.ptp)
    range_area = float((spans["x"] * spans["y"]).sum())  # the same leaves' points in boxes, as a Mondrian tree keeps

    dense = rng.uniform(size=(slice_points, 2))
    sliced = OnlineBSPForestRegressor(slice_trees, budget=slice_budget, leaf_sampling=LAW, random_state=seed, n_jobs=2)
    sliced.fit(dense, np.zeros(slice_points))
    a, b = np.array(segment[0], float), np.array(segment[1], float)
    slice_counts, slice_positions = slice_crossings(sliced.trees_, a, b, sliced.pairs_, LAW)
    counts = slice_counts["crossings"].to_numpy()
    summary = {"slice_leaves": float(np.mean(sliced.n_leaves()))}
    if text_slice_trees:
        text = OnlineBSPForestRegressor(text_slice_trees, budget=slice_budget, leaf_sampling="text",
                                        random_state=seed + 1, n_jobs=2).fit(dense, np.zeros(slice_points))  # fmt: skip
        text_counts, text_positions = slice_crossings(text.trees_, a, b, text.pairs_, "text")
        slice_counts = pd.concat([slice_counts, text_counts], ignore_index=True)
        slice_positions = pd.concat([slice_positions, text_positions], ignore_index=True)
        summary |= {"text_slice_mean": float(text_counts["crossings"].mean()),
                    "text_slice_var": float(text_counts["crossings"].var(ddof=1)),
                    "text_slice_trees": float(text_slice_trees),
                    "text_slice_leaves": float(np.mean(text.n_leaves()))}  # fmt: skip
    shown = int(np.argmin(np.abs(counts - 2 * sliced.rate_scale * slice_budget * np.linalg.norm(b - a))))
    slice_nodes, slice_hulls = tree_tables(sliced, shown)  # a tree with the typical number of crossings
    crossings = sliced.trees_[shown].cuts_on_segment(a, b, sliced.pairs_)
    length = float(np.linalg.norm(b - a))
    return TrialResult(
        summary={
            "mondrian_box_area": box_area,
            "bsp_hull_area": hull_area,
            "bsp_range_area": range_area,
            "mondrian_leaves": float(mondrian.trees_[0].n_leaves()),
            "bsp_leaves": float(bsp.n_leaves()[0]),
            "slice_mean": float(counts.mean()),
            "slice_var": float(counts.var(ddof=1)),
            "poisson_mean": 2 * sliced.rate_scale * slice_budget * length,
            "slice_trees": float(slice_trees),
            **summary,
        },
        tables={
            "points": pd.DataFrame({"x": X[:, 0], "y": X[:, 1], "label": y}),
            "mondrian": boxes,
            "bsp_nodes": nodes,
            "bsp_hulls": hulls[hulls["pair"] == 0],
            "slice_nodes": slice_nodes,
            "slice_hulls": slice_hulls[slice_hulls["pair"] == 0],
            "slice_counts": slice_counts,
            "slice_positions": slice_positions,
            "crossings": pd.DataFrame({"x": a[0] + crossings * (b[0] - a[0]), "y": a[1] + crossings * (b[1] - a[1])}),
            "segment": pd.DataFrame({"x": [a[0], b[0]], "y": [a[1], b[1]]}),
        },
    )
