"""The machinery every online Mondrian forest shares (LRT14's MondrianForest, AMF): input validation, one tree
per random stream, threads over trees with n_jobs-independent results, failure atomicity; and the two task
mixins that encode targets (classes as one-hot indices, regression labels as floats).
"""

from __future__ import annotations

import numbers
from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mondrian._compile import announce_first_compile
from mondrian._parallel import for_each, row_blocks, sum_over_trees
from mondrian._validation import check_n_jobs, tree_streams
from mondrian.tree import MondrianTree

# Rows per block in progressive validation: bounds the per-tree buffers, not the results.
_PROGRESSIVE_BLOCK = 4096


def writeable(X: np.ndarray) -> np.ndarray:
    """X itself, or a copy if it is read-only (a memmap): numba would compile every kernel again for it."""
    return X if X.flags.writeable else X.copy()


@contextmanager
def unchanged_on_failure(estimator):
    """Restore the estimator's attributes if the block raises (validation sets some before failing)."""
    saved = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        raise


class OnlineForest(BaseEstimator):
    """What every online Mondrian forest shares: validation, trees with their own random streams, threads,
    failure atomicity. A subclass names its ``_forecaster`` (a kernel module with ``n_stats``, ``learn``,
    ``predict`` and ``progressive``), its ``_kernel_params`` and its lifetime; a task mixin encodes targets."""

    _onehot: bool
    _forecaster = None
    _learn_block: int | None = None  # rows per learn call; None: all at once
    _dtype = np.float64  # the precision of X in the trees (boxes) and in every kernel
    _stats_dtype = np.float64  # the precision of the node statistics

    # -- hooks of the forecaster ----------------------------------------------------------------
    def _check_forecaster_params(self) -> float:
        """Check the forecaster's parameters; return the trees' lifetime."""
        ...

    def _kernel_params(self) -> np.ndarray: ...

    # -- hooks of the two tasks ---------------------------------------------------------------
    def _validate_targets(self, y: np.ndarray) -> None: ...

    def _start_targets(self, y: np.ndarray, classes) -> np.ndarray: ...

    def _targets(self, y: np.ndarray, classes) -> np.ndarray: ...

    @property
    def _n_outputs(self) -> int: ...

    def _prior(self) -> np.ndarray: ...

    # -- shared machinery -----------------------------------------------------------------------
    def _check_params(self) -> float:
        if (
            isinstance(self.n_estimators, bool)
            or not isinstance(self.n_estimators, numbers.Integral)
            or self.n_estimators < 1
        ):
            raise ValueError(f"n_estimators must be a positive integer, got {self.n_estimators!r}")
        check_n_jobs(self.n_jobs)
        return self._check_forecaster_params()

    def _started_lifetime(self):
        """The lifetime setting the trees were started with (``_check_forecaster_params``'s value then)."""
        return self.trees_[0].lifetime

    def _check_unchanged(self, lifetime) -> None:
        """partial_fit extends the trees it started with: their number and lifetime cannot change midway."""
        started = (len(self.trees_), self._started_lifetime())
        if started != (self.n_estimators, lifetime):
            raise ValueError(
                f"n_estimators={self.n_estimators}, lifetime={lifetime} differ from the trees being extended "
                f"(n_estimators={started[0]}, lifetime={started[1]}); call fit to start again"
            )

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
        X, y = validate_data(self, X, y, reset=reset, dtype=self._dtype, order="C", y_numeric=not self._onehot)
        X = writeable(X)
        self._validate_targets(y)
        targets = self._start_targets(y, classes) if reset else self._targets(y, classes)
        return X, targets

    def _learnt_box(self, tree) -> tuple[np.ndarray, np.ndarray] | None:
        """The box of the data ``tree`` has learnt, None if it has none to tell: a Mondrian tree's root box (trees
        without boxes of the data's width, as ORF's, have none)."""
        nodes = getattr(tree, "nodes", None)
        boxes = getattr(nodes, "box_lower", None)
        if boxes is None or nodes.root[0] < 0:
            return None
        return boxes[nodes.root[0]], nodes.box_upper[nodes.root[0]]

    def _widest_side(self) -> tuple[float, str]:
        """The widest side of a box the kernels take, and why: the largest float of their precision."""
        return float(np.finfo(self._dtype).max), f"the largest {np.dtype(self._dtype).name}"

    def _check_range(self, X: np.ndarray, tree) -> None:
        """The data's box (with what ``tree`` has already learnt) must have sides below ``_widest_side`` and a
        finite sum of sides: split rates and times are drawn from them, and an infinite one (features spread over
        more than the largest float) would make a tree split forever."""
        if X.shape[0] == 0:
            return
        lower, upper = X.min(axis=0), X.max(axis=0)
        learnt = self._learnt_box(tree) if tree is not None else None
        if learnt is not None and learnt[0].shape[0] == X.shape[1]:
            lower, upper = np.minimum(lower, learnt[0]), np.maximum(upper, learnt[1])
        widest, why = self._widest_side()
        with np.errstate(over="ignore"):
            sides = np.asarray(upper, np.float64) - np.asarray(lower, np.float64)
            fits = np.isfinite(sides.astype(self._dtype)).all() and (sides <= widest).all()
        if not (fits and np.isfinite(sides.sum())):
            raise ValueError(
                f"X spans too wide a box: its features' ranges (with the data already learnt) must each be below "
                f"{why} ({widest:.3g}) and sum to a finite float64, they are "
                f"{', '.join(f'{side:.3g}' for side in sides)}; scale the features (for example to [0, 1])"
            )

    def _new_trees(self, n_features: int, lifetime: float) -> list[MondrianTree]:
        n_stats = self._forecaster.n_stats(self._n_outputs)
        return [
            MondrianTree.empty(n_features, rng, lifetime, n_stats, self._dtype, self._stats_dtype)
            for rng in tree_streams(self.random_state, self.n_estimators)
        ]

    # -- per-tree steps (a forest whose trees revisit past points keeps them, and overrides these) --------------
    def _store(self, X: np.ndarray, targets: np.ndarray) -> int:
        """Keep the rows about to be learnt if the trees need past points; returns the index of the first."""
        return 0

    def _learn_tree(self, tree: MondrianTree, X: np.ndarray, targets: np.ndarray, first: int, params) -> None:
        # A forecaster that learns point by point is fed blocks, so that node capacity grows with the nodes actually
        # made (2 per point at most) rather than being reserved for the whole input; the leaf mean samples its
        # first batch at once.
        block = self._learn_block or max(X.shape[0], 1)
        for start in range(0, X.shape[0], block):
            Xb, tb = X[start : start + block], targets[start : start + block]
            tree.reserve(2 * Xb.shape[0])
            self._forecaster.learn(tree.nodes, tree.stats, Xb, tb, self._onehot, tree.lifetime, params, tree.rng)

    def _progressive_tree(self, tree: MondrianTree, X, targets, first: int, params, prior, out) -> None:
        tree.reserve(2 * X.shape[0])
        self._forecaster.progressive(
            tree.nodes, tree.stats, X, targets, self._onehot, tree.lifetime, params, tree.rng, prior, out
        )

    def _main_kernel(self):
        """The kernel whose compiled state tells whether a first run must compile (``announce_first_compile``)."""
        return self._forecaster.learn

    def _learn(self, trees: list[MondrianTree], X: np.ndarray, targets: np.ndarray) -> None:
        announce_first_compile(self._main_kernel(), type(self).__name__)
        params = self._kernel_params()
        first = self._store(X, targets)
        for_each(lambda tree: self._learn_tree(tree, X, targets, first, params), trees, self.n_jobs)
        self.predict_params_ = params

    def fit(self, X, y):
        """Learn every tree afresh from (X, y)."""
        with unchanged_on_failure(self):
            lifetime = self._check_params()
            X, targets = self._validated(X, y, None, reset=True)
            self._check_range(X, None)
            trees = self._new_trees(X.shape[1], lifetime)
            self._learn(trees, X, targets)
            self.trees_ = trees
        return self

    def _start_or_continue(self, X, y, classes):
        """Validated inputs and the trees to extend: the fitted ones, or new empty ones on a first call."""
        first = not hasattr(self, "trees_")
        with unchanged_on_failure(self):
            lifetime = self._check_params()
            if not first:
                self._check_unchanged(lifetime)
            X, targets = self._validated(X, y, classes, reset=first)
            self._check_range(X, None if first else self.trees_[0])
            # inside the guard: a bad random_state raises here, after validation set n_features_in_
            trees = self._new_trees(X.shape[1], lifetime) if first else self.trees_
        return X, targets, trees

    def _partial_fit(self, X, y, classes=None):
        X, targets, trees = self._start_or_continue(X, y, classes)
        self._learn(trees, X, targets)
        self.trees_ = trees
        return self

    def _progressive(self, X, y, classes=None) -> np.ndarray:
        """Forest predictions for each X[i] made before learning (X[i], y[i]), then learnt."""
        X, targets, trees = self._start_or_continue(X, y, classes)
        announce_first_compile(self._main_kernel(), type(self).__name__)
        prior = self._prior()
        params = self._kernel_params()
        first = self._store(X, targets)
        out = np.empty((X.shape[0], self._n_outputs))
        for start in range(0, X.shape[0], _PROGRESSIVE_BLOCK):
            rows = slice(start, start + _PROGRESSIVE_BLOCK)
            Xb, tb = X[rows], targets[rows]

            def step(tree: MondrianTree, buffer, Xb=Xb, tb=tb, at=first + start):
                self._progressive_tree(tree, Xb, tb, at, params, prior, buffer)

            out[rows] = sum_over_trees(step, trees, (Xb.shape[0], self._n_outputs), self.n_jobs)
        self.trees_ = trees
        self.predict_params_ = params
        out /= len(trees)
        return out

    def _predict_params(self) -> np.ndarray:
        """The kernel parameters predictions use: those of the last fit or partial_fit (``predict_params_``), so that
        a parameter set after it changes no prediction until the next call that learns (and validates it). An
        estimator whose parameter may change at prediction time overrides this and checks it here."""
        return self.predict_params_

    def _checked_X(self, X) -> np.ndarray:
        check_is_fitted(self, "trees_")
        check_n_jobs(self.n_jobs)
        plain = self._plain_X(X)
        if plain is not None:
            return plain
        return writeable(validate_data(self, X, reset=False, dtype=self._dtype, order="C"))

    def _mean_prediction(self, X) -> np.ndarray:
        X = self._checked_X(X)
        out = np.zeros((X.shape[0], self._n_outputs))
        params = self._predict_params()

        def predict_rows(rows: slice):
            for tree in self.trees_:
                self._forecaster.predict(
                    tree.nodes, tree.stats, X[rows], self._onehot, tree.lifetime, params, out[rows]
                )

        for_each(predict_rows, row_blocks(X.shape[0], self.n_jobs), self.n_jobs)
        out /= len(self.trees_)
        return out


