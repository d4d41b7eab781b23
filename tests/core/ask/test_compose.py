"""Answer composition (docs/contracts/004_chatbot_graph.md §4) over real envelopes of the bundled store, and the
evaluation pass."""

from __future__ import annotations

import copy
import re

import pytest

from core import api
from core.ask.compose import compose
from core.ask.contracts import Answer, ClarifyingQuestion
from core.ask.methodology import DocIndex
from core.ask.review import SAFE_TEXT, review

YEAR_2024 = "from: 2024-01-01\nto: 2024-12-31\n"
PLANS = {
    "single": "[6]\nentidad_id: GTO.MUN.LEON\nnivel: actual\ndelito: homicidio_doloso\n" + YEAR_2024,
    "ranking": "[6,9]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\n" + YEAR_2024,
    "ranking_rate": "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\nmedida: tasa_per_100k\ntop_k: 3\n" + YEAR_2024,
    "share": "[7]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 5\n" + YEAR_2024,
    "grouping": "[11]\nentidad_id: GTO\ndelito: homicidio_doloso\naggregate_by: porcentaje\ntop_k: 3\n" + YEAR_2024,
    "series": "[12]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nfrom: 2025-01-01\nto: 2025-12-31\n",
    "series_anomalies": "[12,10]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nfrom: 2020-01-01\n"
    "to: 2025-11-30\n",
    "comparison": "[13]\nentidad_id: GTO\nnivel: actual\ndelito: homicidio_doloso\n"
    + YEAR_2024
    + "base_from: 2023-01-01\nbase_to: 2023-12-31\n",
    "comparison_municipal": "[13]\nentidad_id: GTO\ndelito: homicidio_doloso\ntop_k: 3\n"
    + YEAR_2024
    + "base_from: 2023-01-01\nbase_to: 2023-12-31\n",
    "anomalies": "[10]\nentidad_id: GTO.MUN.LEON\nnivel: actual\ndelito: homicidio_doloso\nfrom: 2020-01-01\n"
    "to: 2025-11-30\n",
    "no_anomalies": "[10]\nentidad_id: GTO.MUN.ATARJEA\nnivel: actual\ndelito: incesto\nfrom: 2020-01-01\n"
    "to: 2020-12-31\n",
    "patterns": {
        "plan": [
            {
                "tool_id": 8,
                "args": {
                    "entidad_id": "GTO",
                    "delito": ["homicidio_doloso", "violencia_familiar"],
                    "from": "2020-01-01",
                    "to": "2022-12-31",
                },
            }
        ]
    },
    "annual": "[14]\nentidad_id: GTO\nnivel: actual\nfrom: 2015-01-01\nto: 2026-12-31\ntop_k: 20\n",
    "adjusted": "[6]\nentidad_id: GTO\ndelito: violacion\ntop_k: 3\nfrom: 2025-01-01\nto: 2025-08-31\n",
    # Doctor Mora: no homicidio doloso con arma de fuego in 2024, 12 over the series (not a structural zero)
    "relaxed": "[6]\nentidad_id: GTO.MUN.DOCTOR_MORA\nnivel: actual\ndelito: homicidio_doloso\n"
    "metodo: con_arma_de_fuego\nfrom: 2024-01-01\nto: 2024-12-31\n",
    "outside_coverage": "[6]\nentidad_id: GTO\ndelito: violencia_familiar\nfrom: 2025-06-01\nto: 2025-10-31\n",
    "unknown_crime": "[6]\nentidad_id: GTO\ndelito: robo_de_vehiculo\n" + YEAR_2024,
    "outside_data": "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\nfrom: 2025-12-01\nto: 2025-12-31\n",
}


@pytest.fixture(scope="module")
def runs(bundled_settings) -> dict[str, list[dict]]:
    return {name: api.execution(plan, settings=bundled_settings).envelopes for name, plan in PLANS.items()}


@pytest.fixture(scope="module")
def metadata(bundled_settings) -> dict:
    return api.metadata(bundled_settings)


