"""ORF-Saffari, the online random forest of Saffari, Leistner, Santner, Godec and Bischof (2009, "On-line random
forests"), LRT14's online baseline: ``OnlineRandomForestClassifier``.

Trees grow from an empty root; every leaf keeps random candidate tests whose class statistics each new point
updates, and splits on the best one once it has seen enough points (see ``mondrian._orf``). Online bagging gives
each point a Poisson(1) weight per tree. The forest averages its trees' leaf label distributions.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin

from mondrian import _orf
from mondrian._forest import Classification, OnlineForest
from mondrian._nodes import TreeArrays, empty_tree
from mondrian._validation import CLASSES, POSITIVE_INT, Interval
from mondrian.tree import MondrianTree

_FINITE_NON_NEGATIVE = Interval(Real, 0, None, closed="left")  # [0, inf)
_FINITE = Interval(Real, None, None, closed="neither")


def _is_range(value) -> bool:
    """(low, high): two finite numbers, low < high."""
    try:
        low, high = value
    except (TypeError, ValueError):
        return False
    return _FINITE.is_satisfied_by(low) and _FINITE.is_satisfied_by(high) and low < high


class OnlineRandomTree(MondrianTree):
    """One tree of ``OnlineRandomForestClassifier``.

    A ``MondrianTree`` whose node arrays have boxes of zero width (its splits are tests, not Mondrian cuts) and
    whose statistics hold, per node, the label counts, and per leaf that can still split its range and candidate
    tests. The kernels grow the arrays themselves: ``reserve`` is not used.

    Parameters
    ----------
    n_features : int
        The number of features.
    n_classes : int
        The number of classes.
    n_tests : int
        The candidate tests per leaf.
    max_depth : int or None
        The depth leaves stop at (which leaves keep tests depends on it).
    rng : numpy.random.Generator
        The tree's random stream.
    dtype : numpy dtype, default=np.float64
        The precision of the thresholds and ranges.

    Attributes
    ----------
    nodes : TreeArrays
        The node arrays (see ``MondrianTree``).
    stats : LeafStats
        Label counts per node, ranges and candidate tests per leaf.
    rng : numpy.random.Generator
        The tree's random stream.
    max_depth : int or None
        As given.
    """

    def __init__(self, n_features: int, n_classes: int, n_tests: int, max_depth: int | None, rng, dtype=np.float64):
        super().__init__(empty_tree(0, dtype=dtype), rng, np.inf)
        self.stats = _orf.empty_stats(n_features, n_classes, n_tests, dtype)
        self.max_depth = max_depth

    @property
    def n_tests(self) -> int:
        """The number of candidate tests per leaf."""
        return self.stats.test_feature.shape[1]

    def __getstate__(self):
        n = max(self.n_nodes, 1)
        state = dict(self.__dict__)
        per_node = (name for name in TreeArrays._fields if name not in ("n_nodes", "root"))
        state["nodes"] = self.nodes._replace(**{name: getattr(self.nodes, name)[:n].copy() for name in per_node})
        state["stats"] = _orf.trimmed_stats(self.stats, n)
        return state


class OnlineRandomForestClassifier(ClassifierMixin, Classification, OnlineForest):
    """Online random forest classifier, ORF-Saffari (Saffari et al., 2009), LRT14's online baseline.

    Each leaf keeps ``n_tests`` random tests x[f] <= t (f uniform over the features, t uniform in the leaf's range of
    x[f]) with the class weights each sends to either side. A leaf splits on its test of largest Gini gain once it
    has seen a weight >= ``min_samples_split`` since its tests were drawn and that gain is > 0 and >= ``min_gain``,
    unless it sits at ``max_depth``; its children start with the winning test's class weights on their side and
    fresh tests. Online bagging: in every pass a tree learns each point with a Poisson(1) weight. A tree predicts the
    label distribution of the leaf holding x (uniform before it learns anything); the forest averages its trees.
    ``progressive_predict_proba`` learns each row (n_passes times) right after predicting it.

    Parameters
    ----------
    n_estimators : int, default=100
        The number of trees: 100, as in Saffari et al.'s experiments and LRT14's.
    n_tests : int, default=10
        The candidate tests per leaf: 10, the value in Saffari's reference code (its conf/orf.conf, numRandomTests,
        shipped with dna as the example data set; LRT14 used "the values used in" Saffari et al.'s paper, whose text
        is not checked here).
    min_samples_split : float, default=140
        The paper's alpha, the weight a leaf must see before it may split (a point learnt k times by online bagging
        counts k): 140, the reference code's counterThreshold; the paper's value is not checked here.
    min_gain : float, default=0.0
        The paper's beta, the least Gini gain of a split. 0.0: the reference code (the one LRT14 fed their data to)
        has no such threshold, it splits any impure leaf that reached the count; the paper's beta is not known to us
        (0.1 would be a guess). A zero gain (a pure leaf, or no test separating its points) never splits.
    max_depth : int or None, default=10
        The depth leaves stop at (root 0), or None for no limit: 10, the reference code's maxDepth (a guess for the
        paper's experiments). Leaves at max_depth keep no tests.
    n_passes : int, default=1
        Passes over each batch given to ``fit`` / ``partial_fit`` (each with fresh Poisson weights), rows in the
        order given; 1 is the streaming setting. LRT14's "20 epochs (passes through the training data)" are passes
        over the whole training set, each in a new random order, as in the reference code (which ships 10): give
        ``partial_fit`` the shuffled training set once per epoch for that.
    feature_range : tuple of two floats or None, default=None
        (low, high), the range every feature is known to lie in before any data (as for features min-max scaled to
        [0, 1], LRT14's). Given it, the root's range starts as the box [low, high]^d and it draws its tests at once,
        as in the reference code (which reads the range from the training set), so it may split after
        min_samples_split; None: the root first learns the range of the data (see the Notes).
    random_state : int, RandomState, Generator or None, default=None
        The seed of the trees: each tree draws from its own stream spawned from it, so that results are the same
        for every ``n_jobs``. None: fresh entropy.
    n_jobs : int or None, default=None
        Threads over trees (None: 1, -1: all cores). It never changes the results.
    classes : array-like of shape (n_classes,) or None, default=None
        Every label the stream may hold, when known before any data: ``classes_`` is then ``np.unique(classes)``
        from the first call on, and ``learn_one`` or a first ``partial_fit`` need no ``classes=`` (one given there
        must agree). None: the first ``partial_fit`` names them; ``fit`` and ``progressive_predict_proba`` take them
        from ``y``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        The number of features seen during the first ``fit`` or ``partial_fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The names of the features, when ``X`` had string column names (a DataFrame).
    trees_ : list of OnlineRandomTree
        The trees.
    predict_params_ : ndarray
        The parameters of the last call that learnt.

    See Also
    --------
    mondrian.forest.MondrianForestClassifier : The online Mondrian forest LRT14 compare it with.

    Notes
    -----
    Parameters after fitting: ``min_samples_split``, ``min_gain``, ``n_passes`` and ``feature_range`` may change
    between ``partial_fit`` calls, which validate every parameter before touching the model; ``n_estimators``,
    ``n_tests`` and ``max_depth`` cannot ("call fit"). Predictions use the fitted trees only (set_params changes
    none until the next call that learns); ``n_jobs`` is validated at every call (it never changes results).

    Choices, and departures from Saffari's reference code:

    - Thresholds are drawn in the range of the data the leaf has seen when the test is drawn: for a child, its
      parent's range cut at the split (the data the parent saw on that side). Without ``feature_range`` the root,
      made before any data, first learns that range: it draws its tests once it has seen a weight >=
      min_samples_split, then needs as much again to split. The reference code draws every node's thresholds in the
      global range of the training set, which an online learner cannot know in advance unless the scaling fixes it
      (``feature_range``; on LRT14's min-max scaled data it is [0, 1]); a child's range, its parent's cut at the
      split, keeps its tests within its cell, as in the extremely randomised trees Saffari et al. build on. (Tests
      drawn at the root's first point would share their thresholds across all trees, as the first point is the
      same for every tree.)
    - Tests are axis-aligned, and scored by the Gini gain; the reference code uses random projections on two
      features and a normalised entropy gain.
    - A point drawn k times by bagging is one update of weight k (the reference code makes k updates, so that a
      leaf may split between two copies).
    - Children inherit the winning test's class weights as their label distribution, as in the reference code;
      their split count starts at 0.
    - Left out: the temporal knowledge weighting that discards trees by their out-of-bag error, which is for
      non-stationary streams, and the out-of-bag error estimate.

    References
    ----------
    A. Saffari, C. Leistner, J. Santner, M. Godec, H. Bischof. *On-line random forests*, Computer Vision Workshops
    (ICCV Workshops), IEEE, 2009.

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
    """

    _forecaster = _orf
    _parameter_constraints: ClassVar[dict] = {
        **OnlineForest._parameter_constraints,
        "n_tests": [POSITIVE_INT],
        "min_samples_split": [_FINITE_NON_NEGATIVE],
        "min_gain": [_FINITE_NON_NEGATIVE],
        "max_depth": [POSITIVE_INT, None],
        "n_passes": [POSITIVE_INT],
        "feature_range": ["array-like", None],  # (low, high), checked in _check_forecaster_params
        "classes": CLASSES,
    }

    def __init__(
        self,
        n_estimators: int = 100,
        n_tests: int = 10,
        min_samples_split: float = 140,
        min_gain: float = 0.0,
        max_depth: int | None = 10,
        n_passes: int = 1,
        feature_range=None,
        random_state=None,
        n_jobs=None,
        classes=None,
    ):
        self.n_estimators = n_estimators
        self.n_tests = n_tests
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.max_depth = max_depth
        self.n_passes = n_passes
        self.feature_range = feature_range
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.classes = classes

    def _check_forecaster_params(self) -> float:
        if self.feature_range is not None and not _is_range(self.feature_range):
            raise ValueError(
                f"feature_range must be None or (low, high) with finite low < high, got {self.feature_range!r}"
            )
        return np.inf

    def _kernel_params(self) -> np.ndarray:
        feature_range = None if self.feature_range is None else tuple(map(float, self.feature_range))
        return _orf.kernel_params(self.min_samples_split, self.min_gain, self.max_depth, self.n_passes, feature_range)

    def _new_trees(self, n_features: int, lifetime: float) -> list[OnlineRandomTree]:
        return [
            OnlineRandomTree(n_features, self.n_classes_, self.n_tests, self.max_depth, rng, self._dtype)
            for rng in self._tree_streams()
        ]

    def _check_unchanged(self, lifetime) -> None:
        """partial_fit extends the trees it started with: n_tests and max_depth (which leaves keep tests) too."""
        super()._check_unchanged(lifetime)
        tree = self.trees_[0]
        if (tree.n_tests, tree.max_depth) != (self.n_tests, self.max_depth):
            raise ValueError(
                f"n_tests={self.n_tests}, max_depth={self.max_depth} differ from the trees being extended "
                f"(n_tests={tree.n_tests}, max_depth={tree.max_depth}); call fit to start again"
            )

    def _learn_tree(self, tree: OnlineRandomTree, X, targets, first, params) -> None:
        tree.nodes, tree.stats = _orf.learn(tree.nodes, tree.stats, X, targets, True, np.inf, params, tree.rng)

    def _progressive_tree(self, tree: OnlineRandomTree, X, targets, first, params, prior, out) -> None:
        tree.nodes, tree.stats = _orf.progressive(
            tree.nodes, tree.stats, X, targets, True, np.inf, params, tree.rng, prior, out
        )
