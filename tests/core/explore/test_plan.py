"""Explorar's slicers build the chat's own plans: the same plan and query_hash as the equivalent question,
validated, run and audited through the Plan API, composed like a chat answer."""

from __future__ import annotations

import shutil

import pytest

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.audit.log import AuditLog
from core.config import load_settings
from core.engine.validate import validate_plan
from core.explore import plan as explore
from core.explore.options import build_options
from core.explore.selection import Selection

Y2024 = {"desde": "2024-01", "hasta": "2024-12"}

# (selection, the question an analyst would type for it)
SAME_AS_CHAT = [
    (
        Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.LEON",), **Y2024),
        "¿Cuántos homicidios dolosos hubo en León en 2024?",
    ),
    (Selection(delitos=("robo",), forma="ranking", **Y2024), "ranking de municipios por robo en 2024"),
    (
        Selection(delitos=("homicidio_doloso",), forma="ranking", top_k=5, **Y2024),
        "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?",
    ),
    (
        Selection(delitos=("feminicidio",), lugares=("GTO.MUN.CELAYA",), forma="serie", **Y2024),
        "serie mensual de feminicidio en Celaya en 2024",
    ),
    (
        Selection(
            delitos=("secuestro",), lugares=("GTO.MUN.IRAPUATO",), forma="comparacion", base="anio_anterior", **Y2024
        ),
        "secuestros en Irapuato en 2024 comparado con 2023",
    ),
]

SHAPES = [
    (Selection(delitos=("homicidio_doloso",), **Y2024), "rank_por_delito", {"entidad_id": "GTO", "nivel": "actual"}),
    (
        Selection(delitos=("homicidio_doloso",), medida="tasa", forma="ranking", **Y2024),
        "rank_por_delito",
        {"medida": "tasa_per_100k", "nivel": "hijos"},
    ),
    (
        Selection(delitos=("robo",), forma="ranking", orden="asc", top_k=3, **Y2024),
        "rank_por_delito",
        {"orden": "asc", "top_k": 3},
    ),
    (
        Selection(delitos=("robo",), lugares=("GTO.MUN.LEON",), forma="serie_anual", **Y2024),
        "serie_anual",
        {"entidad_id": "GTO.MUN.LEON"},
    ),
    (Selection(delitos=("robo",), lugares=("GTO.MUN.LEON",), forma="desglose", **Y2024), "desglose_modalidad", {}),
    (
        Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.LEON", "GTO.MUN.CELAYA"), forma="lugares", **Y2024),
        "comparar_lugares",
        {"entidades": ["GTO.MUN.LEON", "GTO.MUN.CELAYA"]},
    ),
    (
        Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.LEON",), forma="comparacion", **Y2024),
        "comparar_periodos",
        {"base_from": "2023-01-01", "base_to": "2023-12-31"},
    ),
]


@pytest.fixture(scope="module")
def data(bundled_settings, tmp_path_factory):
    target = tmp_path_factory.mktemp("explore") / "data"
    shutil.copytree(bundled_settings.data_dir, target, ignore=shutil.ignore_patterns("audit", "keys", "artifacts"))
    return load_settings(target)


@pytest.fixture(scope="module")
def engine(data):
    return Assistant(settings=data, use_cache=False)


@pytest.fixture(scope="module")
def options(engine):
    return build_options(engine.catalog, engine.metadata, engine.store)


def query_hash(plan, engine) -> str:
    return validate_plan(plan, engine.catalog, engine.metadata).query_hash


@pytest.mark.parametrize(("selection", "question"), SAME_AS_CHAT)
def test_the_slicers_give_the_chats_plan_for_the_same_question(selection, question, engine, options):
    turn = engine.ask(question, Conversation(), planner="rules")
    built = explore.tool_plan(*options.fit(selection)[:1], options, engine.catalog)
    assert query_hash(built.plan, engine) == turn.validation["query_hash"]


