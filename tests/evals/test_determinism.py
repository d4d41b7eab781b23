"""The same question gives the same plan, answer and ``query_hash`` in another process (issue 13, point 8).

Two ``python -m core ask --json`` runs with different ``PYTHONHASHSEED`` (set and dict orders change with
it) over the first set and a sample of the new dev set, conversation by conversation: every turn's plan,
status, answer text and query hash must be identical. Timestamps, job ids and timings are left out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.harness import load_files

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_EVERY = 6  # every 6th conversation of the new dev set keeps the run under a minute


def _conversations() -> list[list[str]]:
    """Questions of the first set and of a fixed sample of the new dev set, as lists of turns."""
    first = load_files(ROOT / "evals" / "questions.json")
    dev = load_files(ROOT / "evals" / "v2" / "dev_*.json")[::SAMPLE_EVERY]
    return [[t["q"] for t in c["turns"]] for c in first + dev]


def _essence(turn: dict) -> dict:
    """What must not depend on the process: plan, status, answer text, query hash."""
    answer = turn.get("answer") or {}
    return {
        "plan": (turn.get("plan") or {}).get("plan"),
        "query_hash": (turn.get("validation") or {}).get("query_hash"),
        "text": answer.get("text"),
        "status": answer.get("status") or turn.get("route_reason"),
    }


def _run(convs_file: Path, seed: str, data_dir: Path) -> list[list[dict]]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "CASANDRA_DATA_DIR": str(data_dir)}
    out = subprocess.run(
        [sys.executable, "-m", "core", "ask", "--json", "--conversations", str(convs_file)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    convs = json.loads(out)["conversations"]
    return [[_essence(t) for t in c["turns"]] for c in convs]


@pytest.mark.slow
def test_the_same_questions_give_the_same_plans_in_another_process(tmp_path, bundled_settings):
    convs = _conversations()
    path = tmp_path / "convs.json"
    path.write_text(json.dumps(convs, ensure_ascii=False), encoding="utf-8")
    one, two = (_run(path, seed, bundled_settings.data_dir) for seed in ("1", "4242"))
    assert len(one) == len(two) == len(convs)
    differ = [(q, a, b) for c, x, y in zip(convs, one, two) for q, a, b in zip(c, x, y) if a != b]
    assert not differ, differ[:3]
    assert sum(1 for c in one for t in c if t["query_hash"]) > 100  # most turns ran a plan
