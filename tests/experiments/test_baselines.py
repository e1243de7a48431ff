"""The KT label-only baseline: (n_k + 1/2) / (n + K/2), sequentially."""

import numpy as np

from experiments.baselines import KTDummyClassifier


def test_progressive_equals_one_prediction_then_one_update_at_a_time():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 3, 60)
    fast = KTDummyClassifier()
    proba = np.vstack(
        [
            fast.progressive_predict_proba(X[:20], y[:20], classes=[0, 1, 2]),
            fast.progressive_predict_proba(X[20:], y[20:]),
        ]
    )
    slow = KTDummyClassifier()
    expected = []
    for i in range(60):
        expected.append(slow.predict_proba(X[i : i + 1])[0] if i else np.full(3, 1 / 3))
        slow.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1, 2])
    np.testing.assert_allclose(proba, expected)
    np.testing.assert_array_equal(fast.counts_, slow.counts_)
    counts = np.bincount(y, minlength=3)
    np.testing.assert_allclose(slow.predict_proba(X[:1])[0], (counts + 0.5) / (60 + 1.5))
