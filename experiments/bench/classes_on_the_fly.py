"""What learning the classes on the fly costs: progressive validation of a classifier given every class up
front against the same classifier learning each label as it first arrives, on the ten datasets of the AMF paper.

Each dataset's rows are shuffled once (``experiments.bench.amf.stream``: seed 0, features scaled to [0, 1]); the
models are AMFClassifier (10 trees, defaults) and, with ``--mf``, MondrianForestClassifier (10 trees, defaults),
random_state 0. Up front: one ``progressive_predict_proba(X, y, classes=range(K))``. On the fly: the model is given
no classes, and each row is predicted from the classes seen before it: ``progressive_predict_proba`` over the runs
of rows whose labels are known, and at the first row of each label ``predict_proba`` (over the labels seen so far:
the new one has probability 0, a log loss of -log(1e-15) = 34.5 after clipping; the first row of the stream, before
any label, has every probability 0) then ``partial_fit`` on that row, which appends the label to ``classes_``. The
two learn the same trees (same counts); AMF's Dirichlet prior and aggregation weights count the classes, so its
predictions differ beyond the first rows of new labels too.

Accuracy: the most probable class (the first of ties, in ``classes_``' order) is the label. Log loss: the mean
over rows of -log(p_y), p_y clipped at 1e-15; "later rows": over the rows but the first of each label (K rows), which
on the fly have p_y = 0, leaving the prior's and the weights' share of the difference.

Run: ``python -m experiments.bench.classes_on_the_fly [--mf]``; prints a Markdown table. Measured with ``--mf``
(2 shared cores; each run took under 4 s): AMF's rows are in ``AMFClassifier``'s Notes; MondrianForestClassifier's
(IKN smoothing, paused blocks), accuracy and log loss up front / on the fly, and the later rows' log loss (the same
either way to 4 decimals):

==========  ==  =================  =================  ======
dataset     K   accuracy           log loss           later
==========  ==  =================  =================  ======
adult       2   0.8133 / 0.8133    0.4980 / 0.4999    0.4978
bank        2   0.8808 / 0.8808    0.3420 / 0.3434    0.3419
car         4   0.8490 / 0.8490    0.4408 / 0.5017    0.4227
cardio      3   0.9008 / 0.9008    0.3123 / 0.3525    0.3042
churn       2   0.8596 / 0.8596    0.3764 / 0.3954    0.3749
default_cb  2   0.7910 / 0.7910    0.5434 / 0.5455    0.5432
letter      26  0.8703 / 0.8703    0.6907 / 0.7180    0.6740
satimage    6   0.8809 / 0.8809    0.3633 / 0.3957    0.3555
sensorless  11  0.9853 / 0.9853    0.1935 / 0.1982    0.1918
spambase    2   0.9148 / 0.9148    0.2940 / 0.3068    0.2919
==========  ==  =================  =================  ======
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from experiments.bench.amf import CLIP, stream
from experiments.data.amf import TABLES
from mondrian import AMFClassifier, MondrianForestClassifier

MODELS = {"AMF": AMFClassifier, "MF": MondrianForestClassifier}


def up_front(make, X: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """Progressive probabilities (columns: labels 0..K-1) of a model given every class before the first row."""
    return make().progressive_predict_proba(X, y, classes=np.arange(n_classes))


def on_the_fly(make, X: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """Progressive probabilities (columns: labels 0..K-1, 0 for a label not seen yet) of a model given no classes."""
    model, out = make(), np.zeros((len(y), n_classes))
    firsts = np.sort(np.unique(y, return_index=True)[1])
    for first, end in zip(firsts, [*firsts[1:], len(y)], strict=True):
        if first > 0:  # the new label's row, predicted over the labels seen before it
            out[first, model.classes_] = model.predict_proba(X[first : first + 1])[0]
        model.partial_fit(X[first : first + 1], y[first : first + 1])
        if end > first + 1:
            rows = slice(first + 1, end)
            out[rows][:, model.classes_] = model.progressive_predict_proba(X[rows], y[rows])
    return out


def scores(proba: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(accuracy, mean log loss with probabilities clipped at CLIP, the same over the rows but each label's first)."""
    accuracy = float(np.mean(np.argmax(proba, axis=1) == y))
    loss = -np.log(np.clip(proba[np.arange(len(y)), y], CLIP, None))
    later = np.ones(len(y), bool)
    later[np.unique(y, return_index=True)[1]] = False
    return accuracy, float(np.mean(loss)), float(np.mean(loss[later]))


def measure(name: str, model: str) -> dict:
    X, y, n_classes = stream(name)
    make = lambda: MODELS[model](n_estimators=10, random_state=0)  # noqa: E731
    row = {"dataset": name, "model": model, "n": len(y), "K": n_classes}
    for way, run in (("up front", up_front), ("on the fly", on_the_fly)):
        start = time.perf_counter()
        row[way] = scores(run(make, X, y, n_classes), y)
        row[f"{way} s"] = time.perf_counter() - start
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| dataset | model | n | K | accuracy up front | on the fly | log loss up front | on the fly "
        "| later rows: up front | on the fly |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        (a0, l0, m0), (a1, l1, m1) = r["up front"], r["on the fly"]
        lines.append(
            f"| {r['dataset']} | {r['model']} | {r['n']} | {r['K']} | {a0:.4f} | {a1:.4f} | {l0:.4f} | {l1:.4f} "
            f"| {m0:.4f} | {m1:.4f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mf", action="store_true", help="MondrianForestClassifier too")
    parser.add_argument("--datasets", nargs="*", default=list(TABLES), help="of the AMF paper's ten")
    args = parser.parse_args(argv)
    rows = []
    for model in ["AMF", "MF"] if args.mf else ["AMF"]:
        for name in args.datasets:
            rows.append(measure(name, model))
            r = rows[-1]
            print(f"{name} {model}: {r['up front s']:.1f} s up front, {r['on the fly s']:.1f} s on the fly", flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
