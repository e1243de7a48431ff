"""Peak memory of online forests on a long stream, with and without ``max_nodes``.

The stream: ``make_classification`` (5 features, 3 informative, 2 classes, seed 0), features scaled to [0, 1], the
same rows for every learner. Each learner runs progressive validation on it (predict x_t, then learn (x_t, y_t)) in
chunks of 10,000 rows (``CHUNK``): ours through ``progressive_predict_proba``, onelearn 0.3.0 through the compiled
loop over its own functions (``experiments.bench.amf``), river through ``predict_proba_one`` / ``learn_one`` on
dicts. Every learner has AMF's benchmark settings (10 trees, step 1, dirichlet 0.5, aggregation on, pure leaves not
split); ``MondrianForestClassifier`` has its defaults but 10 trees: lifetime inf, IKN smoothing, LRT14's paused
blocks (whose leaves keep their points: with ``max_nodes``, the forest keeps its first ``max_nodes`` points only).

Memory is the peak resident set (``VmHWM`` of /proc/self/status), which counts what numba's kernels allocate
(tracemalloc does not see it): each learner runs in a fresh process, which makes the stream, imports its library,
warms it up on 500 rows of another stream (the kernels compile) with a model it keeps (so that the measured one
reuses none of its memory), then resets its peak to its current resident set (writing 5 to /proc/self/clear_refs)
and reads it as the baseline. The peak above that baseline after 100k and 1M rows is what the learner took (the
stream itself is in the baseline). Accuracy is the progressive accuracy over the rows so far. river, pure Python,
runs at a few thousand rows a second with 10 trees: it runs the sizes up to 100,000 rows only (``RIVER_ROWS``; the
table says which); nothing is extrapolated.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

SIZES = (100_000, 1_000_000)
RIVER_ROWS = 100_000  # river's largest size: about 100 s at 1k rows/s; 1M would take about 20 minutes
CHUNK = 10_000
MAX_NODES = 4095  # 2^12 - 1 nodes per tree (2048 leaves): about 0.4 MB per AMF tree of 5 features
N_FEATURES = 5
WARM_ROWS = 500
KB = 1024


def stream(rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's stream: ``rows`` rows of make_classification, features scaled to [0, 1]."""
    X, y = make_classification(n_samples=rows, n_features=N_FEATURES, n_informative=3, n_redundant=1, random_state=seed)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    return np.ascontiguousarray(X), y.astype(np.int64)


# -- the learners, each a fresh model that predicts then learns a chunk of rows -----------------------------------
class Ours:
    def __init__(self, model):
        self.model = model

    def chunk(self, X, y):
        return self.model.progressive_predict_proba(X, y, classes=[0, 1])


class OneLearn:
    def __init__(self, n_features: int):
        from experiments.bench.amf import _onelearn_started, onelearn_classifier, onelearn_kernels

        self.model = onelearn_classifier(2, 0)  # kept: its forest lives in the model's compiled object
        self.forest = _onelearn_started(self.model, n_features)
        self.progressive = onelearn_kernels().progressive

    def chunk(self, X, y):
        out = np.zeros((len(y), 2), np.float32)
        self.progressive(self.forest, X.astype(np.float32), y.astype(np.float32), out)
        return out


class River:
    def __init__(self):
        from experiments.bench.amf import river_classifier

        self.model = river_classifier(0)

    def chunk(self, X, y):
        out = np.zeros((len(y), 2))
        for i, (row, label) in enumerate(zip(X.tolist(), y.tolist(), strict=True)):
            x = dict(enumerate(row))
            p = self.model.predict_proba_one(x)
            out[i] = p.get(0, 0.0), p.get(1, 0.0)
            self.model.learn_one(x, label)
        return out


def learner(name: str, max_nodes: int | None):
    """A fresh learner by name (``LEARNERS``)."""
    if name == "AMFClassifier (ours)":
        from experiments.bench.amf import SETTINGS
        from mondrian import AMFClassifier

        return Ours(AMFClassifier(random_state=0, max_nodes=max_nodes, **SETTINGS))
    if name == "MondrianForestClassifier (ours)":
        from mondrian import MondrianForestClassifier

        return Ours(MondrianForestClassifier(n_estimators=10, random_state=0, max_nodes=max_nodes))
    return OneLearn(N_FEATURES) if name == "onelearn AMFClassifier" else River()


# (name, max_nodes): ours without and with the bound, the peers (which have none)
LEARNERS = (
    ("AMFClassifier (ours)", None),
    ("AMFClassifier (ours)", MAX_NODES),
    ("MondrianForestClassifier (ours)", None),
    ("MondrianForestClassifier (ours)", MAX_NODES),
    ("onelearn AMFClassifier", None),
    ("river AMFClassifier", None),
)


# -- one learner in its own process ----------------------------------------------------------------------------
def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def measure(name: str, max_nodes: int | None, sizes: tuple[int, ...]) -> list[dict]:
    """Run the learner on the stream up to the largest size; at each size, the peak memory above the baseline,
    the progressive accuracy and the seconds so far (see the module's doc)."""
    X, y = stream(max(sizes))
    warm_X, warm_y = stream(WARM_ROWS, seed=1)
    warm = learner(name, max_nodes)  # kept alive: the measured learner reuses none of its memory
    warm.chunk(warm_X, warm_y)
    gc.collect()
    _reset_peak()
    base = _status_kb("VmRSS")
    model, correct, rows, start, out = learner(name, max_nodes), 0, 0, time.perf_counter(), []
    for size in sorted(sizes):
        while rows < size:
            end = min(rows + CHUNK, size)
            correct += int((model.chunk(X[rows:end], y[rows:end]).argmax(axis=1) == y[rows:end]).sum())
            rows = end
        out.append(
            {
                "learner": name,
                "max_nodes": max_nodes,
                "rows": size,
                "peak MB": (_status_kb("VmHWM") - base) / KB,
                "accuracy": correct / rows,
                "seconds": time.perf_counter() - start,
            }
        )
    return out


def run(sizes: tuple[int, ...] = SIZES, river_rows: int = RIVER_ROWS) -> pd.DataFrame:
    """Every learner in a fresh process (river on the sizes up to ``river_rows``), one after the other."""
    rows = []
    for name, max_nodes in LEARNERS:
        own = tuple(s for s in sizes if s <= river_rows) if name.startswith("river") else sizes
        if not own:
            continue
        command = [sys.executable, "-m", "experiments.bench.memory", "--worker", name, "--sizes", *map(str, own)]
        if max_nodes is not None:
            command += ["--max-nodes", str(max_nodes)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        rows += json.loads(done.stdout.strip().splitlines()[-1])
        print(pd.DataFrame(rows[-len(own) :]).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    table["max_nodes"] = [("none" if pd.isna(v) else str(int(v))) for v in table["max_nodes"]]
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help="measure this learner in this process, print its rows as JSON")
    parser.add_argument("--max-nodes", type=int, default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--river-rows", type=int, default=RIVER_ROWS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.worker, args.max_nodes, tuple(args.sizes))))
    else:
        print(run(tuple(args.sizes), args.river_rows).to_string(index=False))


if __name__ == "__main__":
    main()
