"""The predictions protocol growing a forest a few trees at a time (``trees_per_fit``): the groups' trees are the
forest's number, each group has its own seed, the prediction is the groups' average weighted by their trees, and at
most one fitted group is held at a time."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import GridSearchCV

from experiments.config import compose
from experiments.data import load_dataset
from experiments.protocols.predictions import run, tree_groups


@pytest.fixture(scope="module")
def diabetes():
    return load_dataset(compose(["dataset=diabetes"]).dataset)


def test_groups_share_the_trees_and_have_their_own_seeds():
    groups = list(tree_groups(RandomForestRegressor(10, random_state=3), 4))
    assert [g.n_estimators for g, _ in groups] == [4, 4, 2]
    assert [share for _, share in groups] == [0.4, 0.4, 0.2]
    assert len({g.random_state for g, _ in groups}) == 3
    again = [g.random_state for g, _ in tree_groups(RandomForestRegressor(10, random_state=3), 4)]
    assert again == [g.random_state for g, _ in groups]  # seeded by the forest's seed
    search = GridSearchCV(RandomForestRegressor(10, random_state=3), {"max_features": [0.5, 1.0]})
    assert [g.estimator.n_estimators for g, _ in tree_groups(search, 5)] == [5, 5]
    whole = RandomForestRegressor(10, random_state=3)
    assert list(tree_groups(whole, 10)) == [(whole, 1.0)] and list(tree_groups(whole, None)) == [(whole, 1.0)]


def test_the_prediction_is_the_groups_average(diabetes):
    model = lambda: RandomForestRegressor(10, random_state=3)  # noqa: E731
    result = run(model, diabetes, seed=0, trees_per_fit=4)
    expected = sum(
        share * g.fit(diabetes.X_train, diabetes.y_train).predict(diabetes.X_test)
        for g, share in tree_groups(model(), 4)
    )
    assert result.summary["rmse"] == pytest.approx(np.sqrt(np.mean((expected - diabetes.y_test) ** 2)))
    table = result.tables["predictions"]
    np.testing.assert_allclose(np.sort(table["prediction"]), np.sort(expected))
    whole = run(model, diabetes, seed=0)
    fitted = model().fit(diabetes.X_train, diabetes.y_train).predict(diabetes.X_test)
    assert whole.summary["rmse"] == pytest.approx(np.sqrt(np.mean((fitted - diabetes.y_test) ** 2)))
    with pytest.raises(ValueError, match="trees_per_fit"):
        run(model, diabetes, seed=0, trees_per_fit=0)


class CountsFitted(RandomForestRegressor):
    """A forest that counts the fitted copies alive."""

    alive, most = 0, 0

    def fit(self, X, y):
        super().fit(X, y)
        type(self).alive += 1
        type(self).most = max(type(self).most, type(self).alive)
        self._counted = True
        return self

    def __del__(self):
        if getattr(self, "_counted", False):
            type(self).alive -= 1


def test_one_fitted_group_at_a_time(diabetes):
    CountsFitted.alive = CountsFitted.most = 0
    run(lambda: CountsFitted(9, random_state=0), diabetes, seed=0, trees_per_fit=3)
    assert CountsFitted.most == 1
    kept = [g.fit(diabetes.X_train, diabetes.y_train) for g, _ in tree_groups(CountsFitted(9, random_state=0), 3)]
    assert CountsFitted.most == len(kept)  # the count sees copies held together
