"""river interoperability: every online estimator, registered as a river classifier or regressor, runs in river's own
evaluation loop (``river.evaluate.progressive_val_score``) on a river dataset and scores there exactly as the
project's own progressive validation (``progressive_predict_proba``, ``progressive_predict``) on the same rows; river's
pipelines, clones and memory measure take it too.

river is not a dependency: these tests run in the benchmark environment (``make test-river``, .venv-bench), and are
skipped where river is not installed."""

import itertools

import numpy as np
import pytest
from estimators import ONLINE

river = pytest.importorskip("river")
from river import base, compose, datasets, evaluate, metrics, preprocessing  # noqa: E402

ROWS = 600
CLASSIFIERS = [name for name in ONLINE if name.endswith("-clf") or "-clf-" in name]
REGRESSORS = [name for name in ONLINE if name not in CLASSIFIERS]


def _registered(name: str):
    """A new model of the case, its class registered as river's classifier or regressor (as a user does once)."""
    model = ONLINE[name]()
    (base.Classifier if name in CLASSIFIERS else base.Regressor).register(type(model))
    return model


def _stream(name: str) -> list[tuple[dict, object]]:
    """The first rows of river's bundled Phishing (binary labels, as booleans) or TrumpApproval (a number)."""
    dataset = datasets.Phishing() if name in CLASSIFIERS else datasets.TrumpApproval()
    return list(itertools.islice(dataset, ROWS))


def _arrays(stream) -> tuple[np.ndarray, np.ndarray]:
    return np.array([list(x.values()) for x, _ in stream]), np.array([y for _, y in stream])


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_scores_in_river_as_in_our_loop(name):
    stream = _stream(name)
    model = _registered(name).set_params(classes=[False, True])
    score = evaluate.progressive_val_score(stream, model, metrics.Accuracy())
    X, y = _arrays(stream)
    ours = ONLINE[name]().progressive_predict_proba(X, y, classes=[False, True])
    assert score.get() == np.mean(np.array([False, True])[ours.argmax(axis=1)] == y)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_learns_rivers_labels_as_they_come(name):
    """No classes given: river's loop scores as our own one-sample loop, both learning the labels as they come."""
    stream = _stream(name)
    score = evaluate.progressive_val_score(stream, _registered(name), metrics.Accuracy())
    model, hits = ONLINE[name](), []
    for x, label in stream:
        predicted = model.predict_one(x)
        if predicted is not None:  # river skips a row with no prediction (the first)
            hits.append(predicted == label)
        model.learn_one(x, label)
    assert model.classes_.tolist() == [True, False]  # the first label first, then the next one seen
    assert score.get() == np.mean(hits)


@pytest.mark.parametrize("name", REGRESSORS)
def test_regressor_scores_in_river_as_in_our_loop(name):
    stream = _stream(name)
    score = evaluate.progressive_val_score(stream, _registered(name), metrics.MAE())
    X, y = _arrays(stream)
    ours = ONLINE[name]().progressive_predict(X, y)
    # river sums the errors one by one, numpy pairwise: the same to rounding
    np.testing.assert_allclose(score.get(), np.mean(np.abs(ours - y)), rtol=1e-12)


@pytest.mark.parametrize("name", ["amf-clf", "mf-reg"])
def test_river_pipeline_clone_and_memory(name):
    model = _registered(name)
    if name in CLASSIFIERS:
        model.set_params(classes=[False, True])
    stream = _stream(name)[:200]
    metric = metrics.Accuracy() if name in CLASSIFIERS else metrics.MAE()
    # a pipeline: river's scaler before our model
    pipeline = preprocessing.StandardScaler() | model.clone()
    assert isinstance(pipeline, compose.Pipeline)
    piped = evaluate.progressive_val_score(stream, pipeline, metric.clone()).get()
    assert np.isfinite(piped)
    # river's memory measure reads the bytes the fitted trees hold; a clone starts unfitted, with the parameters
    steps = list(evaluate.iter_progressive_val_score(stream, model, metric.clone(), step=100, measure_memory=True))
    assert [step["Step"] for step in steps] == [100, 200]
    assert 0 < steps[0]["Memory"] <= steps[1]["Memory"]
    twin = model.clone()
    assert twin.get_params() == model.get_params() and not hasattr(twin, "trees_")
    assert twin._raw_memory_usage == 0
    deep = model.clone(new_params={"n_jobs": 2}, include_attributes=True)
    assert deep.n_jobs == 2 and 0 < deep._raw_memory_usage <= model._raw_memory_usage  # (a copy drops spare room)
    x, _ = stream[0]
    assert deep.predict_one(x) == model.predict_one(x)
