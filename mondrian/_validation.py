"""Parameter checks shared by the estimators and the process samplers.

An estimator declares its constructor parameters in scikit-learn's ``_parameter_constraints`` (the constraints of
``sklearn.utils._param_validation``, with this module's ``Interval`` for numbers) and validates them with
``check_params``; what constraints cannot express (one parameter's meaning depending on another, the shape of a
range) stays in the estimator's ``_check_params`` / ``_check_forecaster_params``.
"""

import math
from functools import cache
from numbers import Integral, Real

import numpy as np
from sklearn.utils import _param_validation
from sklearn.utils._param_validation import make_constraint, validate_parameter_constraints

INCREASING = "increasing"  # the lifetime (Mondrian forests) or budget (BSP forests) that grows with the data
VOTES = ("soft", "hard")  # how a classifier's trees are combined: mean of their distributions, or majority


class Interval(_param_validation.Interval):
    """scikit-learn's ``Interval`` without bools: Python counts True as the integer 1, scikit-learn's ``Interval``
    takes it, and True is no number of trees nor learning rate. Any real number type is compared as a float (a
    ``Fraction`` too, which scikit-learn's NaN test refuses with a TypeError)."""

    def is_satisfied_by(self, val):
        if isinstance(val, bool) or not isinstance(val, self.type):
            return False
        return (val if isinstance(val, Integral) else float(val)) in self


POSITIVE_INT = Interval(Integral, 1, None, closed="left")
POSITIVE_FINITE = Interval(Real, 0, None, closed="neither")  # (0, inf): NaN and inf refused
POSITIVE_OR_INF = Interval(Real, 0, None, closed="right")  # (0, inf]: a Mondrian lifetime, inf allowed
# Entropy for a SeedSequence: any non-negative int (scikit-learn's "random_state" stops at 2**32 - 1), a RandomState,
# a Generator (which scikit-learn's refuses), or None for fresh entropy.
RANDOM_STATE = [Interval(Integral, 0, None, closed="left"), np.random.RandomState, np.random.Generator, None]
CLASSES = [None, "array-like"]  # an online classifier's labels, when known before any data
# the most nodes a Mondrian tree holds: a root and one split at least (splits add 2 nodes at a time); None: no bound
MAX_NODES = [Interval(Integral, 3, None, closed="left"), None]
# Threads: None (1), or a non-zero integer (-1: all cores, -2: all but one, ...). It never changes results.
N_JOBS = [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"), None]


@cache
def _constraints(estimator_class, name: str) -> tuple:
    """The constraint objects of a parameter (scikit-learn makes them again at every validation)."""
    return tuple(make_constraint(constraint) for constraint in estimator_class._parameter_constraints[name])


def check_params(estimator, *names: str) -> None:
    """Validate the estimator's parameters ``names`` against its ``_parameter_constraints``, as scikit-learn's
    ``BaseEstimator._validate_params`` validates them all: an ``InvalidParameterError`` (a ValueError) naming the
    parameter, the estimator and what the parameter must be. For calls that read only some parameters (predictions
    read ``n_jobs``, a forest's start ``random_state``) and for online calls: the constraint objects are made once,
    and scikit-learn's validation runs (and raises) only for a value none satisfies."""
    estimator_class: type = type(estimator)  # a cache key: mypy takes type[X] (its __hash__ unbound) for unhashable
    for name in names:
        value = getattr(estimator, name)
        for constraint in _constraints(estimator_class, name):
            if constraint.is_satisfied_by(value):
                break
        else:
            validate_parameter_constraints(
                estimator._parameter_constraints, {name: value}, caller_name=estimator_class.__name__
            )


def check_lifetime(lifetime) -> float:
    """A lifetime is a positive number or inf (``POSITIVE_OR_INF``, the Mondrian forests' constraint), for the
    functions that take one."""
    if not POSITIVE_OR_INF.is_satisfied_by(lifetime):
        raise ValueError(f"lifetime must be {POSITIVE_OR_INF}, got {lifetime!r}")
    return float(lifetime)


def expected_cells(lifetime: float, lower, upper) -> float:
    """The expected number of cells of the Mondrian partition MP(lifetime, [lower, upper]): the product over the
    sides s of (1 + lifetime s) (MGS20, Proposition 2, on any box); inf where it overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        logs = np.log1p(lifetime * (np.asarray(upper, np.float64) - np.asarray(lower, np.float64)))
    total = float(np.sum(logs))
    return math.exp(total) if total < math.log(np.finfo(np.float64).max) else math.inf


def _corner(values) -> str:
    values = np.asarray(values, np.float64)
    shown = ", ".join(f"{v:.4g}" for v in values[:4])
    return f"[{shown}{', ...' if values.shape[0] > 4 else ''}]"


def check_cells(lifetime: float, lower, upper, max_cells: float) -> None:
    """Refuse, before anything is allocated, a Mondrian partition of more than ``max_cells`` cells on average."""
    expected = expected_cells(lifetime, lower, upper)
    if not expected <= max_cells:
        raise ValueError(
            f"MP(lifetime={lifetime:g}) on the box from {_corner(lower)} to {_corner(upper)} has {expected:.3g} cells "
            f"on average (the product of 1 + lifetime * side), more than max_cells={max_cells:g}: lower the lifetime, "
            "scale the data to a smaller box, or raise max_cells"
        )


def check_random_state_seed(random_state) -> int | None:
    """Entropy for a SeedSequence from an int, a RandomState, a Generator or None (fresh entropy): ``RANDOM_STATE``."""
    if not any(make_constraint(constraint).is_satisfied_by(random_state) for constraint in RANDOM_STATE):
        raise ValueError(
            f"random_state must be None, a non-negative int, a RandomState or a Generator, got {random_state!r}"
        )
    if random_state is None:
        return None
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int64).max))
    return int(random_state)


def tree_streams(random_state, n_trees: int) -> list[np.random.Generator]:
    """One independent Generator per tree, spawned from ``random_state`` with SeedSequence."""
    seeds = np.random.SeedSequence(check_random_state_seed(random_state)).spawn(n_trees)
    return [np.random.default_rng(s) for s in seeds]
