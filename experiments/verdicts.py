"""Verdicts, on ReScience C's labels of a replication (full, partial): a claim's, from its check and the weaker
readings beside it, and a figure id's, from its claims.

A claim is *reproduced* when the sentence it quotes holds as printed; *partly reproduced* when it does not but a
weaker reading of it, a claim of its own beside it, holds; *not reproduced* when neither does; *not checked* when its
data are not here; *not comparable* when what was measured cannot answer the sentence. Weaker readings and invariants
are shown, never counted. An id is reproduced when every claim of it is, not reproduced when none is reproduced or
partly, not checked (or not comparable) when none could be decided, and partly reproduced otherwise; an id without
claims (an illustration) has no verdict.
"""

from __future__ import annotations

# The two kinds of check. A claim is what a paper says about its results: a figure's verdict counts claims only.
# An invariant is a property of the code or of the drawing (it holds by construction, or it checks that the drawing
# shows what it should): reported beside the claims, never counted as reproduction.
CLAIM, INVARIANT = "claim", "invariant"
KINDS = (CLAIM, INVARIANT)
# What a check could decide: CHECKED (``passed`` says which way), or why it decided nothing: the data it needs are
# not here (NOT_CHECKED), or what was measured cannot answer the sentence (NOT_COMPARABLE).
CHECKED, NOT_CHECKED, NOT_COMPARABLE = "checked", "not checked", "not comparable"
STATUSES = (CHECKED, NOT_CHECKED, NOT_COMPARABLE)
REPRODUCED, PARTLY, NOT_REPRODUCED = "reproduced", "partly reproduced", "not reproduced"
LEVELS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_CHECKED, NOT_COMPARABLE)


def printed(claims: list[dict]) -> list[dict]:
    """The claims that test a sentence as printed: those a verdict counts."""
    return [c for c in claims if c.get("kind", CLAIM) == CLAIM and not c.get("weaker_of")]


def readings(claims: list[dict], key: str) -> list[dict]:
    """The weaker readings of the claim ``key`` (none for a claim without a key: runs drawn before claims had them)."""
    return [c for c in claims if key and c.get("weaker_of") == key]


def claim_verdict(claim: dict, claims: list[dict]) -> str:
    """The verdict of a printed claim among its figure's ``claims`` (where its weaker readings are)."""
    status = claim.get("status", CHECKED)
    if status != CHECKED:
        return status
    if claim["passed"]:
        return REPRODUCED
    return PARTLY if any(r["passed"] for r in readings(claims, claim.get("key", ""))) else NOT_REPRODUCED


def id_verdict(claims: list[dict]) -> str | None:
    """The verdict of a figure id from its claims; None when it has none (an illustration)."""
    levels = {claim_verdict(c, claims) for c in printed(claims)}
    if not levels:
        return None
    if len(levels) == 1:
        return levels.pop()
    if levels & {REPRODUCED, PARTLY}:
        return PARTLY
    return NOT_REPRODUCED if NOT_REPRODUCED in levels else NOT_CHECKED


def tally(claims: list[dict]) -> str:
    """'reproduced/printed' claims, or '-' without any."""
    counted = printed(claims)
    if not counted:
        return "-"
    return f"{sum(claim_verdict(c, claims) == REPRODUCED for c in counted)}/{len(counted)}"
