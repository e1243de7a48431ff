"""Online Mondrian forests (LRT14, MGS17): ``MondrianForestClassifier`` and ``MondrianForestRegressor``.

Each tree is a restricted Mondrian tree MT(lifetime, data): ``fit`` samples it in batch,
``partial_fit`` extends it online point by point (same law, whatever the order or
batching). With ``lifetime="increasing"`` (MGS17) the lifetime grows with the number n of
points seen, lam_n = lifetime_scale * n^(1/(d+2)), and the tree after n points is MT(lam_n, data):
leaves keep their points so that they can split later. A classifier tree predicts with LRT14's
hierarchical (IKN) smoothing along the path, or its leaf's label distribution, or a vote for the
leaf's majority label; a regressor tree predicts its leaf's mean label, or (scikit-garden's rule) the mean labels of
the nodes on the path weighed by the probability that x separates from the tree just above each; the forest averages
its trees.
``lifetime_at(n, lifetime_scale, d)`` is the schedule lam_n:

>>> from mondrian.forest import lifetime_at
>>> round(lifetime_at(1000, 1.0, 4), 3)  # 1000 ** (1 / 6)
3.162
"""

from __future__ import annotations

import copy
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _num_samples, check_consistent_length

from mondrian import _leaf_mean, _schedule
from mondrian._family import MondrianFamily, TreeFamily
from mondrian._forest import Classification, OnlineForest, Regression
from mondrian._intervals import CentralInterval
from mondrian._keyword_only import keyword_only
from mondrian._schedule import Schedule
from mondrian._shared_docs import shared_docs
from mondrian._threads import takes_turns
from mondrian._validation import (
    CLASSES,
    INCREASING,
    MAX_NODES,
    POSITIVE_FINITE,
    POSITIVE_OR_INF,
    VOTES,
    Interval,
    check_params,
)
from mondrian.forest import _gaussian, _ikn, _path_mean
from mondrian.forest._family_points import IncreasingFamily, PausedFamily

__all__ = ["MondrianForestClassifier", "MondrianForestRegressor", "lifetime_at"]

SMOOTHINGS = ("auto", "ikn", "empirical")
PREDICTIONS = ("leaf", "path", "gaussian")  # how a regressor tree predicts
FORECASTERS = {"leaf": _leaf_mean, "path": _path_mean, "gaussian": _gaussian}  # the kernels of each rule
# How the Gaussian rule predicts x branching off above a node: the authors' code's law, or the exact one
BRANCH_LAWS = ("code", "exact")


def lifetime_at(n_points, scale, n_features):
    """Return MGS17's increasing lifetime after ``n_points`` points.

    lam_n = scale * n^(1/(d+2)), the lifetime of a ``MondrianForestClassifier`` or ``MondrianForestRegressor`` with
    ``lifetime="increasing"`` and ``lifetime_scale=scale`` after n points in d features.

    Parameters
    ----------
    n_points : int
        The number of points n learnt.
    scale : float
        The scale of the schedule (``lifetime_scale``; MGS17's experiments: 1).
    n_features : int
        The number of features d.

    Returns
    -------
    float
        The lifetime lam_n (0 before any point).

    See Also
    --------
    MondrianForestClassifier : Its ``lifetime="increasing"`` follows this schedule.

    Notes
    -----
    MGS17 show the forest consistent when lam_n grows to infinity with lam_n^d / n going to 0; with lam_n of order
    n^(1/(d+2)) its quadratic risk reaches the minimax rate over Lipschitz conditional probabilities (or regression
    functions), n^(-2/(d+2)).

    Examples
    --------
    >>> from mondrian.forest import lifetime_at
    >>> round(lifetime_at(4096, 1.0, 4), 3)  # 4096 ** (1 / 6)
    4.0
    """
    return _schedule.lifetime_at(n_points, scale, n_features)


