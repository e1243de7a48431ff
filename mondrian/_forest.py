"""The machinery every online Mondrian forest shares (LRT14's MondrianForest, AMF): input validation, one tree
per random stream, threads over trees with n_jobs-independent results, failure atomicity; and the two task
mixins that encode targets (classes as one-hot indices, regression labels as floats).
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from inspect import signature
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight

from mondrian._family import TreeFamily, WeighingFamily
from mondrian._inputs import ForestInputs, called, calling
from mondrian._inputs import writeable as writeable  # re-exported: partition.py imports it from here
from mondrian._interrupts import interrupts_deferred, rollback_ready
from mondrian._one_sample_path import OneSamplePath
from mondrian._parallel import for_each, row_blocks, sum_over_trees
from mondrian._river_hooks import RiverHooks
from mondrian._schedule import Schedule
from mondrian._shared_docs import shared_docs
from mondrian._threads import takes_turns
from mondrian._validation import N_JOBS, POSITIVE_INT, RANDOM_STATE, check_params, tree_streams

# Rows per block in progressive validation: bounds the per-tree buffers, not the results.
_PROGRESSIVE_BLOCK = 4096
# A call learning at least 1/ROLLBACK_SHARE as many rows as the largest tree has nodes copies what it changes first,
# so that an interrupt stops it at once and leaves the model as before (copying then costs a few percent of the
# call); a shorter call runs to its end (``_interrupts``).
ROLLBACK_SHARE = 8


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


def _started_schedule(state: dict) -> Schedule:
    """The schedule of a forest pickled before the forest kept it: its trees' lifetime setting (a BSP tree's
    ("increasing", scale) or a number), or the increasing lifetime's ``lifetime_scale_`` and ``min_samples_split_``."""
    if "lifetime_scale_" in state:
        return Schedule.growing(state["lifetime_scale_"], state["min_samples_split_"])
    lifetime = state["trees_"][0].lifetime
    return Schedule.growing(lifetime[1]) if isinstance(lifetime, tuple) else Schedule.fixed(lifetime)


def classes_given(classes, constructor):
    """The labels named by a first call's ``classes`` or the constructor's (which must then agree), or None."""
    if classes is None:
        return None if constructor is None else labels_array(constructor)
    classes = labels_array(classes)
    if constructor is not None and not np.array_equal(np.unique(classes), np.unique(constructor)):
        raise ValueError(f"{called()}: classes={classes!r} differs from the estimator's classes={constructor!r}")
    return classes


def class_indices(classes: np.ndarray, y) -> tuple[np.ndarray, np.ndarray]:
    """The index in ``classes`` (in order of arrival: searched through a sorter) of each label of y, and which
    labels are not there (their index then meaningless)."""
    order = np.argsort(classes, kind="stable")
    at = np.searchsorted(classes, y, sorter=order)
    index = order[np.minimum(at, len(order) - 1)]
    return index, classes[index] != y


def appended(classes: np.ndarray, new: np.ndarray, fixed: bool) -> np.ndarray:
    """``classes`` with the labels ``new`` after them (the trees get their statistics in ``_add_new_classes``);
    refused if the classes were given up front (``fixed``), or if a label is not of their kind."""
    if fixed:
        raise ValueError(
            f"{called()}: y contains labels not in classes_: {few(new)}; classes_ is {few(classes)}, every label "
            "the model may learn, as given by classes= (leave classes out to learn new labels as they come)"
        )
    check_classification_targets(new)  # (a plain numeric y skipped validation: 0.5 is no label)
    grown = np.concatenate([classes, new])
    if not np.array_equal(grown[: len(classes)], classes):
        raise ValueError(f"{called()}: y contains labels {few(new)} of another type than classes_ {few(classes)}")
    return grown


def with_default_params(estimator, state: dict) -> dict:
    """A pickled estimator's state with each parameter added since it was pickled (max_nodes, debias_order, ...) at
    its default, which is what it ran with."""
    defaults = {name: value.default for name, value in signature(type(estimator).__init__).parameters.items()}
    return {**state, **{name: defaults[name] for name in estimator._get_param_names() if name not in state}}


