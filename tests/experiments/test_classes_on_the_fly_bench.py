"""experiments.bench.classes_on_the_fly's protocol on a small stream: on the fly, each row is predicted over the
labels seen before it (a new label's first row has probability 0, the stream's first row none at all), and where
the law does not count the classes (MF's empirical leaves) the other rows are predicted as with the classes up
front."""

import numpy as np

from experiments.bench.classes_on_the_fly import on_the_fly, scores, up_front
from mondrian import MondrianForestClassifier


def test_on_the_fly_predicts_over_the_labels_seen_before_each_row():
    rng = np.random.default_rng(0)
    X = rng.random((80, 2))
    y = (X[:, 0] > 0.5).astype(np.int64) + 2 * (np.arange(80) >= 40) * (X[:, 1] > 0.5)
    firsts = np.unique(y, return_index=True)[1]
    make = lambda: MondrianForestClassifier(n_estimators=3, smoothing="empirical", random_state=0)  # noqa: E731
    fly, given = on_the_fly(make, X, y, 4), up_front(make, X, y, 4)
    assert (fly[0] == 0.0).all()
    assert (fly[firsts, y[firsts]] == 0.0).all()
    later = np.setdiff1d(np.arange(80), firsts)
    np.testing.assert_allclose(fly[later], given[later], rtol=0, atol=1e-15)
    accuracy, loss, later_loss = scores(fly, y)
    assert loss > later_loss and 0.0 <= accuracy <= 1.0
    assert np.isclose(loss * 80, later_loss * (80 - len(firsts)) + len(firsts) * -np.log(1e-15))
