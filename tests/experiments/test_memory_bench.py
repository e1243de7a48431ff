"""make bench's memory section (experiments/bench/memory.py) on our own learners, at small sizes: it measures each
size in turn, and the bound shows in what the learner keeps."""

import pytest

from experiments.bench import memory


@pytest.mark.parametrize("name", ["AMFClassifier (ours)", "MondrianForestClassifier (ours)"])
def test_measure_reports_each_size_in_turn(name):
    rows = memory.measure(name, 31, (400, 800))
    assert [row["rows"] for row in rows] == [400, 800]
    assert all(row["learner"] == name and row["max_nodes"] == 31 for row in rows)
    assert all(0.5 < row["accuracy"] <= 1.0 for row in rows)  # two classes, learnt: better than chance
    assert 0.0 <= rows[0]["peak MB"] <= rows[1]["peak MB"]  # a peak never falls
    assert rows[0]["seconds"] <= rows[1]["seconds"]


def test_the_bounded_learner_keeps_at_most_its_nodes():
    model = memory.learner("AMFClassifier (ours)", 31)
    X, y = memory.stream(2000)
    model.chunk(X, y)
    assert max(tree.n_nodes for tree in model.model.trees_) <= 31
