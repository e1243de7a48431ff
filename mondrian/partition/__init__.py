"""MGS20's purely random Mondrian forests: ``MondrianPartitionForestRegressor`` and ``...Classifier``.

Each tree is a Mondrian partition MP(lifetime, domain) drawn independently of the data, sampled only where data
lie (``mondrian.partition._cells``: the cost follows the number of cells holding points, not (1 + lifetime)^d); a cell
predicts the mean label of the training points it holds, ``empty_value`` when it holds none (MGS20: 0). The forest
averages its trees, each fitted on all the data (no bootstrap). The partition at a smaller lifetime is the same
tree pruned at it, so one fitted forest predicts at every lifetime up to its own (MGS20's nested estimators).

``lifetime="adaptive"`` chooses it from the data as MGS20 propose (``_adaptive``): the forest is fitted on a random
half at the largest lifetime of a geometric grid (ratio 2) and read at every grid value; on the other half (its points
in the inner box [eps, 1 - eps]^d) the lifetime lam1 of least empirical risk is taken, then Audibert's (2007) STAR
step: for each lam of the grid, the best convex combination (1 - alpha) f_lam1 + alpha f_lam,
alpha = clip(sum (y - a)(b - a) / sum (b - a)^2, 0, 1), and the combination of least empirical risk is the
prediction.

The regressor is also CKU23's (Cattaneo, Klusowski, Underwood, "Inference with Mondrian random forests"): with
``debias_order`` J > 0 the debiased forest, a generalized jackknife over J + 1 independent forests at lifetimes
a_r lambda (``_debias``); ``predict(X, return_std=True)`` and ``predict_interval`` their variance estimator and
confidence interval for mu(x) (``_inference``), from the forest's weights of its training points at x (``_weights``);
and ``lifetime="polynomial"`` their lifetime selection with polynomial estimation (``_lifetime``).
"""

from __future__ import annotations

import numbers
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mondrian._forest import unchanged_on_failure, weighed, with_default_params, writeable
from mondrian._keyword_only import keyword_only
from mondrian._nodes import NO_NODE, add_node, empty_tree
from mondrian._parallel import for_each, sum_over_trees
from mondrian._shared_docs import shared_docs
from mondrian._validation import (
    N_JOBS,
    POSITIVE_FINITE,
    POSITIVE_INT,
    RANDOM_STATE,
    Interval,
    check_cells,
    check_params,
    tree_streams,
)
from mondrian.partition import _cells, _weights
from mondrian.partition._adaptive import ADAPTIVE, HALVES, AdaptiveLifetime, lifetime_grid, star
from mondrian.partition._debias import debiasing_weights, default_scales
from mondrian.partition._inference import DebiasedForest
from mondrian.partition._lifetime import POLYNOMIAL
from mondrian.tree import MondrianTree

__all__ = [
    "MondrianPartitionForestClassifier",
    "MondrianPartitionForestRegressor",
    "debiasing_weights",
    "default_scales",
    "lifetime_grid",
    "star",
]
# The public functions written in the private modules are this package's (their pages, their reprs)
for _function in (debiasing_weights, default_scales, lifetime_grid, star):
    _function.__module__ = __name__
del _function

# The largest expected number of cells of a whole partition the forests take by default (only those around the data
# are drawn: the limit refuses a lifetime meaningless for the box, not a cost).
MAX_PARTITION_CELLS = 1e15

DOMAINS = ("auto", "unit", "data")


