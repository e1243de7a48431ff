"""Sphinx configuration: the user guide and the API reference generated from the library's docstrings.

Built offline by ``make docs`` with warnings as errors; numpydoc validates every docstring it renders, so a public
class, function or method without a proper numpydoc docstring fails the build.
"""

import inspect
import pkgutil
from pathlib import Path

from sphinx.util import logging

import mondrian

project = "mondrian-forests"
author = "the mondrian-forests developers"
copyright = "the mondrian-forests developers, BSD-3-Clause"
version = release = mondrian.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc"]
templates_path = ["_templates"]
exclude_patterns = ["_build", "_templates"]
root_doc = "index"
nitpicky = True  # a reference that does not resolve (a See Also entry, a :class: role) fails the build

# -- the API reference -----------------------------------------------------------------------------------------------
autosummary_generate = True
autosummary_ignore_module_all = (
    False  # a module's __all__ is its public API (mondrian.bsp.hull's kernel helpers are not)
)
autodoc_typehints = "none"  # the types are in the docstrings' Parameters and Returns
autodoc_preserve_defaults = True  # signatures show defaults as written (np.inf, not inf)
autodoc_member_order = "bysource"
add_module_names = False

numpydoc_show_class_members = False  # the class template lists the methods (those of the library only)
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True
# Every check but three: a one-line summary is enough for a short method or property (ES01); See Also and Examples
# are written for the estimators and the module-level functions, not required of every method (SA01, EX01).
numpydoc_validation_checks = {"all", "ES01", "SA01", "EX01"}

html_theme = "furo"
html_title = f"mondrian-forests {release}"
html_static_path = []
html_show_sourcelink = False

logger = logging.getLogger(__name__)
DOCS = Path(__file__).parent


def public_modules() -> list[str]:
    """The library's public modules: those whose name does not start with an underscore."""
    return sorted(
        f"mondrian.{info.name}" for info in pkgutil.iter_modules(mondrian.__path__) if not info.name.startswith("_")
    )


def library_methods() -> dict[str, list[str]]:
    """For each public class, its public methods and properties defined in the library (not those it inherits from
    scikit-learn, nor the fitted attributes, whose names end with an underscore: the Attributes section lists them)."""
    listed = {}
    for module_name in public_modules():
        module = __import__(module_name, fromlist=["_"])
        for name, cls in vars(module).items():
            if name.startswith("_") or not inspect.isclass(cls) or cls.__module__ != module_name:
                continue
            listed[f"{module_name}.{name}"] = [
                member for member in dir(cls) if not member.startswith("_") and not member.endswith("_")
                and defined_here(cls, member)
            ]  # fmt: skip
    return listed


def defined_here(cls, name: str) -> bool:
    """Whether ``cls.name`` is defined by a class of the library (rather than scikit-learn or Python)."""
    owner = next((klass for klass in cls.__mro__ if name in vars(klass)), None)
    return owner is not None and owner.__module__.split(".")[0] == "mondrian" and not _generated(vars(owner)[name])


def _generated(member) -> bool:
    """scikit-learn's metadata-routing methods (``set_*_request``), which it adds to every estimator class."""
    return type(member).__module__.startswith("sklearn")


autosummary_context = {"library_methods": library_methods()}


def skip_member(app, what, name, obj, skip, options):
    """Document the library's own members only: not scikit-learn's, nor the fitted attributes (Attributes)."""
    if what == "class":
        function = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj  # property, classmethod
        if name.endswith("_") or getattr(function, "__module__", "").split(".")[0] != "mondrian":
            return True
    return skip


def check_coverage(app):
    """Every public module is in the reference (api.rst), and every name the package or a public module exports is
    defined in a public module (so that it has a page)."""
    listed = (DOCS / "api.rst").read_text()
    documented = public_modules()
    for module_name in documented:
        if f"   {module_name}\n" not in listed:
            logger.warning(f"{module_name} is a public module missing from docs/api.rst")
    for module_name in ["mondrian", *documented]:
        module = __import__(module_name, fromlist=["_"])
        for name in getattr(module, "__all__", []):
            home = getattr(getattr(module, name), "__module__", None)
            if home not in documented:
                logger.warning(f"{module_name}.{name} is defined in {home}, which the reference does not document")


def setup(app):
    app.connect("autodoc-skip-member", skip_member)
    app.connect("builder-inited", check_coverage)
