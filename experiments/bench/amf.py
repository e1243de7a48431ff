"""AMFClassifier against river's ``forest.AMFClassifier`` and onelearn 0.3.0's ``AMFClassifier``, same run.

Runs only in the benchmark environment (``make bench`` creates ``.venv-bench`` with ``scripts/bench_env.sh``):
river and onelearn are never dependencies of the project. onelearn 0.3.0 imports ``ComplexWarning`` from
``numpy.core.numeric``, which numpy 2 no longer has; ``import_onelearn`` puts numpy's own
``numpy.exceptions.ComplexWarning`` there before importing it (the only change it needs here; nothing on disk is
patched).

Every learner has the same settings: 10 trees, step 1, dirichlet 0.5, aggregation on, pure leaves not split
(river: ``n_estimators=10, step=1.0, use_aggregation=True, dirichlet=0.5, split_pure=False``). Each dataset's rows
are shuffled once with a fixed seed (``SHUFFLE_SEED``); its features are scaled to [0, 1] as the catalog does.

(a) Online progressive validation (predict x_t, then learn (x_t, y_t)): samples per second and average log loss
    (probabilities clipped at 1e-15). Ours through ``progressive_predict_proba`` on the whole array; one sample at a
    time through ``predict_proba_one`` + ``learn_one`` on rows as 1-D arrays (onelearn's input) and as dicts
    (river's), and through ``predict_proba`` + ``partial_fit`` on one-row arrays; onelearn through a compiled loop
    over its own compiled functions (``tree_classifier_predict``, ``tree_classifier_partial_fit``; onelearn has no
    such loop itself) and through its API one sample at a time; river through ``predict_proba_one``/``learn_one``
    on dicts. The compiled loops, river and ours on dicts run on the whole stream (up to ``online_rows``: the issue's
    20K prefix), one seed for the one-sample calls; ours also with n_jobs=2 (its trees in two threads; the peers have
    one). The compiled loops run in turn, each method once per seed and round (``ONLINE_REPEATS`` rounds), and each
    keeps its best time: a satimage call lasts a tenth of a second, so one timing of it is mostly the machine's
    noise. The calls on arrays run on a prefix of the stream, ours and onelearn's in turn (``ONE_SAMPLE_REPEATS``
    times each, the best time kept, so that a slow spell of the machine slows both alike); every learner's log loss
    on that prefix is given too, so that every learner is compared on the same rows. ``river_drop_in`` checks that
    our classifier runs in river's ``progressive_val_score`` and scores there as in our own loop.
(b) Batch: fit on a stratified 70/30 split (scaler fitted on the training part), then predict the test part: fit
    seconds (the shortest of 3 fits of fresh models; ours: of 10 fits with n_jobs=1 and 10 with n_jobs=2, taken in
    turn, so that the ratio of the two compares like with like) and predict seconds, accuracy, log loss, AUC
    (one-vs-rest macro average for more than two classes). Ours with n_jobs=1 and 2, onelearn (one ``partial_fit``
    on the training array), and scikit-learn's ExtraTreesClassifier (as many trees, one thread) for scale.
(c) Bytes per node: the sum over the per-node arrays of a row's size (ours: the TreeArrays fields and the AMF
    statistics row; onelearn: its NodesClassifier arrays), and the bytes each forest holds after (b).

onelearn quirks the benchmark works around: given an int ``random_state``, it re-seeds numba's generator with it
at every ``partial_fit`` and ``predict_proba`` call, so one-sample calls would draw the same numbers every time;
the benchmark passes ``random_state=None`` and seeds numba's generator once instead. Before its first
``partial_fit`` it cannot predict; every learner predicts the uniform distribution for the first row.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.metrics import accuracy_score, roc_auc_score

from experiments.bench import best_in_turn
from experiments.bench.threads import PointerChase
from experiments.data import load
from mondrian.amf import AMFClassifier

DATASETS = ("letter_amf", "satimage_amf", "spambase", "adult", "sensorless")
SHUFFLE_SEED = 0
CLIP = 1e-15
SETTINGS = {"n_estimators": 10, "step": 1.0, "dirichlet": 0.5, "use_aggregation": True, "split_pure": False}


# -- the peers ------------------------------------------------------------------------------------------
def import_onelearn():
    """onelearn 0.3.0 under numpy 2: ``checks.py`` does ``from numpy.core.numeric import ComplexWarning``; numpy 2
    moved the class to ``numpy.exceptions``, so put it back where onelearn looks before importing (a shim: the
    installed files stay as they are)."""
    import numpy._core.numeric
    import numpy.exceptions

    if not hasattr(numpy._core.numeric, "ComplexWarning"):
        numpy._core.numeric.ComplexWarning = numpy.exceptions.ComplexWarning
    import onelearn

    return onelearn


@dataclass
class _OneLearnKernels:
    """onelearn's compiled functions and a compiled progressive loop built from them (numba-compiled here)."""

    classifier: type
    progressive: object
    seed: object


