"""`make compare BASE=<ref> [HEAD=<ref>] [FIGS="id ..."]`: what a change moves, to guard it.

``python -m experiments.compare --base REF [--head REF] [--figs ID ...] [--no-ratios] [--out PATH]`` runs the chosen
figures at profile quick and the speed ratios of experiments/bench/ratios.py at both commits, each in a checkout of its
own (experiments.commit_runs), then prints and writes (``--out``, results/local/COMPARE.md by default) a Markdown
table of what moved (experiments.comparison): the metrics beyond their kind's tolerance, the claims and figure
verdicts that changed, the trials whose hash differs. It exits 1 when a verdict changed, an exact metric moved or a
figure is not drawn at the head, 0 otherwise (an empty table for a change that moves nothing, such as a docs-only
commit), 2 on a bad argument.

The refs are commits (a branch, a tag, HEAD~1, a hash) of the repository of the current folder: uncommitted changes are
not compared (commit them, or stash them, first). By default every figure of either commit is run (``--figs all``;
``--figs id ...`` picks some). Two commits that hold the same RUN_INPUTS (a docs-only or tests-only change) would run
the same code on the same data: the base is run once and stands for both, and nothing moves (the table lists only the
figures drawn at neither, as those whose datasets this machine lacks). Every figure at both commits took 25 min of CPU
on the project's 2-core machine (ea0064f against its parent); a docs-only commit, run once, 15 min.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from experiments.commit_runs import run_commit
from experiments.comparison import changes, failing, markdown
from experiments.progress import progress, say
from experiments.provenance import CODE, git

OUT = Path("results/local/COMPARE.md")
# What a run reads of its commit: the library, the harness, the configs and the dataset catalog.
RUN_INPUTS = (*CODE, "datasets")


def commit_of(repo: Path, ref: str) -> str:
    """The commit a ref names (SystemExit with status 2 and one line for one that names none)."""
    try:
        return git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", repo=repo)
    except subprocess.CalledProcessError:
        say(f"python -m experiments.compare: error: {ref!r} names no commit of {repo}", file=sys.stderr)
        raise SystemExit(2) from None


def figures_at(repo: Path, commit: str) -> set[str]:
    """The figure ids a commit registers (its conf/figure/*.yaml)."""
    names = git("ls-tree", "--name-only", commit, "conf/figure/", repo=repo).splitlines()
    return {Path(name).stem for name in names if name.endswith(".yaml")}


def chosen_figures(repo: Path, commits: list[str], asked: list[str]) -> list[str]:
    """The figures asked for (``all``: every id of either commit), each registered at one commit at least."""
    known = set().union(*(figures_at(repo, c) for c in commits))
    if asked == ["all"]:
        return sorted(known)
    unknown = [f for f in asked if f not in known]
    if unknown:
        say(f"python -m experiments.compare: error: no figure {', '.join(unknown)} at either commit", file=sys.stderr)
        raise SystemExit(2)
    return list(dict.fromkeys(asked))


def runs_alike(repo: Path, base: str, head: str) -> bool:
    """Whether the two commits hold the same RUN_INPUTS, so that the head's runs would be the base's."""
    return not git("diff", "--name-only", base, head, "--", *RUN_INPUTS, repo=repo)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit compared against (origin/main, HEAD~1, ...)")
    parser.add_argument("--head", default="HEAD", help="the commit compared (default HEAD, as committed)")
    parser.add_argument("--figs", nargs="+", default=["all"], help="figure ids, or all (the default)")
    parser.add_argument("--no-ratios", action="store_true", help="no speed ratios (experiments/bench/ratios.py)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the Markdown table (default {OUT})")
    args = parser.parse_args(argv)
    if not args.base:
        parser.error("no base commit: make compare BASE=<ref> (origin/main, HEAD~1, a tag, a hash)")
    repo = Path(git("rev-parse", "--show-toplevel", repo=Path.cwd()))
    commits = [commit_of(repo, args.base), commit_of(repo, args.head)]
    figure_ids = chosen_figures(repo, commits, args.figs)
    if git("status", "--porcelain", "--untracked-files=no", repo=repo):
        say(f"uncommitted changes in {repo} are not compared: the head is {args.head} as committed")
    alike = runs_alike(repo, *commits)
    if alike:
        say(f"{args.head} holds the {', '.join(RUN_INPUTS)} of {args.base}: its runs are the base's, run once")
    steps = (len(figure_ids) + (not args.no_ratios)) * (1 if alike else 2)
    with tempfile.TemporaryDirectory(prefix="compare-") as scratch, progress(total=steps, desc="compare") as bar:
        base = run_commit(repo, commits[0], figure_ids, not args.no_ratios, Path(scratch) / "base", bar)
        head = (
            replace(base, commit=commits[1])
            if alike
            else run_commit(repo, commits[1], figure_ids, not args.no_ratios, Path(scratch) / "head", bar)
        )
    found = changes(base, head)
    table = markdown(base, head, found)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(table)
    print(table, end="")
    say(f"written to {args.out}")
    return 1 if failing(found) else 0


if __name__ == "__main__":
    sys.exit(main())
