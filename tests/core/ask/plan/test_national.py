"""The offline planner of national questions (core/ask/plan/national.py): tool and arguments per question."""

from __future__ import annotations

import pytest

from core.ask.plan.national import build
from core.ask.understand.lexicon import Lexicon
from core.ask.understand.parse import understand
from core.dataset.store import Store
from core.engine.catalog import build_catalog, tool_id
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE


@pytest.fixture(scope="module")
def ask(bundled_settings):
    """understand() against the bundled store with the test anchor."""
    lexicon = Lexicon.from_catalog(build_catalog(Store(bundled_settings)))
    return lambda question: understand(question, lexicon, ANCHOR, MIN_DATE)


CASES = [
    (
        "¿En qué lugar está Guanajuato a nivel nacional en homicidios dolosos en 2023?",
        "ranking_estados",
        {"lugar_id": "GTO", "clave_delito": "homicidio_doloso", "ordenar_por": "conteo", "desde": "2023-01-01"},
    ),
    (
        "¿qué estado tuvo más feminicidios en 2023?",
        "ranking_estados",
        {"lugar_id": "MX", "clave_delito": "feminicidio"},
    ),
    ("homicidios dolosos a nivel nacional en 2023", "ranking_estados", {"lugar_id": "MX"}),
    (
        "¿la tasa de homicidio doloso de Guanajuato en 2024 supera la nacional?",
        "ranking_estados",
        {"lugar_id": "GTO", "ordenar_por": "tasa_per_100k"},
    ),
    (
        "Guanajuato vs Jalisco en homicidios dolosos 2023",
        "ranking_estados",
        {"lugar_id": "GTO", "comparar_con": ["JAL"]},
    ),
    (
        "¿cuántas víctimas de homicidio doloso hubo en Guanajuato en 2024?",
        "victimas_sexo_edad",
        {"lugar_id": "GTO", "clave_delito": "homicidio_doloso", "hasta": "2024-12-31"},
    ),
    ("delitos federales en Guanajuato en 2024", "fuero_federal", {"lugar_id": "GTO", "desglose": "concepto"}),
]


@pytest.mark.parametrize(("question", "tool", "args"), CASES, ids=[c[0][:40] for c in CASES])
def test_national_plan(ask, question, tool, args):
    step = build(ask(question)).plan["plan"][0]
    assert step["tool_id"] == tool_id(tool)
    assert args.items() <= step["args"].items(), step["args"]
