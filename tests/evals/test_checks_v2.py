"""Checkers of the new evaluation set: for every kind, a passing and a failing fake answer (fixture file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.checks_v2 import CHECKERS_V2, check_v2, places_in_order
from evals.expect import V2_KINDS, parse_expect

CASES = json.loads((Path(__file__).parent / "fixtures" / "v2_checker_cases.json").read_text(encoding="utf-8"))


def test_every_kind_has_a_checker_and_a_fixture_case():
    """Each kind of the format is checked, and each has a good and a bad fake answer."""
    assert set(CHECKERS_V2) == set(V2_KINDS)
    assert {c["expect"]["kind"] for c in CASES} == set(V2_KINDS)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_checker_passes_the_good_answer_and_fails_the_bad_one(case):
    """The good fake answer passes, the bad one fails with a Spanish reason."""
    expect = parse_expect(case["expect"], case["name"])
    ok, _, why = check_v2(case["good"], expect, case["expected"])
    assert ok, why
    ok, _, why = check_v2(case["bad"], expect, case["expected"])
    assert not ok and why


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("Silao de la Victoria subió; Victoria bajó", ["11037", "11043"]),
        ("en Dolores y en León", ["11014", "11020"]),
        ("En Guanajuato, Celaya", ["11007"]),  # a bare «Guanajuato» is the state
        ("Guanajuato capital y Celaya", ["11015", "11007"]),
        ("San Miguel de Allende, luego Apaseo el Alto", ["11003", "11004"]),
    ],
)
def test_places_are_read_in_order_longest_name_first(text, codes):
    """«Victoria» inside «Silao de la Victoria» is Silao; short names count."""
    assert places_in_order(text) == codes


def test_a_malformed_turn_fails_instead_of_crashing():
    """A turn without an answer block is a failed check, not an exception."""
    expect = parse_expect(
        {"kind": "number", "delito": "aborto", "place": "11", "desde": "2020-01", "hasta": "2020-12"}, "x"
    )
    ok, _, why = check_v2({"answer": None, "envelopes": None}, expect, 31)
    assert not ok and why
