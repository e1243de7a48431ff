"""The machinery every online Mondrian forest shares (LRT14's MondrianForest, AMF): input validation, one tree
per random stream, threads over trees with n_jobs-independent results, failure atomicity; and the two task
mixins that encode targets (classes as one-hot indices, regression labels as floats).
"""

from __future__ import annotations

import copy
import math
import numbers
import warnings
from contextlib import contextmanager, nullcontext
from functools import cache
from operator import attrgetter, is_
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mondrian._interrupts import interrupts_deferred, rollback_ready
from mondrian._one_sample import SAMPLE_DTYPE, TypedTrees, as_sample, one_row
from mondrian._parallel import for_each, row_blocks, sum_over_trees
from mondrian._threads import takes_turns
from mondrian._validation import N_JOBS, POSITIVE_INT, RANDOM_STATE, check_params, tree_streams
from mondrian.tree import MondrianTree

# Rows per block in progressive validation: bounds the per-tree buffers, not the results.
_PROGRESSIVE_BLOCK = 4096
# A call learning at least 1/ROLLBACK_SHARE as many rows as the largest tree has nodes copies what it changes first,
# so that an interrupt stops it at once and leaves the model as before (copying then costs a few percent of the
# call); a shorter call runs to its end (``_interrupts``).
ROLLBACK_SHARE = 8


def writeable(X: np.ndarray) -> np.ndarray:
    """X itself, or a copy if it is read-only (a memmap): numba would compile every kernel again for it."""
    return X if X.flags.writeable else X.copy()


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


def few(values, shown: int = 6) -> str:
    """Labels in one short line: the first few, and how many there are in all."""
    values = list(np.asarray(values).tolist())
    head = ", ".join(map(repr, values[:shown]))
    return f"[{head}]" if len(values) <= shown else f"[{head}, ...] ({len(values)} in all)"


def labels_array(classes) -> np.ndarray:
    """A ``classes`` argument as a 1-D array of labels, refused in one line if it is empty or has no order (a set,
    a generator) or is not 1-D."""
    if isinstance(classes, set | frozenset) or not hasattr(classes, "__len__"):
        raise ValueError(
            f"classes must be a list or an array of every label (ordered), got a {type(classes).__name__}; "
            "for example classes=np.unique(y_all)"
        )
    array = np.asarray(classes)
    if array.ndim != 1 or array.shape[0] == 0:
        raise ValueError(f"classes must be a non-empty 1-D list or array of labels, got shape {array.shape}")
    return array


@contextmanager
def unchanged_on_failure(estimator):
    """Restore the estimator's attributes if the block raises (validation sets some before failing). Yields the
    saved attributes (the values bound to them; a block about to change one of them in place puts a copy there)."""
    saved = dict(estimator.__dict__)
    try:
        yield saved
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        raise