class _PartitionForest(BaseEstimator):
    """What MGS20's regressor and classifier share: checks, the domain, growing the trees, nested predictions. A
    subclass says whether targets are one-hot (``_onehot``), their number of outputs and the empty cells' value."""

    _onehot = False
    _keeps_points = False  # whether each tree keeps its leaves' training points (the regressor's variance estimator)
    _parameter_constraints: ClassVar[dict] = {
        "n_estimators": [POSITIVE_INT],
        # finite: a purely random partition splits without end otherwise
        "lifetime": [POSITIVE_FINITE],
        "domain": [StrOptions(set(DOMAINS))],
        "max_cells": [POSITIVE_FINITE],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
    }

    def __setstate__(self, state):
        super().__setstate__(with_default_params(self, state))  # a model pickled before a parameter was added

    @property
    def _n_outputs(self) -> int:
        return 1

    def _empty_value(self) -> float:
        return self.empty_value_  # the fitted value: set_params(empty_value=...) changes no prediction until fit

    def _check_params(self) -> None:
        """Check every parameter (all are read by fit)."""
        self._validate_params()

    def _domain(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        within_unit = not X.size or (X.min() >= 0.0 and X.max() <= 1.0)
        if self.domain == "data" or (self.domain == "auto" and not within_unit):
            return X.min(axis=0), X.max(axis=0)
        if not within_unit:
            raise ValueError(
                "X must lie in [0, 1]^d with domain='unit' (MGS20's setting): scale it, or use domain='data' or 'auto'"
            )
        return np.zeros(X.shape[1]), np.ones(X.shape[1])

    def _grown(self, X: np.ndarray, y: np.ndarray, w, lifetime: float, lower, upper, streams) -> list[MondrianTree]:
        """Trees drawn at ``lifetime`` on the box [lower, upper] around X, one per random stream, every cell counting
        its encoded targets y of weights w (None: all one); each keeps its leaves' points if ``_keeps_points``."""
        check_cells(lifetime, lower, upper, self.max_cells)
        trees = [MondrianTree(empty_tree(X.shape[1]), rng, lifetime) for rng in streams]

        def grow(tree: MondrianTree) -> None:
            tree.nodes.root[0] = add_node(tree.nodes, NO_NODE, lower, upper)
            tree.nodes, leaves = _cells.sample(tree.nodes, X, lifetime, tree.rng)
            tree.stats = np.zeros((tree.n_nodes, _cells.n_stats(self._n_outputs)))
            _cells.count(tree.nodes, tree.stats, y, self._onehot, leaves, w)
            if self._keeps_points:
                _weights.keep(tree, leaves)

        for_each(grow, trees, self.n_jobs)
        return trees

    def _grow(self, X: np.ndarray, y: np.ndarray, w, lifetime: float, lower, upper, streams) -> None:
        """Draw the forest's trees (``_grown``) and keep them with their domain and lifetime."""
        self.trees_ = self._grown(X, y, w, lifetime, lower, upper, streams)
        self.domain_, self.lifetime_ = (lower, upper), lifetime

    def _weighed(self, X: np.ndarray, y: np.ndarray, sample_weight, reason: str | None = None):
        """``weighed`` rows (``reason``: why the fit cannot weigh a row, None if it can)."""
        return weighed(X, y, sample_weight, True, lambda: reason, type(self).__name__)

    def _checked_X(self, X) -> np.ndarray:
        check_is_fitted(self)
        check_params(self, "n_jobs")  # read by predictions, may change at any time (it never changes results)
        return writeable(validate_data(self, X, reset=False, dtype=np.float64, order="C"))

    def _one_lifetime(self, lifetime) -> list[float]:
        """A prediction's ``lifetime`` argument as the one-element grid it reads (None: the fitted lifetime)."""
        if lifetime is None:
            return [self.lifetime_]
        if isinstance(lifetime, bool) or not isinstance(lifetime, numbers.Real):
            raise ValueError(f"lifetime must be a number in [0, {self.lifetime_}] or None, got {lifetime!r}")
        return [float(lifetime)]

    def _checked_lifetimes(self, lifetimes) -> np.ndarray:
        try:
            lifetimes = np.atleast_1d(np.asarray(lifetimes, dtype=np.float64))
        except (TypeError, ValueError):
            raise ValueError(f"lifetimes must be numbers in [0, {self.lifetime_}], got {lifetimes!r}") from None
        if lifetimes.ndim != 1:
            raise ValueError(f"lifetimes must be a 1-D list or array of numbers, got shape {lifetimes.shape}")
        if not np.all((lifetimes >= 0.0) & (lifetimes <= self.lifetime_)):
            raise ValueError(f"lifetimes must lie in [0, {self.lifetime_}] (the fitted lifetime), got {lifetimes}")
        if np.any(np.diff(lifetimes) < 0.0):
            raise ValueError(f"lifetimes must be increasing, got {lifetimes}")
        return lifetimes

    def _nested(self, X, lifetimes, empty_only: bool = False) -> np.ndarray:
        """(lifetimes, rows, outputs): the mean over trees of each cell's mean encoded target, at each lifetime; with
        ``empty_only`` (one output), of the indicator that the cell holds no training point."""
        return self._trees_nested(self._checked_X(X), self._checked_lifetimes(lifetimes), self.trees_, empty_only)

    def _trees_nested(self, X: np.ndarray, lifetimes: np.ndarray, trees: list, empty_only: bool = False) -> np.ndarray:
        """``_nested`` over the given trees, of checked X and lifetimes."""
        empty = 1.0 if empty_only else self._empty_value()

        def add(tree: MondrianTree, out: np.ndarray) -> None:
            stats = tree.stats
            if empty_only:  # the counts with zero targets: a cell predicts 0, or 1 when it holds no point
                stats = np.zeros((tree.stats.shape[0], 2))
                stats[:, 0] = tree.stats[:, 0]
            _cells.predict_nested(tree.nodes, stats, X, lifetimes, empty, out)

        shape = (lifetimes.shape[0], X.shape[0], 1 if empty_only else self._n_outputs)
        return sum_over_trees(add, trees, shape, self.n_jobs) / len(trees)

    def empty_fraction(self, X, lifetime: float | None = None) -> np.ndarray:
        """Return the fraction of the trees whose cell at each row of X holds no training point.

        There a tree predicts the empty cells' value (MGS20: 0), not the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        lifetime : float, default=None
            The lifetime the trees are pruned at, at most the fitted one; None: the fitted lifetime.

        Returns
        -------
        ndarray of shape (n_samples,)
            The fraction of trees at each row.
        """
        check_is_fitted(self)
        return self._nested(X, self._one_lifetime(lifetime), empty_only=True)[0, :, 0]


@shared_docs
class MondrianPartitionForestRegressor(DebiasedForest, AdaptiveLifetime, RegressorMixin, _PartitionForest):
    r"""Purely random Mondrian forest regressor (MGS20).

    Each tree is a Mondrian partition MP(lifetime, domain) drawn independently of the data, sampled only where data
    lie (the cost follows the cells holding points, not (1 + lifetime)^d); a cell predicts the mean label of the
    training points it holds, ``empty_value`` when it holds none. The forest averages its trees, each fitted on all
    the data (no bootstrap). Batch ``fit`` only.

    Parameters
    ----------
    {n_estimators}
    lifetime : float, "adaptive" or "polynomial", default=1.0
        The Mondrian lifetime lambda, a positive finite number (MGS20's minimax choice for a beta-Hölder regression
        function: lambda_n ~ n^(1/(d + 2 beta))), ``"adaptive"``: chosen on half of the data (MGS20), or
        ``"polynomial"``: CKU23's lambda_hat_AIMSE(J - 1) for order J >= 1, (0) for J = 0 (see the Notes).
    lifetimes : array-like of float or None, default=None
        The grid of the adaptive lifetime, increasing (None: 1, 2, 4, ... up to n_half^(1/d), see
        ``lifetime_grid``).
    inner_margin : float, default=0.0
        The margin eps in [0, 0.5): the adaptive choice scores the held-out points in [eps, 1 - eps]^d of the
        domain only.
    {domain}
    empty_value : float, default=0.0
        The prediction of a cell that holds no training point (MGS20: 0).
    max_cells : float, default=1e15
        The largest expected number of cells of the whole partition MP(lifetime, domain), prod_j (1 + lifetime s_j)
        over the domain's sides s_j (adaptive: at the grid's largest lifetime), refused at fit. Only the cells around
        the data are drawn, so the default refuses what is meaningless (a lifetime far too large for the box, or data
        of huge magnitude: scale them), not what costs memory.
    {random_state}
    {n_jobs}
    debias_order : int, default=0
        CKU23's debiasing order J: the forest is the generalized jackknife sum_r omega_r mu_r of J + 1 independent
        forests of ``n_estimators`` trees at lifetimes a_r lambda, cancelling the first J terms of the bias (0: the
        plain forest); J > 0 needs a number or ``"polynomial"`` as lifetime.
    debias_scales : array-like of float or None, default=None
        The lifetime scales a_r: J + 1 distinct positive numbers, the first 1 (None: CKU23's a_r = 1.05^r).

    Attributes
    ----------
    trees_ : list of MondrianTree
        The fitted trees at lifetime lambda (stats: column 0 the number of points of each cell, column 1 the sum of
        their labels); each keeps its leaves' points (``first_point``, ``next_point``) for the variance estimator.
    debias_trees_ : list of list of MondrianTree
        The forests r = 1..J of the debiased forest (empty for J = 0), the r-th at lifetime a_r lambda.
    debias_scales_ : ndarray of shape (J + 1,)
        The lifetime scales a_r.
    debias_weights_ : ndarray of shape (J + 1,)
        The debiasing weights omega_r (``debiasing_weights``).
    training_targets_ : ndarray of shape (n_samples,)
        The labels of the rows the trees hold (the variance estimator's residuals); not with the adaptive lifetime.
    training_weights_ : ndarray of shape (n_samples,) or None
        Their sample weights (None: all one).
    {domain_}
    lifetime_ : float
        The lifetime lambda the partitions were drawn at (adaptive: the largest of the grid; polynomial: the
        selected one).
    selection_ : dict
        Adaptive only: the grid ``lifetimes``, their held-out ``risks``, the ERM choice ``erm``, the STAR partner
        ``partner``, its weight ``alpha`` and the ``star_risk`` of the combination.
    n_features_in_ : int
        The number of features.
    {feature_names_in_}
    empty_value_ : float
        The empty cells' prediction, ``empty_value`` at fit.

    See Also
    --------
    MondrianPartitionForestClassifier : The same partitions for classification.
    mondrian.forest.MondrianForestRegressor : Online Mondrian trees restricted to the data (LRT14, MGS17).
    mondrian.tree.sample_mondrian : One full Mondrian partition of a box.

    Notes
    -----
    {weights_partition}

    The partition at a smaller lifetime is the same tree pruned at it, so one fitted forest predicts at every
    lifetime up to its own (MGS20's nested estimators): ``predict(X, lifetime)`` and ``predict_nested(X,
    lifetimes)``.

    ``lifetime="adaptive"`` is MGS20's: fitted on a random half at the largest lifetime of a geometric grid, the
    forest is read at every grid value; the other half (in the inner box [eps, 1 - eps]^d) picks the lifetime of
    least empirical risk, then Audibert's (2007) STAR step (``star``) its best convex combination with another.

    **Inference (CKU23).** With ``debias_order`` J the forest is their debiased forest sum_r omega_r mu_r(x) of J + 1
    independent forests at lifetimes a_r lambda, the weights solving "$\sum_{r=0}^{J} \omega_r = 1$ and
    $\sum_{r=0}^{J} \omega_r a_r^{-2s} = 0$ for each $1 \leq s \leq J$" (``debiasing_weights``); the default scales
    are theirs, "We suggest for concreteness taking $a_r = 1.05^r$." (their replication code runs 1.5^r:
    ``debias_scales=[1.0, 1.5]``). ``predict(X, return_std=True)`` gives the estimate and its standard error
    sqrt(lambda^d Sigma_hat_d(x) / n), their variance estimator (``mondrian.partition._inference``; a cell without
    points weighs none: "we define $0/0 = 0$"), and ``predict_interval`` their interval, the estimate -/+
    q_(1 - alpha/2) times it: a confidence interval for mu(x) = E[Y | X = x], not a prediction interval for a new Y,
    valid when the bias is negligible against the standard error. Both read the fitted lifetime, a number or
    ``"polynomial"``: their lifetime selection with polynomial estimation in their procedure for inference, "use
    $\hat\mu_\rd\big(x; \hat\lambda_{\AIMSE}(J-1), J\big)$ and $\hat\Sigma_\rd\big(x; \hat\lambda_{\AIMSE}(J-1),
    J\big)$ to construct a confidence interval" (J = 0: lambda_hat_AIMSE(0), whose bias is not negligible), from a
    global polynomial of order 2J + 4 fitted by least squares (``mondrian.partition._lifetime``). Their other rule,
    generalized cross-validation, is not implemented.

    Every parameter is validated at ``fit`` and only read there: predictions use the fitted state (``trees_``,
    ``lifetime_``, ``empty_value_``, ``selection_``), so that ``set_params`` after fit changes no prediction; but
    ``n_jobs``, read (and validated) at every call, which never changes results.

    References
    ----------
    {MGS20}

    Cattaneo, Klusowski, Underwood, "Inference with Mondrian random forests", arXiv:2310.09702 (2023), CKU23.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian import MondrianPartitionForestRegressor
    >>> X = np.random.default_rng(0).uniform(size=(500, 2))  # in [0, 1]^2: MGS20's domain
    >>> y = X[:, 0] ** 2
    >>> reg = MondrianPartitionForestRegressor(n_estimators=10, lifetime="adaptive", random_state=0).fit(X, y)
    >>> [side.tolist() for side in reg.domain_]
    [[0.0, 0.0], [1.0, 1.0]]
    >>> bool(reg.score(X, y) > 0.8)
    True

    CKU23's debiased forest (J = 1) and its confidence interval for mu(x):

    >>> y = np.sin(np.pi * X).sum(axis=1) + 0.3 * np.random.default_rng(1).normal(size=500)
    >>> reg = MondrianPartitionForestRegressor(50, lifetime="polynomial", debias_order=1, random_state=0).fit(X, y)
    >>> mean, std = reg.predict([[0.5, 0.5]], return_std=True)  # mu(1/2, 1/2) = 2
    >>> interval = reg.predict_interval([[0.5, 0.5]], alpha=0.05)  # mean -/+ 1.96 std
    >>> interval.shape, bool(np.allclose(interval[0], mean[0] + np.array([-1.96, 1.96]) * std[0], atol=1e-3))
    ((1, 2), True)
    """

    _keeps_points = True

    _parameter_constraints: ClassVar[dict] = {
        **_PartitionForest._parameter_constraints,
        "lifetime": [POSITIVE_FINITE, StrOptions({ADAPTIVE, POLYNOMIAL})],
        "lifetimes": ["array-like", None],  # increasing positive finite numbers, checked in _check_params
        "inner_margin": [Interval(Real, 0, 0.5, closed="left")],
        "debias_order": [Interval(Integral, 0, None, closed="left")],
        "debias_scales": ["array-like", None],  # J + 1 distinct positive finite numbers, a_0 = 1: _check_params
        "empty_value": [Interval(Real, None, None, closed="neither")],  # finite
    }

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        lifetime: float | str = 1.0,
        lifetimes=None,
        inner_margin: float = 0.0,
        domain: str = "auto",
        empty_value: float = 0.0,
        max_cells: float = MAX_PARTITION_CELLS,
        random_state=None,
        n_jobs: int | None = None,
        debias_order: int = 0,
        debias_scales=None,
    ):
        self.n_estimators = n_estimators
        self.lifetime = lifetime
        self.lifetimes = lifetimes
        self.inner_margin = inner_margin
        self.debias_order = debias_order
        self.debias_scales = debias_scales
        self.domain = domain
        self.empty_value = empty_value
        self.max_cells = max_cells
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        super()._check_params()
        self._check_grid()
        self._check_debiasing()

    def fit(self, X, y, sample_weight=None):
        """Draw the forest's partitions where the data lie, and the mean label of every cell (adaptive: on half).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training inputs.
        y : array-like of shape (n_samples,)
            The labels.
        {sample_weight}

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter or the data is invalid, if X is outside [0, 1]^d with ``domain="unit"``, or if no
            held-out point lies in the inner box (the estimator is then left as it was).
        """
        self._check_params()
        adaptive = self.lifetime == ADAPTIVE
        with unchanged_on_failure(self):
            X, y = validate_data(self, X, y, dtype=np.float64, order="C", y_numeric=True)
            X, y = writeable(X), np.asarray(y, dtype=np.float64)
            X, y, w = self._weighed(X, y, sample_weight, HALVES if adaptive else None)
            self.empty_value_ = float(self.empty_value)
            lower, upper = self._domain(X)
            for name in ("selection_", "training_targets_", "training_weights_"):
                self.__dict__.pop(name, None)
            streams = self._start_debiased()
            if adaptive:  # (whole rows: w is None)
                self._fit_adaptive(X, y, lower, upper, streams)
            else:
                self._grow_debiased(X, y, w, lower, upper, streams)
        return self

    def predict(self, X, lifetime: float | None = None, return_std: bool = False):
        """Predict with the forest pruned at a lifetime, and the standard error of the estimate of mu(x).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        lifetime : float, default=None
            At most the fitted lifetime (J > 0: forest r read at a_r times it). None: the fitted lifetime, or the
            adaptive lifetime's STAR combination (1 - alpha) f_erm + alpha f_partner of ``selection_``.
        return_std : bool, default=False
            Also return CKU23's standard error of the estimate of mu(x) (not of a new y), at the fitted lifetime.

        Returns
        -------
        mean : ndarray of shape (n_samples,)
            The predictions.
        std : ndarray of shape (n_samples,)
            With ``return_std``: their standard errors sqrt(lambda^d Sigma_hat(x) / n).

        Raises
        ------
        ValueError
            If ``return_std`` is not a bool, or is True with a lifetime given, with the adaptive lifetime, or for a
            forest fitted before the variance estimator existed (fit it again).
        """
        check_is_fitted(self)
        if not isinstance(return_std, bool | np.bool_):
            raise ValueError(f"return_std must be a bool, got {return_std!r}")
        if return_std:
            self._check_inference(lifetime)
        if lifetime is not None or not hasattr(self, "selection_"):
            mean = self.predict_nested(X, self._one_lifetime(lifetime))[0]
            return (mean, self._standard_error(self._checked_X(X))) if return_std else mean
        return self._star_prediction(X)


