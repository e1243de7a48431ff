"""The numpydoc paragraphs the estimators share are written once (mondrian._shared_docs) and composed in whole."""

import re
import textwrap

import pytest

import mondrian
from mondrian._shared_docs import PARAGRAPHS, shared_docs

ESTIMATORS = [getattr(mondrian, name) for name in mondrian.__all__ if name.endswith(("Classifier", "Regressor"))]


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_docstrings_are_whole(Estimator):
    assert not re.search(r"^ *\{\w+\}$", Estimator.__doc__, re.MULTILINE)


def _docs(cls) -> list[str]:
    """The class's docstring and its public methods' (a learning call's parameters, indented one level more)."""
    methods = [getattr(cls, name).__doc__ or "" for name in dir(cls) if not name.startswith("_")]
    return [cls.__doc__, *(textwrap.dedent("    " + doc) for doc in methods)]


def test_every_paragraph_is_shared():
    for name, paragraph in PARAGRAPHS.items():
        place = textwrap.indent(paragraph, "    ") + "\n"
        uses = [cls.__name__ for cls in ESTIMATORS if any(place in doc for doc in _docs(cls))]
        assert len(uses) >= 2, (name, uses)


def test_a_paragraph_goes_in_at_the_indentation_of_its_line():
    class Documented:
        """Summary.

        Parameters
        ----------
        {n_jobs}
        """

    assert shared_docs(Documented).__doc__.splitlines()[4:6] == [
        "        n_jobs : int or None, default=None",
        "            Threads over trees (None: 1, -1: all cores). It never changes the results.",
    ]


def test_an_unknown_paragraph_is_refused():
    class Documented:
        """Summary.

        {no_such_paragraph}
        """

    with pytest.raises(KeyError, match="no_such_paragraph"):
        shared_docs(Documented)
