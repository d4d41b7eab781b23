"""The long-conversation bench (issue 15 §2): its summary, its BENCHMARKS.md rows, and a toy run in Chromium."""

from __future__ import annotations

import json

import pytest

from bench import conversation, conversation_report, report
from bench import run as bench_run
from tests.browser.conftest import unavailable


def _fake(ms_by_turn: list[float], conversations: int = 2) -> list[list[dict]]:
    return [[{"turno": n, "ms": ms} for n, ms in enumerate(ms_by_turn, start=1)] for _ in range(conversations)]


@pytest.mark.parametrize(
    ("ms_by_turn", "met"),
    [([300.0] * 15 + [900.0] * 5, True), ([300.0] * 15 + [900.0] * 4 + [1500.0], False)],
)
def test_the_target_is_the_p95_of_the_last_five_turns(ms_by_turn: list[float], met: bool) -> None:
    res = conversation.summarize(_fake(ms_by_turn), [400.0], [], turns=20)
    assert res["ultimos_turnos"] == [16, 20] and res["ultimos_ms"]["n"] == 10
    assert res["cumple_p95"] is met and res["turno_final_ms"]["max"] == ms_by_turn[-1]
    assert res["primeros_ms"]["p95"] == 300.0 and res["razon_final_inicio"] == 3.0


def test_a_failed_conversation_misses_the_target() -> None:
    res = conversation.summarize(_fake([100.0] * 20), [], [{"conversacion": 1, "error": "x"}], turns=20)
    assert not res["cumple_p95"]


def test_every_conversation_asks_twenty_distinct_questions_of_its_own_year() -> None:
    first, second = conversation.questions(0), conversation.questions(1)
    assert len(first) == conversation.TURNS == len(set(first))
    assert not set(first) & {q for q in second if "{" not in q and any(c.isdigit() for c in q)}


def test_benchmarks_md_has_the_row_the_section_and_a_pending_entry() -> None:
    res = conversation.summarize(_fake([300.0] * 15 + [2000.0] * 5), [500.0], [], turns=20) | {"repeticiones": 2}
    md = report.render(
        {
            "generado": "hoy",
            "escala": "toy",
            "maquina": bench_run.machine(),
            "duracion_total_s": 1.0,
            "secciones": {"conversation": res},
        }
    )
    (row,) = [line for line in md.splitlines() if line.startswith(f"| {conversation_report.POINT} |")]
    assert "p95 2,000 ms" in row and "❌ no" in row
    assert "## 15.2 Conversación larga" in md and "| 20 | 2,000 |" in md
    assert "Conversación larga: p95 2,000 ms" in md  # its «Pendientes» entry


@pytest.mark.browser
def test_a_toy_conversation_is_timed_turn_by_turn_in_chromium(tmp_path) -> None:
    ok, why = conversation.browser.available()
    if not ok:
        unavailable(why)
    res = conversation.run(tmp_path, log=lambda m: None, repeats=1, turns=3)
    assert "error" not in res and not res["fallas"], res.get("error") or res["fallas"]
    (turns,) = res["conversaciones"]
    assert [s["turno"] for s in turns] == [1, 2, 3]
    assert all(0 < s["ms"] < conversation.browser.ANSWER_TIMEOUT_MS for s in turns)
    assert res["recarga_ms"]["n"] == 1 and res["recarga_ms"]["p50"] > 0  # the reload drew the 3 turns again
    json.dumps(res)