@shared_docs
class MondrianPartitionForestClassifier(ClassifierMixin, _PartitionForest):
    """Purely random Mondrian forest classifier (MGS20's forest with cell label distributions).

    Each cell predicts the label distribution of the training points it holds, uniform in a cell that holds none;
    the forest averages. Batch ``fit`` only.

    Parameters
    ----------
    {n_estimators}
    lifetime : float, default=1.0
        The Mondrian lifetime lambda, positive and finite (the adaptive lifetime, a square-loss procedure, is the
        regressor's).
    {domain}
    max_cells : float, default=1e15
        The largest expected number of cells of the whole partition, as in ``MondrianPartitionForestRegressor``.
    random_state : int, RandomState, Generator or None, default=None
        The seed of the partitions (the regressor's tree streams). None: fresh entropy.
    {n_jobs}

    Attributes
    ----------
    {classes_}
    trees_ : list of MondrianTree
        The fitted trees (stats: column 0 the number of points of each cell, then their count per class).
    {domain_}
    lifetime_ : float
        The lifetime the partitions were drawn at.
    n_features_in_ : int
        The number of features.
    {feature_names_in_}

    See Also
    --------
    MondrianPartitionForestRegressor : The same partitions for regression, with the adaptive lifetime.
    mondrian.forest.MondrianForestClassifier : Online Mondrian trees restricted to the data (LRT14, MGS17).

    Notes
    -----
    {weights_partition}

    As the regressor's, predictions use the fitted state; only ``n_jobs`` is read (and validated) at every call.

    References
    ----------
    {MGS20}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mondrian import MondrianPartitionForestClassifier
    >>> X, y = load_iris(return_X_y=True)  # outside [0, 1]^4: the default domain is then the data's box
    >>> clf = MondrianPartitionForestClassifier(n_estimators=10, lifetime=4.0, random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 3)
    """

    _onehot = True

    @keyword_only
    def __init__(self, n_estimators: int = 10, *, lifetime: float = 1.0, domain: str = "auto",
                 max_cells: float = MAX_PARTITION_CELLS, random_state=None, n_jobs: int | None = None):  # fmt: skip
        self.n_estimators = n_estimators
        self.lifetime = lifetime
        self.domain = domain
        self.max_cells = max_cells
        self.random_state = random_state
        self.n_jobs = n_jobs

    @property
    def _n_outputs(self) -> int:
        return len(self.classes_)

    def _empty_value(self) -> float:
        return 1.0 / len(self.classes_)

    def fit(self, X, y, sample_weight=None):
        """Draw the forest's partitions where the data lie, and the label counts of every cell.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training inputs.
        y : array-like of shape (n_samples,)
            The class labels.
        {sample_weight}

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter or the data is invalid, or if X is outside [0, 1]^d with ``domain="unit"`` (the estimator
            is then left as it was).
        """
        self._check_params()
        lifetime = float(self.lifetime)  # a number: the classifier has no adaptive lifetime
        with unchanged_on_failure(self):
            X, y = validate_data(self, X, y, dtype=np.float64, order="C")
            check_classification_targets(y)
            self.classes_, encoded = np.unique(y, return_inverse=True)
            X, encoded, w = self._weighed(writeable(X), encoded.astype(np.float64), sample_weight)
            lower, upper = self._domain(X)
            streams = tree_streams(self.random_state, self.n_estimators + 1)[:-1]  # the regressor's tree streams
            self._grow(X, encoded, w, lifetime, lower, upper, streams)
        return self

    def predict_proba(self, X, lifetime: float | None = None) -> np.ndarray:
        """Predict class probabilities with the forest pruned at a lifetime.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        lifetime : float, default=None
            At most the fitted lifetime; None: the fitted lifetime.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probabilities, columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        return self._nested(X, self._one_lifetime(lifetime))[0]

    def predict(self, X, lifetime: float | None = None) -> np.ndarray:
        """Predict the class of each row with the forest pruned at a lifetime.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        lifetime : float, default=None
            At most the fitted lifetime; None: the fitted lifetime.

        Returns
        -------
        ndarray of shape (n_samples,)
            The label of largest probability (the first of ``classes_`` on ties).
        """
        proba = self.predict_proba(X, lifetime)  # first: raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]
