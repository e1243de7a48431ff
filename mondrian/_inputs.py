"""The inputs of an online forest: X and y checked and converted for the kernels (scikit-learn's ``validate_data``,
or a shortcut for plain arrays, which one-sample calls need), targets encoded by the task, and the data's box checked
against what the kernels take."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from mondrian._validation import check_params

if TYPE_CHECKING:
    from mondrian._family import TreeFamily


# The public method the user called, named by the errors of the validation below it (learn_one passes its sample
# to partial_fit, whose errors must speak of learn_one): "partial_fit" unless ``calling`` set another.
_CALLED: ContextVar[str] = ContextVar("mondrian_called", default="partial_fit")


@contextmanager
def calling(method: str) -> Iterator[None]:
    """Name ``method`` as the call being validated (``called``) within the block."""
    token = _CALLED.set(method)
    try:
        yield
    finally:
        _CALLED.reset(token)


def called() -> str:
    """The public method being validated: ``partial_fit`` unless set by ``calling``."""
    return _CALLED.get()


def writeable(X: np.ndarray) -> np.ndarray:
    """X itself, or a copy if it is read-only (a memmap): numba would compile every kernel again for it."""
    return X if X.flags.writeable else X.copy()


class ForestInputs:
    """Input checks, mixed into ``OnlineForest``: they read its precision (``_dtype``), task (``_onehot`` and the
    target hooks the task mixins define) and tree family (the box it learnt, the widest side its kernels take)."""

    # the precision of X in the trees (boxes) and in every kernel (AMF's: float32)
    _dtype: type[np.floating] = np.float64
    _onehot: bool

    if TYPE_CHECKING:  # what it reads of its host, OnlineForest (declared for the type checker only)

        @property
        def _family(self) -> TreeFamily: ...

    # hooks of the two tasks (``Classification``, ``Regression``)
    def _validate_targets(self, y: np.ndarray) -> None:
        raise NotImplementedError

    def _start_targets(self, y: np.ndarray, classes) -> np.ndarray:
        raise NotImplementedError

    def _targets(self, y: np.ndarray, classes) -> np.ndarray:
        raise NotImplementedError

    def _plain_X(self, X) -> np.ndarray | None:
        """X ready for the kernels when it is a plain case that scikit-learn's ``validate_data`` would only convert:
        a non-empty 2-D numeric ndarray of finite values with the fitted number of features, on a model fitted
        without feature names. None otherwise: ``validate_data`` then runs and raises its usual errors. One-sample
        calls spent most of their time in ``validate_data``."""
        plain = (
            type(X) is np.ndarray
            and X.ndim == 2
            and X.dtype.kind in "fiu"
            and X.shape[0] > 0
            and X.shape[1] == getattr(self, "n_features_in_", -1)
            and not hasattr(self, "feature_names_in_")
        )
        if not plain:
            return None
        with np.errstate(over="ignore"):  # a value too large for the dtype: validate_data raises (and warns) below
            X = np.ascontiguousarray(X, dtype=self._dtype)
        return writeable(X) if np.isfinite(X).all() else None

    def _plain_y(self, y, n_rows: int) -> bool:
        """y is a 1-D numeric ndarray of finite values, one per row (labels are then checked against classes_)."""
        return (
            type(y) is np.ndarray
            and y.shape == (n_rows,)
            and y.dtype.kind in "biuf"
            and (y.dtype.kind != "f" or bool(np.isfinite(y).all()))
        )

    def _validated(self, X, y, classes, reset: bool):
        """Checked X (in ``_dtype``) and encoded targets; sets n_features_in_ (and classes_) when reset."""
        plain = None if reset else self._plain_X(X)
        if plain is not None and self._plain_y(y, plain.shape[0]):
            return plain, self._targets(y, classes)
        try:
            X, y = validate_data(self, X, y, reset=reset, dtype=self._dtype, order="C", y_numeric=not self._onehot)
        except OverflowError as error:  # an integer label too large for a float (10**400)
            raise ValueError(f"y must hold numbers a float64 holds: {error}") from None
        X = writeable(X)
        self._validate_targets(y)
        targets = self._start_targets(y, classes) if reset else self._targets(y, classes)
        return X, targets

    def _check_range(self, X: np.ndarray, tree) -> None:
        """The data's box (with what ``tree`` has already learnt) must have sides below the family's widest and a
        finite sum of sides: split rates and times are drawn from them, and an infinite one (features spread over
        more than the largest float) would make a tree split forever."""
        if X.shape[0] == 0:
            return
        lower, upper = X.min(axis=0), X.max(axis=0)
        family = self._family
        learnt = family.learnt_box(self, tree) if tree is not None else None
        if learnt is not None and learnt[0].shape[0] == X.shape[1]:
            lower, upper = np.minimum(lower, learnt[0]), np.maximum(upper, learnt[1])
        widest, why = family.widest_side(self)
        with np.errstate(over="ignore"):
            sides = np.asarray(upper, np.float64) - np.asarray(lower, np.float64)
            fits = np.isfinite(sides.astype(self._dtype)).all() and (sides <= widest).all()
        if not (fits and np.isfinite(sides.sum())):
            raise ValueError(
                f"X spans too wide a box: its features' ranges (with the data already learnt) must each be below "
                f"{why} ({widest:.3g}) and sum to a finite float64, they are "
                f"{', '.join(f'{side:.3g}' for side in sides)}; scale the features (for example to [0, 1])"
            )

    def _checked_X(self, X) -> np.ndarray:
        if not hasattr(self, "trees_"):  # scikit-learn's check costs more than a one-row prediction
            check_is_fitted(self, "trees_")
        check_params(self, "n_jobs")  # read by predictions, may change at any time (it never changes results)
        plain = self._plain_X(X)
        if plain is not None:
            return plain
        return writeable(validate_data(self, X, reset=False, dtype=self._dtype, order="C"))
