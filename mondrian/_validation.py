"""Parameter checks shared by the estimators and the process samplers."""

import numbers

import numpy as np

INCREASING = "increasing"  # the lifetime (Mondrian forests) or budget (BSP forests) that grows with the data
VOTES = ("soft", "hard")  # how a classifier's trees are combined: mean of their distributions, or majority


def check_choice(name: str, value, choices) -> str:
    """One of the strings ``choices``; a ValueError naming ``name`` and the choices otherwise."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_bool(name: str, value) -> bool:
    """A bool (Python's or numpy's); a ValueError naming ``name`` otherwise."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_lifetime(lifetime) -> float:
    """A lifetime is a positive number or inf."""
    if isinstance(lifetime, bool) or not isinstance(lifetime, numbers.Real) or not lifetime > 0:
        raise ValueError(f"lifetime must be a positive number or inf, got {lifetime!r}")
    return float(lifetime)


def check_positive_finite(name: str, value) -> float:
    """A positive finite number (not a bool), as a float; a ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < np.inf:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def check_n_jobs(n_jobs):
    """n_jobs is None (1 thread) or a non-zero integer (-1: all cores, -2: all but one, ...): checked at every call
    that reads it, as it can change at any time (it never changes results)."""
    if n_jobs is None or (isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs != 0):
        return n_jobs
    raise ValueError(f"n_jobs must be None or a non-zero integer (-1: all cores), got {n_jobs!r}")


def check_random_state_seed(random_state) -> int | None:
    """Entropy for a SeedSequence from an int, a RandomState, a Generator or None (fresh entropy)."""
    if random_state is None:
        return None
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int64).max))
    raise ValueError(f"random_state must be None, an int, a RandomState or a Generator, got {random_state!r}")


def tree_streams(random_state, n_trees: int) -> list[np.random.Generator]:
    """One independent Generator per tree, spawned from ``random_state`` with SeedSequence."""
    seeds = np.random.SeedSequence(check_random_state_seed(random_state)).spawn(n_trees)
    return [np.random.default_rng(s) for s in seeds]