def weighed(X: np.ndarray, targets: np.ndarray, sample_weight, first: bool, refused: Callable, name: str):
    """The rows to learn, their targets and weights (None: all one, learnt as without weights): the rows of zero
    weight dropped (they teach nothing). Refuses invalid weights (``_check_sample_weight``: of X's length, finite,
    non-negative, not all zero on a ``first`` call). ``refused()``: why the estimator cannot weigh a row, or None;
    if it cannot, a whole weight k is learnt as k copies of the row, one after the other, and a fractional one is
    refused (``name``: the estimator's)."""
    if sample_weight is None:
        return X, targets, None
    try:
        weights = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True, copy=True, allow_all_zero_weights=not first
        )
    except ValueError as error:  # learn_one's w, in its own words
        if called() != "learn_one":
            raise
        raise ValueError(f"learn_one: w must be a finite non-negative number, got {sample_weight[0]!r}") from error
    kept = weights > 0.0
    if not kept.all():
        X, targets, weights = X[kept], targets[kept], weights[kept]
    if (weights == 1.0).all():
        return X, targets, None
    if (reason := refused()) is None:
        return X, targets, weights
    return *_copies(X, targets, weights, f"{name} takes whole sample weights only here: {reason}"), None


def _copies(X: np.ndarray, targets: np.ndarray, weights: np.ndarray, refusal: str):
    """Each row repeated as many times as its whole weight (a weight k learns k copies of its row); a fractional
    weight raises ``refusal``."""
    if not np.array_equal(weights, np.floor(weights)):
        raise ValueError(refusal)
    copies = weights.astype(np.int64)
    return np.repeat(X, copies, axis=0), np.repeat(targets, copies)


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


