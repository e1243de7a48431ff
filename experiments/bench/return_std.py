"""What LRT16's predictive spread costs: ``MondrianForestRegressor(prediction="gaussian")``'s ``predict(X)`` against
``predict(X, return_std=True)`` and ``predict_interval(X)`` of the same fitted forest, beside the leaf rule's
``predict(X)`` on the same trees.

Data: y = sin(6 x_0) + x_1 + N(0, 0.1^2) on [0, 1]^d (seed 0), test points uniform on [-0.25, 1.25]^d (a part outside
the data's range); 10 trees, random_state 0, lifetime inf, n_jobs 1. Every call is run once before its clock starts
(numba's compile), then ``--repeats`` times; the table gives the median seconds and the ratios to the Gaussian rule's
``predict(X)``. The Gaussian rule's predict computes each tree's posterior tables (belief propagation over its nodes,
once per call) and its mixture at each point; return_std adds the second moment of the same walk (no second pass);
predict_interval adds a normal quantile to return_std.

Run: ``python -m experiments.bench.return_std [--sizes 1000 10000] [--repeats 5]``; prints a Markdown table.
Measured (2 cores shared with other jobs, defaults: 10000 test rows in 4 features, 5 repeats), median seconds:

=======  ======  ============  =======  ==========  ================  ==============  ==================
n train  nodes   leaf predict  predict  return_std  predict_interval  leaf / predict  return_std / predict
=======  ======  ============  =======  ==========  ================  ==============  ==================
1000     19990   0.0226        0.1394   0.1363      0.1256            0.16            0.98
10000    199990  0.0326        0.1877   0.1859      0.2112            0.17            0.99
=======  ======  ============  =======  ==========  ================  ==============  ==================

The spread costs nothing over the Gaussian mean (the same walk); the Gaussian rule costs about 6 times the leaf rule,
most of it in the points outside the data's box (80% here), whose walk from the root weighs every node of the path
(a few exponentials each).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from mondrian import MondrianForestRegressor

CALLS: dict[str, Callable] = {
    "leaf predict": lambda model, X: model.set_params(prediction="leaf").predict(X),
    "predict": lambda model, X: model.set_params(prediction="gaussian").predict(X),
    "return_std": lambda model, X: model.set_params(prediction="gaussian").predict(X, return_std=True),
    "predict_interval": lambda model, X: model.set_params(prediction="gaussian").predict_interval(X),
}


def data(n_train: int, n_test: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.random((n_train, d))
    y = np.sin(6 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(n_train)
    return X, y, rng.uniform(-0.25, 1.25, size=(n_test, d))


def median_seconds(call: Callable, model, X: np.ndarray, repeats: int) -> float:
    call(model, X)  # compiled (and cached) before the clock
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call(model, X)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def measure(n_train: int, n_test: int, d: int, repeats: int) -> dict:
    X, y, X_test = data(n_train, n_test, d)
    model = MondrianForestRegressor(n_estimators=10, prediction="gaussian", random_state=0).fit(X, y)
    row: dict = {"n_train": n_train, "n_test": n_test, "d": d, "nodes": sum(t.n_nodes for t in model.trees_)}
    for name, call in CALLS.items():
        row[name] = median_seconds(call, model, X_test, repeats)
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| n train | n test | d | nodes | leaf predict s | predict s | return_std s | predict_interval s "
        "| leaf / predict | return_std / predict | interval / predict |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        base = r["predict"]
        lines.append(
            f"| {r['n_train']} | {r['n_test']} | {r['d']} | {r['nodes']} | {r['leaf predict']:.4f} | {base:.4f} "
            f"| {r['return_std']:.4f} | {r['predict_interval']:.4f} | {r['leaf predict'] / base:.2f} "
            f"| {r['return_std'] / base:.2f} | {r['predict_interval'] / base:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[1000, 10000], help="training rows")
    parser.add_argument("--test-rows", type=int, default=10000)
    parser.add_argument("--features", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    for n in args.sizes:
        rows.append(measure(n, args.test_rows, args.features, args.repeats))
        print(f"{n} rows: predict {rows[-1]['predict']:.3f} s", flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
