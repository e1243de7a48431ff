"""The one-sample path of an online forest (river's convention: ``learn_one``, ``predict_one``): a sample x as a
(1, n_features) row, learnt or predicted through the forecaster's one-sample kernels over all the trees when it has
them (``learn_one_forest``, ``predict_one_forest``: one compiled call, the trees as numba typed lists cached in
``_typed_trees``), else through ``partial_fit`` and the batch prediction on a one-row array, bit for bit the same.
"""

from __future__ import annotations

import warnings
from contextlib import AbstractContextManager, contextmanager
from functools import cache
from operator import attrgetter, is_
from typing import TYPE_CHECKING, cast

import numpy as np

from mondrian._inputs import calling
from mondrian._one_sample import SAMPLE_DTYPE, TypedTrees, as_sample, one_row

if TYPE_CHECKING:
    from mondrian._family import TreeFamily
    from mondrian._schedule import Schedule


@cache
def _param_values(estimator_class) -> attrgetter:
    """A function giving an estimator's constructor parameters as a tuple (scikit-learn's ``get_params`` inspects
    the signature on every call)."""
    return attrgetter(*estimator_class._get_param_names())


def _same(values: tuple, seen: tuple | None) -> bool:
    """The parameter values are those seen (by identity: any assignment since counts as a change)."""
    return seen is not None and all(map(is_, values, seen))


