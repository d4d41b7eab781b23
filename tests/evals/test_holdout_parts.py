"""The evaluation parts load together (unique ids) and the held-out part of issue 14 is complete and computable.

Only counts and validity are checked here: the held-out parts' questions are not read by anybody but their author.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from core.config import DEFAULT_DATA_DIR
from evals.expect_nacional import NATIONAL_CATEGORIES
from evals.harness import load_files
from evals.oracle import Oracle
from evals.raw_views import RawViews

V2 = Path(__file__).parents[2] / "evals" / "v2"
PARTS = ["dev_*.json", "holdout.json", "holdout_n.json"]


def test_every_part_loads_together_with_unique_ids():
    """The dev parts, the holdout and the issue-14 holdout validate and share no conversation id."""
    convs = load_files([V2 / p for p in PARTS])
    assert len({c["id"] for c in convs}) == len(convs)


@pytest.mark.slow  # ~150 oracle queries, the victims file included
def test_holdout_n_is_complete_and_every_data_turn_has_a_figure():
    """evals/v2/holdout_n.json: ids hn-, 120-160 turns, every issue-14 category, a figure per data turn."""
    convs = load_files([V2 / "holdout_n.json"])
    assert all(c["id"].startswith("hn-") for c in convs)
    assert 120 <= sum(len(c["turns"]) for c in convs) <= 160
    assert {c["category"] for c in convs} == set(NATIONAL_CATEGORIES)
    con = RawViews.create(duckdb.connect(), DEFAULT_DATA_DIR / "raw")
    oracle = Oracle(con)
    for c in convs:
        for m in c["_expects"]:
            assert oracle.expected(m) is not None or m.kind == "granularity_note", c["id"]
    con.close()
