"""Online BSP forests (Fan, Li and Sisson 2020): ``OnlineBSPForestClassifier`` and ``OnlineBSPForestRegressor``.

Each tree is a binary space partitioning tree of the data's convex hull: a cut is an oblique line in a pair of features,
its cost exponential with rate ``rate_scale`` times the sum over pairs of the perimeters of the block's projected hulls
(the paper's experiments: half of it), and a block is cut only while it holds more than 3 points. Points arrive one at a
time (Algorithm 4); with ``budget="increasing"`` the budget after n points is tau_n = budget_scale * n^(1/(d+2)), the
paper's schedule. Leaves keep their points (a leaf is cut again, with the current budget, when a point joins it: from
scratch as the text prints it, or on from its budget, ``leaf_sampling``). A classifier tree predicts its leaf's label
distribution (``vote="soft"``) or a vote for its majority label (``"hard"``, the paper's); a regressor tree its leaf's
mean; the forest averages. A point anywhere in the space goes down the cuts' sides. With one feature, points are placed
on a line of the plane (a zero second coordinate): a segment's perimeter is twice its length, the 1-D case of the
paper's Lemma 2.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import StrOptions

from mondrian._forest import Classification, OnlineForest, Regression
from mondrian._keyword_only import keyword_only
from mondrian._schedule import Schedule
from mondrian._shared_docs import shared_docs
from mondrian._threads import takes_turns
from mondrian._validation import CLASSES, INCREASING, POSITIVE_FINITE, VOTES
from mondrian.bsp import _family as _bsp_family
from mondrian.bsp._family import LEAF_SAMPLINGS, BSPFamily
from mondrian.bsp._tree import BSPTree as BSPTree  # its former home: imports, pickles


def dimension_pairs(n_features: int) -> np.ndarray:
    """Return the pairs of features a BSP tree cuts in.

    Parameters
    ----------
    n_features : int
        The number of features d.

    Returns
    -------
    ndarray of shape (d (d - 1) / 2, 2)
        The pairs (d1, d2), d1 < d2, in lexicographic order (int64): a forest's ``pairs_``.

    Examples
    --------
    >>> from mondrian.bsp import dimension_pairs
    >>> dimension_pairs(3).tolist()
    [[0, 1], [0, 2], [1, 2]]
    """
    return _bsp_family.dimension_pairs(n_features)


class _OnlineBSPForest(OnlineForest):
    _schedule_params: ClassVar[tuple[str, ...]] = ("budget", "budget_scale")
    _parameter_constraints: ClassVar[dict] = {
        **OnlineForest._parameter_constraints,
        "budget": [POSITIVE_FINITE, StrOptions({INCREASING})],
        # checked with a fixed budget too: a value that means nothing is an error, not silently ignored
        "budget_scale": [POSITIVE_FINITE],
        "rate_scale": [POSITIVE_FINITE],
        "leaf_sampling": [StrOptions(set(LEAF_SAMPLINGS))],
    }

    @keyword_only  # the regressor's __init__
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        budget: float | str = INCREASING,
        budget_scale: float = 1.0,
        rate_scale: float = 0.5,
        leaf_sampling: str = "text",
        random_state=None,
        n_jobs=None,
    ):
        self.n_estimators = n_estimators
        self.budget = budget
        self.budget_scale = budget_scale
        self.rate_scale = rate_scale
        self.leaf_sampling = leaf_sampling
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_forecaster_params(self) -> Schedule:
        if isinstance(self.budget, str) and self.budget == INCREASING:
            return Schedule.growing(self.budget_scale)
        assert not isinstance(self.budget, str)  # a number: the constraints (checked before) allow no other string
        return Schedule.fixed(self.budget)

    @takes_turns
    def n_leaves(self) -> np.ndarray:
        """Return the number of leaves of each tree.

        Returns
        -------
        ndarray of shape (n_estimators,)
            The leaves per tree.
        """
        return np.array([tree.n_leaves for tree in self.trees_])


@shared_docs
class OnlineBSPForestClassifier(ClassifierMixin, Classification, _OnlineBSPForest):
    """Online binary space partitioning forest classifier (BSP).

    Each tree is a binary space partitioning tree of the data's convex hull: a cut is an oblique line in a pair of
    features, its cost exponential with rate ``rate_scale`` times the sum over pairs of the perimeters of the block's
    projected hulls, and a block is cut only while it holds more than 3 points. Points arrive one at a time (the
    paper's Algorithm 4); leaves keep their points. A tree predicts its leaf's label distribution, or a vote for its
    majority label; the forest averages.

    Parameters
    ----------
    n_estimators : int, default=10
        The number of trees (the paper's experiments: 100).
    {budget}
    {budget_scale}
    {rate_scale}
    leaf_sampling : {"text", "law"}, default="text"
        How a leaf of more than 3 points reached by a new point is sampled. ``"text"``: again from scratch by HullCut
        with the current budget, as Algorithm 4 prints it (lines 4-5); a cut, once drawn, stays, so cuts pile up as
        points arrive and trees grow far deeper than the batch process at the same budget. ``"law"``: on from the
        budget it was sampled to, after a cut separating the point may have gone above it (the update under which a
        tree keeps the law of the batch process whatever the arrival order, as the paper's Theorem states). The
        default follows the measurements in the Notes.
    vote : {"soft", "hard"}, default="soft"
        ``"soft"`` averages the trees' leaf label distributions; ``"hard"`` counts a vote for each tree's majority
        label (the paper's).
    {random_state}
    {n_jobs}
    {classes}

    Attributes
    ----------
    {classes_}
    {n_classes_}
    {n_features_in_}
    {feature_names_in_}
    trees_ : list of BSPTree
        The trees.
    pairs_ : ndarray of shape (n_pairs, 2)
        The pairs of features cut in (``dimension_pairs``; with one feature, the pair of it and a zero coordinate).
    points_ : object
        Every point learnt, once for all trees (rows ``points_.X``, encoded labels ``points_.y``).
    predict_params_ : ndarray
        The vote fixed by the last call that learnt.

    See Also
    --------
    OnlineBSPForestRegressor : The same trees for regression.
    mondrian.forest.MondrianForestClassifier : Axis-aligned Mondrian cuts, with the same increasing schedule.
    mondrian.bsp.hull : The planar geometry of the cuts.

    Notes
    -----
    {weights_bsp}

    Measurements behind the default ``leaf_sampling``: 20 trees, 4 seeds, tau_n = n^(1/(d+2)) (n^(1/4) on the
    toy), "text" against "law":

    ==========================================  ================  ================  ============
    task                                        text              law               cost ratio
    ==========================================  ================  ================  ============
    sine toy (BSP Fig. 5), N = 5000, RMSE       0.104 (736 lvs)   0.651 (62 lvs)    1.4
    Friedman d = 5, N = 2000, RMSE              1.380 (1016 lvs)  1.363 (999 lvs)   1.0
    satimage, PCA 4, 2552 rows, accuracy        0.874 (761 lvs)   0.864 (275 lvs)   1.1
    letter, PCA 4, 5000 rows, accuracy          0.563 (1734 lvs)  0.526 (709 lvs)   1.2
    ==========================================  ================  ================  ============

    (lvs: leaves per tree; cost: fit time, text / law). The text's rule is as accurate or more at a cost of at most
    1.4 times the time, and it is what the paper ran.

    Parameters after fitting: ``rate_scale``, ``leaf_sampling`` and ``vote`` may change between ``partial_fit`` calls,
    which validate every parameter before touching the model (a failed call leaves it, its point store included,
    as it was); predictions use the vote of the last ``fit`` / ``partial_fit``, so that ``set_params`` changes no
    prediction until the next call that learns. ``n_estimators``, ``budget`` and (with the increasing budget)
    ``budget_scale`` cannot change in ``partial_fit`` ("call fit"); ``budget_scale`` must be a positive finite number
    whatever the budget. ``n_jobs`` is validated at every call (it never changes results).

    References
    ----------
    {BSP}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mondrian import OnlineBSPForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = OnlineBSPForestClassifier(n_estimators=5, random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    >>> bool(clf.score(X, y) > 0.9)
    True
    >>> bool(clf.n_leaves().min() > 1)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_OnlineBSPForest._parameter_constraints,
        "vote": [StrOptions(set(VOTES))],
        "classes": CLASSES,
    }

    @keyword_only
    def __init__(
        self,
        n_estimators: int = 10,
        *,
        budget: float | str = INCREASING,
        budget_scale: float = 1.0,
        rate_scale: float = 0.5,
        leaf_sampling: str = "text",
        vote: str = "soft",
        random_state=None,
        n_jobs=None,
        classes=None,
    ):
        super().__init__(
            n_estimators,
            budget=budget,
            budget_scale=budget_scale,
            rate_scale=rate_scale,
            leaf_sampling=leaf_sampling,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        self.vote = vote
        self.classes = classes

    @property
    def _family(self) -> BSPFamily:
        return BSPFamily(hard_vote=self.vote == "hard")


@shared_docs
class OnlineBSPForestRegressor(RegressorMixin, Regression, _OnlineBSPForest):
    """Online binary space partitioning forest regressor (BSP).

    The trees of ``OnlineBSPForestClassifier``; a leaf predicts the mean label of its points, and the forest
    averages its trees.

    Parameters
    ----------
    n_estimators : int, default=10
        The number of trees (the paper's experiments: 100).
    {budget}
    {budget_scale}
    {rate_scale}
    leaf_sampling : {"text", "law"}, default="text"
        How a leaf reached by a new point is sampled: as Algorithm 4 prints it, or on from its budget (see
        ``OnlineBSPForestClassifier``).
    {random_state}
    {n_jobs}

    Attributes
    ----------
    {n_features_in_}
    {feature_names_in_}
    trees_ : list of BSPTree
        The trees.
    pairs_ : ndarray of shape (n_pairs, 2)
        The pairs of features cut in.
    points_ : object
        Every point learnt, once for all trees (rows ``points_.X``, labels ``points_.y``).
    predict_params_ : ndarray
        The parameters fixed by the last call that learnt.

    See Also
    --------
    OnlineBSPForestClassifier : The same trees for classification, with every parameter described.
    mondrian.forest.MondrianForestRegressor : Axis-aligned Mondrian cuts, with the same increasing schedule.

    Notes
    -----
    {weights_bsp}

    As the classifier's, ``rate_scale`` and ``leaf_sampling`` may change between ``partial_fit`` calls;
    ``n_estimators``, ``budget`` and (with the increasing budget) ``budget_scale`` cannot ("call fit").

    References
    ----------
    {BSP}

    Examples
    --------
    >>> import numpy as np
    >>> from mondrian import OnlineBSPForestRegressor
    >>> X = np.random.default_rng(0).uniform(size=(200, 2))
    >>> reg = OnlineBSPForestRegressor(n_estimators=5, random_state=0).fit(X, X[:, 0] - X[:, 1])
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    @property
    def _family(self) -> BSPFamily:
        return BSPFamily()