def _years_removed(text: str) -> str:
    return re.sub(r"\b(?:19|20)\d\d\b", "", text)


# (plan, how the text begins: the numbers come first, chart type)
OPENINGS = [
    (
        "single",
        "León registró 596 homicidios dolosos entre enero y diciembre de 2024 (32.2 por cada 100 mil habitantes).",
        None,
    ),
    (
        "ranking",
        "Los 5 municipios con más homicidios dolosos entre enero y diciembre de 2024: León (596), "
        "Celaya (443), Irapuato (261), Salvatierra (151) y Salamanca (148). En todo Guanajuato se "
        "registraron 2,553.",
        "bar",
    ),
    (
        "ranking_rate",
        "Los 3 municipios con la tasa más alta de homicidios dolosos por cada 100 mil habitantes entre "
        "enero y diciembre de 2024: Santiago Maravatío (296.5), Salvatierra (160.7) y Tarimoro (132.6).",
        "bar",
    ),
    (
        "share",
        "León concentró el 23.4 % de los homicidios dolosos de Guanajuato entre enero y diciembre de 2024 "
        "(596 de 2,553). Le siguen Celaya (17.4 %), Irapuato (10.2 %)",
        "bar",
    ),
    ("grouping", "León concentró el 23.4 % de los homicidios dolosos de Guanajuato", "bar"),
    (
        "series",
        "León registró 393 homicidios dolosos entre enero y noviembre de 2025: un promedio de 35.7 al mes; "
        "el mes más alto fue febrero de 2025, con 70.",
        "line",
    ),
    ("series_anomalies", "León registró 3,724 homicidios dolosos entre enero de 2020 y noviembre de 2025", "line"),
    (
        "comparison",
        "Guanajuato registró 2,553 homicidios dolosos entre enero y diciembre de 2024, frente a 2,581 "
        "entre enero y diciembre de 2023: la cifra disminuyó en 28 (-1.1 %).",
        "bar",
    ),
    (
        "comparison_municipal",
        "En los municipios de Guanajuato se registraron 2,553 homicidios dolosos entre enero "
        "y diciembre de 2024, frente a 2,581 entre enero y diciembre de 2023: la cifra disminuyó "
        "en 28 (-1.1 %). Por municipio: León (-181, -23.3 %), Celaya (+73, +19.7 %)",
        "bar",
    ),
    (
        "anomalies",
        "Se detectaron 3 meses atípicos de homicidios dolosos en León entre enero de 2020 y noviembre "
        "de 2025 (umbral |z| ≥ 3). El más marcado: mayo de 2023, con 78 frente a una mediana de 57.5",
        "scatter",
    ),
    ("no_anomalies", "No se detectaron meses atípicos de delitos de incesto entre enero y diciembre de 2020.", None),
    (
        "patterns",
        "El par de delitos que más coincide en un mismo municipio y mes entre enero de 2020 y diciembre de "
        "2022 es homicidio doloso + violencia familiar: aparecen juntos en el 65.3 % de los 1,656 "
        "municipio-mes evaluados (1,081 coincidencias; lift 1.11).",
        "bar",
    ),
    (
        "annual",
        "Guanajuato registró 1,458,047 delitos del fuero común entre 2015 y 2025. 2026 suma 106,146 (año "
        "parcial, nueva metodología RNID): no es comparable",
        "bar",
    ),
]


@pytest.mark.parametrize("name,opening,chart", OPENINGS, ids=[o[0] for o in OPENINGS])
def test_numbers_come_first(runs, metadata, name, opening, chart):
    envs = runs[name]
    answer = compose("pregunta", envs, metadata=metadata)
    assert answer.text.startswith(opening), answer.text
    assert (answer.chart or {}).get("type") == chart
    assert not answer.blocked
    assert not any(w.startswith("Cifras que no aparecen") for w in answer.warnings), answer.warnings


