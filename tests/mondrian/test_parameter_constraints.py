"""Every public estimator declares its constructor parameters in scikit-learn's ``_parameter_constraints`` and
refuses a value outside them with scikit-learn's InvalidParameterError, a ValueError naming the parameter."""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError, make_constraint
from sklearn.utils.estimator_checks import check_param_validation

from mondrian import (
    AMFClassifier,
    AMFRegressor,
    MondrianForestClassifier,
    MondrianForestRegressor,
    MondrianPartitionForestClassifier,
    MondrianPartitionForestRegressor,
    OnlineBSPForestClassifier,
    OnlineBSPForestRegressor,
    OnlineRandomForestClassifier,
)

ESTIMATORS = [
    AMFClassifier,
    AMFRegressor,
    MondrianForestClassifier,
    MondrianForestRegressor,
    MondrianPartitionForestClassifier,
    MondrianPartitionForestRegressor,
    OnlineBSPForestClassifier,
    OnlineBSPForestRegressor,
    OnlineRandomForestClassifier,
]
rng = np.random.default_rng(0)
X, Y = rng.random((30, 2)), np.arange(30) % 3


def small(Model, **params):
    return Model(**{"n_estimators": 2, "random_state": 0, **params})


@pytest.mark.parametrize("Model", ESTIMATORS, ids=lambda Model: Model.__name__)
def test_every_constructor_parameter_has_a_constraint(Model):
    assert set(Model._parameter_constraints) == set(Model().get_params())
    for constraints in Model._parameter_constraints.values():
        for constraint in constraints:
            make_constraint(constraint)  # a constraint scikit-learn knows


@pytest.mark.parametrize("Model", ESTIMATORS, ids=lambda Model: Model.__name__)
def test_scikit_learns_parameter_validation_check(Model):
    """scikit-learn's own check (run on its estimators): a value of no valid type, then a value just outside each
    constraint, refused by fit and partial_fit with "The '<name>' parameter of <Model> must be ... Got ... instead".
    The online classifiers are given their classes, so that a first partial_fit needs none."""
    model = Model(classes=[0, 1]) if "classes" in Model().get_params() else Model()
    check_param_validation(Model.__name__, model)


BAD = [
    (AMFClassifier, "dirichlet", True),  # a bool is no number, though Python counts it as one
    (AMFClassifier, "step", np.nan),
    (AMFClassifier, "step", np.inf),
    (AMFClassifier, "use_aggregation", 1),
    (AMFClassifier, "weighting", "river"),
    (AMFClassifier, "classes", 3),
    (AMFRegressor, "n_estimators", True),
    (AMFRegressor, "n_jobs", 0),
    (AMFRegressor, "random_state", -1),
    (MondrianForestClassifier, "lifetime", 0.0),
    (MondrianForestClassifier, "lifetime", "long"),
    (MondrianForestClassifier, "gamma", np.nan),
    (MondrianForestClassifier, "pausing", "yes"),
    (MondrianForestRegressor, "min_samples_split", 2.0),
    (MondrianForestRegressor, "lifetime_scale", np.inf),
    (OnlineBSPForestRegressor, "budget", np.inf),
    (OnlineBSPForestClassifier, "vote", "majority"),
    (OnlineRandomForestClassifier, "max_depth", 0),
    (OnlineRandomForestClassifier, "min_gain", np.inf),
    (OnlineRandomForestClassifier, "n_passes", False),
    (MondrianPartitionForestRegressor, "lifetime", np.inf),
    (MondrianPartitionForestRegressor, "inner_margin", 0.5),
    (MondrianPartitionForestClassifier, "lifetime", "adaptive"),
    (MondrianPartitionForestClassifier, "n_jobs", 1.0),
]


@pytest.mark.parametrize(("Model", "name", "value"), BAD, ids=lambda v: getattr(v, "__name__", repr(v)))
def test_bad_values_are_refused_by_name(Model, name, value):
    with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {Model.__name__} must be"):
        small(Model, **{name: value}).fit(X, Y)
    assert issubclass(InvalidParameterError, ValueError)


GOOD = [
    (MondrianForestClassifier, {"lifetime": np.inf, "gamma": np.inf}),  # inf where it means something
    (MondrianForestRegressor, {"lifetime": "increasing", "min_samples_split": np.int64(4)}),
    (AMFClassifier, {"use_aggregation": np.bool_(False), "n_jobs": -1, "random_state": np.random.default_rng(1)}),
    (AMFRegressor, {"random_state": 2**70, "step": np.float32(0.5)}),  # any non-negative seed (SeedSequence)
    (OnlineBSPForestClassifier, {"budget": 2, "random_state": np.random.RandomState(0)}),
    (OnlineRandomForestClassifier, {"max_depth": None, "feature_range": (0.0, 1.0), "classes": [0, 1, 2]}),
    (MondrianPartitionForestRegressor, {"lifetime": "adaptive", "lifetimes": np.array([1.0, 2.0])}),
]


@pytest.mark.parametrize(("Model", "params"), GOOD, ids=lambda v: getattr(v, "__name__", None))
def test_good_values_are_taken(Model, params):
    small(Model, **params).fit(X, Y)


def test_what_constraints_cannot_express_is_still_refused_by_name():
    checks = [
        (MondrianForestRegressor(min_samples_split=4), "min_samples_split"),  # with a fixed lifetime
        (MondrianForestClassifier(smoothing="ikn", vote="hard"), "smoothing"),
        (OnlineRandomForestClassifier(feature_range=(1.0, 0.0)), "feature_range"),
        (MondrianPartitionForestRegressor(lifetime="adaptive", lifetimes=[2.0, 1.0]), "lifetimes"),
    ]
    for model, name in checks:
        with pytest.raises(ValueError, match=name):
            model.fit(X, Y)


def test_parameters_read_by_predictions_are_checked_there_by_name():
    amf = small(AMFClassifier).fit(X, Y)
    for name, value in [("use_aggregation", "yes"), ("prediction", "bad"), ("n_jobs", 0)]:
        with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of AMFClassifier"):
            amf.set_params(**{name: value}).predict(X)
        amf.set_params(**{name: AMFClassifier().get_params()[name]})
    forest = small(MondrianForestClassifier, smoothing="empirical").fit(X, Y)
    with pytest.raises(InvalidParameterError, match="The 'vote' parameter of MondrianForestClassifier"):
        forest.set_params(vote="majority").predict(X)
    partition = small(MondrianPartitionForestRegressor).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="The 'n_jobs' parameter of MondrianPartitionForestRegressor"):
        partition.set_params(n_jobs=True).predict(X)


def test_random_state_is_checked_when_the_trees_start_only():
    """The seed is read by the calls that start trees: partial_fit extending them ignores it, as before."""
    model = small(AMFClassifier).fit(X, Y)
    model.set_params(random_state=-1).partial_fit(X, Y)
    with pytest.raises(InvalidParameterError, match="The 'random_state' parameter of AMFClassifier"):
        model.fit(X, Y)
