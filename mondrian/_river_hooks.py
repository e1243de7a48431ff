"""What river's tools read of a model beyond ``learn_one`` and ``predict_one``, mixed into ``OnlineForest`` so that an
online forest registered as a river estimator (``river.base.Classifier.register``, ``river.base.Regressor.register``)
goes wherever river's own estimators go: ``_supervised`` (read by river's evaluation loops), ``clone`` (river's
model-selection and evaluation tracks start from clones) and ``_raw_memory_usage`` (``measure_memory=True`` in
``river.evaluate``). river is never imported: these follow its conventions (river 0.26)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np


def held_bytes(value, seen: set[int] | None = None) -> int:
    """The bytes of the numpy arrays reachable from ``value`` (through tuples, lists, dicts and objects' attributes),
    each array counted once (a view as the array it views). The arrays are what a fitted forest holds; the Python
    objects around them weigh little beside them and are left out."""
    seen = set() if seen is None else seen
    while isinstance(value, np.ndarray) and isinstance(value.base, np.ndarray):
        value = value.base
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple | list):
        return sum(held_bytes(item, seen) for item in value)
    if isinstance(value, dict):
        return sum(held_bytes(item, seen) for item in value.values())
    if hasattr(value, "__dict__") and not isinstance(value, type | np.random.Generator):
        return held_bytes(vars(value), seen)
    return 0


class RiverHooks:
    """river's model conventions that registration does not give a class (see the module's docstring)."""

    # river's evaluation functions (``river.evaluate.progressive_val_score``) read this of a model: it learns from
    # labels.
    _supervised = True

    if TYPE_CHECKING:  # what it uses of its host, a scikit-learn estimator (declared for the type checker only)

        def get_params(self, deep: bool = True) -> dict: ...

    def clone(self, new_params: dict | None = None, include_attributes: bool = False):
        """A copy of the estimator, river's way: unfitted, with the same parameters (``new_params`` replacing some).

        The same as scikit-learn's ``sklearn.base.clone`` with ``set_params(**new_params)`` after it; river's
        model-selection and evaluation tools call it on the models they are given.

        Parameters
        ----------
        new_params : dict, default=None
            Parameters to set on the copy, ``{name: value}``.
        include_attributes : bool, default=False
            Copy the fitted state too (a deep copy: the copy then learns on from where the estimator is).

        Returns
        -------
        estimator
            The copy.
        """
        params = {**self.get_params(deep=False), **(new_params or {})}
        if not include_attributes:
            return type(self)(**params)
        twin = copy.deepcopy(self)
        # set_params only (scikit-learn's, after the mixins in the host's MRO): the fitted state stays
        return twin.set_params(**(new_params or {}))  # type: ignore[attr-defined]

    @property
    def _raw_memory_usage(self) -> int:
        """The bytes the fitted state holds in arrays (the trees' nodes, statistics and kept points), as river's
        ``measure_memory`` reads a model's (0 before any learning)."""
        fitted = {name: value for name, value in vars(self).items() if name.endswith("_") and not name.startswith("_")}
        return held_bytes(fitted)