@pytest.mark.parametrize("name", [o[0] for o in OPENINGS])
def test_period_version_sources_and_provenance(runs, metadata, name):
    envs = runs[name]
    answer = compose("pregunta", envs, metadata=metadata)
    version = metadata["dataset_version"]
    # a crime whose own series ends before the store says that end too («; esta serie, hasta mayo de 2025.»)
    assert f"Datos hasta noviembre de 2025 (versión {version})" in answer.text
    assert "Periodo: " in answer.text
    data = [s for s in answer.sources if s.kind == "data"]
    assert data and data[0].ref == version and ("SESNSP" in data[0].title)
    assert answer.provenance["dataset_version"] == version
    assert answer.provenance["data_available_until"] == metadata["max_date"] == "2025-11-30"
    main = next(e for e in envs if e["tool"].split("@")[0] not in ("listar_evidencia",))
    assert answer.provenance["query_hash"] == main["meta"]["query_hash"]
    assert answer.provenance["catalog_version"] == main["meta"]["catalog_version"]


def test_evidence_ids_come_from_the_answering_envelope(runs, metadata):
    envs = runs["ranking"]
    answer = compose("pregunta", envs, metadata=metadata)
    assert answer.evidence_ids == envs[0]["evidence"][0]["ids"] and answer.evidence_ids
    # a top-k of the 46 municipalities: the map names how many it must show (ui/maps.py asks for the rest)
    assert answer.chart["map"] == {"key": "entidad_id", "value": "conteo", "entities": 46}


def test_rate_answers_cite_the_population_source(runs, metadata):
    answer = compose("pregunta", runs["single"], metadata=metadata)
    assert [s.title.split(" — ")[0] for s in answer.sources] == ["SESNSP", "CONAPO"]


def test_result_index_picks_the_envelope(runs, metadata):
    envs = runs["series_anomalies"]
    answer = compose("pregunta", envs, metadata=metadata, result_index=1)
    assert answer.text.startswith("Se detectaron 3 meses atípicos") and answer.chart["type"] == "scatter"
    both = compose("pregunta", envs, metadata=metadata)
    assert "Se detectaron 3 meses atípicos" in both.text and len(both.chart["markers"]) == 3


@pytest.mark.parametrize(
    "name,fragments",
    [
        (
            "outside_coverage",
            [
                "No hay datos publicados de Violencia familiar entre junio y octubre de 2025",
                "enero de 2015 a mayo de 2025",
                "no es un cero",
            ],
        ),
        (
            "outside_data",
            [
                "No hay datos publicados para lo que pide",
                "diciembre de 2025 está fuera de los datos",
                "enero de 2015 a noviembre de 2025",
            ],
        ),
        ("unknown_crime", ["No puedo dar una cifra", "no existe en el catálogo", "robo de vehículo automotor"]),
    ],
)
def test_error_envelopes_explain_without_numbers(runs, metadata, name, fragments):
    envs = runs[name]
    assert envs[-1]["status"] == "error"
    answer = compose("¿cuántos hubo?", envs, metadata=metadata)
    body = answer.text.split("Datos hasta")[0]
    for fragment in fragments:
        assert fragment in body
    assert not re.search(r"\d", _years_removed(body)), body  # only years: never a count
    assert answer.chart is None and answer.evidence_ids == [] and not answer.blocked
    assert "python -m" not in answer.text  # command-line hints are for data stewards


@pytest.mark.parametrize(
    "name,warning",
    [
        (
            "adjusted",
            "Periodo ajustado: se pidió enero a agosto de 2025 y se usó enero a mayo de 2025 "
            "(recortada a la cobertura del delito).",
        ),
        (
            "relaxed",
            "Sin resultados con el filtro de método; se muestra el resultado sin ese filtro (metodo=con_arma_de_fuego).",
        ),
        ("annual", "2026 es parcial: cubre enero–agosto (8 meses), no el año completo."),
        (
            "annual",
            "2026 usa la nueva metodología del SESNSP (RNID): no es comparable con 2015–2025 (metodología anterior).",
        ),
        ("series", "Periodo ajustado: se pidió enero a diciembre de 2025 y se usó enero a noviembre de 2025"),
    ],
)
def test_warnings_are_carried_over(runs, metadata, name, warning):
    answer = compose("pregunta", runs[name], metadata=metadata)
    assert any(w.startswith(warning) for w in answer.warnings), answer.warnings
    assert "Advertencias:" in answer.text and warning in answer.text


