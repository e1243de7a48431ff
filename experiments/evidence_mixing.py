"""Whether a figure's runs are of one environment and one code, which its evidence needs unless told otherwise.

A run's environment is its identity (experiments.environment: the ``env.*`` tags that must agree for runs to be
compared; runs without them are of one environment, ``unrecorded``); its code is its clean commit, two commits
holding the same ``mondrian/``, ``experiments/`` and ``conf/`` counting as one (experiments.provenance). Each is
grouped with its number of runs, most runs first, described in one line for a refusal and recorded whole in the
settings of a figure whose runs were merged from several (``mixed``)."""

from __future__ import annotations

from collections import Counter

from experiments.environment import identity
from experiments.provenance import same_code

UNRECORDED = "unrecorded"  # the environment of runs that carry no env.* tags
HOST = "env.host"  # named in every environment's description: which machine


def environments(tags: list[dict]) -> list[tuple[dict[str, str], int]]:
    """The distinct environment identities of runs with these ``tags`` (one dict per run; {} for runs without
    ``env.*`` tags), each with its number of runs, most runs first."""
    counted = Counter(tuple(identity(run).items()) for run in tags)
    return [(dict(items), runs) for items, runs in counted.most_common()]


def codes(commits: list[str]) -> list[tuple[list[str], int]]:
    """The clean ``commits`` (one per run) grouped by the code they hold, each group's commits sorted, with its
    number of runs, most runs first."""
    groups: list[tuple[list[str], int]] = []
    for commit, runs in sorted(Counter(commits).items()):
        same = next((i for i, (members, _) in enumerate(groups) if same_code(members[0], commit)), None)
        if same is None:
            groups.append(([commit], runs))
        else:
            members, counted = groups[same]
            groups[same] = ([*members, commit], counted + runs)
    return sorted(groups, key=lambda group: -group[1])


def _runs(count: int) -> str:
    return f"{count} run" if count == 1 else f"{count} runs"


def describe_environments(groups: list[tuple[dict[str, str], int]]) -> str:
    """``env.host=1a2b3c4d5e6f, env.cores=2: 14 runs; ...``: each environment by its host and the tags whose values
    tell it from the others, ``unrecorded`` for runs without environment tags."""
    recorded = [found for found, _ in groups if found]
    differing = sorted({name for found in recorded for name in found if len({o.get(name) for o in recorded}) > 1})
    shown = [HOST, *(name for name in differing if name != HOST)]

    def label(found: dict[str, str]) -> str:
        return ", ".join(f"{name}={found.get(name, '-')}" for name in shown) if found else UNRECORDED

    return "; ".join(f"{label(found)}: {_runs(runs)}" for found, runs in groups)


def describe_codes(groups: list[tuple[list[str], int]]) -> str:
    """``1a2b3c4d5e6f: 14 runs; 0f9e8d7c6b5a and 9a8b7c6d5e4f (the same code): 14 runs``."""

    def label(members: list[str]) -> str:
        short = " and ".join(commit[:12] for commit in members)
        return f"{short} (the same code)" if len(members) > 1 else short

    return "; ".join(f"{label(members)}: {_runs(runs)}" for members, runs in groups)


def mixture(tags: list[dict], commits: list[str]) -> dict:
    """What a figure's settings record of runs with these ``tags`` and clean ``commits`` (one of each per run) when
    they are of several environments or codes: ``{"mixed": {"environments": [{"identity", "runs"}, ...], "codes":
    [{"commits", "runs"}, ...]}}``; {} when they are of one environment and one code."""
    found, ran = environments(tags), codes(commits)
    if len(found) == 1 and len(ran) == 1:
        return {}
    return {
        "mixed": {
            "environments": [{"identity": agreed, "runs": runs} for agreed, runs in found],
            "codes": [{"commits": members, "runs": runs} for members, runs in ran],
        }
    }
