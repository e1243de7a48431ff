"""Parameter checks shared by the estimators and the process samplers."""

import numbers

import numpy as np


def check_lifetime(lifetime) -> float:
    """A lifetime is a positive number or inf."""
    if isinstance(lifetime, bool) or not isinstance(lifetime, numbers.Real) or not lifetime > 0:
        raise ValueError(f"lifetime must be a positive number or inf, got {lifetime!r}")
    return float(lifetime)


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