def test_retry_without_a_warning_still_says_the_filter_was_relaxed(runs, metadata):
    envs = copy.deepcopy(runs["relaxed"])
    envs[-1]["meta"]["warnings"] = []
    answer = compose("pregunta", envs, metadata=metadata)
    assert any("metodo=con_arma_de_fuego" in w for w in answer.warnings)


def test_planner_notes_become_warnings(runs, metadata):
    note = "Sin periodo en la pregunta: se usan los últimos 12 meses publicados (2024-12..2025-11)."
    answer = compose("pregunta", runs["series"], metadata={**metadata, "notes": [note]})
    assert any("diciembre de 2024 a noviembre de 2025" in w for w in answer.warnings)


@pytest.mark.parametrize(
    "question,citation,fragment",
    [
        ("¿qué es un homicidio doloso?", "conceptos.md § Doloso y culposo", "privación intencional de la vida"),
        ("¿cómo calculan la tasa?", "tasas_y_poblacion.md § Fórmula de la tasa", "× 100 000"),
        (
            "¿qué significa que un mes no esté publicado?",
            "cobertura_y_calidad.md § Mes no publicado no es cero",
            "nunca lo trata como un mes con cero delitos",
        ),
    ],
)
def test_definitions_quote_the_best_passage(metadata, question, citation, fragment):
    passages = DocIndex.load().search(question, 3)
    answer = compose(question, [], metadata=metadata, passages=passages)
    assert fragment in answer.text and f"(fuente: {citation})" in answer.text
    assert answer.sources[0].kind == "doc" and answer.sources[0].ref == citation
    assert answer.chart is None and not answer.blocked and answer.warnings == []


def test_data_answers_list_methodology_citations(runs, metadata):
    passages = DocIndex.load().search("¿cómo calculan la tasa?", 2)
    answer = compose("pregunta", runs["single"], metadata=metadata, passages=passages)
    assert "Metodología: tasas_y_poblacion.md § Fórmula de la tasa" in answer.text
    assert [s.kind for s in answer.sources].count("doc") == 2


def test_clarifying_questions_carry_options(metadata):
    q = ClarifyingQuestion(
        question="¿De qué municipio?", reason="missing_place", blocking=True, options=["León", "Celaya"]
    )
    answer = compose("¿cuántos homicidios hubo?", [], metadata=metadata, clarifying=[q])
    assert answer.text == "¿De qué municipio?" and answer.clarifying_options == ["León", "Celaya"]
    two = compose(
        "x",
        [],
        metadata=metadata,
        clarifying=["¿De qué municipio?", {"question": "¿Qué delito?", "options": ["Feminicidio"]}],
    )
    assert "¿De qué municipio?" in two.text and "¿Qué delito?" in two.text
    assert two.clarifying_options == ["Feminicidio"]


@pytest.mark.parametrize(
    "kind,text",
    [
        ("refusal", "Casandra sólo ofrece estadística agregada; no puede dar datos de personas."),
        ("social", "¡Hola! Pregúntame por delitos registrados en Guanajuato."),
    ],
)
def test_refusals_and_social_replies_are_their_text(metadata, kind, text):
    answer = compose("x", [], metadata=metadata, **{kind: text})
    assert answer.text == text and not answer.blocked and answer.chart is None
    assert answer.provenance["dataset_version"] == metadata["dataset_version"]


def test_nothing_found_says_so(metadata):
    assert compose("x", [], metadata=metadata).text.startswith("No encontré información")


