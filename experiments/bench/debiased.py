"""What CKU23's debiased forest and its confidence intervals cost: ``MondrianPartitionForestRegressor`` with
``debias_order=1`` fitted, then ``predict_interval`` (the estimate and CKU23's variance estimator), against the plain
forest (``debias_order=0``) fitted, then ``predict``, with the same trees per lifetime, in one run.

The data: the authors' replication design, X uniform on [0, 1]^d, Y = sum_j sin(pi X_j) + N(0, 0.3^2) (seed 0), n
training rows, m = 1000 evaluation rows; B = 100 trees per lifetime (the debiased forest grows 2 B: lifetimes lambda
and 1.05 lambda), a fixed lifetime lambda (so that both forests draw the same partitions at lambda), random_state 0,
``n_jobs=1``. Each time is the least of ``--repeats`` runs, after a warm-up run that compiles the kernels. The ratios
are debiased over plain: the fit (two forests instead of one: about 2), the prediction (the intervals read every
training point of x's cell in every tree: the cost grows with n / lambda^d, the points per cell, besides the walk down
the trees), and the whole.

Run: ``python -m experiments.bench.debiased``; prints a Markdown table. Measured (2 cores shared with other jobs,
seconds, the least of 3 runs):

= ===== ======== ========= ============= ============ ================== ===== ========== =====
d n     lifetime plain fit plain predict debiased fit debiased intervals fit   prediction total
= ===== ======== ========= ============= ============ ================== ===== ========== =====
1 1000  10       0.018     0.005         0.036        0.142              2.02  26.9       7.75
1 10000 20       0.070     0.007         0.143        1.220              2.03  168.6      17.57
2 1000  5        0.026     0.007         0.053        0.105              2.01  14.8       4.72
2 10000 10       0.141     0.010         0.300        1.181              2.13  115.4      9.81
= ===== ======== ========= ============= ============ ================== ===== ========== =====

The fit costs twice the plain one (two forests); the intervals cost what reading every training point of x's cell
in every tree costs (B n / lambda^d per row and lifetime) and the dense weights of every training point at each
row (m n per lifetime), against a walk down each tree for the plain prediction.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from mondrian import MondrianPartitionForestRegressor

SETTINGS = [(1, 1000, 10.0), (1, 10000, 20.0), (2, 1000, 5.0), (2, 10000, 10.0)]  # (d, n, lifetime)
TREES = 100
EVALUATIONS = 1000


def design(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    return X, np.sin(np.pi * X).sum(axis=1) + 0.3 * rng.normal(size=n)


def least(run, repeats: int) -> tuple[float, float]:
    """The least fit and prediction times of ``repeats`` runs of run() -> (fit seconds, prediction seconds)."""
    times = np.array([run() for _ in range(repeats)])
    return float(times[:, 0].min()), float(times[:, 1].min())


def measure(d: int, n: int, lifetime: float, repeats: int) -> dict:
    X, y = design(n, d, 0)
    points = np.random.default_rng(1).uniform(size=(EVALUATIONS, d))

    def run(order: int) -> tuple[float, float]:
        model = MondrianPartitionForestRegressor(
            TREES, lifetime=lifetime, debias_order=order, domain="unit", random_state=0, n_jobs=1
        )
        start = time.perf_counter()
        model.fit(X, y)
        fitted = time.perf_counter()
        model.predict_interval(points) if order else model.predict(points)
        return fitted - start, time.perf_counter() - fitted

    run(0), run(1)  # compile
    plain, debiased = least(lambda: run(0), repeats), least(lambda: run(1), repeats)
    return {"d": d, "n": n, "lifetime": lifetime, "plain": plain, "debiased": debiased}


def frame(rows: list[dict]) -> pd.DataFrame:
    """The rows of ``measure`` as a table: the settings, then each model's seconds to fit and to predict."""
    return pd.DataFrame(
        [
            {
                "d": r["d"],
                "n": r["n"],
                "lifetime": r["lifetime"],
                "plain fit s": r["plain"][0],
                "plain predict s": r["plain"][1],
                "debiased fit s": r["debiased"][0],
                "debiased intervals s": r["debiased"][1],
            }
            for r in rows
        ]
    )


def table(rows: list[dict]) -> str:
    lines = [
        f"B = {TREES} trees per lifetime, m = {EVALUATIONS} evaluation rows; seconds, the least of the repeats",
        "",
        "| d | n | lifetime | plain fit | plain predict | debiased fit | debiased intervals | fit ratio "
        "| prediction ratio | total ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        (pf, pp), (df, dp) = r["plain"], r["debiased"]
        lines.append(
            f"| {r['d']} | {r['n']} | {r['lifetime']:g} | {pf:.3f} | {pp:.3f} | {df:.3f} | {dp:.3f} | {df / pf:.2f} "
            f"| {dp / pp:.1f} | {(df + dp) / (pf + pp):.2f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each model, the least time kept")
    args = parser.parse_args(argv)
    rows = []
    for d, n, lifetime in SETTINGS:
        rows.append(measure(d, n, lifetime, args.repeats))
        print(f"d={d} n={n}: done", flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
