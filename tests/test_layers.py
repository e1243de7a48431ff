"""The layers: the library (``mondrian``) never imports the harness (``experiments``), its docstrings' Examples import
only the library and its base dependencies, and the harness uses the library's public API only (no module of
``mondrian`` whose name starts with an underscore, no underscore name)."""

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


@pytest.mark.parametrize("path", sorted((ROOT / "mondrian").glob("*.py")), ids=lambda p: p.name)
def test_the_library_imports_no_harness(path):
    assert not [m for m, _ in imports(path) if m.split(".")[0] == "experiments"]


# What `pip install mondrian-forests` brings (pyproject.toml's dependencies), by import name, and the standard library.
BASE = {"mondrian", "numpy", "numba", "sklearn", "scipy", "joblib", *sys.stdlib_module_names}


@pytest.mark.parametrize("path", sorted((ROOT / "mondrian").glob("*.py")), ids=lambda p: p.name)
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