class _MondrianForest(OnlineForest):
    _parameter_constraints: ClassVar[dict] = {
        **OnlineForest._parameter_constraints,
        "lifetime": [POSITIVE_OR_INF, StrOptions({INCREASING})],
        # checked with a fixed lifetime too: a value that means nothing is an error, not silently ignored
        "lifetime_scale": [POSITIVE_FINITE],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "max_nodes": MAX_NODES,
    }

    def __init__(
        self,
        n_estimators: int = 10,
        *,
        lifetime: float | str = np.inf,
        lifetime_scale: float = 1.0,
        min_samples_split: int = 2,
        random_state=None,
        n_jobs=None,
        max_nodes: int | None = None,
    ):
        self.n_estimators = n_estimators
        self.lifetime = lifetime
        self.lifetime_scale = lifetime_scale
        self.min_samples_split = min_samples_split
        self.max_nodes = max_nodes
        self.random_state = random_state
        self.n_jobs = n_jobs

    @property
    def _increasing(self) -> bool:
        return isinstance(self.lifetime, str) and self.lifetime == INCREASING

    def _check_forecaster_params(self):
        if self.max_nodes is not None and self._increasing:
            raise ValueError(
                f"max_nodes={self.max_nodes} needs a fixed lifetime: the increasing lifetime splits its leaves from "
                "their points as it grows, which a bound would stop"
            )
        split = self.min_samples_split
        if not self._increasing:
            if split != 2:
                raise ValueError(
                    f"min_samples_split={split} applies to lifetime='increasing' only; with a fixed lifetime it must "
                    "be 2 (every block that can be split is)"
                )
            assert not isinstance(self.lifetime, str)  # a number: the constraints (checked before) allow no other str
            return Schedule.fixed(self.lifetime)
        return Schedule.growing(self.lifetime_scale, split)

    def _mondrian_family(
        self, forecaster, params, paused: bool = False, attributes: dict | None = None, labels=None
    ) -> TreeFamily:
        """Trees learnt by ``forecaster``'s kernels (``params`` their parameters), keeping their points with the
        increasing lifetime or LRT14's paused blocks; ``attributes``: what the forest tells of them once fitted;
        ``labels``: what it keeps of the labels (``MondrianFamily``)."""
        family: type[MondrianFamily]
        if self._increasing:
            family = IncreasingFamily
        else:
            family = PausedFamily if paused else MondrianFamily
        return family(forecaster, params, attributes=attributes, labels=labels)


def _ikn_params(forest) -> np.ndarray:
    """IKN's discount rate gamma (None: 10 * n_features, LRT14's choice)."""
    return _ikn.kernel_params(10.0 * forest.n_features_in_ if forest.gamma is None else forest.gamma)


def _vote_params(forest) -> np.ndarray:
    """The leaf mean's parameters: a classifier's vote."""
    return _leaf_mean.kernel_params(forest.vote == "hard")


def _mean_params(forest) -> np.ndarray:
    """The leaf mean's parameters for a regressor (no vote)."""
    return _leaf_mean.kernel_params()