@pytest.mark.parametrize(("selection", "tool", "args"), SHAPES)
def test_each_shape_is_the_tool_that_answers_it(selection, tool, args, engine, options):
    fitted, notes = options.fit(selection)
    assert notes == []
    steps = explore.tool_plan(fitted, options, engine.catalog).plan["plan"]
    assert engine.catalog.spec_for(steps[-1]["tool_id"]).name == tool
    assert args.items() <= steps[-1]["args"].items()


@pytest.mark.parametrize(("selection", "_tool", "_args"), SHAPES)
def test_the_same_selection_gives_the_same_query_hash(selection, _tool, _args, engine, options):
    fitted, _ = options.fit(selection)
    hashes = {query_hash(explore.tool_plan(fitted, options, engine.catalog).plan, engine) for _ in range(3)}
    assert len(hashes) == 1


def test_a_run_is_validated_audited_and_composed_like_a_chat_answer(data, engine, options):
    selection = Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.LEON",), **Y2024)
    turn = explore.run(selection, options, engine.catalog, settings=data, user="ana@example.org", role="analista")
    assert turn.status == "ok" and turn.validation["ok"]
    assert turn.answer.text.startswith("León registró 596 homicidios dolosos")
    assert turn.answer.provenance["query_hash"] == turn.validation["query_hash"]
    assert turn.as_dict()["plan"]["plan"][0]["tool_version"]  # the validated plan, as the Plan de consulta shows it
    with AuditLog.for_settings(data) as log:
        record = next(iter(log.list(kind="explore", limit=1)))
    assert record.user == "ana@example.org" and record.query_hash == turn.validation["query_hash"]
    assert record.question == explore.describe(selection, options)
    assert record.payload["selection"]["lugar"] == ["GTO.MUN.LEON"]


def test_a_plan_the_engine_refuses_is_an_answer_that_says_why(data, engine, options, monkeypatch):
    selection = Selection(delitos=("robo",), lugares=("GTO.MUN.LEON",), **Y2024)
    broken = explore.rules.ToolPlan({"plan": [{"tool_id": 6, "args": {"entidad_id": "GTO.MUN.NINGUNO"}}]}, [])
    monkeypatch.setattr(explore, "tool_plan", lambda *a: broken)
    turn = explore.run(selection, options, engine.catalog, settings=data)
    assert turn.validation["ok"] is False and turn.validation["problems"]
    assert turn.status == "error" and "596" not in turn.answer.text


@pytest.mark.parametrize(
    ("selection", "words"),
    [
        (
            Selection(delitos=("robo",), forma="ranking", top_k=5, **Y2024),
            "Ranking de los 5 municipios con más casos de robo",
        ),
        (
            Selection(delitos=("robo",), lugares=("GTO.MUN.LEON", "GTO.MUN.CELAYA"), forma="lugares", **Y2024),
            "en León y Celaya",
        ),
        (
            Selection(delitos=("robo",), lugares=("GTO.MUN.LEON",), forma="comparacion", **Y2024),
            "frente al periodo anterior de la misma duración",
        ),
        (Selection(delitos=("robo",), medida="tasa", **Y2024), "(tasa por 100 mil habitantes)"),
    ],
)
def test_a_selection_is_described_in_spanish(selection, words, options):
    assert words in explore.describe(selection, options)


def test_the_slicers_plan_through_the_chats_own_offline_planner(engine, options, monkeypatch):
    """One planner, not a copy: Explorar's plan is ``strategy.offline_plan`` of the selection's understanding."""
    from core.ask.plan import strategy

    seen = []
    real = strategy.offline_plan
    monkeypatch.setattr(strategy, "offline_plan", lambda *args: seen.append(args) or real(*args))
    selection = Selection(delitos=("homicidio_doloso",), lugares=("GTO.MUN.LEON",), **Y2024)
    built = explore.tool_plan(selection, options, engine.catalog)
    (understood, catalog, metadata, includes) = seen[0]
    assert understood.places[0].entidad_id == "GTO.MUN.LEON" and catalog is engine.catalog
    assert (metadata, includes) == (options.metadata, options.includes)
    assert built.plan == real(understood, catalog, metadata, includes).plan