@shared_docs
class OnlineForest(OneSamplePath, RiverHooks, ForestInputs, BaseEstimator):
    """What every online Mondrian forest shares: validation, trees with their own random streams, threads,
    failure atomicity. A subclass picks its tree family (``_family``, a ``TreeFamily``: its trees, their kernels and
    kernel parameters), checks what its parameters' constraints cannot and gives its schedule
    (``_check_forecaster_params``), and declares its parameters in ``_parameter_constraints`` (these, with its own);
    a task mixin encodes targets."""

    _parameter_constraints: ClassVar[dict] = {
        "n_estimators": [POSITIVE_INT],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
    }

    _stats_dtype: type[np.floating] = np.float64  # the precision of the node statistics (AMFClassifier's: float32)

    # -- hooks of the estimator -----------------------------------------------------------------
    def _check_forecaster_params(self) -> Schedule:
        """Check what the constraints cannot express (one parameter's meaning depending on another); return the
        trees' lifetime schedule."""
        raise NotImplementedError

    @property
    def _family(self) -> TreeFamily:
        """The family of the trees (the fitted ones', or those the parameters make before any)."""
        raise NotImplementedError

    def _kernel_params(self) -> np.ndarray:
        """The kernels' parameters from the estimator's (fixed at each call that learns: ``predict_params_``)."""
        return self._family.kernel_params(self)

    @property
    def _n_outputs(self) -> int:
        raise NotImplementedError

    def _prior(self) -> np.ndarray:
        raise NotImplementedError

    # -- shared machinery -----------------------------------------------------------------------
    def _check_params(self) -> Schedule:
        """Check every parameter against its constraints, but random_state (read, and checked, when the trees are
        started: ``_tree_streams``), then the forecaster's; return the trees' lifetime schedule."""
        check_params(self, *(name for name in self._parameter_constraints if name != "random_state"))
        return self._check_forecaster_params()

    def _tree_streams(self) -> list[np.random.Generator]:
        """One random stream per tree, spawned from random_state, which is checked here: it is read only when the
        trees are started."""
        check_params(self, "random_state")
        return tree_streams(self.random_state, self.n_estimators)

    # The constructor parameters that set the trees' schedule, in the order of ``Schedule.settings``: an increasing
    # lifetime is ("increasing", scale, min_samples_split); a fixed one a number.
    _schedule_params: ClassVar[tuple[str, ...]] = ("lifetime", "lifetime_scale", "min_samples_split")

    def __setstate__(self, state):
        if "trees_" in state and "_schedule" not in state:  # pickled before schedules: read the form it kept
            state = {**state, "_schedule": _started_schedule(state)}
        super().__setstate__(with_default_params(self, state))

    def _in_parameters(self, n_trees: int, schedule: Schedule) -> str:
        """A number of trees and a schedule in the user's parameters (``n_estimators=10, lifetime='increasing',
        lifetime_scale=1.0, ...``)."""
        named = zip(self._schedule_params, schedule.settings(), strict=False)
        return ", ".join([f"n_estimators={n_trees}", *(f"{name}={value!r}" for name, value in named)])

    def _check_unchanged(self, schedule: Schedule) -> None:
        """partial_fit extends the trees it started with: their number and schedule cannot change midway, nor what
        their family checks."""
        started = (len(self.trees_), self._schedule)
        if started != (self.n_estimators, schedule):
            raise ValueError(
                f"{self._in_parameters(self.n_estimators, schedule)}: the trees being extended were started with "
                f"{self._in_parameters(*started)}; set them back, or call fit to start again"
            )
        self._family.check_unchanged(self)

    def _start_trees(self, n_features: int, schedule: Schedule) -> list:
        """New empty trees following ``schedule``, which the forest keeps (``_schedule``)."""
        self._schedule = schedule
        return self._family.new_trees(self, n_features, schedule)

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

    def _add_new_classes(self, saved: dict) -> None:
        """Give the fitted trees zero statistics for the labels a classifier's validation appended to ``classes_``
        since ``saved``; called where the learning call may change the trees (``_rollback_from``)."""
        if self._onehot and hasattr(self, "trees_") and (n_new := self._n_outputs - len(saved["classes_"])):
            self._family.add_classes(self, n_new)

    def _weighed(self, X: np.ndarray, targets: np.ndarray, sample_weight, first: bool):
        """``weighed`` rows for this forest's trees (``weights_refused``: those that cannot weigh a row)."""
        return weighed(
            X, targets, sample_weight, first, lambda: self._family.weights_refused(self), type(self).__name__
        )

    def _learn(self, trees: list, X: np.ndarray, targets: np.ndarray, saved: dict, weights=None) -> None:
        """Learn the rows into the trees, each of the weight in ``weights`` (None: all one)."""
        self.__dict__.pop("_typed_trees", None)  # the trees' arrays may be replaced (room for the new nodes)
        family = self._family
        params = family.kernel_params(self)

        def learn(tree):
            if weights is None:
                family.learn(self, tree, X, targets, first, params)
            else:
                cast(WeighingFamily, family).learn_weighted(self, tree, X, targets, weights, first, params)

        with self._rollback_from(saved, trees, X.shape[0]):
            self._add_new_classes(saved)
            if X.shape[0]:  # (none when every row weighs 0: their labels are known all the same, as scikit-learn's)
                first = family.store(self, X, targets, weights)
                for_each(learn, trees, self.n_jobs)
        self.predict_params_ = params

    @takes_turns
    def fit(self, X, y, sample_weight=None):
        """Learn every tree afresh from (X, y).

        Same as a first ``partial_fit`` on a new estimator: the trees are started again (the previous ones are
        dropped) and learn the rows; a classifier takes its classes from ``y`` (or from its ``classes``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training inputs, finite numbers.
        y : array-like of shape (n_samples,)
            The targets: class labels for a classifier, numbers for a regressor.
        {sample_weight}

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter or the data is invalid (the estimator is then left as it was).
        """
        with self._whole_or_unchanged() as saved, calling("fit"):
            for fitted in [name for name in vars(self) if name.endswith("_") and not name.startswith("__")]:
                del self.__dict__[fitted]  # a fresh start: nothing of the trees before (their family's attributes)
            self.__dict__.pop("_dict_keys", None)  # the features are X's now
            schedule = self._check_params()
            X, targets = self._validated(X, y, None, reset=True)
            X, targets, weights = self._weighed(X, targets, sample_weight, first=True)
            self._check_range(X, None)
            trees = self._start_trees(X.shape[1], schedule)
            self._learn(trees, X, targets, saved, weights)
            self.trees_ = trees
        return self

    def _start_or_continue(self, X, y, classes, sample_weight=None):
        """Validated inputs (and their weights: ``_weighed``) and the trees to extend: the fitted ones, or new empty
        ones on a first call. Called inside ``_whole_or_unchanged``, which restores what validation set if it fails
        (a bad random_state raises in ``_start_trees``, after validation set n_features_in_)."""
        first = not hasattr(self, "trees_")
        schedule = self._check_params()
        if not first:
            self._check_unchanged(schedule)
        X, targets = self._validated(X, y, classes, reset=first)
        X, targets, weights = self._weighed(X, targets, sample_weight, first)
        self._check_range(X, None if first else self.trees_[0])
        trees = self._start_trees(X.shape[1], schedule) if first else self.trees_
        return X, targets, weights, trees

    def _partial_fit(self, X, y, classes=None, sample_weight=None):
        if sample_weight is None and self._learnt_plain_row(X, y, classes):  # one row: learn_one's path
            return self
        with self._whole_or_unchanged() as saved:
            X, targets, weights, trees = self._start_or_continue(X, y, classes, sample_weight)
            self._learn(trees, X, targets, saved, weights)
            self.trees_ = trees
        return self

    def _progressive(self, X, y, classes=None) -> np.ndarray:
        """Forest predictions for each X[i] made before learning (X[i], y[i]), then learnt."""
        with self._whole_or_unchanged() as saved:
            X, targets, _, trees = self._start_or_continue(X, y, classes)
            self.__dict__.pop("_typed_trees", None)
            prior = self._prior()
            family = self._family
            params = family.kernel_params(self)
            out = np.empty((X.shape[0], self._n_outputs))
            with self._rollback_from(saved, trees, X.shape[0]):
                self._add_new_classes(saved)
                first = family.store(self, X, targets, None)
                for start in range(0, X.shape[0], _PROGRESSIVE_BLOCK):
                    rows = slice(start, start + _PROGRESSIVE_BLOCK)
                    Xb, tb = X[rows], targets[rows]

                    def step(tree, buffer, Xb=Xb, tb=tb, at=first + start):
                        family.progressive(self, tree, Xb, tb, at, params, prior, buffer)

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

    def _mean_prediction(self, X) -> np.ndarray:
        """The mean of the trees' predictions at each row of X (clipped to [0, 1] for a classifier's one row:
        predict_proba clips anyway)."""
        X = self._checked_X(X)
        if (out := self._predicted_plain_row(X)) is not None:  # one row: the one-sample kernel, one compiled call
            return out
        return self._tree_mean(X, self._predict_params(), self._n_outputs)

    def _tree_mean(self, X: np.ndarray, params: np.ndarray, n_columns: int) -> np.ndarray:
        """The mean over the trees of the ``n_columns`` columns their family's ``predict`` adds at each checked row
        of X (the predictions; a predictive distribution's second moments after them), blocks of rows on threads."""
        out = np.zeros((X.shape[0], n_columns))
        family = self._family

        def predict_rows(rows: slice):
            family.predict(self, X[rows], params, out[rows])

        for_each(predict_rows, row_blocks(X.shape[0], self.n_jobs), self.n_jobs)
        out /= len(self.trees_)
        return out


