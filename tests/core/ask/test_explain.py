"""The plan in plain words (core/ask/explain.py): each tool's sentence from its spec's template and the
validated arguments of real plans, and the sections of a turn (understood, data, effective period, caveats, lab)."""

from __future__ import annotations

import pytest

from core.ask import explain
from core.engine.catalog import load_tool_specs

SPECS = load_tool_specs()
BY_ID = {s.tool_id: s for s in SPECS}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_tool_says_its_step_in_spanish(spec):
    assert spec.explain is not None, f"{spec.name}: add an «explain» template to its spec"
    unknown = explain.template_slots(spec) - set(explain.GENERIC) - spec.arg_names
    assert not unknown, f"{spec.name}: the template names {unknown}, neither generic nor an argument"
    for name, table in spec.explain.values.items():
        assert name in spec.arg_names, f"{spec.name}: values for {name!r}, not an argument"
        enum = spec.args_schema["properties"][name].get("enum")
        if enum and name in explain.template_slots(spec):
            assert set(map(str, enum)) <= set(table), f"{spec.name}.{name}: a value without words"
    sentence = explain.step_sentence(spec, {})  # no arguments at all: defaults only, still a sentence
    assert sentence.endswith(".") and "{" not in sentence and "[" not in sentence and "_" not in sentence


def test_the_template_stays_out_of_the_contract():
    spec = BY_ID[6]
    assert "explain" not in spec.model_dump()
    assert spec.spec_hash == spec.model_copy(update={"explain": None}).spec_hash  # query_hash does not move


# (tool_id, args, the effective window, the sentence): plans as the planner writes them
STEPS = [
    (
        15,
        {"entidad_id": "GTO.MUN.LEON", "from": "2024-01-01", "to": "2024-12-31", "delito": "homicidio_doloso"},
        None,
        "Sumé las carpetas de homicidios dolosos en León por mes entre enero y diciembre de 2024 "
        "y elegí el periodo con más carpetas.",
    ),
    (
        6,
        {"entidad_id": "GTO", "delito": "homicidio_doloso", "top_k": 5, "orden": "asc", "medida": "tasa_per_100k"},
        {"from": "2024-01-01", "to": "2024-06-30"},
        "Conté las carpetas de homicidios dolosos en los municipios de Guanajuato entre enero y junio de 2024, "
        "las ordené por tasa por 100 mil habitantes y tomé los 5 con menos.",
    ),
    (
        19,
        {
            "entidad_id": "GTO",
            "entidades": ["GTO.MUN.LEON", "GTO.MUN.CELAYA"],
            "from": "2024-01-01",
            "to": "2024-12-31",
            "delito": "homicidio_doloso",
            "metodo": "con_arma_de_fuego",
            "incluir_estado": True,
        },
        None,
        "Puse lado a lado León y Celaya y el estado con las carpetas de homicidios dolosos con arma de fuego "
        "entre enero y diciembre de 2024, su población y su tasa por 100 mil habitantes.",
    ),
    (
        13,
        {
            "entidad_id": "GTO.MUN.IRAPUATO",
            "delito": "robo",
            "from": "2024-01-01",
            "to": "2024-12-31",
            "base_from": "2023-01-01",
            "base_to": "2023-12-31",
        },
        None,
        "Comparé las carpetas de delitos de robo en Irapuato entre enero y diciembre de 2024 con las de enero a "
        "diciembre de 2023: el cambio en carpetas y en porcentaje.",
    ),
    (
        13,
        {
            "entidad_id": "GTO.MUN.CELAYA",
            "delito": "homicidio_doloso",
            "from": "2024-01-01",
            "to": "2024-12-31",
            "base_from": "2023-01-01",
            "base_to": "2023-12-31",
            "medida": "tasa_per_100k",
        },
        None,
        "Comparé las carpetas de homicidios dolosos en Celaya entre enero y diciembre de 2024 con las de enero a "
        "diciembre de 2023: el cambio en carpetas y en tasa por 100 mil habitantes, cada periodo con la población "
        "de su año.",
    ),
    (
        21,
        {"lugar_id": "MX", "clave_delito": "homicidio_doloso", "ordenar_por": "tasa_per_100k", "metodologia": "IDFC"},
        {"from": "2024-01-01", "to": "2024-11-30"},
        "Ordené los 32 estados por tasa por 100 mil habitantes de homicidios dolosos entre enero y noviembre de "
        "2024 (serie hasta 2025).",
    ),
    (
        21,
        {
            "lugar_id": "JAL",
            "clave_delito": "robo",
            "desde": "2026-01-01",
            "hasta": "2026-03-31",
            "metodologia": "RNID",
        },
        None,
        "Ordené los 32 estados por número de carpetas de delitos de robo entre enero y marzo de 2026 (metodología "
        "2026, no comparable con la anterior) y ubiqué a Jalisco.",
    ),
    (
        16,
        {"entidad_id": "GTO", "delito": "secuestro", "from": "2023-01-01", "to": "2023-12-31"},
        None,
        "Revisé todos los municipios de Guanajuato y listé los que no registraron ninguna carpeta de secuestros "
        "entre enero y diciembre de 2023.",
    ),
    (
        5,
        {"por": "mes", "min_eventos": 3},
        None,
        "Descarté los meses con menos de 3 carpetas.",
    ),
    (
        4,
        {"violencia": "con"},
        None,
        "Limité el análisis a la modalidad: con violencia.",
    ),
    (
        23,
        {"lugar_id": "MX", "desglose": "ley"},
        None,
        "Conté las carpetas del fuero federal de todos los delitos en el país en todo el periodo publicado, "
        "desglosadas por ley.",
    ),
]


