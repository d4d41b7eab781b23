"""The offline planner of national questions (core/ask/plan/national.py): tool and arguments per question."""

from __future__ import annotations

import pytest

from core.ask.plan.national import build, narrowed
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
    # a name the press gives several subtipos is their sum (catalogs/taxonomy/grupos.json)
    ("robo a transeunte CDMX 2022", "ranking_estados", {"lugar_id": "CDMX", "clave_delito": "robo_a_transeunte"}),
    (
        "asaltos en el transporte público en Jalisco 2023",
        "ranking_estados",
        {"lugar_id": "JAL", "clave_delito": "robo_en_transporte_publico"},
    ),
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
    # which state, not Guanajuato's place («el estado» is no Guanajuato here); the fewest is the end of the ranking
    ("cual es el estado con menos homicidios dolosos en 2023", "ranking_estados", {"lugar_id": "MX", "orden": "asc"}),
    ("¿qué estado tuvo menos secuestros en 2022?", "ranking_estados", {"lugar_id": "MX", "orden": "asc"}),
    (
        "segundo estado con más feminicidios en 2023",
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


@pytest.mark.parametrize(
    ("question", "clave"),
    [
        (
            "¿Cuántas carpetas por la Ley Federal de Armas de Fuego hubo en Guanajuato en 2023?",
            "federal_otras_leyes_y_codigos_ley_federal_de_armas_de_fuego_y_explosivos_l_f_a_f_e",
        ),
        (
            "huachicol en Guanajuato en 2019",
            "federal_otras_leyes_y_codigos_ley_federal_para_prevenir_y_sancionar_los_delitos_cometidos_en_materia_"
            "de_hidrocarburos_l_f_p_s_d_c_m_h",
        ),
        ("delitos patrimoniales federales en Jalisco 2022", "federal_otros_delitos_patrimoniales"),
        (
            "narcomenudeo federal en Guanajuato 2024",
            "federal_ley_general_de_salud_l_g_s_contra_la_salud_en_su_modalidad_de_narcomenudeo",
        ),
        # «federal(es)» said first, as the press also writes it
        ("delitos federales patrimoniales en Guanajuato 2024", "federal_otros_delitos_patrimoniales"),
        ("federales electorales en Guanajuato 2018", "federal_otros_delitos_electorales"),
        # a law and one of its crimes: the finer one; the law's words are no place («Salud»)
        (
            "narcomenudeo federal (Ley General de Salud) en Guanajuato 2024",
            "federal_ley_general_de_salud_l_g_s_contra_la_salud_en_su_modalidad_de_narcomenudeo",
        ),
        ("delitos contra la Ley General de Salud en Jalisco 2023", "federal_ley_general_de_salud_l_g_s"),
        # a law's short name; a name the common jurisdiction shares counts with «federal» said
        (
            "delitos federales por portación de armas (ley de armas de fuego) en Jalisco 2023",
            "federal_otras_leyes_y_codigos_ley_federal_de_armas_de_fuego_y_explosivos_l_f_a_f_e",
        ),
        (
            "armas de fuego, delitos federales en Guanajuato 2024",
            "federal_otras_leyes_y_codigos_ley_federal_de_armas_de_fuego_y_explosivos_l_f_a_f_e",
        ),
        (
            "delitos fiscales (código fiscal de la federación) en la CDMX, 2023",
            "federal_otras_leyes_y_codigos_codigo_fiscal_de_la_federacion_c_f_f",
        ),
        (
            "delitos ambientales federales en Guanajuato 2022",
            "federal_otros_delitos_contra_el_ambiente_y_la_gestion_ambiental",
        ),
    ],
)
def test_federal_crimes_by_their_everyday_names(ask, question, clave):
    """catalogs/taxonomy/alias_federal.json: a federal crime named as people say it is that federal key, with
    nothing left unknown (the state's municipal figure is never given in its place)."""
    u = ask(question)
    plan = build(u).plan["plan"]
    assert plan[0]["tool_id"] == tool_id("fuero_federal") and plan[0]["args"]["clave_delito"] == clave
    assert not [t for t in u.unknown_terms if t.kind == "crime" or t.kind.startswith("place")], u.unknown_terms


@pytest.fixture(scope="module")
def catalog(bundled_settings):
    return build_catalog(Store(bundled_settings))


@pytest.mark.parametrize(
    ("question", "clave", "metodo"),
    [
        (
            "robo de motocicleta en Jalisco en 2024",
            "robo_de_vehiculo_automotor",
            ["robo_de_motocicleta_con_violencia", "robo_de_motocicleta_sin_violencia"],
        ),
        (
            "¿qué estados tienen más robos de tractores en 2023?",
            "robo_de_maquinaria",
            ["robo_de_tractores_con_violencia", "robo_de_tractores_sin_violencia"],
        ),
        (
            "robo de embarcaciones con violencia en Veracruz 2022",
            "robo_de_vehiculo_automotor",
            "robo_de_embarcaciones_pequenas_y_grandes_con_violencia",
        ),
        ("robo de motocicleta en Guanajuato en 2026", "robo_de_vehiculo_automotor_motocicleta", None),
        (
            "robo de motos con violencia en Guanajuato en 2026",
            "robo_de_vehiculo_automotor_motocicleta",
            "con_violencia",
        ),
        ("robo de tractores en el país en enero de 2026", "robo_de_maquinaria_tractores_y_o_montacargas", None),
        ("robo de moto en jalisco en marzo de 2026", "robo_de_vehiculo_automotor_motocicleta", None),  # «moto»
        # a 2026 subtipo's own name, which the series to 2025 reads as a synonym of another crime
        ("privación ilegal de la libertad en Jalisco en febrero de 2026", "privacion_ilegal_de_la_libertad", None),
    ],
    ids=lambda v: v[:40] if isinstance(v, str) else None,
)
def test_a_kind_said_narrows_the_national_crime(ask, catalog, question, clave, metodo):
    """«robo de motocicleta»: to 2025 the modalidades that name it under their subtipo, in 2026 the RNID subtipo;
    the word is used, never «No tomé en cuenta»."""
    u = narrowed(ask(question), catalog)
    args = build(u).plan["plan"][0]["args"]
    assert args["clave_delito"] == clave
    assert args.get("metodo") == metodo
    assert not [t for t in u.unknown_terms if t.kind == "crime"]


def test_a_federal_crime_with_no_case_is_a_zero_not_an_empty_answer(bundled_settings):
    """Federal electoral crimes in Guanajuato in 2024: published months, no case → «registró 0», never «no devolvió
    resultados»."""
    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation

    turn = Assistant(settings=bundled_settings, use_cache=False).ask(
        "delitos federales electorales en Guanajuato en 2024", Conversation(), planner="rules"
    )
    assert "Guanajuato registró 0 carpetas del fuero federal" in turn.answer.text, turn.answer.text
    assert "no devolvió resultados" not in turn.answer.text