@shared_docs
class Classification:
    """Target encoding and the public methods of a classifier forest."""

    _onehot = True

    if TYPE_CHECKING:  # what it uses of its host, OnlineForest (declared for the type checker only)
        classes: ArrayLike | None  # the constructor's

        def _partial_fit(self, X, y, classes=None, sample_weight=None): ...

        def _progressive(self, X, y, classes=None) -> np.ndarray: ...

        def _mean_prediction(self, X) -> np.ndarray: ...

        def _learn_one(self, x, y, w=1.0): ...

        def _predict_one_mean(self, x) -> list | None: ...

    def _validate_targets(self, y):
        check_classification_targets(y)

    def _start_targets(self, y, classes):
        """The first call's classes: those given (then every label the model may learn: ``_classes_fixed_``), else
        y's, sorted either way."""
        given = classes_given(classes, self.classes)
        self.classes_ = np.unique(y if given is None else given)
        self._classes_fixed_ = given is not None
        return self._targets(y, None)

    def _check_unchanged(self, schedule) -> None:
        """As the forest's, and the constructor's ``classes``, if set, are those of the trees being extended."""
        super()._check_unchanged(schedule)  # type: ignore[misc]  # OnlineForest's: it follows in the MRO
        if self.classes is not None and not np.array_equal(np.unique(self.classes), np.unique(self.classes_)):
            raise ValueError(
                f"classes={self.classes!r} differs from classes_={self.classes_!r} of the trees being extended; "
                "call fit to start again"
            )

    def _targets(self, y, classes):
        """y as indices into ``classes_``, which a label not seen before extends (appended, in ``np.unique``
        order among a call's new labels: the columns of the probabilities keep their labels) unless the classes
        were given up front."""
        if classes is not None and not np.array_equal(np.unique(labels_array(classes)), np.unique(self.classes_)):
            raise ValueError(
                f"{called()}: classes={classes!r} differs from classes_={self.classes_!r} of the first call"
            )
        index, unknown = class_indices(self.classes_, y)
        if unknown.any():  # (a model pickled before classes on the fly had them fixed)
            new = np.unique(np.asarray(y)[unknown])
            self.classes_ = appended(self.classes_, new, self.__dict__.get("_classes_fixed_", True))
            index, _ = class_indices(self.classes_, y)
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
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Extend every tree with (X, y), online.

        The trees learnt so far are extended, never grown again; a first call starts them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs, finite numbers.
        y : array-like of shape (n_samples,)
            Their class labels. A label not seen before is appended to ``classes_`` (its column comes after the
            others in ``predict_proba``, a call's new labels in sorted order), unless the classes were given up
            front.
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may hold, if known (scikit-learn's convention): on the first call it fixes
            ``classes_`` to ``np.unique(classes)``, and a label outside it is then an error; later, it is checked
            against ``classes_``. None: the estimator's ``classes`` if given, else the labels as they come.
        {sample_weight}

        Returns
        -------
        self
            The updated estimator.

        Raises
        ------
        ValueError
            If ``classes`` differs from ``classes_``, if ``y`` holds a label not in the classes given up front,
            if ``n_estimators`` or the lifetime changed since the trees were started, or if a
            parameter or the data is invalid (the estimator is then left as it was).
        """
        return self._partial_fit(X, y, classes, sample_weight)

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
            Their class labels; as in ``partial_fit``, a label not seen before (in earlier calls) is appended to
            ``classes_`` unless the classes were given up front.
        classes : array-like of shape (n_classes,), default=None
            As in ``partial_fit``. None on a first call: the estimator's ``classes``, else the labels of ``y``
            (the whole stream, sorted); later calls check it against ``classes_``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probabilities predicted for each row before it was learnt, columns in the order of ``classes_``
            at the end of the call.
        """
        with calling("progressive_predict_proba"):
            return np.clip(self._progressive(X, y, classes), 0.0, 1.0)

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
    def learn_one(self, x, y, w=1.0):
        """Learn one sample (x, y) online, as ``partial_fit`` on one row would, bit for bit.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            The sample's features: a dict ``{feature name: value}`` (river's convention; the first dict learnt
            fixes the features and their order, later ones must hold the same), or a 1-D array.
        y : label
            Its class: a label not seen before is appended to ``classes_`` (a new last column of the
            probabilities), unless the classes were given up front (the constructor's ``classes``, or a first
            ``partial_fit(..., classes=...)``): ``y`` must then be one of them.
        {w}

        Returns
        -------
        self
            The estimator.

        Notes
        -----
        AMF runs one compiled call over all its trees; the other forests learn through ``partial_fit`` on a
        one-row array (as AMF does for a new label, whose statistics every tree gains).
        """
        return self._learn_one(x, y, w)

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


@shared_docs
class Regression:
    """Target encoding and the public methods of a regressor forest."""

    _onehot = False

    if TYPE_CHECKING:  # what it uses of its host, OnlineForest (declared for the type checker only)

        def _partial_fit(self, X, y, classes=None, sample_weight=None): ...

        def _progressive(self, X, y, classes=None) -> np.ndarray: ...

        def _mean_prediction(self, X) -> np.ndarray: ...

        def _learn_one(self, x, y, w=1.0): ...

        def _predict_one_mean(self, x) -> list | None: ...

        def _checked_X(self, X) -> np.ndarray: ...

        def _predict_params(self) -> np.ndarray: ...

        def _tree_mean(self, X: np.ndarray, params: np.ndarray, n_columns: int) -> np.ndarray: ...

        def get_params(self, deep: bool = True) -> dict: ...

        @property
        def _family(self) -> Any: ...  # a TreeFamily (Any: each forest's property narrows it)

    # Why predictions have no predictive distribution, after "...which <estimator>'s predictions do not have"
    # (formatted with the estimator's parameters)
    _no_predictive_distribution = " (MondrianForestRegressor(prediction='gaussian') gives one)"

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
    def partial_fit(self, X, y, sample_weight=None):
        """Extend every tree with (X, y), online.

        The trees learnt so far are extended, never grown again; a first call starts them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs, finite numbers.
        y : array-like of shape (n_samples,)
            Their labels, finite numbers.
        {sample_weight}

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
        return self._partial_fit(X, y, sample_weight=sample_weight)

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
    def predict(self, X, return_std=False):
        """Predict the label of each row: the average of the trees' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        return_std : bool, default=False
            Also return the standard deviation of the predictive distribution of y at each row, the mixture of the
            trees' (LRT16); only trees with a predictive distribution have one:
            ``MondrianForestRegressor(prediction="gaussian")``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predictions (with a predictive distribution, its means).
        ndarray of shape (n_samples,)
            With ``return_std=True`` only: the predictive standard deviations.

        Raises
        ------
        ValueError
            If ``return_std`` is not a bool, or is True for trees without a predictive distribution.
        """
        if not isinstance(return_std, bool | np.bool_):
            raise ValueError(f"return_std must be True or False, got {return_std!r}")
        if return_std:
            return self._estimate_and_std(X, "predict(X, return_std=True)")
        return self._mean_prediction(X)[:, 0]

    def _estimate_and_std(self, X, caller: str) -> tuple[np.ndarray, np.ndarray]:
        """The forest's predictive mean and standard deviation at the rows of X: the mixture of its trees'
        predictive distributions (mean: the mean of theirs; variance: the mean of their second moments, about the
        forecaster's ``predictive_center``, less the mean's squared distance to it). Refused in one line, naming
        ``caller``, when the trees' forecaster has none."""
        X = self._checked_X(X)
        params = self._predict_params()
        center = getattr(self._family.forecaster, "predictive_center", None)
        if center is None:
            why = self._no_predictive_distribution.format(**self.get_params(deep=False))
            raise ValueError(
                f"{caller} needs a predictive distribution, which {type(self).__name__}'s predictions do not have{why}"
            )
        out = self._tree_mean(X, params, 2)
        mean = out[:, 0]
        return mean, np.sqrt(np.maximum(out[:, 1] - (mean - center(params)) ** 2, 0.0))

    # -- one sample at a time ---------------------------------------------------------------------------------------
    def _one_target(self, y, typed):
        if isinstance(y, float | np.floating) or (isinstance(y, numbers.Real) and not isinstance(y, bool)):
            try:
                # (abs of a numbers.Real is a Real; typeshed types it as a protocol without comparisons)
                return float(y) if math.isfinite(y) and abs(y) <= self._max_label else None  # type: ignore[operator]
            except OverflowError:  # an integer too large for a float: partial_fit refuses it
                return None
        return None

    @takes_turns
    def learn_one(self, x, y, w=1.0):
        """Learn one sample (x, y) online, as ``partial_fit`` on one row would, bit for bit.

        Parameters
        ----------
        x : dict or array-like of shape (n_features,)
            The sample's features: a dict ``{feature name: value}`` (river's convention; the first dict learnt
            fixes the features and their order, later ones must hold the same), or a 1-D array.
        y : float
            Its label.
        {w}

        Returns
        -------
        self
            The estimator.
        """
        return self._learn_one(x, y, w)

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
