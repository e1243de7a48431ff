"""Verdicts (experiments.verdicts), claims that quote their sentence (experiments.figures.Claim) and explanations
filled from the evidence (experiments.explanations)."""

import re

import pytest

from experiments.explanations import ExplanationError, evidence_numbers, literal_numbers, numbers_not_in, render
from experiments.figures import CLAIM, INVARIANT, NOT_CHECKED, NOT_COMPARABLE, Claim, unchecked
from experiments.verdicts import NOT_REPRODUCED, PARTLY, REPRODUCED, claim_verdict, id_verdict, printed, tally

QUOTE = {"quote": "AMF is always the best", "where": "AMF Sec. 5"}


def claim(key: str, passed, **fields) -> dict:
    return Claim(f"statement {key}", passed, "measured", key=key, **{**QUOTE, **fields}).as_dict()


def test_a_claim_quotes_its_sentence_and_where_it_is_printed():
    with pytest.raises(ValueError, match="quotes no sentence"):
        Claim("AMF is best", True, "0.9", key="best")
    with pytest.raises(ValueError, match="quotes no sentence"):
        Claim("AMF is best", True, "0.9", key="best", quote="AMF is best", where=" ")
    assert Claim("cells tile", True, "ok", key="tiles", kind=INVARIANT).quote == ""  # invariants quote nothing


def test_a_weaker_reading_quotes_the_printed_claims_sentence():
    best = Claim("AMF best on every dataset", False, "9 of 10", key="best", **QUOTE)
    most = best.weaker("AMF best on >= 9 of 10 datasets", True, "9 of 10", key="best_most")
    assert (most.quote, most.where, most.weaker_of, most.kind) == (best.quote, best.where, "best", CLAIM)


def test_a_timed_claim_says_so_and_its_weaker_readings_too_an_untimed_one_is_written_as_before():
    faster = Claim("MF 10x faster than ORF", True, "12x", key="faster", timed=True, **QUOTE)
    assert faster.as_dict()["timed"] and faster.weaker("MF faster", True, "12x", key="faster_at_all").timed
    accurate = Claim("MF above ORF", True, "0.9 > 0.8", key="above", **QUOTE)
    assert "timed" not in accurate.as_dict() and not accurate.weaker("x", True, "y", key="z").timed


def test_an_unchecked_claim_decides_nothing_and_says_why():
    missing = unchecked("on dna, MF is worse", "dna is not measured here", key="dna", **QUOTE)
    assert missing.passed is None and missing.status == NOT_CHECKED and missing.measured == "dna is not measured here"
    with pytest.raises(ValueError, match="passed None"):
        Claim("x", False, "y", key="x", status=NOT_COMPARABLE, **QUOTE)
    with pytest.raises(ValueError, match="an unchecked claim is"):
        unchecked("x", "y", key="x", status="checked", **QUOTE)


def test_values_are_written_as_plain_numbers():
    import numpy as np

    c = Claim("x", np.bool_(True), "y", key="x", values={"gap": np.float32(0.5), "n": np.int64(3), "ok": np.bool_(1)},
              **QUOTE)  # fmt: skip
    assert c.values == {"gap": 0.5, "n": 3, "ok": True} and type(c.values["n"]) is int and c.passed is True


def test_verdict_levels_of_a_claim_and_of_an_id():
    held, failed = claim("a", True), claim("b", False)
    weaker_held = claim("b_most", True, weaker_of="b")
    assert claim_verdict(held, [held]) == REPRODUCED
    assert claim_verdict(failed, [failed]) == NOT_REPRODUCED
    assert claim_verdict(failed, [failed, weaker_held]) == PARTLY
    assert claim_verdict(failed, [failed, claim("b_most", False, weaker_of="b")]) == NOT_REPRODUCED
    missing = unchecked("dna", "not here", key="c", **QUOTE).as_dict()
    assert claim_verdict(missing, [missing]) == NOT_CHECKED
    assert printed([held, weaker_held, failed]) == [held, failed]
    assert id_verdict([held]) == REPRODUCED
    assert id_verdict([held, failed]) == PARTLY
    assert id_verdict([failed, weaker_held]) == PARTLY
    assert id_verdict([failed, missing]) == NOT_REPRODUCED
    assert id_verdict([held, missing]) == PARTLY  # a claim not checked keeps the id from "reproduced"
    assert id_verdict([missing]) == NOT_CHECKED
    invariant = Claim("tiles", True, "ok", key="t", kind=INVARIANT).as_dict()
    assert id_verdict([invariant]) is None and tally([invariant]) == "-"
    assert tally([held, failed, weaker_held, invariant]) == "1/2"  # weaker readings and invariants never counted


def test_an_explanation_reads_its_numbers_from_the_evidence():
    claims = [claim("gap", False, values={"letter": 0.02834, "n": 9}), claim("other", True, values={"x": 1.5})]
    text = render("letter's gap {letter:.3f} at {n} of 10, x = {other.x}; {settings.n_seeds} seeds", "gap", claims,
                  {"seeds": [0, 1, 2], "files": ["a.png"]})  # fmt: skip
    assert text == "letter's gap 0.028 at 9 of 10, x = 1.5; 3 seeds"
    with pytest.raises(ExplanationError, match=re.escape("reads {missing}")):
        render("{missing}", "gap", claims, {})
    with pytest.raises(ExplanationError, match=re.escape("reads {nobody.x}")):
        render("{nobody.x}", "gap", claims, {})


def test_numbers_written_in_an_explanation_are_references_names_or_found_in_the_evidence():
    template = (
        "as Fig. 3 and Sec. 5.3 (Algorithm 4) print, on dna61_120 and PCA-4, {gap:.3f} over 5 seeds, 0.028 at 10%"
    )
    assert literal_numbers(template) == ["5", "0.028", "10"]
    numbers = evidence_numbers([{"seeds": [0, 1, 2, 3, 4]}, {"measured": "gap 0.028 at 10% of the data, 5 seeds"}])
    assert numbers_not_in(template, numbers) == []
    assert numbers_not_in(template, evidence_numbers([{"seeds": [0, 1, 2]}])) == ["5", "0.028", "10"]


def test_a_quantified_sentence_is_tested_in_every_case_with_its_exceptions_and_a_weaker_reading_beside_it():
    from experiments.figures.quantifiers import Cases, quantified

    cases = Cases({"adult": -0.0106, "bank": 0.02, "car": 0.004}, labels={"adult": "SGD - AMF"})
    printed, most = quantified("AMF lowest on every dataset", cases, "2 of 3", key="lowest", most=("on >= 2 of 3", 2),
                               **QUOTE)  # fmt: skip
    assert printed.passed is False and printed.exceptions == ["adult: SGD - AMF -0.0106"]
    assert printed.values == {"adult": -0.0106, "bank": 0.02, "car": 0.004, "holding": 2, "cases": 3}
    assert most.passed is True and most.weaker_of == "lowest" and most.key == "lowest_most"
    assert claim_verdict(printed.as_dict(), [printed.as_dict(), most.as_dict()]) == PARTLY
    assert Cases({"a": -0.01}, tolerance=0.02).every() and not Cases({}).every()
