"""Which code a run ran: the commit of the checkout, whether it had uncommitted changes, and whether two commits hold
the same code (``CODE``: the library, the harness and the configs; results and documents are not code)."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CODE = ("mondrian", "experiments", "conf")
DIRTY = "-dirty"


def git(*args: str, repo: Path = REPO) -> str:
    """A git command in ``repo`` (this checkout by default); its output, stripped (CalledProcessError with git's
    message when it fails)."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def git_commit() -> str:
    """The commit the code runs from, with -dirty when tracked files other than results differ from it, or files git
    does not ignore were added to the code (what runs write, the evidence and the figures drawn from it, is not the
    code); "unknown" outside a git checkout."""
    try:
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results")
        added = git("status", "--porcelain", "--untracked-files=all", "--", *CODE)
        return git("rev-parse", "HEAD") + (DIRTY if changed or added else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def is_clean(commit: str) -> bool:
    """A commit as git_commit gives it, of a checkout without changes."""
    return commit not in ("", "unknown") and not commit.endswith(DIRTY)


def known(commit: str) -> bool:
    """Whether this clone has the clean ``commit`` (one made on another machine may not be fetched yet)."""
    try:
        git("cat-file", "-e", f"{commit}^{{commit}}")
    except subprocess.CalledProcessError:
        return False
    return True


def code_trees(commit: str) -> dict[str, str]:
    """The git tree of each CODE folder at ``commit`` (raises CalledProcessError for a commit this clone lacks)."""
    return {folder: git("rev-parse", f"{commit}:{folder}") for folder in CODE}


def same_code(first: str, second: str) -> bool:
    """Whether two clean commits hold the same CODE (the same commit does, without asking git)."""
    return first == second or code_trees(first) == code_trees(second)
