"""AMF's prediction="split" (the text's Algorithm 6) is the expectation of the randomised temporary update.

The reference here simulates that update literally: walk down x's path drawing E ~ Exp(r_j) at every node whose
range x extends, insert the temporary parent where the split happens, recompute every wbar of the modified tree from
scratch and aggregate over its prunings; the Monte Carlo mean over many draws must match the exact expectation.
"""

import numpy as np
import pytest
from model_state import single

from mondrian import AMFClassifier, AMFRegressor

LOG_HALF = np.log(0.5)


def tree_dict(tree):
    n = tree.n_nodes
    a = tree.nodes
    return {
        "left": list(a.left[:n]),
        "right": list(a.right[:n]),
        "feature": list(a.feature[:n]),
        "threshold": list(a.threshold[:n]),
        "time": list(a.split_time[:n]),
        "lower": [row.copy() for row in a.box_lower[:n]],
        "upper": [row.copy() for row in a.box_upper[:n]],
        "stats": [row.copy() for row in tree.stats[:n]],
        "root": tree.root,
    }


def forecast(stats, m, onehot, dirichlet):
    if onehot:
        return (stats[1 : 1 + m] + dirichlet) / (stats[0] + m * dirichlet)
    return np.array([stats[1] / stats[0] if stats[0] > 0 else 0.0])


def aggregated(t, x, m, onehot, dirichlet):
    """CTW prediction of the (possibly modified) tree, with every log wbar recomputed from the log w's."""
    lw = 1 + m

    def log_wbar(v):
        if t["left"][v] == -1:
            return t["stats"][v][lw]
        return LOG_HALF + np.logaddexp(t["stats"][v][lw], log_wbar(t["left"][v]) + log_wbar(t["right"][v]))

    def predict(v):
        if t["left"][v] == -1:
            return forecast(t["stats"][v], m, onehot, dirichlet)
        child = t["left"][v] if x[t["feature"][v]] <= t["threshold"][v] else t["right"][v]
        a = 0.5 * np.exp(t["stats"][v][lw] - log_wbar(v))
        return a * forecast(t["stats"][v], m, onehot, dirichlet) + (1 - a) * predict(child)

    return predict(t["root"])


def temporary_update(t, x, rng, m):
    """A copy of the tree after the update's structural step for x (no learning): maybe one new parent and leaf."""
    t = {k: (list(v) if isinstance(v, list) else v) for k, v in t.items()}
    parent = {c: v for v in range(len(t["left"])) for c in (t["left"][v], t["right"][v]) if c != -1}
    j, parent_time = t["root"], 0.0
    while True:
        rate = float(np.sum(np.maximum(t["lower"][j] - x, 0) + np.maximum(x - t["upper"][j], 0)))
        leaf = t["left"][j] == -1
        if rate > 0 and parent_time + rng.exponential(1 / rate) < (np.inf if leaf else t["time"][j]):
            p, new = len(t["left"]), len(t["left"]) + 1
            empty = np.zeros_like(t["stats"][j])
            t["stats"] += [t["stats"][j].copy(), empty]  # the parent copies j; the new leaf has seen nothing
            # the split itself only has to send x to the new leaf and j's points to j
            d = int(np.argmax(np.maximum(t["lower"][j] - x, 0) + np.maximum(x - t["upper"][j], 0)))
            below = x[d] < t["lower"][j][d]
            threshold = (x[d] + t["lower"][j][d]) / 2 if below else (x[d] + t["upper"][j][d]) / 2
            t["left"] += [new if below else j, -1]
            t["right"] += [j if below else new, -1]
            t["feature"] += [d, 0]
            t["threshold"] += [threshold, 0.0]
            t["time"] += [np.nan, np.inf]
            if j == t["root"]:
                t["root"] = p
            else:
                g = parent[j]
                if t["left"][g] == j:
                    t["left"][g] = p
                else:
                    t["right"][g] = p
            return t
        if leaf:
            return t
        parent_time = t["time"][j]
        j = t["left"][j] if x[t["feature"][j]] <= t["threshold"][j] else t["right"][j]


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_split_prediction_is_the_mean_of_the_temporary_update(task):
    rng = np.random.default_rng(0)
    X = single(rng.uniform(size=(12, 2)))
    if task == "classification":
        y = rng.integers(0, 3, 12)
        model = AMFClassifier(n_estimators=1, split_pure=True, random_state=1).partial_fit(X, y, classes=[0, 1, 2])
        m, onehot, dirichlet = 3, True, model.dirichlet
    else:
        y = rng.normal(size=12)
        model = AMFRegressor(n_estimators=1, random_state=1).partial_fit(X, y)
        m, onehot, dirichlet = 1, False, 1.0
    t = tree_dict(model.trees_[0])
    queries = np.vstack([single(rng.uniform(-0.2, 1.2, size=(4, 2))), X[:2]])  # outside ranges, and training points
    model.prediction = "split"
    exact = model.predict_proba(queries) if onehot else model.predict(queries)[:, None]
    draws = 3000
    # the kernel stores each log weight rounded to the statistics' precision (float32 for the classifier)
    stats = model.trees_[0].stats[: model.trees_[0].n_nodes]
    rounding = max(1e-12, 4 * np.finfo(stats.dtype).eps * max(1.0, float(np.abs(stats[:, 1 + m :]).max())))
    for x, expected in zip(queries, exact, strict=True):
        samples = np.array([aggregated(temporary_update(t, x, rng, m), x, m, onehot, dirichlet) for _ in range(draws)])
        error = samples.std(axis=0) / np.sqrt(draws)
        np.testing.assert_array_less(np.abs(samples.mean(axis=0) - expected), 4 * error + rounding)
    model.prediction = "route"
    routed = model.predict_proba(X[:2]) if onehot else model.predict(X[:2])[:, None]
    np.testing.assert_allclose(exact[-2:], routed)  # a training point lies in every range on its path: no split


def test_split_prediction_without_aggregation_mixes_the_leaf_and_the_empty_forecast():
    rng = np.random.default_rng(3)
    X, y = rng.uniform(size=(30, 2)), rng.integers(0, 2, 30)
    model = AMFClassifier(n_estimators=1, use_aggregation=False, prediction="split", random_state=0).fit(X, y)
    far = np.array([[5.0, 5.0]])  # outside the root's range: the split happens above some node, x alone in a leaf
    np.testing.assert_allclose(model.predict_proba(far), [[0.5, 0.5]])
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_prediction_mode_is_validated():
    with pytest.raises(ValueError, match="prediction"):
        AMFClassifier(prediction="sample").fit(np.zeros((3, 2)), [0, 1, 0])