@pytest.mark.parametrize(
    "text,reason",
    [
        ("Llame al 477 123 4567 para más información.", "teléfono"),
        ("Escriba a denuncias.leon@example.com.", "correo"),
        ("La CURP es GOMJ800101HGTRRN09.", "CURP/RFC"),
        ("Su RFC es GOMJ800101AB1.", "CURP/RFC"),
        ("El hecho ocurrió en calle Hidalgo #123, centro.", "domicilio"),
        ("Ocurrió en Avenida Insurgentes número 45.", "domicilio"),
        ("La víctima Juan Pérez tenía 30 años.", "nombre"),
        ("El sospechoso, Pedro Gómez López, fue detenido.", "nombre"),
        ("SELECT sum(eventos) FROM incidents WHERE delito = 'x'", "SQL"),
        ("select count(*) from incidents", "SQL"),
        ("Ver el archivo /work/main/data/store/casandra.duckdb", "ruta"),
        ("Error en C:\\Users\\casandra\\app", "ruta"),
        ('Traceback (most recent call last):\n  File "core/ask/compose.py", line 10', "traza"),
        ("Falló con KeyError: 'conteo'", "traza"),
        ("Use la clave sk-proj-abcdefghij1234567890", "clave"),
        ("api_key=abc123", "clave"),
    ],
)
def test_evaluation_blocks_personal_data_and_internals(text, reason):
    answer = review(Answer(text=text, chart={"type": "bar"}, evidence_ids=[1, 2]))
    assert answer.blocked and answer.chart is None and answer.evidence_ids == []
    assert answer.text.startswith(SAFE_TEXT.split("{what}")[0])
    assert reason in answer.warnings[0]
    assert text not in answer.text


def test_blocked_warnings_are_checked_too():
    answer = review(Answer(text="León registró 596.", warnings=["ver /tmp/x/y.log"]))
    assert answer.blocked


@pytest.mark.parametrize("name", [o[0] for o in OPENINGS] + ["outside_coverage"])
def test_clean_answers_pass(runs, metadata, name):
    answer = compose("pregunta", runs[name], metadata=metadata)
    assert review(answer, runs[name]) == answer and not answer.blocked


@pytest.mark.parametrize(
    "text",
    [
        "La víctima del homicidio de ayer no se identifica en estos datos.",
        "En la calle o en el transporte, 12 casos.",
        "Datos hasta noviembre de 2025; archivo `data/raw/manifest.json`.",
        "Por cada 100 mil habitantes: 32.2.",
    ],
)
def test_clean_prose_is_not_blocked(text):
    assert not review(Answer(text=text)).blocked


def test_numbers_not_in_the_envelopes_are_flagged_not_blocked(runs, metadata):
    envs = runs["single"]
    answer = compose("pregunta", envs, metadata=metadata)
    forged = answer.model_copy(update={"text": answer.text.replace("596", "9,999")})
    checked = review(forged, envs)
    assert not checked.blocked and checked.text == forged.text
    assert checked.warnings[-1] == "Cifras que no aparecen en los resultados consultados: 9,999."
    assert review(answer, envs).warnings == answer.warnings  # the real figures pass


def test_rounded_and_derived_numbers_pass(runs, metadata):
    envs = runs["patterns"]  # support 0.6528 is said as 65.3 %; lift 1.1075 as 1.11
    answer = review(Answer(text="65.3 % de 1,656; 2,553 no está aquí."), envs)
    assert answer.warnings == ["Cifras que no aparecen en los resultados consultados: 2,553."]


def test_composition_is_deterministic(runs, metadata, bundled_settings):
    for envs in runs.values():
        first = compose("pregunta", envs, metadata=metadata)
        assert first == compose("pregunta", copy.deepcopy(envs), metadata=metadata)
    again = api.execution(PLANS["ranking"], settings=bundled_settings).envelopes
    assert compose("p", again, metadata=metadata) == compose("p", runs["ranking"], metadata=metadata)