@contextmanager
def _rows_in_feature_order():
    """A one-sample call passing its sample on as an array: a dict's values are in the order of the feature names
    the model learnt, so scikit-learn's warning that an array has none is beside the point."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "X does not have valid feature names", UserWarning)
        yield


@contextmanager
def _about_x():
    """A one-sample call's errors in one line about its sample x: scikit-learn's validation speaks of the array X
    over several lines (a NaN's advice on imputers, the whole array)."""
    try:
        yield
    except ValueError as error:
        text = str(error)
        if "\n" not in text and "Input X" not in text:
            raise
        first = text.splitlines()[0].replace("Input X", "x").replace("input X", "x")
        raise ValueError(first) from None


class OneSamplePath:
    """learn_one and predict_one's machinery, mixed into ``OnlineForest`` (the task mixins name the public methods and
    encode a sample's label, ``_one_target``). It reads the forest's validation (``_check_params``,
    ``_check_unchanged``, ``_check_range``), its family (``_family``), its parameters (``_kernel_params``,
    ``_predict_params``, ``predict_params_``), its forecaster and its learning and prediction calls."""

    # True: the forecaster has one-sample kernels over all the trees (``learn_one_forest``, ``predict_one_forest``),
    # which learn_one and predict_one use; else they go through partial_fit and predict on a one-row array.
    _one_sample_kernels = False

    if TYPE_CHECKING:  # what it uses of its host, OnlineForest (declared for the type checker only)
        n_features_in_: int
        trees_: list
        predict_params_: np.ndarray
        _onehot: bool

        @property
        def _family(self) -> TreeFamily: ...

        @property
        def _n_outputs(self) -> int: ...

        def _check_params(self) -> Schedule: ...

        def _check_unchanged(self, schedule: Schedule) -> None: ...

        def _kernel_params(self) -> np.ndarray: ...

        def _predict_params(self) -> np.ndarray: ...

        def _whole_or_unchanged(self) -> AbstractContextManager[dict]: ...

        def partial_fit(self, X, y, sample_weight=None): ...

        def _mean_prediction(self, X) -> np.ndarray: ...

        def _check_range(self, X: np.ndarray, tree) -> None: ...

        def _plain_X(self, X) -> np.ndarray | None: ...

        def _plain_y(self, y, n_rows: int) -> bool: ...

    def __getstate__(self):
        # BaseEstimator's (after the mixins in the host's MRO): a dict, where object's is typed as any object
        state = dict(cast(dict, super().__getstate__()))
        state.pop("_typed_trees", None)  # numba typed lists over the trees: built again by the next one-sample call
        state.pop("_labels_of", None)
        return state

    def _sample_keys(self) -> tuple:
        """The features a dict sample must hold, in column order: those of the first dict learnt, or the names of
        the columns fitted (a DataFrame's); a model that learnt plain arrays has no names to match."""
        keys = self.__dict__.get("_dict_keys")
        if keys is None and hasattr(self, "feature_names_in_"):
            keys = tuple(self.feature_names_in_.tolist())
        if keys is None:
            raise ValueError(
                f"{type(self).__name__} learnt from arrays without feature names: give x as a 1-D array in the order "
                "of the columns learnt (or learn from dicts, or a DataFrame, from the start)"
            )
        return keys

    def _one_row(self, x) -> np.ndarray:
        """The sample x as a (1, n_features) row in the one-sample kernels' precision (``SAMPLE_DTYPE``)."""
        ready = type(x) is np.ndarray and x.dtype == SAMPLE_DTYPE and x.flags.c_contiguous and x.flags.writeable
        if ready and x.shape == (getattr(self, "n_features_in_", -1),):  # already what the kernels take
            return x.reshape(1, -1)
        x = as_sample(x, self._named())
        if not hasattr(self, "trees_"):
            return one_row(x, None, None)
        keys = self._sample_keys() if isinstance(x, dict) else None
        return one_row(x, keys, self.n_features_in_)

    def _named(self) -> bool:
        """The model knows its features' names (learnt from dicts or a DataFrame)."""
        return "_dict_keys" in self.__dict__ or hasattr(self, "feature_names_in_")

    def _typed(self) -> TypedTrees:
        """The trees as typed lists for the one-sample kernels, built again when stale (see ``TypedTrees``)."""
        typed = self.__dict__.get("_typed_trees")
        if typed is None or typed.trees is not self.trees_:
            typed = TypedTrees(self.trees_, self._family.widest_side(self)[0], self._n_outputs)
            self._typed_trees = typed
        return typed

    def _learn_one_params(self, typed: TypedTrees) -> np.ndarray:
        """The kernel parameters learn_one uses: validated as partial_fit validates them, again only when a
        constructor parameter was set since."""
        values = _param_values(type(self))(self)  # type: ignore[arg-type]  # a class is Hashable: mypy misreads type[C]
        if not _same(values, typed.learnt_with):
            self._check_unchanged(self._check_params())
            params = self._kernel_params()
            learnt = self.predict_params_
            same = params.shape == learnt.shape and np.array_equal(params, learnt, equal_nan=True)
            typed.learn_params, typed.learnt_with = (learnt if same else params), values
        return typed.learn_params  # type: ignore[return-value]  # set with learnt_with, which _same found set

    def _predict_one_params(self, typed: TypedTrees) -> np.ndarray:
        """``_predict_params()``, computed again only when a constructor parameter or the learnt parameters
        changed since."""
        values = (*_param_values(type(self))(self), self.predict_params_)  # type: ignore[arg-type]  # (as above)
        if not _same(values, typed.predicted_with):
            typed.predict_params, typed.predicted_with = self._predict_params(), values
        return typed.predict_params  # type: ignore[return-value]  # set with predicted_with, which _same found set

    def _predicted_one(self, typed: TypedTrees, row: np.ndarray) -> np.ndarray | None:
        """The forest's prediction at the (1, n_features) row, through the one-sample kernel, in the model's
        scratch room (``typed.scratch().out``); None if the row is not finite in the trees' precision."""
        params = self._predict_one_params(typed)
        room = typed.scratch()
        predicted = self._family.forecaster.predict_one_forest(
            typed.forest, row, self._onehot, params, room.out, room.row, room.path, room.branch
        )
        return room.out if predicted else None

    def _learn_one(self, x, y, w=1.0):
        """learn_one: the sample of weight 1 through the one-sample kernels when they take it; else (the first
        sample, which starts the trees; forests without such kernels; a sample they refuse, for partial_fit to reject
        with its usual error; another weight) through partial_fit on a one-row array, of weight ``w``."""
        row = self._one_row(x)
        unit = isinstance(w, int | float) and w == 1.0
        if unit and hasattr(self, "trees_") and self._learnt_one_row(row, y):
            return self
        x = as_sample(x, self._named())  # (a Series as a dict: its keys name the features of a first sample)
        first = not hasattr(self, "trees_")
        with self._whole_or_unchanged():
            with _rows_in_feature_order(), _about_x(), calling("learn_one"):
                self.partial_fit(row, np.asarray([y]), sample_weight=None if unit else [w])
            if first and isinstance(x, dict):
                self._dict_keys = keys = tuple(x)
                if all(isinstance(key, str) for key in keys):
                    self.feature_names_in_ = np.asarray(keys, dtype=object)
        return self

    def _learnt_one_row(self, row: np.ndarray, y) -> bool:
        """Learn the (1, n_features) row with label y through the one-sample kernels, if the forest has them and
        they take it (a known label, finite values, a box that stays within bounds); False if nothing was learnt."""
        if not self._one_sample_kernels:
            return False
        typed = self._typed()
        target = self._one_target(y, typed)
        if target is None:
            return False
        params = self._learn_one_params(typed)
        if params is not self.predict_params_:  # a parameter changed since: partial_fit's path, which sets them
            return False
        if typed.room < 1:  # the trees grow only for a sample the kernel will take (checked here, as rarely)
            if not self._learnable(row):
                return False
            typed.make_room()
        room = typed.scratch()
        room.target[0] = target
        # One compiled call changes the trees, and nothing after it: an interrupt (raised between two bytecodes)
        # comes before the call, the model unchanged, or after it, the sample learnt. The room is counted first.
        typed.room -= 1
        code = self._family.forecaster.learn_one_forest(
            typed.forest,
            row.astype(SAMPLE_DTYPE, copy=False),
            room.target,
            self._onehot,
            params,
            typed.widest,
            room.row,
            room.path,
            room.below,
        )
        if code:
            typed.room += 1
            return False
        return True

    def _learnable(self, row: np.ndarray) -> bool:
        """The learn kernel's checks of a row (``learn_one_forest``), in Python."""
        try:
            self._check_range(row, self.trees_[0])
        except ValueError:
            return False
        return bool(np.isfinite(row).all())

    def _one_target(self, y, typed: TypedTrees) -> float | None:
        """y encoded for the kernels, None if it cannot be (partial_fit then raises)."""
        ...

    def _predict_one_mean(self, x) -> list | None:
        """The forest's prediction at the sample x, as predict and predict_proba give it on one row (the mean over
        the trees, clipped to [0, 1] for a classifier's probabilities); None before any learning (x is checked)."""
        row = self._one_row(x)
        if not hasattr(self, "trees_"):
            return None
        if self._one_sample_kernels:
            typed = self._typed()
            if (out := self._predicted_one(typed, row)) is not None:
                return out[0].tolist()
        with _rows_in_feature_order(), _about_x():  # no kernels, or x not finite (then predict's error, about x)
            mean = self._mean_prediction(row)[0]
        return (np.clip(mean, 0.0, 1.0) if self._onehot else mean).tolist()

    def _learnt_plain_row(self, X, y, classes) -> bool:
        """partial_fit's shortcut for one plain row on a fitted forest with one-sample kernels: learnt as learn_one
        learns it (True), or left to the batch path (False)."""
        if classes is None and hasattr(self, "trees_") and self._one_sample_kernels:
            row = self._plain_X(X)
            return row is not None and row.shape[0] == 1 and self._plain_y(y, 1) and self._learnt_one_row(row, y[0])
        return False

    def _predicted_plain_row(self, X: np.ndarray) -> np.ndarray | None:
        """The batch prediction's shortcut for one checked row: the one-sample kernel, one compiled call (None: the
        batch path)."""
        if X.shape[0] == 1 and self._one_sample_kernels:
            out = self._predicted_one(self._typed(), X.astype(SAMPLE_DTYPE, copy=False))
            return None if out is None else out.copy()
        return None
