"""Classes learnt on the fly (issue 47): an online classifier given no ``classes`` appends each label it has not seen
to ``classes_`` (the first call's sorted, later ones in order of arrival), and its trees gain zero statistics for it.

The reference is the same model (same random_state) given every class up front: the trees are the same node for
node and their class counts the same (columns matched by label). The probabilities of the classes seen are the same
bit for bit wherever the law does not count the classes: MF's empirical leaf distribution (a leaf's counts over its
points, fixed or increasing lifetime), ORF's and BSP's leaves (the same). Where it counts them, only the trees and
counts are asserted:

* IKN smoothing (MF's default, with or without pausing) draws on a uniform base measure 1/K at the root;
* AMF's Dirichlet (KT) prior (c_k + a) / (n + K a) counts the classes, and so its aggregation weights (each node's
  cumulative log loss) do too: its weight columns differ, its counts do not;
* ORF with the reference's global thresholds: a split can leave a child without weight, which predicts the
  uniform prior 1/K (as does any empty tree: progressive validation's first row);
* (not asserted) a hard vote takes the first of ties in the order of ``classes_``, which arrival changes.
"""

import copy
import itertools
import pickle

import numpy as np
import pytest

from mondrian import AMFClassifier, MondrianForestClassifier, OnlineBSPForestClassifier, OnlineRandomForestClassifier
from tests.mondrian.estimators import ORF_REFERENCE
from tests.mondrian.model_state import assert_equal_nested, leaf_points, same_trees

LABELS = np.array(["ant", "cat", "dog", "emu"])  # sorted: the order classes given up front take