_KERNELS: _OneLearnKernels | None = None


def onelearn_kernels() -> _OneLearnKernels:
    global _KERNELS
    if _KERNELS is None:
        import numba

        onelearn = import_onelearn()
        from onelearn.sample import add_samples
        from onelearn.tree_methods import tree_classifier_partial_fit, tree_classifier_predict

        @numba.njit
        def seed(s):
            np.random.seed(s)  # noqa: NPY002 (numba's own generator, the one onelearn's kernels draw from)

        @numba.njit
        def progressive(forest, X, y, out):
            """out[i] = the forest's probabilities at X[i] (uniform before any data), then learn (X[i], y[i]):
            forest_classifier_partial_fit and forest_classifier_predict_proba of onelearn, one row at a time."""
            start = forest.samples.n_samples
            add_samples(forest.samples, X, y)
            scores = np.empty(forest.n_classes, np.float32)
            for i in range(X.shape[0]):
                if forest.iteration == 0:
                    out[i] = 1.0 / forest.n_classes
                else:
                    out[i] = 0.0
                    for tree in forest.trees:
                        tree_classifier_predict(tree, X[i], scores, forest.use_aggregation)
                        out[i] += scores
                    out[i] /= forest.n_estimators
                for tree in forest.trees:
                    tree_classifier_partial_fit(tree, start + i)
                forest.iteration += 1

        _KERNELS = _OneLearnKernels(onelearn.AMFClassifier, progressive, seed)
    return _KERNELS


def onelearn_classifier(n_classes: int, seed: int):
    """onelearn's AMFClassifier with the benchmark's settings; numba's generator seeded once (see module doc)."""
    kernels = onelearn_kernels()
    kernels.seed(seed)
    return kernels.classifier(n_classes=n_classes, random_state=None, n_jobs=1, **SETTINGS)


def _onelearn_started(model, n_features: int):
    """The compiled forest of a fresh onelearn model, created as its first partial_fit would."""
    model._n_features = n_features
    model._instantiate_nopython_class()
    return model.no_python


def river_classifier(seed: int):
    from river import forest

    return forest.AMFClassifier(seed=seed, **SETTINGS)


# -- data and metrics -----------------------------------------------------------------------------------
def stream(name: str, rows: int | None = None):
    """The dataset's rows shuffled once (SHUFFLE_SEED), the first ``rows`` of them; labels 0..K-1; K."""
    data = load(name)
    order = np.random.default_rng(SHUFFLE_SEED).permutation(len(data.y_train))[:rows]
    return np.ascontiguousarray(data.X_train[order]), data.y_train[order].astype(np.int64), len(data.classes)