@pytest.mark.parametrize(("tool_id", "args", "effective", "sentence"), STEPS)
def test_a_step_says_what_it_computes(tool_id, args, effective, sentence):
    assert explain.step_sentence(BY_ID[tool_id], args, effective=effective) == sentence


def test_a_filter_carries_its_place_period_and_crime_to_the_next_step():
    plan = {
        "plan": [
            {"tool_id": 1, "args": {"entidad_id": "GTO.MUN.CELAYA"}},
            {"tool_id": 2, "args": {"from": "2022-01-01", "to": "2022-12-31"}},
            {"tool_id": 3, "args": {"delito": ["robo_a_negocio", "extorsion"]}},
            {"tool_id": 12, "args": {}},
            {"tool_id": 9, "args": {"limit": 50}},
        ]
    }
    assert explain.plan_sentences(plan) == [
        "Fijé el lugar del análisis: Celaya, por municipio.",
        "Fijé el periodo del análisis: entre enero y diciembre de 2022.",
        "Limité el análisis a delitos de robo a negocio y extorsión.",
        "Sumé las carpetas de delitos de robo a negocio y extorsión en Celaya mes por mes entre enero y diciembre "
        "de 2022.",
        "Listé hasta 50 filas de datos que sostienen el resultado anterior, con su archivo y línea de origen.",
    ]


def _turn(**extra) -> dict:
    """A turn dict shaped like ``Turn.as_dict()``: one clamped national ranking."""
    meta = {
        "date_range_effective": {"from": "2024-01-01", "to": "2024-11-30"},
        "date_range_requested": {"from": "2024-01-01", "to": "2024-12-31"},
        "range_adjusted": True,
        "range_adjusted_reason": "recortada a los meses publicados de la serie: 2024-01-01..2024-11-30",
        "fuente": ["estatal_idefc_2015-01_2024-11.csv"],
    }
    turn = {
        "question": "¿Qué estado tuvo la tasa más alta de homicidio doloso en 2024?",
        "rewritten_question": "¿Qué estado tuvo la tasa más alta de homicidio doloso en 2024?",
        "intake": {"is_follow_up": False},
        "query_plan": {"lab_policy": {"allow_lab": False, "status": "denied"}, "flags": []},
        "plan": {
            "plan": [
                {
                    "tool_id": 21,
                    "args": {
                        "lugar_id": "MX",
                        "clave_delito": "homicidio_doloso",
                        "desde": "2024-01-01",
                        "hasta": "2024-12-31",
                    },
                }
            ]
        },
        "envelopes": [{"tool": "ranking_estados@1.1.0", "meta": meta}],
        "validation": {"ok": True, "warnings": ["Ventana 2024-01..2024-12 recortada"]},
        "answer": {
            "warnings": ["No tomé en cuenta: «alta»."],
            "sources": [{"title": "SESNSP — incidencia delictiva"}, {"title": "SESNSP — incidencia delictiva"}],
            "provenance": {"dataset_version": "gx-1", "data_available_until": "2025-11-30"},
        },
    }
    return {**turn, **extra}


