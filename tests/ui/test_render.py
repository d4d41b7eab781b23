"""Drawing helpers that need no running app: the light GeoJSON, the choropleth, the tool
pipeline rows of the Plan de consulta and the table of an envelope."""

from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.ask.charts import chart_spec
from core.ask.pipeline import Conversation
from tests.markdown_check import assert_inert
from ui import markup, render

TOP10 = "¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?"


def test_frame_of_a_turn(engine):
    turn = engine.ask(TOP10, Conversation())
    frame = render.frame_of(turn.result)
    assert list(frame.columns) == ["entidad_id", "label", "conteo", "tasa_per_100k"] and len(frame) == 10
    assert frame.iloc[0]["label"] == "León"
    assert chart_spec(turn.result) is not None


def test_turn_dict_accepts_dicts(engine):
    turn = engine.ask("hola", Conversation())
    assert render.turn_dict(turn)["question"] == "hola"
    assert render.turn_dict(turn.as_dict())["question"] == "hola"


# --- hostile strings: drawn as text, CSV cells neutralized (issue 12) ----------------------------------

BEACON = "http://127.0.0.1:9"
SUBTIPO = f"Robo ![p]({BEACON}/p.png) <a href='{BEACON}/plot'>ver</a>"
RATIONALE = f"Plan ` ![r]({BEACON}/r.png) `"
QUESTION = f"Resumen ![a]({BEACON}/x.png) [Verificar cadena]({BEACON}/phish)"
FORMULA = f'=HYPERLINK("{BEACON}/m","León")'


def hostile_envelope() -> dict:
    """An ok ranking envelope whose crime, municipality and warning come from a hostile upload."""
    return {
        "tool": "rank_por_delito",
        "status": "ok",
        "summary": {"headline": f"Top {SUBTIPO} (conteo)"},
        "meta": {"warnings": [f"{SUBTIPO} sin datos en 2023"], "query_hash": "sha256:`x`"},
        "data": {
            "inline": {
                "columns": [{"name": "entidad_id"}, {"name": "label"}, {"name": "conteo"}],
                "rows": [["GTO.MUN.LEON", FORMULA, 22], ["GTO.MUN.CELAYA", "@SUM(A1:A9)", -5]],
                "limit_notice": {"applied": False, "total_rows": 2},
            }
        },
        "evidence": [],
    }


def draw_answer(turn) -> None:
    from ui import render

    render.render_answer(turn, "t", on_option=lambda option: None)


def draw_envelopes(envelopes) -> None:
    from ui import render

    render.render_envelopes(envelopes, "e")


@pytest.fixture
def downloads(monkeypatch) -> list[bytes]:
    """The data of every st.download_button drawn (the button still draws)."""
    import streamlit

    seen, original = [], streamlit.download_button

    def capture(label, data, *args, **kwargs):
        seen.append(data)
        return original(label, data, *args, **kwargs)

    monkeypatch.setattr(streamlit, "download_button", capture)
    return seen


def test_an_answer_with_hostile_labels_draws_them_as_text(downloads):
    envelope = hostile_envelope()
    text = f"Los municipios con más delitos de {SUBTIPO}: León (22).\n\nAdvertencias:\n- {SUBTIPO} sin datos"
    answer = SimpleNamespace(
        text=text,
        clarifying_options=[QUESTION],
        chart={
            "type": "bar",
            "x": "label",
            "y": "conteo",
            "title": f"Delitos: {SUBTIPO}",
            "data": [{"entidad_id": "GTO.MUN.LEON", "label": "<a href='http://127.0.0.1:9/l'>León</a>", "conteo": 22}],
        },
        evidence_ids=[],
        provenance={"dataset_version": "v`1`", "query_hash": "sha256:` ![q](http://127.0.0.1:9/q.png)"},
    )
    turn = SimpleNamespace(answer=answer, result=envelope, job_id="j1")
    at = AppTest.from_function(draw_answer, args=(turn,)).run()
    assert not at.exception
    assert_inert(at)
    assert at.markdown[0].value == markup.block(text)
    assert [b.label for b in at.button] == [markup.text(QUESTION)]
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "<a" not in json.dumps(layout["data"]) and not (layout["layout"].get("title") or {}).get("text")
    assert f"**{markup.text(f'Delitos: {SUBTIPO}')}**" in [m.value for m in at.markdown]  # the title, as text above
    rows = list(csv.reader(io.StringIO(downloads[0].decode("utf-8-sig"))))
    assert rows == [
        ["Clave de lugar", "Lugar", "Delitos registrados"],
        ["GTO.MUN.LEON", f"'{FORMULA}", "22"],
        ["GTO.MUN.CELAYA", "'@SUM(A1:A9)", "-5"],
    ]


