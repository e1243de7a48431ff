"""Keyword-only constructors: ``n_estimators`` by position, every other parameter by keyword.

A call passing the others by position, in the order they had when all were positional, still builds the same
estimator, with a FutureWarning naming them (deprecated, not broken); a keyword call, ``clone`` and pickling warn
of nothing; ``get_params`` and the signature scikit-learn reads keep the parameters and defaults they had.
"""

import inspect
import pickle
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import mondrian

# Each estimator's parameters in the order its constructor took them positionally before they became keyword-only.
POSITIONAL_ORDER = {
    "MondrianForestClassifier": [
        "n_estimators", "lifetime", "lifetime_scale", "min_samples_split", "smoothing", "gamma", "pausing", "vote",
        "random_state", "n_jobs", "classes",
    ],
    "MondrianForestRegressor": [
        "n_estimators", "lifetime", "lifetime_scale", "min_samples_split", "prediction", "random_state", "n_jobs",
    ],
    "AMFClassifier": [
        "n_estimators", "step", "dirichlet", "use_aggregation", "split_pure", "prediction", "weighting",
        "random_state", "n_jobs", "classes",
    ],
    "AMFRegressor": ["n_estimators", "step", "use_aggregation", "prediction", "random_state", "n_jobs"],
    "OnlineBSPForestClassifier": [
        "n_estimators", "budget", "budget_scale", "rate_scale", "leaf_sampling", "vote", "random_state", "n_jobs",
        "classes",
    ],
    "OnlineBSPForestRegressor": [
        "n_estimators", "budget", "budget_scale", "rate_scale", "leaf_sampling", "random_state", "n_jobs",
    ],
    "OnlineRandomForestClassifier": [
        "n_estimators", "n_tests", "tests", "n_projection_features", "thresholds", "gain", "min_samples_split",
        "min_gain", "max_depth", "n_passes", "bagging", "feature_range", "random_state", "n_jobs", "classes",
    ],
    "MondrianPartitionForestClassifier": [
        "n_estimators", "lifetime", "domain", "max_cells", "random_state", "n_jobs",
    ],
    "MondrianPartitionForestRegressor": [
        "n_estimators", "lifetime", "lifetimes", "inner_margin", "domain", "empty_value", "max_cells", "random_state",
        "n_jobs",
    ],
}  # fmt: skip
# Parameters added since they became keyword-only: last in the signature, never taken by position.
BOUNDED = ("MondrianForestClassifier", "MondrianForestRegressor", "AMFClassifier", "AMFRegressor")
ADDED = {name: ["max_nodes"] for name in BOUNDED} | {
    "MondrianPartitionForestRegressor": ["debias_order", "debias_scales"]
}
ESTIMATORS = [getattr(mondrian, name) for name in POSITIONAL_ORDER]


def test_every_estimator_is_listed():
    estimators = {name for name in mondrian.__all__ if name.endswith(("Classifier", "Regressor"))}
    assert estimators == set(POSITIONAL_ORDER)


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_signature_is_keyword_only_in_the_old_order(Estimator):
    parameters = list(inspect.signature(Estimator).parameters.values())
    assert [p.name for p in parameters] == POSITIONAL_ORDER[Estimator.__name__] + ADDED.get(Estimator.__name__, [])
    assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])
    defaults = {p.name: p.default for p in parameters}
    assert Estimator().get_params() == defaults


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("n_positional", [2, None])
def test_positional_call_warns_and_sets_the_same_parameters(Estimator, n_positional):
    order = POSITIONAL_ORDER[Estimator.__name__][:n_positional]
    values = [f"value of {name}" for name in order]  # construction stores, fit validates
    message = f"takes n_estimators by position .* \\(passing {', '.join(order[1:])} by position is deprecated"
    with pytest.warns(FutureWarning, match=message) as caught:
        estimator = Estimator(*values)
    assert len(caught) == 1
    assert caught[0].filename == __file__  # the warning points at the call
    assert estimator.get_params() == {**Estimator().get_params(), **dict(zip(order, values, strict=True))}


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_keyword_call_clone_and_pickle_do_not_warn(Estimator):
    order = POSITIONAL_ORDER[Estimator.__name__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimator = Estimator(3, random_state=1, n_jobs=2)
        estimator = Estimator(**estimator.get_params())
        copy = clone(estimator)
        unpickled = pickle.loads(pickle.dumps(estimator))
    assert copy.get_params() == unpickled.get_params() == estimator.get_params()
    assert list(estimator.get_params()) == sorted(order + ADDED.get(Estimator.__name__, []))


def test_too_many_or_repeated_arguments_are_type_errors():
    n = len(POSITIONAL_ORDER["AMFRegressor"])
    with pytest.raises(TypeError, match="positional"):
        mondrian.AMFRegressor(*range(n + 1))
    with pytest.raises(TypeError, match="multiple values for argument 'step'"):
        mondrian.AMFRegressor(10, 2.0, step=1.0)


def test_positional_call_builds_the_same_model():
    X = np.random.default_rng(0).uniform(size=(60, 2))
    y = np.sin(6 * X[:, 0])
    keyword = mondrian.MondrianForestRegressor(4, lifetime=3.0, random_state=5).fit(X, y)
    names = "pass lifetime=..., lifetime_scale=..., min_samples_split=..., prediction=..., random_state=... ("
    with pytest.warns(FutureWarning, match=re.escape(names)):
        positional = mondrian.MondrianForestRegressor(4, 3.0, 1.0, 2, "leaf", 5)
    positional.fit(X, y)
    np.testing.assert_array_equal(positional.predict(X), keyword.predict(X))
