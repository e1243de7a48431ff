"""The layers: the library (``mondrian``) never imports the harness (``experiments``), its docstrings' Examples import
only the library and its base dependencies, and the harness uses the library's public API only (no module of
``mondrian`` whose name starts with an underscore, no underscore name). The import graph of the whole project, every
import statement's (those inside functions too), has no cycle, and no harness module imports from a layer above its
own (HARNESS_LAYERS, bottom first)."""

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every import in the file; name is "" for ``import module``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "mondrian").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_imports_no_harness(path):
    assert not [m for m, _ in imports(path) if m.split(".")[0] == "experiments"]


# What `pip install mondrian-forests` brings (pyproject.toml's dependencies), by import name, and the standard library.
BASE = {"mondrian", "numpy", "numba", "sklearn", "scipy", "joblib", *sys.stdlib_module_names}


@pytest.mark.parametrize("path", sorted((ROOT / "mondrian").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docstring_examples_import_only_the_library_and_its_base_dependencies(path):
    """make test runs the Examples (--doctest-modules) where the harness is installed too; a user of the wheel has only
    the base dependencies, which is all an Example may import."""
    imported = re.findall(r"^\s*>>> (?:from|import) ([A-Za-z_][\w.]*)", path.read_text(), flags=re.MULTILINE)
    assert not {name.split(".")[0] for name in imported} - BASE


@pytest.mark.parametrize("path", sorted((ROOT / "experiments").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_harness_uses_the_librarys_public_api_only(path):
    private = [
        (module, name)
        for module, name in imports(path)
        if module.split(".")[0] == "mondrian"
        and (any(part.startswith("_") for part in module.split(".")) or name.startswith("_"))
    ]
    assert not private, f"{path.relative_to(ROOT)} imports {private}: make what it needs public in mondrian"


# The import graph of the whole project: module -> the project's modules it imports (every import statement, those
# inside functions too; relative imports resolved; ``from package import submodule`` is an edge to the submodule).
PACKAGES = ("mondrian", "experiments")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imported_modules(name: str, path: Path) -> set[str]:
    """The project's modules that the module ``name`` (file ``path``) imports: for ``from a.b import c``, ``a.b.c``
    when it is a module, else ``a.b``; a module not in the project (numpy, ...) is left out."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    found = set()
    for target in targets:
        while target and target not in MODULES:  # `import a.b.c` of a name a.b.c that is no module: its module
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


GRAPH = {name: imported_modules(name, path) for name, path in MODULES.items()}


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph (its modules, the first repeated at the end), or [] when it has none."""
    done, path = set(), []

    def visit(module: str) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        path.append(module)
        for target in sorted(graph[module]):
            if found := visit(target):
                return found
        path.pop()
        done.add(module)
        return []

    for module in sorted(graph):
        if found := visit(module):
            return found
    return []


def test_a_cycle_is_found():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_library_has_no_import_cycle():
    """Between the library's modules: its families' packages (``mondrian.bsp``, whose __init__ holds the family's
    estimators) and their modules; the top package ``mondrian``, which re-exports the estimators, left out."""
    submodules = {m for m in MODULES if m.startswith("mondrian.")}
    found = cycle({m: GRAPH[m] & submodules for m in submodules})
    assert not found, f"import cycle in the library: {' -> '.join(found)}"


def test_the_harness_has_no_import_cycle():
    harness = {m for m in MODULES if m.split(".")[0] == "experiments"}
    found = cycle({m: GRAPH[m] & harness for m in harness})
    assert not found, f"import cycle in the harness: {' -> '.join(found)}"


# The harness's layers, bottom first: a module imports from its own layer or those below it, never from one above. A
# pattern names a module, or with ``.*`` every module of a package (its __init__ too); the most specific one decides.
HARNESS_LAYERS = {
    "catalog": (
        "experiments",
        "experiments.config",
        "experiments.figure_schema",
        "experiments.figure_catalog",
        "experiments.verdicts",
        "experiments.explanations",
        "experiments.provenance",
        "experiments.environment",
        "experiments.progress",
        "experiments.locks",
        "experiments.peak_memory",
        "experiments.baselines",
        "experiments.ui_addresses",
    ),
    "data": ("experiments.data.*", "experiments.warm_up"),
    "run record": ("experiments.run_record",),
    "protocols": ("experiments.protocols.*",),
    "trials": (
        "experiments.trial",
        "experiments.store",
        "experiments.launchers",
        "experiments.tracking",
        "experiments.run_view",
        "experiments.leases",
        "experiments.sweep",
        "experiments.evidence_files",
    ),
    "figures": ("experiments.figures.*",),
    "figure runs": ("experiments.reproduce", "experiments.regenerate"),
    "evidence and report": (
        "experiments.evidence_sources",
        "experiments.evidence_mixing",
        "experiments.evidence",
        "experiments.evidence_store",
        "experiments.report_curves",
        "experiments.report",
        "experiments.comparison",
    ),
    "commands": (
        "experiments.run",
        "experiments.ui",
        "experiments.mlflow_server",
        "experiments.commit_runs",
        "experiments.compare",
        "experiments.data.__main__",
        "experiments.bench.*",
    ),
}


def layer(module: str) -> str:
    """The harness layer of ``module`` (KeyError for a module no layer names)."""
    matches = [
        (len(pattern), name)
        for name, patterns in HARNESS_LAYERS.items()
        for pattern in patterns
        if module == pattern.removesuffix(".*") or (pattern.endswith(".*") and module.startswith(pattern[:-1]))
    ]
    if not matches:
        raise KeyError(f"{module} is in no layer of HARNESS_LAYERS (tests/test_layers.py): place it")
    return max(matches)[1]


HARNESS = sorted(m for m in MODULES if m.split(".")[0] == "experiments")


@pytest.mark.parametrize("module", HARNESS)
def test_the_harness_imports_no_higher_layer(module):
    order = list(HARNESS_LAYERS)
    own = layer(module)
    upward = [
        f"{module} (layer {own}) imports {target} (layer {layer(target)}, above it)"
        for target in sorted(GRAPH[module])
        if target.split(".")[0] == "experiments" and order.index(layer(target)) > order.index(own)
    ]
    assert not upward, "; ".join(upward)
