"""How figure modules are written: each holds its plot and its claims, reads runs through the run record's accessors,
imports shared helpers from family modules (never from another figure's module), and writes no file itself."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest
import yaml

from experiments.config import CONF_DIR
from experiments.figure_catalog import figure_ids
from experiments.figures import FigureModule

FIGURES = Path(__file__).resolve().parents[2] / "experiments" / "figures"


def figure_modules() -> dict[str, str]:
    """figure id -> the module its config names: its ``module`` key, read from the file (composing the 36 configs
    through Hydra, at import, took 12 s of the collection in each pytest process)."""
    return {
        figure_id: yaml.safe_load((CONF_DIR / "figure" / f"{figure_id}.yaml").read_text())["module"]
        for figure_id in figure_ids()
    }


MODULES = figure_modules()
OWN = {module.rsplit(".", 1)[1] for module in MODULES.values()}


def tree(module: str) -> ast.Module:
    return ast.parse((FIGURES / f"{module.rsplit('.', 1)[1]}.py").read_text())


@pytest.mark.parametrize("module", sorted(set(MODULES.values())))
def test_a_figure_module_has_plot_and_claims_and_imports_no_other_figure(module):
    parsed = tree(module)
    functions = {node.name for node in parsed.body if isinstance(node, ast.FunctionDef)}
    assert {"plot", "claims"} <= functions
    imported = set()
    for node in ast.walk(parsed):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            if node.module == "experiments.figures":
                imported |= {f"experiments.figures.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
    others = {name for name in imported if name.startswith("experiments.figures.") and name.rsplit(".", 1)[1] in OWN}
    assert others <= {module}, f"{module} imports another figure's module: {sorted(others - {module})}"


@pytest.mark.parametrize("module", sorted(set(MODULES.values())))
def test_a_figure_module_holds_to_the_figure_contract(module):
    """plot(runs, spec) -> Drawing and claims(runs, spec) -> list[Claim], as FigureModule writes them."""
    loaded = importlib.import_module(module)
    assert isinstance(loaded, FigureModule)
    for name, returns in (("plot", "Drawing"), ("claims", "list[Claim]")):
        signature = inspect.signature(getattr(loaded, name))
        assert list(signature.parameters) == ["runs", "spec"], f"{module}.{name}{signature}"
        assert signature.return_annotation == returns, f"{module}.{name}{signature}"


@pytest.mark.parametrize("path", sorted(p.name for p in FIGURES.glob("*.py")))
def test_figure_code_reads_runs_through_accessors_and_writes_no_file(path):
    parsed = ast.parse((FIGURES / path).read_text())
    attributes = {node.attr for node in ast.walk(parsed) if isinstance(node, ast.Attribute)}
    assert "trial" not in attributes, f"{path} reads run.trial: use the run record's accessors"
    writing = {"savefig", "to_csv", "write_text", "write_bytes", "to_parquet", "mkdir"}
    assert not attributes & writing, f"{path} writes a file"


# accuracy_curves says where a dataset that no run measured comes from (its file's host, its copy in the AMF wheel),
# which only the dataset catalog knows.
READS_THE_DATASET_CATALOG = {"accuracy_curves.py"}


@pytest.mark.parametrize("path", sorted(p.name for p in FIGURES.glob("*.py")))
def test_figure_code_imports_no_data_module(path):
    """What a figure needs of a run's dataset it reads through the run record (RunRecord.n_features, .signal)."""
    parsed = ast.parse((FIGURES / path).read_text())
    imported = {node.module for node in ast.walk(parsed) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {a.name for node in ast.walk(parsed) if isinstance(node, ast.Import) for a in node.names}
    data = {name for name in imported if name == "experiments.data" or name.startswith("experiments.data.")}
    assert not data or path in READS_THE_DATASET_CATALOG, f"{path} imports {sorted(data)}: read it through RunRecord"
