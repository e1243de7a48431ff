"""ORF-Saffari, the online random forest of Saffari, Leistner, Santner, Godec and Bischof (2009, "On-line random
forests"), LRT14's online baseline: ``OnlineRandomForestClassifier``.

Trees grow from an empty root; every leaf keeps random candidate tests whose class statistics each new point
updates, and splits on the best one once it has seen enough points (see ``mondrian.orf._kernels``). Online bagging gives
each point a Poisson(1) weight per tree. The forest averages its trees' leaf label distributions.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import StrOptions

from mondrian._forest import Classification, OnlineForest
from mondrian._keyword_only import keyword_only
from mondrian._schedule import Schedule
from mondrian._shared_docs import shared_docs
from mondrian._validation import CLASSES, POSITIVE_INT, Interval
from mondrian.orf import _kernels as _orf
from mondrian.orf._family import OnlineRandomFamily
from mondrian.orf._tree import OnlineRandomTree as OnlineRandomTree  # its former home: imports, pickles

_FINITE_NON_NEGATIVE = Interval(Real, 0, None, closed="left")  # [0, inf)
_FINITE = Interval(Real, None, None, closed="neither")


def _is_range(value) -> bool:
    """(low, high): two finite numbers, low < high."""
    try:
        low, high = value
    except (TypeError, ValueError):
        return False
    return _FINITE.is_satisfied_by(low) and _FINITE.is_satisfied_by(high) and low < high


@shared_docs
class OnlineRandomForestClassifier(ClassifierMixin, Classification, OnlineForest):
    """Online random forest classifier, ORF-Saffari (Saffari et al., 2009), LRT14's online baseline.

    Each leaf keeps ``n_tests`` random candidate tests with the class weights each sends to either side. A test is
    x[f] <= t (``tests="axis"``: f uniform over the features, t uniform in the range of x[f]) or a random projection
    sum_j w_j x[f_j] <= t (``tests="projection"``, Saffari's reference code: ``n_projection_features`` distinct
    features, weights uniform in [-1, 1], t uniform between sum_j w_j lo_j and sum_j w_j hi_j), the range [lo, hi]
    being the leaf's (``thresholds="cell"``) or ``feature_range`` for every node (``"global"``). A leaf that has
    seen a weight >= ``min_samples_split`` since its tests were drawn, and is not at ``max_depth``, splits on its
    test of largest ``gain``: if that gain is > 0 and >= ``min_gain``, or, for ``min_gain=None`` (the reference
    code), if its labels are not all one class, whatever the gain. Its children start with the winning test's class
    weights on their side and fresh tests. Online bagging: in every pass a tree learns each point k ~ Poisson(1)
    times (``bagging``: as one update of weight k, or k updates). A tree predicts the label distribution of the leaf
    holding x (uniform before it learns anything, or in a leaf that holds no weight); the forest averages its
    trees. ``progressive_predict_proba`` learns each row (n_passes times) right after predicting it.

    The defaults are this library's first reading (axis-aligned tests in the leaf's range, the Gini gain, a
    weighted update); ``tests="projection", thresholds="global", gain="saffari", min_gain=None, bagging="repeat"``
    with ``feature_range`` the range of the features runs what Saffari's reference code runs (see the Notes).

    Parameters
    ----------
    n_estimators : int, default=100
        The number of trees: 100, as in Saffari et al.'s experiments and LRT14's.
    n_tests : int, default=10
        The candidate tests per leaf: 10, the value in Saffari's reference code (its conf/orf.conf, numRandomTests,
        shipped with dna as the example data set; LRT14 used "the values used in" Saffari et al.'s paper, whose text
        is not checked here).
    tests : {"axis", "projection"}, default="axis"
        The candidate tests: axis-aligned, or random projections on ``n_projection_features`` features (the
        reference code's hyperplane tests).
    n_projection_features : int, default=2
        The features of a projection test (distinct; all of them when there are fewer): 2, the reference code's
        numProjectionFeatures. Not read for axis-aligned tests.
    thresholds : {"cell", "global"}, default="cell"
        The range a new leaf draws its thresholds in: its own (the range of the data its parent saw on its side of
        the split, growing with what it sees; see the Notes), or the box [low, high]^d of ``feature_range`` for
        every node, as the reference code draws them in the training set's range ("global" needs
        ``feature_range``).
    gain : {"gini", "entropy", "saffari"}, default="gini"
        How a test is scored from its class weights: the decrease of the Gini impurity; the information gain in
        bits; or the reference code's score 2 (H - H_post) / (H H_split + 1e-10), H the entropy of the test's class
        weights, H_post that of its sides weighted by their shares and H_split = -2 p log2 p, p the share of the
        right side (x beyond the threshold). The reference normalises the information gain by the entropies of the
        classes and of the split as Geurts et al.'s score does, but with a product instead of a sum and a split
        entropy that counts the right side twice and the left side never; this is what it computes.
    min_samples_split : float, default=140
        The paper's alpha, the weight a leaf must see before it may split (a point learnt k times by online bagging
        counts k): 140, the reference code's counterThreshold; the paper's value is not checked here.
    min_gain : float or None, default=0.0
        The paper's beta, the least gain of a split (in ``gain``'s units), which must also be > 0: a pure leaf, or
        one whose tests separate nothing, never splits. None: no gain condition, as in the reference code (the one
        LRT14 fed their data to), which splits any leaf whose labels are not all one class once it reached the
        count, even on a test that sends every point to one side (a child then starts empty). The paper's beta is
        not known to us (0.1 would be a guess).
    max_depth : int or None, default=10
        The depth leaves stop at (root 0), or None for no limit: 10, the reference code's maxDepth (a guess for the
        paper's experiments). Leaves at max_depth keep no tests.
    n_passes : int, default=1
        Passes over each batch given to ``fit`` / ``partial_fit`` (each with fresh Poisson weights), rows in the
        order given; 1 is the streaming setting. LRT14's "20 epochs (passes through the training data)" are passes
        over the whole training set, each in a new random order, as in the reference code (which ships 10): give
        ``partial_fit`` the shuffled training set once per epoch for that.
    bagging : {"weight", "repeat"}, default="weight"
        How a tree learns a point its Poisson(1) draw gives k times: one update of weight k, or k updates of
        weight 1, as the reference code (a leaf may then split between two copies, the later ones going down to a
        child).
    feature_range : tuple of two floats or None, default=None
        (low, high), the range every feature is known to lie in before any data (as for features min-max scaled to
        [0, 1], LRT14's). Given it, the root's range starts as the box [low, high]^d and it draws its tests at once,
        as in the reference code (which reads the range from the training set), so it may split after
        min_samples_split; None: the root first learns the range of the data (see the Notes).
    {random_state}
    {n_jobs}
    {classes}

    Attributes
    ----------
    {classes_}
    {n_classes_}
    {n_features_in_}
    {feature_names_in_}
    trees_ : list of OnlineRandomTree
        The trees.
    predict_params_ : ndarray
        The parameters of the last call that learnt.

    See Also
    --------
    mondrian.forest.MondrianForestClassifier : The online Mondrian forest LRT14 compare it with.

    Notes
    -----
    Sample weights: a row's weight multiplies the Poisson counts of its online bagging (the updates' weights); the
    draws are those of the unweighted row, so a whole weight k is not k copies (each draws its own count).

    Parameters after fitting: ``thresholds``, ``gain``, ``min_samples_split``, ``min_gain``, ``n_passes``,
    ``bagging`` and ``feature_range`` may change between ``partial_fit`` calls, which validate every parameter
    before touching the model; ``n_estimators``, ``n_tests``, ``tests``, ``n_projection_features`` (of projection
    tests) and ``max_depth`` cannot ("call fit"). Predictions use the fitted trees only (set_params changes none
    until the next call that learns); ``n_jobs`` is validated at every call (it never changes results).

    Saffari's reference code (github amirsaffari/online-random-forests, its conf/orf.conf: 100 trees, 10 tests,
    2 projection features, counterThreshold 140, maxDepth 10, soft voting), read against this class:

    - The same: online bagging with Poisson(1) draws (the reference truncates them at 11), a leaf's counter of the
      weight seen since it was made, the split at counterThreshold unless the leaf is pure or at maxDepth, children
      labelled with the winning test's class weights, fresh tests drawn when a node is made, prediction by the
      average of the leaves' label distributions (uniform in a leaf that holds nothing), each epoch a pass in a new
      random order. ``tests="projection", thresholds="global", gain="saffari", min_gain=None, bagging="repeat"``
      with ``feature_range`` (low, high) run its rule.
    - Its "global" range is the training set's range of each feature; ``feature_range`` is one (low, high) for
      all features (on min-max scaled features, [0, 1]: the training set's range when the scaler was fitted on it).
      Its random numbers come from C's ``rand``, seeded by the clock, and it also estimates an out-of-bag error it
      never uses.
    - Left out, as in the reference code: the temporal knowledge weighting that discards trees by their out-of-bag
      error, which is for non-stationary streams.

    This library's defaults, where they differ from the reference code:

    - Thresholds are drawn in the range of the data the leaf has seen when the test is drawn: for a child, its
      parent's range cut at the split (the data the parent saw on that side; for a projection test, the bounding
      box of the parent's range on the child's side of the hyperplane). Without ``feature_range`` the root, made
      before any data, first learns that range: it draws its tests once it has seen a weight >=
      min_samples_split, then needs as much again to split. The reference code draws every node's thresholds in the
      global range of the training set (``thresholds="global"``), which an online learner cannot know in advance
      unless the scaling fixes it (``feature_range``); deep in a tree most such thresholds fall outside the leaf's
      cell and separate nothing there. (Tests drawn at the root's first point would share their thresholds across
      all trees, as the first point is the same for every tree.)
    - Tests are axis-aligned and scored by the Gini gain; a split needs a gain > 0 (``min_gain=0.0``), so that a
      pure leaf or one whose tests separate nothing waits for more data instead of splitting on nothing.
    - A point drawn k times by bagging is one update of weight k.

    References
    ----------
    A. Saffari, C. Leistner, J. Santner, M. Godec, H. Bischof. *On-line random forests*, Computer Vision Workshops
    (ICCV Workshops), IEEE, 2009.

    P. Geurts, D. Ernst, L. Wehenkel. *Extremely randomized trees*, Machine Learning 63, 2006 (the normalised
    information gain the reference code's score departs from).

    LRT14: B. Lakshminarayanan, D. M. Roy, Y. W. Teh. *Mondrian forests: efficient online random forests*, NeurIPS
    2014 (its online baseline, ORF-Saffari).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mondrian import OnlineRandomForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = OnlineRandomForestClassifier(n_estimators=5, min_samples_split=5, random_state=0)
    >>> clf = clf.partial_fit(X, y, classes=[0, 1, 2])
    >>> clf.predict(X[:2]).shape
    (2,)

    Saffari's reference rule, on features scaled to [0, 1]:

    >>> X01 = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    >>> reference = OnlineRandomForestClassifier(
    ...     n_estimators=5, min_samples_split=5, tests="projection", thresholds="global", gain="saffari",
    ...     min_gain=None, bagging="repeat", feature_range=(0.0, 1.0), random_state=0,
    ... ).fit(X01, y)
    >>> reference.predict_proba(X01[:1]).shape
    (1, 3)
    """

    _schedule_params: ClassVar[tuple[str, ...]] = ()  # the lifetime is inf: no parameter sets it
    _parameter_constraints: ClassVar[dict] = {
        **OnlineForest._parameter_constraints,
        "n_tests": [POSITIVE_INT],
        "tests": [StrOptions(set(_orf.TESTS))],
        "n_projection_features": [POSITIVE_INT],
        "thresholds": [StrOptions(set(_orf.THRESHOLDS))],
        "gain": [StrOptions(set(_orf.GAINS))],
        "min_samples_split": [_FINITE_NON_NEGATIVE],
        "min_gain": [_FINITE_NON_NEGATIVE, None],
        "max_depth": [POSITIVE_INT, None],
        "n_passes": [POSITIVE_INT],
        "bagging": [StrOptions(set(_orf.BAGGINGS))],
        "feature_range": ["array-like", None],  # (low, high), checked in _check_forecaster_params
        "classes": CLASSES,
    }

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 100,
        *,
        n_tests: int = 10,
        tests: str = "axis",
        n_projection_features: int = 2,
        thresholds: str = "cell",
        gain: str = "gini",
        min_samples_split: float = 140,
        min_gain: float | None = 0.0,
        max_depth: int | None = 10,
        n_passes: int = 1,
        bagging: str = "weight",
        feature_range=None,
        random_state=None,
        n_jobs=None,
        classes=None,
    ):
        self.n_estimators = n_estimators
        self.n_tests = n_tests
        self.tests = tests
        self.n_projection_features = n_projection_features
        self.thresholds = thresholds
        self.gain = gain
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.max_depth = max_depth
        self.n_passes = n_passes
        self.bagging = bagging
        self.feature_range = feature_range
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.classes = classes

    def _check_forecaster_params(self) -> Schedule:
        if self.feature_range is not None and not _is_range(self.feature_range):
            raise ValueError(
                f"feature_range must be None or (low, high) with finite low < high, got {self.feature_range!r}"
            )
        if self.thresholds == "global" and self.feature_range is None:
            raise ValueError('thresholds="global" draws thresholds in feature_range, which must then be given')
        return Schedule.fixed(np.inf)

    @property
    def _family(self) -> OnlineRandomFamily:
        return OnlineRandomFamily()
