"""The library's design rules (issue 46), checked on the code: no class above 250 lines; no estimator family that
overrides more than 4 methods of the bases every family shares (it picks a tree family instead,
``mondrian._family``); the increasing schedule scale * n^(1/(d+2)) written once (``mondrian._schedule``), for the
Mondrian forests' lifetime and the BSP forests' budget alike."""

import ast
import importlib.util
import inspect
from pathlib import Path

import pytest

import mondrian

LIBRARY = Path(mondrian.__file__).parent
MODULES = sorted(LIBRARY.rglob("*.py"))
ESTIMATORS = [getattr(mondrian, name) for name in mondrian.__all__ if name.endswith(("Classifier", "Regressor"))]


def classes(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            yield node


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(LIBRARY.parent)))
def test_no_class_is_above_250_lines(path):
    long = {node.name: node.end_lineno - node.lineno + 1 for node in classes(path)}
    assert not {name: n for name, n in long.items() if n > 250}


def family_package(cls: type) -> str:
    """The package of an estimator's family (``mondrian.bsp`` for ``mondrian.bsp.OnlineBSPForestClassifier``)."""
    return cls.__module__


def methods(cls: type) -> set[str]:
    """The methods and properties a class defines itself (not its plain class attributes)."""
    return {name for name, value in vars(cls).items() if inspect.isfunction(value) or isinstance(value, property)}


def overridden(estimator: type) -> set[str]:
    """The methods of the shared bases (the library's classes outside the estimator's family package) that the
    family's own classes (the estimator and its family's private bases) define again."""
    library = [c for c in estimator.__mro__ if c.__module__.split(".")[0] == "mondrian"]
    own = [c for c in library if c.__module__.startswith(family_package(estimator))]
    shared = set().union(*(methods(c) for c in library if c not in own))
    return {name for c in own for name in methods(c) & shared if name != "__init__"}


def test_the_overrides_are_counted():
    assert overridden(mondrian.MondrianForestClassifier)  # it checks its own parameters: some are found


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_no_estimator_family_overrides_more_than_4_methods_of_the_shared_bases(estimator):
    assert len(overridden(estimator)) <= 4, sorted(overridden(estimator))


def is_increasing_exponent(node: ast.AST) -> bool:
    """1 / (d + 2), written with any names: the exponent of the increasing schedule."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 1
        and isinstance(node.right, ast.BinOp)
        and isinstance(node.right.op, ast.Add)
        and isinstance(node.right.right, ast.Constant)
        and node.right.right.value == 2
    )


def test_the_increasing_schedule_is_written_once():
    written = [
        str(path.relative_to(LIBRARY.parent))
        for path in MODULES
        for node in ast.walk(ast.parse(path.read_text()))
        if is_increasing_exponent(node)
    ]
    assert written == ["mondrian/_schedule.py"]


def test_the_design_pages_picture_draws_the_codes_import_graph():
    """docs/guide/import-graph.png's arrows (written beside it as text) are those of the code today: after a change
    of the layers, ``python scripts/import_graph.py`` draws it again."""
    spec = importlib.util.spec_from_file_location("import_graph", LIBRARY.parent / "scripts" / "import_graph.py")
    import_graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(import_graph)
    drawn = (LIBRARY.parent / "docs" / "guide" / "import-graph.txt").read_text()
    assert drawn == import_graph.edges_text(import_graph.arrows(import_graph.layers_module()))
