"""Kind of question and its knobs: top_k, order, medida, B4 grouping; normalized text and signals."""

from __future__ import annotations

import pytest

KINDS = [
    ("¿Cuántos homicidios dolosos hubo en León en 2024?", "single_value"),
    ("¿Cuántas violaciones hubo en Celaya?", "single_value"),
    ("total de homicidios en León en 2024", "single_value"),
    ("número de feminicidios en Irapuato", "single_value"),
    ("homicidios en León 2024", "single_value"),
    ("dame los secuestros de Celaya", "single_value"),
    ("Top 5 municipios con más homicidios en 2024", "ranking"),
    ("ranking de municipios por robos", "ranking"),
    ("los 10 municipios con más homicidios", "ranking"),
    ("¿Cuáles municipios tuvieron más robos a negocio?", "ranking"),
    ("¿Qué municipios tienen más feminicidios?", "ranking"),
    ("¿En qué municipio hubo más feminicidios el año pasado?", "ranking"),
    ("¿Dónde hubo más homicidios en 2024?", "ranking"),
    ("¿Cuáles son los municipios más violentos?", "ranking"),
    ("homicidios por municipio en 2024", "ranking"),
    ("evolución de homicidios en León", "series"),
    ("homicidios mes por mes en León en 2024", "series"),
    ("homicidios por mes en Celaya", "series"),
    ("tendencia de robos en Irapuato", "series"),
    ("serie mensual de feminicidios", "series"),
    ("homicidios mensuales en León", "series"),
    ("homicidios en León 2024 vs 2023", "comparison"),
    ("¿aumentaron los homicidios en León respecto al año anterior?", "comparison"),
    ("¿disminuyó el robo en Celaya?", "comparison"),
    ("¿cómo cambió el homicidio doloso en Celaya?", "comparison"),
    ("homicidios en 2024 comparado con 2023", "comparison"),
    ("¿Qué municipios aumentaron más sus homicidios en 2024 respecto a 2023?", "comparison"),
    ("¿Qué porcentaje de los homicidios del estado ocurrieron en León?", "share"),
    ("proporción de robos de Celaya", "share"),
    ("¿qué parte de los feminicidios ocurre en León?", "share"),
    ("% del total de homicidios en Celaya", "share"),
    ("Distribución porcentual de los secuestros por municipio", "share"),
    ("anomalías en robos en Irapuato", "anomalies"),
    ("¿hubo picos de homicidios en Celaya?", "anomalies"),
    ("meses atípicos de secuestros", "anomalies"),
    ("¿algo inusual en los feminicidios?", "anomalies"),
    ("repunte de homicidios en León", "anomalies"),
    ("patrones de delitos en León", "patterns"),
    ("co-ocurrencia de delitos en Celaya", "patterns"),
    ("¿qué delitos ocurren juntos en León?", "patterns"),
    ("estacionalidad de los robos", "patterns"),
    ("¿en qué meses hay más secuestros?", "patterns"),
    ("¿Qué delitos se asocian con la violencia familiar en León?", "patterns"),
    ("¿Hay meses en los que suben los homicidios culposos?", "patterns"),
    ("¿Cuántos homicidios, dolosos y culposos juntos, hubo en Salamanca?", "single_value"),
    ("¿Qué municipio tuvo más delitos en total en 2024?", "annual_total"),  # the yearly series ranks too
    ("¿Cuántos delitos se denunciaron en el estado en 2020?", "annual_total"),
    ("total de delitos en León", "annual_total"),
    ("todos los delitos en el estado por año", "annual_total"),
    ("incidencia total en 2024", "annual_total"),
    ("¿de dónde sale el dato de homicidios en León?", "evidence"),
    ("muéstrame la evidencia", "evidence"),
    ("¿cuál es la fuente de los datos?", "evidence"),
    ("filas de homicidios en León 2024", "evidence"),
    ("hola", "unknown"),
    ("", "unknown"),
]


@pytest.mark.parametrize("question,kind", KINDS)
def test_kind(ask, question, kind):
    u = ask(question)
    assert u.kind == kind
    if kind != "unknown":
        assert f"kind:{kind}" in u.signals