@shared_docs
class MondrianForestClassifier(ClassifierMixin, Classification, _MondrianForest):
    """Online Mondrian forest classifier (LRT14; MGS17's increasing lifetime).

    Each tree is a Mondrian tree restricted to the range of its data, MT(lifetime, data): ``fit`` samples it in
    batch, ``partial_fit`` extends it point by point (the same law, whatever the order or batching). A tree predicts
    with LRT14's hierarchical smoothing along the path of x (IKN), or its leaf's label distribution, or a vote for the
    leaf's majority label; the forest averages its trees.

    Parameters
    ----------
    {n_estimators}
    lifetime : float or "increasing", default=np.inf
        The Mondrian lifetime lambda: a positive float, ``np.inf`` (LRT14's experiments: a tree grows until no leaf
        can be split, one distinct point per leaf, or one label per leaf with ``pausing``), or ``"increasing"``
        (MGS17): lam_n = ``lifetime_scale`` * n^(1/(d+2)) after n points in d features, leaves keeping their points
        so that they can split as the lifetime grows.
    {lifetime_scale}
    {min_samples_split}
    smoothing : {"auto", "ikn", "empirical"}, default="auto"
        How a tree predicts. ``"ikn"``: LRT14's prediction, the posterior mean of a hierarchical normalized stable
        process with interpolated Kneser-Ney smoothing along the path, averaged analytically over the extensions of
        the tree to a point outside the data ranges. ``"empirical"``: the label distribution of the leaf.
        ``"auto"``: ``"ikn"`` with a fixed lifetime and soft votes, else ``"empirical"`` (the increasing lifetime and
        the hard vote work with the leaves' labels).
    gamma : float or None, default=None
        The discount rate of the IKN smoothing, d_j = exp(-gamma (tau_j - tau_parent)). None: 10 * n_features
        (LRT14's choice); ``np.inf``: no smoothing inside the data ranges. Read with IKN smoothing only.
    pausing : bool, default=True
        With IKN smoothing, LRT14's paused blocks: a block whose labels are all the same is not split, a new point
        joins a paused leaf, and a leaf that gets a second label is sampled again from its points (the forest keeps
        every point it learns). False: every leaf is split down to one distinct point (lifetime inf).
    vote : {"soft", "hard"}, default="soft"
        ``"soft"``: a tree gives its label distribution; ``"hard"``: a tree votes for its leaf's most frequent label
        (MGS17's majority vote). May change at any time with smoothing ``"empirical"`` (predictions read it); trees
        fitted with IKN smoothing refuse ``"hard"``.
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
        The trees, with their node statistics (label counts) and random streams.
    smoothing_ : str
        The smoothing the trees keep statistics for (``"ikn"`` or ``"empirical"``).
    pausing_ : bool
        Whether the trees pause pure blocks.
    points_ : object
        Every point learnt (rows ``points_.X``, encoded labels ``points_.y``, ``points_.n`` of them), kept when the
        trees revisit past points: with paused blocks or the increasing lifetime.
    {lifetime_scale_}
    {predict_params_}

    See Also
    --------
    MondrianForestRegressor : The same trees for regression.
    mondrian.amf.AMFClassifier : Aggregation over the prunings of each tree (AMF).
    mondrian.tree.sample_mondrian : A Mondrian partition of a box, independent of any data.

    Notes
    -----
    Sample weights: with the empirical smoothing and a fixed lifetime, a row's weight multiplies its count in the
    leaves (a whole weight k: the trees of k copies, bit for bit). IKN's counts are customers of a restaurant and the
    increasing lifetime counts points: there a whole weight k is learnt as k copies of the row and a fractional
    weight is refused.

    Predictions use the state of the last ``fit`` / ``partial_fit`` (the trees, their lifetime, the smoothing and
    ``gamma``), so that ``set_params`` changes no prediction until the next call that learns, which validates every
    parameter before touching the model (a failed call leaves it as it was). ``partial_fit`` refuses a change of
    ``n_estimators``, ``lifetime`` (with its ``lifetime_scale`` and ``min_samples_split``), ``smoothing`` or
    ``pausing`` ("call fit"). Only ``vote`` (see above) and ``n_jobs`` (validated at every call, never changing
    results) are read live by predictions.

    References
    ----------
    {LRT14}

    {MGS17}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mondrian import MondrianForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = MondrianForestClassifier(n_estimators=5, random_state=0)
    >>> clf = clf.partial_fit(X[::2], y[::2], classes=[0, 1, 2])  # the first call names every class
    >>> clf = clf.partial_fit(X[1::2], y[1::2])  # the trees are extended, never grown again
    >>> clf.predict_proba(X[:2]).shape
    (2, 3)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_MondrianForest._parameter_constraints,
        "smoothing": [StrOptions(set(SMOOTHINGS))],
        "gamma": [POSITIVE_OR_INF, None],  # a positive rate, inf allowed (no smoothing inside the data ranges)
        "pausing": ["boolean"],
        "vote": [StrOptions(set(VOTES))],
        "classes": CLASSES,
    }

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        lifetime: float | str = np.inf,
        lifetime_scale: float = 1.0,
        min_samples_split: int = 2,
        smoothing: str = "auto",
        gamma: float | None = None,
        pausing: bool = True,
        vote: str = "soft",
        random_state=None,
        n_jobs=None,
        classes=None,
        max_nodes: int | None = None,
    ):
        super().__init__(
            n_estimators,
            lifetime=lifetime,
            lifetime_scale=lifetime_scale,
            min_samples_split=min_samples_split,
            max_nodes=max_nodes,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        self.smoothing = smoothing
        self.gamma = gamma
        self.pausing = pausing
        self.vote = vote
        self.classes = classes

    def _paused(self) -> bool:
        return bool(self.pausing) and self._smoothing == "ikn"

    @property
    def _smoothing(self) -> str:
        if self.smoothing != "auto":
            return self.smoothing
        return "empirical" if self._increasing or self.vote == "hard" else "ikn"

    @property
    def _family(self) -> TreeFamily:
        # the smoothing the trees were started with (partial_fit checks it is unchanged), or the parameters' before
        # any (fit starts afresh); the trees then tell it in smoothing_ and pausing_
        smoothing = self.__dict__.get("smoothing_", self._smoothing)
        attributes = {"smoothing_": smoothing, "pausing_": self._paused()}
        if smoothing == "ikn":
            return self._mondrian_family(_ikn, _ikn_params, self._paused(), attributes)
        return self._mondrian_family(_leaf_mean, _vote_params, attributes=attributes)

    def _predict_params(self) -> np.ndarray:
        """The vote may change after fit: it is checked here. IKN trees (gamma fixed at fit) give soft votes only."""
        check_params(self, "vote")
        if self.smoothing_ == "ikn":
            if self.vote == "hard":
                raise ValueError(
                    'vote="hard" needs the leaves\' label counts, but these trees were fitted with smoothing "ikn" '
                    '(soft votes only): set vote="soft", or fit again with smoothing="empirical"'
                )
            return self.predict_params_
        return _leaf_mean.kernel_params(self.vote == "hard")

    def _check_forecaster_params(self):
        if self.smoothing == "ikn" and (self._increasing or self.vote == "hard"):
            raise ValueError(
                'smoothing="ikn" predicts with LRT14\'s hierarchical smoothing, for a fixed lifetime and soft votes; '
                f'use smoothing="empirical" with lifetime={self.lifetime!r} and vote={self.vote!r}'
            )
        return super()._check_forecaster_params()

    def _check_unchanged(self, schedule) -> None:
        super()._check_unchanged(schedule)
        # IKN keeps counts at internal nodes that the leaf mean does not; paused trees keep their points
        started = (self.smoothing_, self.pausing_)
        if (self._smoothing, self._paused()) != started:
            raise ValueError(
                f"smoothing={self.smoothing!r}, vote={self.vote!r}, pausing={self.pausing!r} make trees of smoothing "
                f"{self._smoothing!r} and pausing {self._paused()}, but these trees were grown with smoothing "
                f"{started[0]!r} and pausing {started[1]}: set those parameters back, or call fit"
            )


@shared_docs
class MondrianForestRegressor(CentralInterval, RegressorMixin, Regression, _MondrianForest):
    """Online Mondrian forest regressor (LRT14; MGS17's increasing lifetime).

    The trees of ``MondrianForestClassifier``; a tree predicts the mean label of x's leaf, or (``prediction="path"``,
    scikit-garden's rule) the mean labels of the nodes on x's path weighed by the probability that x separates from
    the tree just above each; the forest averages its trees.

    Parameters
    ----------
    {n_estimators}
    lifetime : float or "increasing", default=np.inf
        The Mondrian lifetime lambda: a positive float, ``np.inf`` (a tree grows until every leaf holds one
        distinct point), or ``"increasing"`` (MGS17): lam_n = ``lifetime_scale`` * n^(1/(d+2)) after n points in d
        features.
    {lifetime_scale}
    {min_samples_split}
    prediction : {"leaf", "path", "gaussian"}, default="leaf"
        How a tree predicts at x. ``"leaf"``: the mean label of x's leaf. ``"path"``: the rule of scikit-garden's
        ``MondrianTreeRegressor`` (BSP's "MF" baseline): node j of x's path predicts the mean label of all the points
        below it, weighed by P(x not separated above j) * p_j, p_j = 1 - exp(-eta_j Delta_j) the probability that an
        extension of the tree to x splits just above j (eta_j how far x lies outside j's data range, Delta_j =
        tau_j - tau_parent(j)); the leaf takes the weight left. Both give the leaf mean when x lies inside its leaf's
        range. ``"gaussian"``: LRT16's predictive distribution (see Notes), whose mean ``predict`` gives and whose
        standard deviation and intervals ``predict(X, return_std=True)`` and ``predict_interval`` give. The trees
        are the same whatever the rule: it may change at any time (predictions read it).
    {random_state}
    {n_jobs}
    {max_nodes}
    prior_mean : float or None, default=None
        LRT16's m, the prior mean of the root's mean (``prediction="gaussian"``). None: the mean of the labels
        learnt.
    prior_variance : float or None, default=None
        LRT16's sigma_mu^2, the scale of the node means' prior variances (``prediction="gaussian"``). None: 2 v K /
        (K + 2), v the variance of the n labels learnt (1 while it is 0) and K = min(2n, 500), the authors' code's
        setting (a leaf's prior variance is about v with an infinite lifetime).
    noise_variance : float or None, default=None
        LRT16's sigma_y^2, the variance of a label around its leaf's mean (``prediction="gaussian"``). None: v / K,
        the authors' code's setting.
    gamma : float or None, default=None
        LRT16's gamma, the rate of the sigmoid of the split times in the prior variances (``prediction="gaussian"``).
        None: d / (2 log2 n) for n labels in d features (n at least 2), the authors' code's setting.
    branch_law : {"code", "exact"}, default="code"
        How the Gaussian rule predicts x when an extension of a tree to x branches off above node j of its path, at
        the expected time t. ``"code"``: the authors' code's law, node j's posterior with the variance
        s(t) - s(tau_parent(j)) added; far from the data x branches off near the root, where t and the added
        variance vanish, so its std falls back to the root's posterior's (plus noise). ``"exact"`` (this library's
        reading): the exact law of x's new leaf given t, below a new node inserted at t (the data below j heard
        through the Brownian motion), whose std far from the data is the prior's.

    Attributes
    ----------
    {n_features_in_}
    {feature_names_in_}
    trees_ : list of MondrianTree
        The trees, with their node statistics (label sums) and random streams.
    points_ : object
        Every point learnt (rows ``points_.X``, labels ``points_.y``), kept with the increasing lifetime only.
    {lifetime_scale_}
    {predict_params_}
    label_moments_ : ndarray of shape (3,)
        The weight n, mean m and sum of squared deviations n v of the labels learnt (the Gaussian rule's defaults).

    See Also
    --------
    MondrianForestClassifier : The same trees for classification, with every parameter described.
    mondrian.amf.AMFRegressor : Aggregation over the prunings of each tree (AMF).
    mondrian.partition.MondrianPartitionForestRegressor : Purely random Mondrian partitions (MGS20).

    Notes
    -----
    Sample weights: with a fixed lifetime, a row's weight multiplies its count and label sum in the leaves (a whole
    weight k: the trees of k copies, bit for bit); the increasing lifetime counts points: there a whole weight k is
    learnt as k copies of the row and a fractional weight is refused.

    As the classifier's, predictions use the fitted state: only ``prediction``, ``n_jobs`` and the Gaussian rule's
    ``prior_mean``, ``prior_variance``, ``noise_variance``, ``gamma`` and ``branch_law`` are read (and validated) by
    them. With ``prediction="gaussian"`` labels must lie within +-1e150 (the labels' variance squares them).
    ``partial_fit`` refuses a change of ``n_estimators`` or ``lifetime`` (with its ``lifetime_scale`` and
    ``min_samples_split``): "call fit".

    The path rule is the classifier's IKN walk (``smoothing="ikn"``, ``gamma=np.inf``: the same weights) with node
    means. Nodes keep the label sums of their leaves only (the leaf rule needs no more), so a prediction sums the
    leaves below the nodes it weighs, children first (the same floats whatever the batch, ``n_jobs`` or call): the
    subtree of the highest node on x's path whose range does not hold x, mostly a few nodes near the leaf, the whole
    tree for x outside the root's range. A batch keeps its sums once it has summed as many nodes as the tree holds,
    so that it costs at most the tree's size in sums plus O(depth) per point (scratch of 32 bytes per node of a tree,
    for the call: the model keeps nothing more); ``progressive_predict`` keeps them from point to point. What differs
    from scikit-garden: its trees are learnt in float32, a batch ``fit`` there leaves a block whose labels are all
    equal unsplit, and every point of a ``partial_fit`` call draws from the same random state (here each tree keeps
    one stream); its ``return_std`` (the spread of the trees' leaf means) is another quantity than this
    ``return_std``.

    The Gaussian rule (LRT16): the node means of a tree follow a Brownian motion in the time s(t) = sigma_mu^2 *
    sigmoid(gamma t) of its split times (the root's mean N(m, s(tau_root) - s(0)), a child's N(its parent's mean,
    s(tau_j) - s(tau_parent))), a label is N(its leaf's mean, sigma_y^2), and each node's posterior is exact Gaussian
    belief propagation over the tree. A tree's predictive at x mixes, over the nodes j of x's path, the law of a new
    node inserted above j (x branching off there with the path rule's weight) and the posterior of x's leaf with the
    weight left, each plus sigma_y^2: the new node's law adds s(t) - s(tau_parent(j)) to j's posterior, t the expected
    branching time, so that the std grows as x leaves the data (``branch_law="exact"``: x's new leaf's exact law
    given t, whose std grows out to the prior's far from the data; ``mondrian.forest._gaussian`` has the formulas).
    The forest's predictive is the mixture of its trees' and ``predict_interval`` its Gaussian approximation, mean
    -/+ z * std. LRT16's text is not reachable offline: the formulas and defaults are those of the authors' code
    (balajiln/mondrianforest, ``optype=real``), which runs an infinite lifetime only; here any lifetime. m, the
    labels' variance and their number are learnt exactly as in batch (``label_moments_``), so that ``fit``,
    ``partial_fit`` in any chunks and ``learn_one`` give the same floats. ``progressive_predict`` runs the Gaussian
    rule one row at a time (predict, then partial_fit).

    References
    ----------
    {LRT14}

    {MGS17}

    LRT16: B. Lakshminarayanan, D. M. Roy, Y. W. Teh. *Mondrian forests for large-scale regression when uncertainty
    matters*, AISTATS 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian import MondrianForestRegressor
    >>> X = np.random.default_rng(0).uniform(size=(300, 2))
    >>> y = np.sin(6 * X[:, 0])
    >>> reg = MondrianForestRegressor(n_estimators=5, lifetime="increasing", random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.8)
    True
    >>> X_new = np.random.default_rng(1).uniform(size=(100, 2))
    >>> reg = reg.set_params(prediction="path")  # the same trees, scikit-garden's rule
    >>> bool(reg.score(X_new, np.sin(6 * X_new[:, 0])) > 0.8)
    True

    LRT16's predictive distribution: its standard deviation grows away from the data, and so do its intervals.

    >>> reg = MondrianForestRegressor(n_estimators=5, prediction="gaussian", branch_law="exact", random_state=0)
    >>> mean, std = reg.fit(X, y).predict([[0.5, 0.5], [3.0, 3.0]], return_std=True)
    >>> bool(std[1] > std[0])
    True
    >>> reg.predict_interval([[0.5, 0.5]], alpha=0.1).shape  # [lower, upper] of the central 90% interval
    (1, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        **_MondrianForest._parameter_constraints,
        "prediction": [StrOptions(set(PREDICTIONS))],
        "prior_mean": [Interval(Real, None, None, closed="neither"), None],
        "prior_variance": [POSITIVE_FINITE, None],
        "noise_variance": [POSITIVE_FINITE, None],
        "gamma": [POSITIVE_FINITE, None],
        "branch_law": [StrOptions(set(BRANCH_LAWS))],
    }

    label_moments_: np.ndarray  # (weight, mean, sum of squared deviations) of the labels learnt
    _no_predictive_distribution = (
        " with prediction={prediction!r}: call set_params(prediction='gaussian') (the same trees, no refit)"
    )

    @property
    def _max_label(self) -> float:  # type: ignore[override]  # Regression's class attribute, per rule here
        """The largest |label| learnt: the Gaussian rule squares labels (their variance), so 1e150 with it."""
        return _gaussian.MAX_LABEL if self.prediction == "gaussian" else Regression._max_label

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        lifetime: float | str = np.inf,
        lifetime_scale: float = 1.0,
        min_samples_split: int = 2,
        prediction: str = "leaf",
        random_state=None,
        n_jobs=None,
        max_nodes: int | None = None,
        prior_mean: float | None = None,
        prior_variance: float | None = None,
        noise_variance: float | None = None,
        gamma: float | None = None,
        branch_law: str = "code",
    ):
        super().__init__(
            n_estimators,
            lifetime=lifetime,
            lifetime_scale=lifetime_scale,
            min_samples_split=min_samples_split,
            max_nodes=max_nodes,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        self.prediction = prediction
        self.prior_mean = prior_mean
        self.prior_variance = prior_variance
        self.noise_variance = noise_variance
        self.gamma = gamma
        self.branch_law = branch_law

    @property
    def _family(self) -> TreeFamily:
        # the rule in force (checked before it is read: _check_params, _predict_params); every rule learns with the
        # leaf mean's kernels, so the trees are the same, and keeps the labels' moments (the Gaussian rule's m and
        # sigma_mu^2), so that the rule may change after fit
        return self._mondrian_family(FORECASTERS[self.prediction], _mean_params, labels=_gaussian.learn_label_moments)

    def _predict_params(self) -> np.ndarray:
        """``prediction`` may change after fit: it is checked here (every rule reads the same trees); so are the
        Gaussian rule's hyperparameters, read at each prediction (``_gaussian.forest_params``)."""
        check_params(self, "prediction")
        if self.prediction != "gaussian":
            return self.predict_params_
        check_params(self, "prior_mean", "prior_variance", "noise_variance", "gamma", "branch_law")
        return _gaussian.forest_params(self)

    @takes_turns
    def progressive_predict(self, X, y) -> np.ndarray:
        """Predict each row from the rows before it, then learn it (progressive validation).

        As ``Regression.progressive_predict``. With ``prediction="gaussian"`` a row is predicted as ``predict``
        predicts it on one row, then learnt as ``partial_fit`` learns one row (the tables of the Gaussian posterior
        are made again for each row: a tree's size per row); a failure leaves the model as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows, in the order they arrive.
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        ndarray of shape (n_samples,)
            Row i's prediction by the model that has learnt the rows before it (0 for the first row of an unfitted
            model).
        """
        check_params(self, "prediction")
        if self.prediction != "gaussian":
            return super().progressive_predict(X, y)
        check_consistent_length(X, y)
        saved = copy.deepcopy(self.__dict__)
        try:
            out = np.zeros(_num_samples(X))
            for i in range(out.shape[0]):
                row = slice(i, i + 1)
                if hasattr(self, "trees_"):
                    out[i] = self._mean_prediction(_safe_indexing(X, row))[0, 0]
                self.partial_fit(_safe_indexing(X, row), _safe_indexing(y, row))
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return out