def _stream(n: int = 120, seed: int = 0):
    """Rows in [0, 1]^2 whose labels arrive late: only "dog" and "cat" in the first 30 rows, "emu" from row 40 on,
    "ant" from row 80 on (so that classes_ learnt on the fly is ["cat", "dog", "emu", "ant"], not sorted)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    y = np.where(X[:, 0] < 0.5, "cat", "dog").astype(object)
    y[40:][X[40:, 1] > 0.6] = "emu"
    y[80:][X[80:, 1] < 0.3] = "ant"
    return X, y.astype(str)


# name -> (model maker, probabilities of the seen classes the same as given up front)
CASES = {
    "mf-ikn-paused": (lambda **kw: MondrianForestClassifier(n_estimators=3, random_state=0, **kw), False),
    "mf-ikn": (lambda **kw: MondrianForestClassifier(n_estimators=3, pausing=False, random_state=0, **kw), False),
    "mf-empirical": (
        lambda **kw: MondrianForestClassifier(n_estimators=3, smoothing="empirical", random_state=0, **kw),
        True,
    ),
    "mf-empirical-lifetime": (
        lambda **kw: MondrianForestClassifier(
            n_estimators=3, lifetime=2.0, smoothing="empirical", random_state=0, **kw
        ),
        True,
    ),
    "mf-increasing": (
        lambda **kw: MondrianForestClassifier(n_estimators=3, lifetime="increasing", random_state=0, **kw),
        True,
    ),
    "amf": (lambda **kw: AMFClassifier(n_estimators=3, random_state=0, **kw), False),
    "orf": (lambda **kw: OnlineRandomForestClassifier(n_estimators=3, min_samples_split=5, random_state=0, **kw), True),
    "orf-reference": (
        lambda **kw: OnlineRandomForestClassifier(**ORF_REFERENCE, n_estimators=3, random_state=0, **kw),
        False,
    ),
    "bsp": (lambda **kw: OnlineBSPForestClassifier(n_estimators=3, random_state=0, **kw), True),
}


def _state(model) -> bytes:
    """Everything the model learnt, in one comparable value (its pickle, caches left out)."""
    return pickle.dumps({k: v for k, v in vars(model).items() if k not in ("_typed_trees", "_labels_of")})


def _counts(tree, n_classes: int) -> np.ndarray:
    """The nodes' count and class counts (columns 0 to n_classes), in every family's statistics."""
    stats = tree.stats.counts if hasattr(tree.stats, "counts") else tree.stats
    return np.asarray(stats[: tree.n_nodes, : 1 + n_classes])


def _assert_same_trees(fly, given):
    """The trees of the model that learnt its classes on the fly are those of the one given them up front: node
    arrays, random streams, point lists and (columns matched by label) class counts."""
    to_given = _columns_of(fly.classes_, given.classes_)
    columns = np.concatenate([[0], 1 + to_given])
    for a, b in zip(fly.trees_, given.trees_, strict=True):
        arrays = [{k: v for k, v in tree.arrays().items() if k != "stats"} for tree in (a, b)]
        assert_equal_nested(arrays[0], arrays[1])
        assert a.rng.bit_generator.state == b.rng.bit_generator.state
        if getattr(a, "first_point", None) is not None:
            assert_equal_nested(leaf_points(a), leaf_points(b))
        np.testing.assert_array_equal(_counts(a, fly.n_classes_), _counts(b, given.n_classes_)[:, columns])
        if hasattr(a.stats, "test_counts"):  # ORF's candidate tests: their class weights, side by side
            slots = int(a.stats.n_slots[0])
            np.testing.assert_array_equal(a.stats.test_counts[:slots], b.stats.test_counts[:slots][..., to_given])


def _columns_of(labels, classes) -> np.ndarray:
    """The column of each label in ``classes``."""
    column = {label: j for j, label in enumerate(classes.tolist())}
    return np.array([column[label] for label in labels.tolist()])


def _seen_columns(fly, given, proba_given):
    return proba_given[:, _columns_of(fly.classes_, given.classes_)]


@pytest.mark.parametrize("name", list(CASES))
def test_learnt_on_the_fly_as_given_up_front(name):
    """Learnt in blocks with no classes, against classes given to the first partial_fit: the same trees after every
    block, and the same probabilities of the classes seen where the law allows (see the module's docstring)."""
    make, same_proba = CASES[name]
    X, y = _stream()
    fly, given = make(), make()
    for start in range(0, len(y), 20):
        rows = slice(start, start + 20)
        fly.partial_fit(X[rows], y[rows])
        given.partial_fit(X[rows], y[rows], classes=LABELS)
        assert list(fly.classes_) == list(dict.fromkeys(sorted(set(y[:20])) + list(y[: start + 20])))
        _assert_same_trees(fly, given)
        if same_proba:
            np.testing.assert_array_equal(fly.predict_proba(X), _seen_columns(fly, given, given.predict_proba(X)))
    assert list(fly.classes_) == ["cat", "dog", "emu", "ant"]
    assert fly.predict_proba(X).shape == (len(y), 4)
    np.testing.assert_array_equal(fly.predict(X) == given.predict(X), True) if same_proba else None


@pytest.mark.parametrize("name", ["mf-empirical", "amf", "orf", "bsp"])
def test_progressive_learns_new_labels_as_partial_fit(name):
    """progressive_predict_proba on the fly: each call's probabilities over the classes known at its end, the trees
    those of partial_fit one row at a time."""
    make, _ = CASES[name]
    X, y = _stream()
    progressive, rows = make(), make()
    first = progressive.progressive_predict_proba(X[:50], y[:50])
    assert first.shape == (50, 3) and list(progressive.classes_) == ["cat", "dog", "emu"]
    second = progressive.progressive_predict_proba(X[50:], y[50:])
    assert second.shape == (70, 4) and list(progressive.classes_) == ["cat", "dog", "emu", "ant"]
    for i in range(len(y)):
        rows.partial_fit(X[i : i + 1], y[i : i + 1])
    _assert_same_trees(progressive, rows)


def test_learn_one_learns_string_labels_as_they_come():
    """learn_one on a fresh AMFClassifier, string labels one by one; partial_fit in blocks learns the same model
    when each new label starts a block (a block's new labels are known from its first row: AMF's losses count
    the classes)."""
    X, y = _stream()
    model = AMFClassifier(n_estimators=3, random_state=0)
    assert model.predict_proba_one(X[0]) == {}
    seen = []
    for row, label in zip(X, y.tolist(), strict=True):
        model.learn_one(row, label)
        seen += [label] if label not in seen else []
        proba = model.predict_proba_one(row)
        assert list(proba) == seen == model.classes_.tolist()
        assert abs(sum(proba.values()) - 1.0) < 1e-6
    assert model.classes_.tolist() == ["dog", "cat", "emu", "ant"]  # in order of arrival
    blocks = AMFClassifier(n_estimators=3, random_state=0)
    firsts = np.unique(y, return_index=True)[1]
    bounds = np.unique(np.concatenate([firsts, np.arange(0, len(y), 7), [len(y)]]))
    for start, end in itertools.pairwise(bounds):
        blocks.partial_fit(X[start:end], y[start:end])
    assert blocks.classes_.tolist() == model.classes_.tolist()
    same_trees(blocks, model)
    np.testing.assert_array_equal(blocks.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("make", [AMFClassifier, MondrianForestClassifier])
def test_learn_one_takes_river_bool_labels(make):
    X, _ = _stream(30)
    model = make(n_estimators=2, random_state=0)
    for i, row in enumerate(X):
        model.learn_one(dict(enumerate(row)), bool(i >= 3 and row[0] > 0.5))
    assert model.classes_.tolist() == [False, True]
    assert set(model.predict_proba_one(dict(enumerate(X[0])))) == {False, True}


def test_pickled_mid_stream_learns_new_labels_the_same():
    X, y = _stream()
    whole = AMFClassifier(n_estimators=3, random_state=0)
    for row, label in zip(X, y, strict=True):
        whole.learn_one(row, label)
    first = AMFClassifier(n_estimators=3, random_state=0)
    for row, label in zip(X[:60], y[:60], strict=True):
        first.learn_one(row, label)
    for model in (pickle.loads(pickle.dumps(first)), copy.deepcopy(first), first):
        for row, label in zip(X[60:], y[60:], strict=True):
            model.learn_one(row, label)
        assert model.classes_.tolist() == whole.classes_.tolist()
        np.testing.assert_array_equal(model.predict_proba(X), whole.predict_proba(X))


@pytest.mark.parametrize("name", ["mf-ikn-paused", "mf-increasing", "amf", "orf", "bsp"])
def test_failed_call_with_a_new_label_leaves_the_model_unchanged(name):
    """X too wide a box is refused after y was read (its new label added to classes_): the model, classes_ and
    every tree's statistics included, is as before."""
    make, _ = CASES[name]
    X, y = _stream()
    model = make()
    far = 0.6 * model._family.widest_side(model)[0]  # two such sides, one each way: too wide a box
    X[29, 0] = far
    model.partial_fit(X[:30], y[:30])
    before = _state(model)
    wide = X[30:32].copy()
    wide[:, 0] = [far, -far]
    with pytest.raises(ValueError, match="too wide a box"):
        model.partial_fit(wide, np.array(["emu", "ant"]))
    if name != "orf":  # (ORF's trees keep no box of the data learnt: one row is never too wide)
        with pytest.raises(ValueError, match="too wide a box"):
            model.learn_one(wide[1], "emu")
    assert _state(model) == before
    model.partial_fit(X[30:], y[30:])  # learns on as if nothing happened
    reference = make().partial_fit(X[:30], y[:30]).partial_fit(X[30:], y[30:])
    assert _state(model) == _state(reference)


@pytest.mark.parametrize("name", ["mf-ikn-paused", "amf", "orf", "bsp"])
def test_threads_change_nothing(name):
    make, _ = CASES[name]
    X, y = _stream()
    one, two = make(n_jobs=1), make(n_jobs=2)
    for start in range(0, len(y), 30):
        one.partial_fit(X[start : start + 30], y[start : start + 30])
        two.partial_fit(X[start : start + 30], y[start : start + 30])
    _assert_same_trees(one, two)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_given_classes_still_fix_them_and_errors_name_the_method_called():
    X, y = _stream()
    model = AMFClassifier(n_estimators=2, random_state=0, classes=["cat", "dog"])
    model.learn_one(X[0], "cat")
    with pytest.raises(ValueError, match=r"^learn_one: y contains labels not in classes_: \['emu'\]"):
        model.learn_one(X[1], "emu")
    with pytest.raises(ValueError, match=r"^partial_fit: y contains labels not in classes_: \['ant', 'emu'\]"):
        model.partial_fit(X[:3], np.array(["ant", "cat", "emu"]))
    with pytest.raises(ValueError, match=r"^progressive_predict_proba: y contains labels not in classes_"):
        model.progressive_predict_proba(X[:2], np.array(["emu", "cat"]))
    with pytest.raises(ValueError, match=r"^fit: y contains labels not in classes_"):
        model.fit(X[:2], np.array(["emu", "cat"]))
    with pytest.raises(ValueError, match=r"^progressive_predict_proba: classes=.* differs from classes_"):
        model.progressive_predict_proba(X[:2], np.array(["dog", "cat"]), classes=["cat"])
    first_call = MondrianForestClassifier(n_estimators=2, random_state=0).partial_fit(X[:5], y[:5], classes=LABELS)
    with pytest.raises(ValueError, match=r"^learn_one: y contains labels not in classes_: \['bee'\]"):
        first_call.learn_one(X[5], "bee")
    assert first_call.classes_.tolist() == LABELS.tolist()


def test_labels_of_another_kind_are_refused():
    X, _ = _stream(10)
    model = AMFClassifier(n_estimators=2, random_state=0).partial_fit(X[:4], np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match=r"^partial_fit: y contains labels \['a'\] of another type"):
        model.partial_fit(X[4:5], np.array(["a"]))
    with pytest.raises(ValueError, match="Unknown label type"):
        model.partial_fit(X[4:5], np.array([0.5]))  # a plain float y skips scikit-learn's validation
    assert model.classes_.tolist() == [0, 1]
    model.learn_one(X[5], 7)
    assert model.classes_.tolist() == [0, 1, 7]


@pytest.mark.parametrize("name", ["mf-ikn-paused", "amf", "orf", "bsp"])
def test_an_interrupt_after_the_trees_gained_new_classes_restores_them(name, monkeypatch):
    """A long call copies the trees before changing them (``_rollback_from``): interrupted just after the trees
    gained the new labels' statistics, it leaves the model as before, classes_ and statistics included."""
    make, _ = CASES[name]
    X, y = _stream()
    model = make().partial_fit(X[:30], y[:30])
    before = _state(model)

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(type(model._family), "store", interrupted)  # the call after the trees grew
    with pytest.raises(KeyboardInterrupt):
        model.partial_fit(X[30:], y[30:])  # 90 rows, "emu" and "ant" new: long enough to copy the trees first
    assert _state(model) == before
