"""Config composition, grids and trial identity."""

import pytest

from experiments.config import compose, grid_overrides, override_value
from experiments.reproduce import figure_trials
from experiments.trial import trial_config, trial_hash, trial_name


def test_grid_mapping_is_a_cartesian_product():
    combos = grid_overrides({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(combos) == 6
    assert ["a=1", "b=x"] in combos and ["a=2", "b=z"] in combos


def test_grid_list_is_a_union_of_products():
    combos = grid_overrides([{"a": [1, 2]}, {"a": [3], "b": [0.5]}])
    assert combos == [["a=1"], ["a=2"], ["a=3", "b=0.5"]]


def test_override_values_use_hydra_grammar():
    assert override_value([[0.1, 0.2], [1, 2]]) == "[[0.1,0.2],[1,2]]"
    assert override_value(True) == "true"
    assert override_value(None) == "null"


def test_trial_config_drops_removed_groups_and_resolves_seed():
    trial = trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "seed=7"]))
    assert set(trial) == {"protocol", "seed"}
    trial = trial_config(compose(["dataset=moons", "seed=3"]))
    assert trial["dataset"]["load"]["seed"] == 3
    assert trial["model"]["estimator"]["random_state"] == 3


def test_trial_hash_ignores_n_jobs_and_int_float_spelling():
    a = trial_config(compose(["protocol=leaf_count", "protocol.run.lifetime=2"]))
    b = trial_config(compose(["protocol=leaf_count", "protocol.run.lifetime=2.0", "model.estimator.n_jobs=4"]))
    assert trial_hash(a) == trial_hash(b)
    c = trial_config(compose(["protocol=leaf_count", "protocol.run.lifetime=3"]))
    assert trial_hash(a) != trial_hash(c)


@pytest.mark.parametrize(
    "overrides, name",
    [
        (["dataset=moons", "model=mondrian_classifier", "seed=2"], "moons/MF/seed=2"),
        (
            ["~dataset", "~model", "protocol=leaf_count", "protocol.run.dim=3"],
            "leaf_count(dim=3,lifetime=2.0,replicates=1000)/seed=0",
        ),
    ],
)
def test_run_names_are_readable(overrides, name):
    assert trial_name(trial_config(compose(overrides))) == name


@pytest.mark.parametrize("figure_id", ["bsp-table1", "bsp-fig8"])
def test_figure_trials_compose_each_seed_as_its_own_grid_point_would(figure_id):
    """figure_trials composes a grid point once for all its seeds: the trials are those of one compose per point."""
    cfg = compose([f"figure={figure_id}", "profile=quick"])
    fixed = list(cfg.figure.get("trials", []))
    one_by_one = [
        trial_config(compose([*fixed, "seed=0", *point])) for point in grid_overrides(cfg.figure.profiles.quick.grid)
    ]
    trials = figure_trials(cfg, ["seed=0"])
    assert trials == one_by_one
    assert len({t["seed"] for t in trials}) == 2 and trials[0] != trials[1]


def test_figure_trials_keep_the_default_seed_where_a_grid_point_sets_none(monkeypatch):
    """A grid point without a seed of its own has the composed seed, whatever seed a point before it set."""
    cfg = compose(["figure=bsp-fig8", "profile=quick"])
    cfg.figure.profiles.quick.grid = [{"seed": [5]}, {}]  # the second point: no override at all
    first, second = figure_trials(cfg, ["seed=2"])
    assert first["seed"] == 5 and second["seed"] == 2