def test_the_sections_of_a_clamped_turn():
    words = explain.explain_turn(_turn(), files=["otro.csv"])
    assert words.understood == ["Preguntas por homicidios dolosos en el país, entre enero y diciembre de 2024."]
    assert words.data == [
        "Versión de los datos gx-1 (datos hasta noviembre de 2025).",
        "Fuentes: SESNSP — incidencia delictiva.",
        "Archivos de origen: estatal_idefc_2015-01_2024-11.csv, otro.csv.",
    ]
    assert words.period == [
        "Enero a noviembre de 2024 (se pidió enero a diciembre de 2024; recortada a los meses publicados de la serie)."
    ]
    assert words.warnings == ["No tomé en cuenta: «alta».", "Ventana enero a diciembre de 2024 recortada"]


@pytest.mark.parametrize(
    ("lab", "flags", "said"),
    [
        ({"allow_lab": False, "status": "denied"}, [], "no usado — no hacía falta"),
        ({"allow_lab": False, "status": "denied"}, ["lab-access-requested", "lab-access-denied"], "lo pediste"),
        ({"allow_lab": True, "status": "approved"}, ["lab-access-approved"], "disponible"),
    ],
)
def test_the_lab_is_an_access_decision_not_an_error(lab, flags, said):
    text = explain.lab_access({"query_plan": {"lab_policy": lab, "flags": flags}})
    assert text.startswith("Laboratorio (herramientas experimentales): ") and said in text
    assert "denegado" not in text


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"blocked": True}, "no respondo"),
        ({"text": "No puedo modificar ni borrar datos."}, "no respondo"),  # declined by the planner
        ({"clarifying_options": ["homicidio doloso", "homicidio culposo"]}, "Faltaba un dato"),
        ({"text": "La tasa por 100 mil es…"}, "no pide cifras"),
    ],
)
def test_a_turn_without_a_plan_says_why_no_data_were_read(answer, said):
    declined = {"strategy": "defer_or_refuse"} if answer.get("text", "").startswith("No puedo") else {}
    words = explain.explain_turn(
        {"question": "x", "plan": None, "envelopes": [], "answer": answer, "planner_state": declined}
    )
    assert said in words.understood[0]
    assert words.data == ["Ninguno: la respuesta no leyó la base de datos."]
    assert words.computed == ["Nada: la respuesta no necesitó consultar la base de datos."]


def test_a_follow_up_says_how_it_was_read():
    turn = _turn(intake={"is_follow_up": True}, question="¿y en 2023?")
    assert explain.understood(turn)[0] == (
        "La tomé como continuación de la anterior: «¿Qué estado tuvo la tasa más alta de homicidio doloso en 2024?»."
    )


def test_source_files_of_the_evidence_rows(bundled_settings):
    from core.dataset.store import get_store

    store = get_store(bundled_settings)
    ids = [r[0] for r in store.query("SELECT row_id FROM incidents WHERE delito = 'secuestro' LIMIT 5")]
    envelopes = [{"evidence": [{"table": "incidents", "ids": ids}, {"table": "no_such; DROP", "ids": [1]}]}]
    files = explain.source_files(store, envelopes)
    assert files and all(f.endswith((".csv", ".json", ".parquet")) for f in files)
