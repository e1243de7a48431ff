"""Config composition, the figure configs' schema, grids and trial identity."""

import re

import pytest
import yaml

from experiments import config, figure_catalog
from experiments.config import compose, grid_overrides, override_value
from experiments.figure_catalog import figure_ids
from experiments.figure_schema import FigureConfigError, FigureSpec
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


@pytest.mark.parametrize("figure_id", figure_ids())
def test_every_committed_figure_config_holds_to_the_schema(figure_id):
    spec = figure_catalog.figure_spec(figure_id)
    assert isinstance(spec, FigureSpec) and spec.id == figure_id
    assert figure_id in compose([f"figure={figure_id}"]).figure.id  # composing checks it too


def _written(tmp_path, monkeypatch, change) -> None:
    """theory-leaves' config changed by ``change`` (a function of its parsed yaml), as the only figure config."""
    written = yaml.safe_load((config.CONF_DIR / "figure" / "theory-leaves.yaml").read_text())
    change(written)
    (tmp_path / "figure").mkdir()
    (tmp_path / "figure" / "theory-leaves.yaml").write_text(yaml.safe_dump(written))
    monkeypatch.setattr(figure_catalog, "CONF_DIR", tmp_path)


@pytest.mark.parametrize(
    "change, error",
    [
        (lambda c: c.update(colour="red"), "unknown key colour (the keys: id, module, category"),
        (lambda c: c["profiles"]["quick"].update(gird={}), "unknown key profiles.quick.gird (the keys: grid,"),
        (lambda c: c["readings"][0].update(extra="d"), "unknown key readings[1].extra (the keys: text, run, why)"),
        (lambda c: c.pop("module"), "missing required key module"),
        (lambda c: c["profiles"]["paper"].pop("grid"), "missing required key profiles.paper.grid"),
        (lambda c: c["unspecified"][1].pop("why"), "missing required key unspecified[2].why"),
        (lambda c: c.update(subject=3), "subject must be a non-empty string, not 3"),
        (lambda c: c.update(trials="protocol=leaf_count"), "trials must be list[str], not 'protocol=leaf_count'"),
        (lambda c: c["readings"][0].update(run=10), "readings[1].run must be a non-empty string, not 10"),
        (lambda c: c["unspecified"][0].update(why=" "), "unspecified[1].why must be a non-empty string, not ' '"),
        (lambda c: c.update(unspecified={"setting": "a"}), "unspecified must be list[Unspecified], not {"),
        (lambda c: c.update(explanations={"key": 1}), "explanations.key must be a non-empty string, not 1"),
        (lambda c: c["profiles"]["quick"].update(early_fraction="x"), "profiles.quick.early_fraction must be float"),
        (lambda c: c.update(category="essay"), "category must be one of paper experiment, theorem check, study"),
    ],
)
def test_a_bad_figure_config_is_one_clear_error_naming_the_file_and_the_key(change, error, tmp_path, monkeypatch):
    _written(tmp_path, monkeypatch, change)
    with pytest.raises(FigureConfigError, match=re.escape(f"theory-leaves.yaml: {error}")) as raised:
        figure_catalog.figure_spec("theory-leaves")
    assert len(str(raised.value).splitlines()) == 1


def test_every_bad_key_of_a_figure_config_is_a_line_of_its_error(tmp_path, monkeypatch):
    _written(tmp_path, monkeypatch, lambda c: c.update(colour="red", subject="", module=None))
    with pytest.raises(FigureConfigError) as raised:
        figure_catalog.figure_spec("theory-leaves")
    assert str(raised.value).splitlines() == [
        "theory-leaves.yaml: unknown key colour (the keys: id, module, category, subject, profiles, trials, "
        "unspecified, readings, explanations)",
        "theory-leaves.yaml: module must be a non-empty string, not None",
        "theory-leaves.yaml: subject must be a non-empty string, not ''",
    ]


def test_a_composed_figure_config_is_checked():
    with pytest.raises(FigureConfigError, match=re.escape("conf/figure/theory-leaves.yaml: unknown key colour")):
        compose(["figure=theory-leaves", "+figure.colour=red"])
    cfg = compose(["figure=theory-leaves"])
    cfg.figure.profiles.quick.grid = 3
    with pytest.raises(FigureConfigError, match=re.escape("theory-leaves.yaml: profiles.quick.grid must be")):
        config.check_figure(cfg, "theory-leaves")


def test_the_command_line_checks_the_chosen_figure_config(tmp_path, monkeypatch):
    assert config.check_figure_configs(["figure=theory-leaves", "profile=quick"]) is None
    (tmp_path / "figure").mkdir()
    (tmp_path / "figure" / "theory-leaves.yaml").write_text(yaml.safe_dump({"id": "theory-leaves", "colour": "red"}))
    monkeypatch.setattr(config, "CONF_DIR", tmp_path)
    error = config.check_figure_configs(["figure=theory-leaves"])
    assert error.splitlines()[0] == (
        "conf/figure/theory-leaves.yaml: unknown key colour (the keys: id, module, category, subject, profiles, "
        "trials, unspecified, readings, explanations)"
    )
    assert "conf/figure/theory-leaves.yaml: missing required key module" in error.splitlines()