def test_method_filters_are_named(bundled_settings, metadata):
    plan = {
        "plan": [
            {
                "tool_id": 6,
                "args": {
                    "entidad_id": "GTO.MUN.LEON",
                    "nivel": "actual",
                    "delito": "homicidio_doloso",
                    "metodo": "con_arma_de_fuego",
                    "from": "2024-01-01",
                    "to": "2024-12-31",
                },
            }
        ]
    }
    envs = api.execution(plan, settings=bundled_settings).envelopes
    answer = compose("pregunta", envs, metadata={**metadata, "plan": plan})
    assert answer.text.startswith("León registró ") and " homicidios dolosos con arma de fuego entre " in answer.text
    piped = api.execution(
        "[4,6]\nentidad_id: GTO.MUN.LEON\nnivel: actual\ndelito: homicidio_doloso\n"
        "metodo: con_arma_de_fuego\n" + YEAR_2024,
        settings=bundled_settings,
    ).envelopes
    assert "homicidios dolosos con arma de fuego" in compose("pregunta", piped, metadata=metadata).text


def test_a_relaxed_method_filter_is_not_named(runs, metadata):
    """The figure is never labelled with the filter it was computed without: the answer says that filter has no
    cases first, then gives the figure without it."""
    plan = {"plan": [{"tool_id": 6, "args": {"metodo": "con_arma_de_fuego"}}]}
    answer = compose("pregunta", runs["relaxed"], metadata={**metadata, "plan": plan})
    first = answer.text.split("\n\n")[0]
    said, figure = first.split("; sin ese filtro: ")
    assert (
        said == "No hay casos registrados de homicidio doloso con arma de fuego (0 en ese periodo)"
        and "arma" not in figure
    )


def test_municipal_annual_sums_name_their_span(bundled_settings, metadata):
    envs = api.execution(
        "[14]\nentidad_id: GTO\ntop_k: 3\nfrom: 2024-01-01\nto: 2026-12-31\n", settings=bundled_settings
    ).envelopes
    answer = compose("pregunta", envs, metadata=metadata)
    assert answer.text.startswith("Los 3 municipios con más delitos del fuero común entre 2024 y 2026: León (")
    assert any("mezcla metodologías" in w for w in answer.warnings)


@pytest.mark.parametrize(
    ("delito", "warned"),
    [("rapto", True), (["rapto", "homicidio_doloso"], True), ("homicidio_doloso", False)],
)
def test_a_structural_zero_is_said_to_be_one(runs, metadata, delito, warned):
    """A crime whose state reports 0 in every published month: the answer says a zero there proves nothing."""
    coverage = {
        "rapto": {"label": "Rapto", "siempre_cero": ["GTO"]},
        "homicidio_doloso": {"label": "Homicidio doloso"},
    }
    plan = {"plan": [{"tool_id": 6, "args": {"delito": delito}}]}
    answer = compose("pregunta", runs["single"], metadata={**metadata, "coverage": coverage, "plan": plan})
    said = [w for w in answer.warnings if "todos los meses publicados" in w]
    assert bool(said) is warned
    if warned:
        assert said[0].startswith("Guanajuato registra 0 casos de rapto") and "no prueba que no ocurran" in said[0]


@pytest.mark.parametrize(
    "args,footer",
    [
        # RNID 2026 ends after the store's anchor: its own end leads, never «Datos hasta noviembre de 2025» on a
        # 2026 figure; the state file ends before it: the store's, then the series'
        (
            {"lugar_id": "JAL", "metodologia": "RNID", "desde": "2026-02-01", "hasta": "2026-02-28"},
            "Datos de esta serie hasta marzo de 2026; los demás datos cargados, hasta noviembre de 2025 (versión {v}).",
        ),
        (
            {"lugar_id": "JAL", "desde": "2023-01-01", "hasta": "2023-12-31"},
            "Datos hasta noviembre de 2025 (versión {v}); esta serie, hasta noviembre de 2024.",
        ),
    ],
)
def test_a_national_series_says_its_own_last_month(bundled_settings, metadata, args, footer):
    plan = {"plan": [{"tool_id": 21, "args": {"clave_delito": "homicidio_doloso", **args}}]}
    envs = api.execution(plan, settings=bundled_settings).envelopes
    answer = compose("pregunta", envs, metadata=metadata)
    assert footer.format(v=metadata["dataset_version"]) in answer.text, answer.text
    assert answer.provenance["data_available_until"] == metadata["max_date"]  # the contract's field stays the store's