class OnlineForest(BaseEstimator):
    """What every online Mondrian forest shares: validation, trees with their own random streams, threads,
    failure atomicity. A subclass names its ``_forecaster`` (a kernel module with ``n_stats``, ``learn``,
    ``predict`` and ``progressive``), its ``_kernel_params`` and its lifetime, and declares its parameters in
    ``_parameter_constraints`` (these, with its own); a task mixin encodes targets."""

    _parameter_constraints: ClassVar[dict] = {
        "n_estimators": [POSITIVE_INT],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
    }

    _onehot: bool
    _forecaster = None
    _learn_block: int | None = None  # rows per learn call; None: all at once
    _dtype = np.float64  # the precision of X in the trees (boxes) and in every kernel
    _stats_dtype = np.float64  # the precision of the node statistics
    # True: the forecaster has one-sample kernels over all the trees (``learn_one_forest``, ``predict_one_forest``),
    # which learn_one and predict_one use; else they go through partial_fit and predict on a one-row array.
    _one_sample_kernels = False
    # river's evaluation functions (``river.evaluate.progressive_val_score``) read this of a model: it learns from
    # labels. Nothing else in river is assumed (register the class with ``river.base.Classifier.register``).
    _supervised = True

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_typed_trees", None)  # numba typed lists over the trees: built again by the next one-sample call
        state.pop("_labels_of", None)
        return state

    # -- hooks of the forecaster ----------------------------------------------------------------
    def _check_forecaster_params(self) -> float:
        """Check what the constraints cannot express (one parameter's meaning depending on another); return the
        trees' lifetime."""
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
        """Check every parameter against its constraints, but random_state (read, and checked, when the trees are
        started: ``_tree_streams``), then the forecaster's; return the trees' lifetime."""
        check_params(self, *(name for name in self._parameter_constraints if name != "random_state"))
        return self._check_forecaster_params()

    def _tree_streams(self) -> list[np.random.Generator]:
        """One random stream per tree, spawned from random_state, which is checked here: it is read only when the
        trees are started."""
        check_params(self, "random_state")
        return tree_streams(self.random_state, self.n_estimators)

    def _started_lifetime(self):
        """The lifetime setting the trees were started with (``_check_forecaster_params``'s value then)."""
        return self.trees_[0].lifetime

    # The constructor parameters that make the trees' lifetime setting (``_check_forecaster_params``' value), in its
    # order: an increasing lifetime is ("increasing", scale, min_samples_split); a fixed one a number.
    _lifetime_params: ClassVar[tuple[str, ...]] = ("lifetime", "lifetime_scale", "min_samples_split")

    def _in_parameters(self, n_trees: int, lifetime) -> str:
        """A number of trees and a lifetime setting in the user's parameters (``n_estimators=10,
        lifetime='increasing', lifetime_scale=1.0, ...``)."""
        values = lifetime if isinstance(lifetime, tuple) else (lifetime,)
        named = zip(self._lifetime_params, values, strict=False)
        return ", ".join([f"n_estimators={n_trees}", *(f"{name}={value!r}" for name, value in named)])

    def _check_unchanged(self, lifetime) -> None:
        """partial_fit extends the trees it started with: their number and lifetime cannot change midway."""
        started = (len(self.trees_), self._started_lifetime())
        if started != (self.n_estimators, lifetime):
            raise ValueError(
                f"{self._in_parameters(self.n_estimators, lifetime)}: the trees being extended were started with "
                f"{self._in_parameters(*started)}; set them back, or call fit to start again"
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
        try:
            X, y = validate_data(self, X, y, reset=reset, dtype=self._dtype, order="C", y_numeric=not self._onehot)
        except OverflowError as error:  # an integer label too large for a float (10**400)
            raise ValueError(f"y must hold numbers a float64 holds: {error}") from None
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
            for rng in self._tree_streams()
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

    @contextmanager
    def _whole_or_unchanged(self):
        """A learning call's body: it learns all its rows, or raises with the model as before (the attributes it
        set restored; the learnt state too, when ``_rollback_from`` copied it). An interrupt never splits it
        (``_interrupts``). Yields the saved attributes."""
        with interrupts_deferred(), unchanged_on_failure(self) as saved:
            saved.pop("_typed_trees", None)  # a cache over the trees' arrays, which a failed call may have grown
            yield saved

    def _rollback_from(self, saved: dict, trees: list, n_rows: int):
        """Enter rollback (``_interrupts.rollback_ready``) for learning ``n_rows`` into ``trees`` if a failure can
        restore what the call changes: new trees are dropped anyway; the fitted ones, and the forest's point store,
        are copied into ``saved`` first if the call is long enough (``ROLLBACK_SHARE``). Else a null context."""
        fitted = saved.get("trees_")
        if trees is fitted:
            if n_rows * ROLLBACK_SHARE < max(tree.n_nodes for tree in trees):
                return nullcontext()
            saved.update(copy.deepcopy({name: saved[name] for name in ("trees_", "points_") if name in saved}))
        return rollback_ready()

    def _learn(self, trees: list[MondrianTree], X: np.ndarray, targets: np.ndarray, saved: dict) -> None:
        self.__dict__.pop("_typed_trees", None)  # the trees' arrays may be replaced (room for the new nodes)
        params = self._kernel_params()
        with self._rollback_from(saved, trees, X.shape[0]):
            first = self._store(X, targets)
            for_each(lambda tree: self._learn_tree(tree, X, targets, first, params), trees, self.n_jobs)
        self.predict_params_ = params

    # -- one sample at a time (river's convention; the task mixins name the public methods) --------------------
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
            typed = TypedTrees(self.trees_, self._widest_side()[0], self._n_outputs)
            self._typed_trees = typed
        return typed

    def _learn_one_params(self, typed: TypedTrees) -> np.ndarray:
        """The kernel parameters learn_one uses: validated as partial_fit validates them, again only when a
        constructor parameter was set since."""
        values = _param_values(type(self))(self)
        if not _same(values, typed.learnt_with):
            self._check_unchanged(self._check_params())
            params = self._kernel_params()
            learnt = self.predict_params_
            same = params.shape == learnt.shape and np.array_equal(params, learnt, equal_nan=True)
            typed.learn_params, typed.learnt_with = (learnt if same else params), values
        return typed.learn_params

    def _predict_one_params(self, typed: TypedTrees) -> np.ndarray:
        """``_predict_params()``, computed again only when a constructor parameter or the learnt parameters
        changed since."""
        values = (*_param_values(type(self))(self), self.predict_params_)
        if not _same(values, typed.predicted_with):
            typed.predict_params, typed.predicted_with = self._predict_params(), values
        return typed.predict_params

    def _predicted_one(self, typed: TypedTrees, row: np.ndarray) -> np.ndarray | None:
        """The forest's prediction at the (1, n_features) row, through the one-sample kernel, in the model's
        scratch room (``typed.scratch().out``); None if the row is not finite in the trees' precision."""
        params = self._predict_one_params(typed)
        room = typed.scratch()
        predicted = self._forecaster.predict_one_forest(
            typed.forest, row, self._onehot, params, room.out, room.row, room.path, room.branch
        )
        return room.out if predicted else None

    def _learn_one(self, x, y):
        """learn_one: the sample through the one-sample kernels when they take it; else (the first sample, which
        starts the trees; forests without such kernels; a sample they refuse, for partial_fit to reject with its
        usual error) through partial_fit on a one-row array."""
        row = self._one_row(x)
        if hasattr(self, "trees_") and self._learnt_one_row(row, y):
            return self
        x = as_sample(x, self._named())  # (a Series as a dict: its keys name the features of a first sample)
        first = not hasattr(self, "trees_")
        with self._whole_or_unchanged():
            with _rows_in_feature_order(), _about_x():
                self.partial_fit(row, np.asarray([y]))
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
        code = self._forecaster.learn_one_forest(
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

    @takes_turns
    def fit(self, X, y):
        """Learn every tree afresh from (X, y).

        Same as a first ``partial_fit`` on a new estimator: the trees are started again (the previous ones are
        dropped) and learn the rows; a classifier takes its classes from ``y`` (or from its ``classes``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training inputs, finite numbers.
        y : array-like of shape (n_samples,)
            The targets: class labels for a classifier, numbers for a regressor.

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter or the data is invalid (the estimator is then left as it was).
        """
        with self._whole_or_unchanged() as saved:
            lifetime = self._check_params()
            X, targets = self._validated(X, y, None, reset=True)
            self._check_range(X, None)
            trees = self._new_trees(X.shape[1], lifetime)
            self._learn(trees, X, targets, saved)
            self.trees_ = trees
            self.__dict__.pop("_dict_keys", None)  # the features are X's now
        return self

    def _start_or_continue(self, X, y, classes):
        """Validated inputs and the trees to extend: the fitted ones, or new empty ones on a first call. Called inside
        ``_whole_or_unchanged``, which restores what validation set if it fails (a bad random_state raises in
        ``_new_trees``, after validation set n_features_in_)."""
        first = not hasattr(self, "trees_")
        lifetime = self._check_params()
        if not first:
            self._check_unchanged(lifetime)
        X, targets = self._validated(X, y, classes, reset=first)
        self._check_range(X, None if first else self.trees_[0])
        trees = self._new_trees(X.shape[1], lifetime) if first else self.trees_
        return X, targets, trees

    def _partial_fit(self, X, y, classes=None):
        if classes is None and hasattr(self, "trees_") and self._one_sample_kernels:  # one row: learn_one's path
            row = self._plain_X(X)
            if row is not None and row.shape[0] == 1 and self._plain_y(y, 1) and self._learnt_one_row(row, y[0]):
                return self
        with self._whole_or_unchanged() as saved:
            X, targets, trees = self._start_or_continue(X, y, classes)
            self._learn(trees, X, targets, saved)
            self.trees_ = trees
        return self

    def _progressive(self, X, y, classes=None) -> np.ndarray:
        """Forest predictions for each X[i] made before learning (X[i], y[i]), then learnt."""
        with self._whole_or_unchanged() as saved:
            X, targets, trees = self._start_or_continue(X, y, classes)
            self.__dict__.pop("_typed_trees", None)
            prior = self._prior()
            params = self._kernel_params()
            out = np.empty((X.shape[0], self._n_outputs))
            with self._rollback_from(saved, trees, X.shape[0]):
                first = self._store(X, targets)
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
        if not hasattr(self, "trees_"):  # scikit-learn's check costs more than a one-row prediction
            check_is_fitted(self, "trees_")
        check_params(self, "n_jobs")  # read by predictions, may change at any time (it never changes results)
        plain = self._plain_X(X)
        if plain is not None:
            return plain
        return writeable(validate_data(self, X, reset=False, dtype=self._dtype, order="C"))

    def _mean_prediction(self, X) -> np.ndarray:
        """The mean of the trees' predictions at each row of X (clipped to [0, 1] for a classifier's one row:
        predict_proba clips anyway)."""
        X = self._checked_X(X)
        if X.shape[0] == 1 and self._one_sample_kernels:  # one row: the one-sample kernel, one compiled call
            typed = self._typed()
            if (out := self._predicted_one(typed, X.astype(SAMPLE_DTYPE, copy=False))) is not None:
                return out.copy()
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
        given = self._classes_given(classes)
        self.classes_ = np.unique(y if given is None else given)
        return self._targets(y, None)

    def _check_unchanged(self, lifetime) -> None:
        """As the forest's, and the constructor's ``classes``, if set, are those of the trees being extended."""
        super()._check_unchanged(lifetime)
        if self.classes is not None and not np.array_equal(np.unique(self.classes), self.classes_):
            raise ValueError(
                f"classes={self.classes!r} differs from classes_={self.classes_!r} of the trees being extended; "
                "call fit to start again"
            )

    def _classes_given(self, classes):
        """The labels named by the first call's ``classes`` or the constructor's (which must then agree)."""
        if classes is None:
            return None if self.classes is None else labels_array(self.classes)
        classes = labels_array(classes)
        if self.classes is not None and not np.array_equal(np.unique(classes), np.unique(self.classes)):
            raise ValueError(f"classes={classes!r} differs from the estimator's classes={self.classes!r}")
        return classes

    def _targets(self, y, classes):
        if classes is not None and not np.array_equal(np.unique(labels_array(classes)), self.classes_):
            raise ValueError(f"classes={classes!r} differs from classes_={self.classes_!r} of the first call")
        index = np.searchsorted(self.classes_, y)
        index[index == len(self.classes_)] = 0
        unknown = self.classes_[index] != y
        if unknown.any():
            raise ValueError(
                f"y contains labels not in classes_: {few(np.unique(np.asarray(y)[unknown]))}; classes_ is "
                f"{few(self.classes_)}. Pass every label with classes= on the first partial_fit."
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

    @takes_turns
    def partial_fit(self, X, y, classes=None):
        """Extend every tree with (X, y), online.

        The trees learnt so far are extended, never grown again; a first call starts them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs, finite numbers.
        y : array-like of shape (n_samples,)
            Their class labels, each one of ``classes_``.
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may hold. Required on the first call unless the estimator was given its
            ``classes`` (scikit-learn's convention: the first rows rarely show every class); optional later, and
            then checked against ``classes_``.

        Returns
        -------
        self
            The updated estimator.

        Raises
        ------
        ValueError
            If ``classes`` is missing on the first call or differs from ``classes_``, if ``y`` holds a label not in
            ``classes_``, if ``n_estimators`` or the lifetime changed since the trees were started, or if a
            parameter or the data is invalid (the estimator is then left as it was).
        """
        self._check_classes_given(classes)
        return self._partial_fit(X, y, classes)

    @takes_turns
    def progressive_predict_proba(self, X, y, classes=None) -> np.ndarray:
        """Predict each row from the rows before it, then learn it (progressive validation).

        One compiled loop per tree. Row i holds the forest's class probabilities for ``X[i]`` given what it learnt
        before and ``(X[:i], y[:i])`` (uniform before any data); on return the model has learnt all of (X, y): the
        trees ``partial_fit`` one sample at a time grows, node for node. Each row is what ``predict_proba`` gives
        at that point up to rounding (within 1e-15: the trees' probabilities are summed in another order).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The stream's inputs, in order.
        y : array-like of shape (n_samples,)
            Their class labels.
        classes : array-like of shape (n_classes,), default=None
            Every label. None on the first call: the estimator's ``classes``, else the labels of ``y`` (the whole
            stream); later calls check it against ``classes_``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probabilities predicted for each row before it was learnt, columns in the order of ``classes_``.
        """
        return np.clip(self._progressive(X, y, classes), 0.0, 1.0)

    def _check_classes_given(self, classes) -> None:
        if classes is None and self.classes is None and not hasattr(self, "trees_"):
            raise ValueError(
                "classes must be given on the first call to partial_fit: every label the stream may hold, for example "
                "classes=np.unique(y_all) (fit and progressive_predict_proba take them from y)"
            )

    @takes_turns
    def predict_proba(self, X) -> np.ndarray:
        """Predict class probabilities: the average of the trees' label distributions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probabilities, columns in the order of ``classes_`` (clipped to [0, 1]: a sum of weighted
            distributions can exceed 1 by a rounding error).
        """
        return np.clip(self._mean_prediction(X), 0.0, 1.0)

    @takes_turns
    def predict(self, X) -> np.ndarray:
        """Predict the class of each row: the one of largest probability (the first of ``classes_`` on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted labels.
        """
        proba = self.predict_proba(X)  # first: raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]

    # -- one sample at a time ---------------------------------------------------------------------------------------
    def _one_target(self, y, typed):
        if typed.class_index is None:
            typed.class_index = {label: float(index) for index, label in enumerate(self.classes_.tolist())}
        try:
            return typed.class_index.get(y)
        except TypeError:  # unhashable
            return None

    @takes_turns
    def learn_one(self, x, y):
        """Learn one sample (x, y) online, as ``partial_fit`` on one row would, bit for bit.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            The sample's features: a dict ``{feature name: value}`` (river's convention; the first dict learnt
            fixes the features and their order, later ones must hold the same), or a 1-D array.
        y : label
            Its class, one of ``classes_``.

        Returns
        -------
        self
            The estimator.

        Notes
        -----
        The classes must be known before the first sample: give them to the constructor (``classes=[...]``) or
        to a first ``partial_fit(..., classes=...)``. AMF runs one compiled call over all its trees; the other
        forests learn through ``partial_fit`` on a one-row array.
        """
        return self._learn_one(x, y)

    @takes_turns
    def predict_proba_one(self, x) -> dict:
        """The class probabilities at one sample, as ``predict_proba`` on one row gives them.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            As in ``learn_one``.

        Returns
        -------
        dict
            ``{label: probability}`` over ``classes_``; before any learning, uniform over the constructor's
            ``classes``, or empty if there are none (river's "no prediction yet").
        """
        mean = self._predict_one_mean(x)
        if mean is None:
            labels = [] if self.classes is None else np.unique(self.classes).tolist()
            return dict.fromkeys(labels, 1.0 / len(labels)) if labels else {}
        return dict(zip(self._class_labels(), mean, strict=True))

    def _class_labels(self) -> list:
        """``classes_`` as a list (the keys of predict_proba_one's dict), made again only when classes_ changed."""
        cached = self.__dict__.get("_labels_of")
        if cached is None or cached[0] is not self.classes_:
            cached = self._labels_of = (self.classes_, self.classes_.tolist())
        return cached[1]

    @takes_turns
    def predict_one(self, x):
        """Predict the most probable class at one sample.

        The first of ``classes_`` on ties, as ``predict``; None before any learning without the constructor's
        ``classes``.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            As in ``learn_one``.

        Returns
        -------
        label or None
            The predicted class.
        """
        proba = self.predict_proba_one(x)
        return max(proba, key=proba.__getitem__) if proba else None


class Regression:
    """Target encoding and the public methods of a regressor forest."""

    _onehot = False
    # The largest |label| learnt: the sums of a leaf's labels stay finite up to 2^40 of them (a forest whose kernels
    # square labels lowers it).
    _max_label = float(np.finfo(np.float64).max) / 2.0**40

    def _validate_targets(self, y):
        pass  # _targets checks the labels (both the plain path and validate_data's reach it)

    def _labels(self, y) -> np.ndarray:
        """y as float64, refused in one line if a label is not finite or larger than ``_max_label``."""
        values = np.asarray(y, dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"y must hold finite numbers; row {row} holds {float(values[row])} ({int(bad.sum())} such rows; a None "
                "label reads as nan)"
            )
        large = np.abs(values) > self._max_label
        if large.any():
            row = int(np.flatnonzero(large)[0])
            raise ValueError(
                f"y must lie within +-{self._max_label:.3g} for {type(self).__name__} (larger labels overflow its "
                f"computations); row {row} holds {float(values[row]):.3g}: scale y"
            )
        return values

    def _start_targets(self, y, classes):
        return self._labels(y)

    def _targets(self, y, classes):
        return self._labels(y)

    @property
    def _n_outputs(self) -> int:
        return 1

    def _prior(self):
        return np.zeros(1)

    @takes_turns
    def partial_fit(self, X, y):
        """Extend every tree with (X, y), online.

        The trees learnt so far are extended, never grown again; a first call starts them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs, finite numbers.
        y : array-like of shape (n_samples,)
            Their labels, finite numbers.

        Returns
        -------
        self
            The updated estimator.

        Raises
        ------
        ValueError
            If ``n_estimators`` or the lifetime changed since the trees were started, or if a parameter or the data
            is invalid (the estimator is then left as it was).
        """
        return self._partial_fit(X, y)

    @takes_turns
    def progressive_predict(self, X, y) -> np.ndarray:
        """Predict each row from the rows before it, then learn it (progressive validation).

        One compiled loop per tree; on return the model has learnt all of (X, y): the trees ``partial_fit`` one
        sample at a time grows, node for node. Each row is what ``predict`` gives at that point up to rounding
        (within 1e-15 of its magnitude: the trees' predictions are summed in another order).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The stream's inputs, in order.
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        ndarray of shape (n_samples,)
            Entry i predicts ``y[i]`` from what the model learnt before and ``(X[:i], y[:i])`` (0 before any data).
        """
        return self._progressive(X, y)[:, 0]

    @takes_turns
    def predict(self, X) -> np.ndarray:
        """Predict the label of each row: the average of the trees' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predictions.
        """
        return self._mean_prediction(X)[:, 0]

    # -- one sample at a time ---------------------------------------------------------------------------------------
    def _one_target(self, y, typed):
        if isinstance(y, float | np.floating) or (isinstance(y, numbers.Real) and not isinstance(y, bool)):
            try:
                return float(y) if math.isfinite(y) and abs(y) <= self._max_label else None
            except OverflowError:  # an integer too large for a float: partial_fit refuses it
                return None
        return None

    @takes_turns
    def learn_one(self, x, y):
        """Learn one sample (x, y) online, as ``partial_fit`` on one row would, bit for bit.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            The sample's features: a dict ``{feature name: value}`` (river's convention; the first dict learnt
            fixes the features and their order, later ones must hold the same), or a 1-D array.
        y : float
            Its label.

        Returns
        -------
        self
            The estimator.
        """
        return self._learn_one(x, y)

    @takes_turns
    def predict_one(self, x) -> float:
        """The prediction at one sample, as ``predict`` on one row gives it; 0.0 before any learning.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            As in ``learn_one``.

        Returns
        -------
        float
            The forest's prediction.
        """
        mean = self._predict_one_mean(x)
        return 0.0 if mean is None else mean[0]