def test_envelopes_headlines_warnings_and_problems_draw_as_text():
    failed = {
        "tool": f"x ![t]({BEACON}/t.png)",
        "status": "error",
        "summary": {"headline": QUESTION},
        "error": {
            "problems": [
                {
                    "code": "INVALID_PAYLOAD",
                    "path": "plan[0].args.`![p](http://127.0.0.1:9/p.png)`",
                    "details": QUESTION,
                    "hints": [RATIONALE],
                }
            ]
        },
    }
    at = AppTest.from_function(draw_envelopes, args=([hostile_envelope(), failed],)).run()
    assert not at.exception
    assert_inert(at)
    assert at.markdown[0].value == f"**rank\\_por\\_delito** — {markup.text(f'Top {SUBTIPO} (conteo)')}"
    assert at.warning[0].value == markup.text(f"{SUBTIPO} sin datos en 2023")
    assert markup.code("plan[0].args.`![p](http://127.0.0.1:9/p.png)`") in at.error[0].value


def test_frame_csv_keeps_numbers_and_neutralizes_formula_text():
    rows = list(csv.reader(io.StringIO(render.frame_csv(render.frame_of(hostile_envelope())).decode("utf-8-sig"))))
    assert rows[1:] == [
        ["GTO.MUN.LEON", f"'{FORMULA}", "22"],
        ["GTO.MUN.CELAYA", "'@SUM(A1:A9)", "-5"],
    ]
    gaps = render.frame_csv(pd.DataFrame({"a": [None, "-x"], "b": [1.5, float("nan")]}))
    assert list(csv.reader(io.StringIO(gaps.decode("utf-8-sig")))) == [["a", "b"], ["", "1.5"], ["'-x", ""]]


# --- «The evidence header says 217 rows and shows 200 with no note» (issue 15) ------------------------------


def draw_evidence(total: int) -> None:
    from types import SimpleNamespace

    from ui import render
    from ui.chat import EVIDENCE_LIMIT

    def listing(rows: int) -> dict:
        """An evidence listing of ``rows`` rows out of ``total`` behind the answer."""
        return {
            "tool": "listar_evidencia@1.0.0",
            "status": "ok",
            "summary": {"headline": f"Evidencia: {total} filas curadas"},
            "meta": {"warnings": []},
            "metrics": {"filas": total},
            "data": {
                "inline": {
                    "columns": [{"name": "row_id"}, {"name": "entidad_id"}, {"name": "eventos"}],
                    "rows": [[i, "GTO.MUN.LEON", 1] for i in range(rows)],
                    "limit_notice": {"applied": False, "total_rows": rows},
                }
            },
            "evidence": [],
        }

    def loader(turn, limit=EVIDENCE_LIMIT):
        return listing(min(limit, total))

    turn = SimpleNamespace(answer=SimpleNamespace(evidence_ids=list(range(total))), job_id="j")
    render.render_evidence(turn, "t", loader)


@pytest.mark.parametrize("total,note", [(217, "Se muestran 200 de 217 filas de evidencia"), (150, None)])
def test_evidence_says_how_many_it_shows_and_offers_them_all(total, note):
    at = AppTest.from_function(draw_evidence, args=(total,)).run(timeout=60)
    at.button(key="t_ev").click().run(timeout=60)
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    if note is None:
        assert "Se muestran" not in captions and not [b for b in at.button if "CSV" in b.label]
        return
    assert note in captions
    at.button(key="t_evall_prepare").click().run(timeout=60)
    assert not at.exception
    assert "Descargar CSV completo (217 filas)" in [b.proto.label for b in at.get("download_button")]