B4 = [
    "¿En qué municipio hubo más homicidios en 2024?",
    "¿En qué municipio de Guanajuato hubo más homicidios?",
    "¿Dónde hubo más robos?",
    "¿Cuáles municipios tienen más feminicidios?",
    "el municipio con más secuestros",
]


@pytest.mark.parametrize("question", B4)
def test_b4_groups_instead_of_filtering(ask, question):
    u = ask(question)
    assert u.group_by_municipio is True and u.kind == "ranking"
    assert not [p for p in u.places if p.nivel == "municipio"]


TOP_K = [
    ("Top 5 municipios con más homicidios", 5),
    ("top diez municipios con mas homicidios", 10),
    ("los 3 municipios con menos homicidios", 3),
    ("los tres municipios con más robos", 3),
    ("los diez municipios más violentos", 10),
    ("dame los 7 municipios con más feminicidios", 7),
    ("primeros 15 municipios por robos", 15),
    ("el municipio con más homicidios", 1),
    ("¿En qué municipio hubo más homicidios?", 1),
    ("¿cuál municipio tuvo menos robos?", 1),
    ("¿Qué municipios tienen más robos?", None),
    ("top municipios en los últimos 12 meses", None),  # 12 belongs to the time window
    ("ranking de homicidios en 2024", None),
]


@pytest.mark.parametrize("question,top_k", TOP_K)
def test_top_k(ask, question, top_k):
    assert ask(question).top_k == top_k


ORDER = [
    ("los 3 municipios con menos homicidios", "asc"),
    ("municipios con menor número de robos", "asc"),
    ("municipios con las tasas más bajas de homicidio", "asc"),
    ("¿cuáles son los municipios más seguros?", "asc"),
    ("top 5 municipios con más homicidios", "desc"),
    ("¿dónde hubo más robos al menos en 2024?", "desc"),
    ("¿Cuántos casos de corrupción de menores hubo en León?", "desc"),  # "menores" names the crime
]


@pytest.mark.parametrize("question,order", ORDER)
def test_order(ask, question, order):
    assert ask(question).order == order


MEDIDA = [
    ("tasa de homicidios en Celaya", "tasa_per_100k"),
    ("homicidios por cada 100 mil habitantes en León", "tasa_per_100k"),
    ("homicidios por 100,000 habitantes en León", "tasa_per_100k"),
    ("homicidios por 100 mil habitantes", "tasa_per_100k"),
    ("homicidios per cápita en León", "tasa_per_100k"),
    ("robos por habitante en Irapuato", "tasa_per_100k"),
    ("ranking de municipios por tasa de homicidios", "tasa_per_100k"),
    ("homicidios en León", "conteo"),
    ("homicidios en León, el conteo, no a la tasa", "conteo"),
    ("robos en Celaya en número, no a tasa", "conteo"),
]


@pytest.mark.parametrize("question,medida", MEDIDA)
def test_medida(ask, question, medida):
    assert ask(question).medida == medida


def test_normalized_is_lowercase_without_accents(ask):
    u = ask("¿Cuántos Homicidios hubo en LEÓN?")
    assert u.normalized == "¿cuantos homicidios hubo en leon?"
    assert u.question == "¿Cuántos Homicidios hubo en LEÓN?"


def test_signals_describe_matches(ask):
    s = ask("Top 5 municipios con más asesinatos en los últimos 12 meses").signals
    assert {"time:relative", "crime:synonym", "kind:ranking", "top_k:digits", "group_by:municipio"} <= set(s)


def test_evidence_as_add_on(ask):
    u = ask("top 5 municipios con más homicidios con evidencia")
    assert u.kind == "ranking" and u.wants_evidence


def test_place_comparison_is_one_value_per_place(ask):
    u = ask("compara León y Celaya en homicidios 2024")
    assert u.kind == "single_value" and len(u.places) == 2 and "kind:place_comparison" in u.signals


def test_seasonality_signal_for_the_planner(ask):
    assert "kind:seasonality" in ask("estacionalidad de robos en León").signals
    assert "kind:cooccurrence" in ask("¿qué delitos ocurren juntos en León?").signals