def losses(proba: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-row log loss of probabilities (rows renormalised; clipped at CLIP)."""
    proba = np.asarray(proba, dtype=np.float64)
    proba = proba / proba.sum(axis=1, keepdims=True)
    return -np.log(np.clip(proba[np.arange(len(y)), y], CLIP, None))


def auc(y: np.ndarray, proba: np.ndarray, n_classes: int) -> float:
    proba = np.asarray(proba, dtype=np.float64)
    proba = proba / proba.sum(axis=1, keepdims=True)
    if n_classes == 2:
        return float(roc_auc_score(y, proba[:, 1]))
    return float(roc_auc_score(y, proba, multi_class="ovr", average="macro", labels=np.arange(n_classes)))


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


FIT_REPEATS = 3
PAIRED_FIT_REPEATS = 10  # ours with n_jobs=1 and 2, whose ratio is a target


def _best_of(fn, repeats: int = FIT_REPEATS):
    """fn's output and its shortest time over ``repeats`` calls (a batch fit takes a fraction of a second, so one
    call's time is mostly noise: thread start-up, the machine's other work)."""
    out, best = None, np.inf
    for _ in range(repeats):
        out = None  # the previous fit's model is freed before the next fit: no fit runs beside dead forests
        out, seconds = _timed(fn)
        best = min(best, seconds)
    return out, best


# -- (a) online -----------------------------------------------------------------------------------------
def ours_progressive(X, y, n_classes, seed, weighting="paper", n_jobs=None):
    model = AMFClassifier(random_state=seed, weighting=weighting, n_jobs=n_jobs, **SETTINGS)
    return model.progressive_predict_proba(X, y, classes=np.arange(n_classes))


def ours_one_sample(rows, y, n_classes, seed):
    """predict_proba_one then learn_one per sample; rows: 1-D arrays or dicts (made before timing)."""
    model = AMFClassifier(random_state=seed, classes=np.arange(n_classes), **SETTINGS)
    out = np.empty((len(y), n_classes))
    for i, (x, label) in enumerate(zip(rows, y.tolist(), strict=True)):
        out[i] = list(model.predict_proba_one(x).values())
        model.learn_one(x, label)
    return out


def ours_one_row(X, y, n_classes, seed):
    """predict_proba then partial_fit on one-row arrays (the first call names the classes)."""
    model = AMFClassifier(random_state=seed, **SETTINGS)
    out = np.empty((len(y), n_classes))
    out[0] = 1.0 / n_classes
    model.partial_fit(X[:1], y[:1], classes=np.arange(n_classes))
    for i in range(1, len(y)):
        out[i] = model.predict_proba(X[i : i + 1])[0]
        model.partial_fit(X[i : i + 1], y[i : i + 1])
    return out


def onelearn_compiled(X, y, n_classes, seed):
    model = onelearn_classifier(n_classes, seed)
    forest = _onelearn_started(model, X.shape[1])
    out = np.zeros((len(y), n_classes), np.float32)
    onelearn_kernels().progressive(forest, X.astype(np.float32), y.astype(np.float32), out)
    return out


def onelearn_one_sample(X, y, n_classes, seed):
    model = onelearn_classifier(n_classes, seed)
    X, yf = X.astype(np.float32), y.astype(np.float32)
    out = np.empty((len(y), n_classes))
    out[0] = 1.0 / n_classes
    model.partial_fit(X[:1], yf[:1])
    for i in range(1, len(y)):
        out[i] = model.predict_proba(X[i : i + 1])[0]
        model.partial_fit(X[i : i + 1], yf[i : i + 1])
    return out


def river_one_sample(rows, y, n_classes, seed):
    """rows: the features as dicts (converted before timing). Classes river has not seen get probability 0."""
    model = river_classifier(seed)
    out = np.zeros((len(y), n_classes))
    for i, (x, label) in enumerate(zip(rows, y.tolist(), strict=True)):
        proba = model.predict_proba_one(x)
        if proba:
            for k, p in proba.items():
                out[i, k] = p
        else:
            out[i] = 1.0 / n_classes
        model.learn_one(x, label)
    return out


def _warm_up(n_classes: int, n_features: int) -> None:
    """Compile or load every kernel outside the timings (onelearn's on first use; the loop above)."""
    rng = np.random.default_rng(0)
    X = rng.random((8, n_features))
    y = np.arange(8) % n_classes
    for fn in (ours_progressive, ours_one_row, onelearn_compiled, onelearn_one_sample):
        fn(X, y, n_classes, 0)
    ours_one_sample(list(X), y, n_classes, 0)
    ours_one_sample([dict(enumerate(x)) for x in X.tolist()], y, n_classes, 0)
    model = onelearn_classifier(n_classes, 0).partial_fit(X.astype(np.float32), y.astype(np.float32))
    model.predict_proba(X.astype(np.float32))
    AMFClassifier(n_jobs=2, **SETTINGS).fit(X, y).predict_proba(X)


def online(
    name: str, online_rows: int | None, prefix_rows: int, seeds: tuple[int, ...], river: bool = True
) -> tuple[list[dict], dict]:
    X, y, n_classes = stream(name, online_rows)
    n = len(y)
    prefix = min(prefix_rows, n)
    _warm_up(n_classes, X.shape[1])
    rows: list[dict] = []
    checks: dict = {}

    def record(method, rows_used, seconds_list, loss_lists):
        loss_all = [float(ls.mean()) for ls in loss_lists]
        loss_prefix = [float(ls[:prefix].mean()) for ls in loss_lists]
        rows.append(
            {
                "dataset": name,
                "method": method,
                "rows": rows_used,
                "seeds": len(loss_lists),
                "samples/s": rows_used / min(seconds_list),
                "log loss": float(np.mean(loss_all)),
                "log loss sd": float(np.std(loss_all, ddof=1)) if len(loss_all) > 1 else np.nan,
                "prefix rows": prefix,
                "log loss on prefix": float(np.mean(loss_prefix)),
                "prefix sd": float(np.std(loss_prefix, ddof=1)) if len(loss_prefix) > 1 else np.nan,
            }
        )

    fast = {
        "ours progressive_predict_proba": ours_progressive,
        # onelearn's weighting rules (new leaves not charged, n + 1 in the loss): the same log loss as onelearn
        "ours progressive, weighting=onelearn": partial(ours_progressive, weighting="onelearn"),
        "ours progressive, n_jobs=2": partial(ours_progressive, n_jobs=2),
        "onelearn compiled loop": onelearn_compiled,
    }
    seconds = {method: [] for method in fast}
    probas: dict[str, dict[int, np.ndarray]] = {method: {} for method in fast}
    for _ in range(ONLINE_REPEATS):  # in turn, seed by seed: a slow spell of the machine slows every learner alike
        for seed in seeds:
            for method, fn in fast.items():
                probas[method][seed], t = _timed(lambda fn=fn, seed=seed: fn(X, y, n_classes, seed))
                seconds[method].append(t)
    for method in fast:
        record(method, n, seconds[method], [losses(probas[method][seed], y) for seed in seeds])
    first_ours = probas["ours progressive, weighting=onelearn"][seeds[0]]  # the defaults, as in the one-sample calls

    dict_rows = [dict(enumerate(r)) for r in X.tolist()]
    proba, t = _timed(lambda: ours_one_sample(dict_rows, y, n_classes, seeds[0]))
    record("ours learn_one / predict_proba_one on dicts", n, [t], [losses(proba, y)])
    if river:
        proba, t = _timed(lambda: river_one_sample(dict_rows, y, n_classes, seeds[0]))
        record("river learn_one / predict_proba_one", n, [t], [losses(proba, y)])
        checks["river rows given probability 0 for their label"] = int((proba[np.arange(n), y] == 0).sum())

    Xp, yp = X[:prefix], y[:prefix]
    array_rows = list(Xp)
    calls = {
        "ours learn_one / predict_proba_one on arrays": lambda: ours_one_sample(array_rows, yp, n_classes, seeds[0]),
        "ours predict_proba + partial_fit on one row": lambda: ours_one_row(Xp, yp, n_classes, seeds[0]),
        "onelearn API one sample at a time": lambda: onelearn_one_sample(Xp, yp, n_classes, seeds[0]),
    }
    best, outputs = best_in_turn(calls, ONE_SAMPLE_REPEATS)
    for method in calls:
        record(method, prefix, [best[method]], [losses(outputs[method], yp)])
    one = outputs["ours learn_one / predict_proba_one on arrays"]
    checks["one-sample vs progressive, max |diff|"] = float(np.abs(one - first_ours[:prefix]).max())
    checks["learn_one vs one-row partial_fit, max |diff|"] = float(
        np.abs(one - outputs["ours predict_proba + partial_fit on one row"]).max()
    )
    return rows, checks


ONE_SAMPLE_REPEATS = 3
ONLINE_REPEATS = 3  # rounds of the compiled online loops (each method and seed once a round; the best time kept)


def river_drop_in(rows: int = 2_000) -> dict:
    """Our classifier in river's own evaluation loop, on river's bundled Phishing stream (dicts with named features,
    boolean labels), against our own predict-then-learn loop on the same rows: the same accuracy, exactly."""
    from river import base, datasets, evaluate, metrics

    base.Classifier.register(AMFClassifier)  # river checks isinstance(model, river.base.Classifier)
    stream = list(datasets.Phishing())[:rows]
    model = AMFClassifier(random_state=0, classes=[False, True], **SETTINGS)
    river_accuracy = evaluate.progressive_val_score(stream, model, metrics.Accuracy()).get()
    ours = AMFClassifier(random_state=0, classes=[False, True], **SETTINGS)
    hits = 0
    for x, label in stream:
        hits += ours.predict_one(x) == label
        ours.learn_one(x, label)
    return {
        "rows": len(stream),
        "progressive_val_score accuracy": river_accuracy,
        "our loop's accuracy": hits / len(stream),
        "same": bool(np.isclose(river_accuracy, hits / len(stream), rtol=0, atol=1e-12)),
    }


# -- (b) batch and (c) bytes per node ---------------------------------------------------------------------
def ours_bytes_per_node(model: AMFClassifier) -> int:
    tree = model.trees_[0]
    per_node = sum(
        a.itemsize * int(np.prod(a.shape[1:]))
        for field, a in zip(tree.nodes._fields, tree.nodes, strict=True)
        if field not in ("n_nodes", "root")
    )
    return per_node + tree.stats.itemsize * tree.stats.shape[1]


def ours_bytes_held(model: AMFClassifier) -> int:
    return sum(sum(a.nbytes for a in tree.nodes) + tree.stats.nbytes for tree in model.trees_)


ONELEARN_NODE_ARRAYS = (
    "index", "is_leaf", "depth", "n_samples", "parent", "left", "right", "feature", "weight", "log_weight_tree",
    "threshold", "time", "memory_range_min", "memory_range_max", "counts",
)  # fmt: skip


def onelearn_bytes_per_node(model) -> int:
    nodes = model.no_python.trees[0].nodes
    return sum(getattr(nodes, f).itemsize * int(np.prod(getattr(nodes, f).shape[1:])) for f in ONELEARN_NODE_ARRAYS)


def onelearn_bytes_held(model) -> int:
    forest = model.no_python
    samples = forest.samples.features.nbytes + forest.samples.labels.nbytes  # every sample, kept once per forest
    return samples + sum(sum(getattr(t.nodes, f).nbytes for f in ONELEARN_NODE_ARRAYS) for t in forest.trees)


def batch(name: str, seed: int) -> tuple[list[dict], list[dict], dict]:
    data = load(name, test_size=0.3, fit_scaler_on="train", seed=SHUFFLE_SEED)
    X, y, Xt, yt = data.X_train, data.y_train.astype(np.int64), data.X_test, data.y_test.astype(np.int64)
    n_classes = len(data.classes)
    _warm_up(n_classes, X.shape[1])
    rows, memory = [], []

    def record(method, fit_s, predict_s, proba):
        rows.append(
            {
                "dataset": name,
                "method": method,
                "train rows": len(y),
                "fit s": fit_s,
                "predict s": predict_s,
                "accuracy": float(accuracy_score(yt, np.argmax(proba, axis=1))),
                "log loss": float(losses(proba, yt).mean()),
                "AUC": auc(yt, proba, n_classes),
            }
        )

    # n_jobs=1 and 2 fits alternate, so that a slow spell of the machine slows both alike; after each pair, the
    # machine's own two-thread gain on memory as large as a tree (PointerChase), the reference for theirs
    models, best, reference = {1: None, 2: None}, {1: np.inf, 2: np.inf}, None
    for _ in range(PAIRED_FIT_REPEATS):
        for n_jobs in models:
            models[n_jobs] = None  # freed before the next fit, as in _best_of
            models[n_jobs], seconds = _timed(
                lambda n_jobs=n_jobs: AMFClassifier(random_state=seed, n_jobs=n_jobs, **SETTINGS).fit(X, y)
            )
            best[n_jobs] = min(best[n_jobs], seconds)
        if reference is None:
            tree_bytes = ours_bytes_per_node(models[1]) * np.mean([tree.n_nodes for tree in models[1].trees_])
            reference = PointerChase(tree_bytes)
        reference.time_pair()
    for n_jobs, model in models.items():
        proba, predict_s = _timed(lambda model=model: model.predict_proba(Xt))
        record(f"ours fit, n_jobs={n_jobs}", best[n_jobs], predict_s, proba)
    n_nodes = np.mean([tree.n_nodes for tree in model.trees_])
    per_node = ours_bytes_per_node(model)
    memory.append(
        {
            "dataset": name,
            "method": "ours",
            "features": X.shape[1],
            "classes": n_classes,
            "bytes per node": per_node,
            "nodes per tree": n_nodes,
            "MB in nodes": per_node * n_nodes * len(model.trees_) / 1e6,
            "MB held": ours_bytes_held(model) / 1e6,
        }
    )
    machine = {
        "dataset": name,
        "MB per thread": reference.arrays[0].nbytes / 1e6,
        "1 thread s": reference.best[1],
        "2 threads s": reference.best[2],
        "gain": reference.gain,
    }

    extra, fit_s = _best_of(
        lambda: ExtraTreesClassifier(n_estimators=SETTINGS["n_estimators"], random_state=seed, n_jobs=1).fit(X, y)
    )
    proba, predict_s = _timed(lambda: extra.predict_proba(Xt))
    record("scikit-learn ExtraTrees fit", fit_s, predict_s, proba)

    def onelearn_fit():
        model = onelearn_classifier(n_classes, seed)
        model.partial_fit(X.astype(np.float32), y.astype(np.float32))
        return model

    ol, fit_s = _best_of(onelearn_fit)
    proba, predict_s = _timed(lambda: ol.predict_proba(Xt.astype(np.float32)))
    record("onelearn partial_fit (whole array)", fit_s, predict_s, proba)
    n_nodes = np.mean([int(t.nodes.n_nodes) for t in ol.no_python.trees])
    per_node = onelearn_bytes_per_node(ol)
    memory.append(
        {
            "dataset": name,
            "method": "onelearn",
            "features": X.shape[1],
            "classes": n_classes,
            "bytes per node": per_node,
            "nodes per tree": n_nodes,
            "MB in nodes": per_node * n_nodes * len(ol.no_python.trees) / 1e6,
            "MB held": onelearn_bytes_held(ol) / 1e6,
        }
    )
    return rows, memory, machine


# -- the whole benchmark --------------------------------------------------------------------------------------
def _of(table: pd.DataFrame, name: str, column: str) -> pd.Series:
    """A dataset's column by method (empty when that part did not run: do_batch=False)."""
    if table.empty:
        return pd.Series(dtype=float)
    return table[table["dataset"] == name].set_index("method")[column]


def _ratio_rows(
    online_table: pd.DataFrame, batch_table: pd.DataFrame, memory_table: pd.DataFrame, machine_table: pd.DataFrame
) -> pd.DataFrame:
    """The targets as ratios (speed: ours / peer; bytes: ours / onelearn), per dataset."""
    rows = []
    for name in online_table["dataset"].unique():
        on = online_table[online_table["dataset"] == name].set_index("method")["samples/s"]
        ba = _of(batch_table, name, "fit s")
        me = _of(memory_table, name, "bytes per node")
        ours = on["ours progressive_predict_proba"]
        row = {"dataset": name}
        row["one-sample pair vs onelearn API (>= 2)"] = (
            on["ours learn_one / predict_proba_one on arrays"] / on["onelearn API one sample at a time"]
        )
        if "river learn_one / predict_proba_one" in on:
            row["one-sample pair on dicts vs river (>= 20)"] = (
                on["ours learn_one / predict_proba_one on dicts"] / on["river learn_one / predict_proba_one"]
            )
        row["one-row partial_fit + predict_proba vs onelearn API"] = (
            on["ours predict_proba + partial_fit on one row"] / on["onelearn API one sample at a time"]
        )
        two_threads = on["ours progressive, n_jobs=2"]
        if "river learn_one / predict_proba_one" in on:
            row["online vs river (target >= 50)"] = ours / on["river learn_one / predict_proba_one"]
            row["online n_jobs=2 vs river"] = two_threads / on["river learn_one / predict_proba_one"]
        row["online vs onelearn compiled (>= 4)"] = ours / on["onelearn compiled loop"]
        row["online n_jobs=2 vs onelearn compiled"] = two_threads / on["onelearn compiled loop"]
        row["online vs onelearn API"] = ours / on["onelearn API one sample at a time"]
        if len(ba):
            row["fit n_jobs=1 vs onelearn (>= 2)"] = ba["onelearn partial_fit (whole array)"] / ba["ours fit, n_jobs=1"]
            row["fit n_jobs=2 vs n_jobs=1 (>= 1.7)"] = ba["ours fit, n_jobs=1"] / ba["ours fit, n_jobs=2"]
            row["the machine's 2-thread gain then (reference)"] = machine_table.set_index("dataset").loc[name, "gain"]
            row["fit n_jobs=1 vs scikit-learn ExtraTrees"] = (
                ba["scikit-learn ExtraTrees fit"] / ba["ours fit, n_jobs=1"]
            )
        if len(me):
            row["bytes per node ours / onelearn (< 1)"] = me["ours"] / me["onelearn"]
        rows.append(row)
    return pd.DataFrame(rows)


def run(
    datasets=DATASETS,
    online_rows: int | None = 20_000,
    prefix_rows: int = 1_000,
    seeds: tuple[int, ...] = (0, 1, 2),
    river: bool = True,
    do_batch: bool = True,
    log=print,
) -> dict[str, pd.DataFrame]:
    online_rows_all, checks_all, batch_rows_all, memory_rows_all, machine_rows = [], [], [], [], []
    for name in datasets:
        start = time.perf_counter()
        rows, checks = online(name, online_rows, prefix_rows, tuple(seeds), river)
        online_rows_all += rows
        checks_all.append({"dataset": name, **checks})
        if do_batch:
            rows, memory, machine = batch(name, seeds[0])
            batch_rows_all += rows
            memory_rows_all += memory
            machine_rows.append(machine)
        log(f"{name}: {time.perf_counter() - start:.0f} s")
    tables = {
        "online": pd.DataFrame(online_rows_all),
        "batch": pd.DataFrame(batch_rows_all),
        "memory": pd.DataFrame(memory_rows_all),
        "machine": pd.DataFrame(machine_rows),
        "checks": pd.DataFrame(checks_all),
    }
    if river:
        tables["river drop-in"] = pd.DataFrame([river_drop_in()])
    tables["ratios"] = _ratio_rows(tables["online"], tables["batch"], tables["memory"], tables["machine"])
    return tables