class Classification:
    """Target encoding and the public methods of a classifier forest."""

    _onehot = True

    def _validate_targets(self, y):
        check_classification_targets(y)

    def _start_targets(self, y, classes):
        self.classes_ = np.unique(y if classes is None else classes)
        return self._targets(y, None)

    def _targets(self, y, classes):
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={classes!r} differs from classes_={self.classes_!r} of the first call")
        index = np.searchsorted(self.classes_, y)
        index[index == len(self.classes_)] = 0
        unknown = self.classes_[index] != y
        if unknown.any():
            raise ValueError(
                f"y contains labels not in classes_: {np.unique(np.asarray(y)[unknown])!r}; "
                f"classes_ is {self.classes_!r}. Pass every label with classes= on the first partial_fit."
            )
        return index.astype(np.float64)

    @property
    def _n_outputs(self) -> int:
        return len(self.classes_)

    @property
    def n_classes_(self) -> int:
        return len(self.classes_)

    def _prior(self):
        return np.full(len(self.classes_), 1.0 / len(self.classes_))

    def partial_fit(self, X, y, classes=None):
        """Extend every tree with (X, y) online. ``classes``: every label the stream may hold, required on the first
        call (scikit-learn's convention: the first rows rarely show every class); optional later, checked then."""
        self._check_classes_given(classes)
        return self._partial_fit(X, y, classes)

    def progressive_predict_proba(self, X, y, classes=None) -> np.ndarray:
        """Progressive validation in one compiled loop per tree.

        Row i holds the forest's class probabilities for X[i] given (X[:i], y[:i]) (uniform
        before any data); on return the model has learnt all of (X, y), exactly as
        predict_proba then partial_fit one sample at a time would. ``classes``: all labels (default on the first
        call: those of y, the whole stream).
        """
        return np.clip(self._progressive(X, y, classes), 0.0, 1.0)

    def _check_classes_given(self, classes) -> None:
        if classes is None and not hasattr(self, "trees_"):
            raise ValueError(
                "classes must be given on the first call to partial_fit: every label the stream may hold, for example "
                "classes=np.unique(y_all) (fit and progressive_predict_proba take them from y)"
            )

    def predict_proba(self, X) -> np.ndarray:
        """The forest's class probabilities: the average of its trees' predictions (clipped to [0, 1]: a sum of
        weighted distributions can exceed 1 by a rounding error)."""
        return np.clip(self._mean_prediction(X), 0.0, 1.0)

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)  # first: raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]


class Regression:
    """Target encoding and the public methods of a regressor forest."""

    _onehot = False

    def _validate_targets(self, y):
        pass

    def _start_targets(self, y, classes):
        return np.asarray(y, dtype=np.float64)

    def _targets(self, y, classes):
        return np.asarray(y, dtype=np.float64)

    @property
    def _n_outputs(self) -> int:
        return 1

    def _prior(self):
        return np.zeros(1)

    def partial_fit(self, X, y):
        """Extend every tree with (X, y) online."""
        return self._partial_fit(X, y)

    def progressive_predict(self, X, y) -> np.ndarray:
        """Progressive validation: entry i predicts y[i] from (X[:i], y[:i]) (0 before any data); learns all."""
        return self._progressive(X, y)[:, 0]

    def predict(self, X) -> np.ndarray:
        return self._mean_prediction(X)[:, 0]
