"""The everyday answer shapes (issue 13 §2): the kind and its shape signals, over varied phrasings.

The phrasings were written before the cues (registers: press, analysts, citizens; with and
without accents and question marks); each row names the kind and the shape signals it must leave.
"""

from __future__ import annotations

import pytest

SHAPES = [
    # peak / lowest month or year
    ("¿Cuál fue el mes con más homicidios dolosos en Celaya en 2023?", "extremes", {"extreme:max"}),
    ("mes con mas asesinatos en leon 2022", "extremes", {"extreme:max"}),
    ("¿En qué mes de 2024 hubo menos homicidios culposos en Irapuato?", "extremes", {"extreme:min"}),
    ("el peor mes de feminicidios en 2021", "extremes", {"extreme:max"}),
    ("¿cuál fue el mes más violento de 2023 en Salamanca?", "extremes", {"extreme:max"}),
    ("mes más tranquilo en homicidios dolosos en León en 2024", "extremes", {"extreme:min"}),
    ("¿Qué año tuvo más secuestros en Guanajuato?", "extremes", {"extreme:max", "extreme:anio"}),
    ("año con menos violencia familiar en Celaya", "extremes", {"extreme:min", "extreme:anio"}),
    ("el mes récord de homicidios dolosos en Irapuato", "extremes", {"extreme:max"}),
    ("¿qué mes fue el peor para Silao en feminicidios en 2019?", "extremes", {"extreme:max"}),
    ("¿y el más bajo?", "extremes", {"extreme:min"}),
    ("en q mes de 2021 hubo mas feminicidios en Irapuato", "extremes", {"extreme:max"}),
    ("¿y el mes más alto?", "extremes", {"extreme:max"}),
    ("año con la cifra más baja de secuestros en Celaya", "extremes", {"extreme:min", "extreme:anio"}),
    ("pico mensual de homicidios culposos en León en 2021", "extremes", {"extreme:max"}),
    ("mes con el número más alto de abusos sexuales en Irapuato", "extremes", {"extreme:max"}),
    # monthly and daily averages
    ("¿Cuántos homicidios dolosos hay al día en León?", "average", {"average:day"}),
    ("promedio mensual de secuestros en 2023", "average", {"average:month"}),
    ("¿en promedio cuántos feminicidios se cometen al mes en Guanajuato?", "average", {"average:month"}),
    ("homicidios diarios en Celaya en 2024", "average", {"average:day"}),
    ("media mensual de violencia familiar en Irapuato 2022", "average", {"average:month"}),
    ("cuantos asesinatos por dia hubo en el estado en 2023", "average", {"average:day"}),
    # places with zero / at least one / how many
    ("¿Qué municipios no registraron secuestros en 2023?", "presence", {"presence:sin"}),
    ("municipios sin ningún feminicidio en 2022", "presence", {"presence:sin"}),
    ("¿En cuántos municipios hubo al menos un secuestro en 2024?", "presence", {"presence:con"}),
    ("¿cuántos municipios tuvieron feminicidios en 2021?", "presence", {"presence:con"}),
    ("¿Hubo municipios con cero homicidios dolosos en 2023?", "presence", {"presence:sin"}),
    ("lugares donde no hubo trata de personas en 2020", "presence", {"presence:sin"}),
    ("¿qué municipios registraron por lo menos una extorsión o secuestro en 2019?", "presence", {"presence:con"}),
    ("municipios sin feminicidios en 2020", "presence", {"presence:sin"}),
    ("¿hay municipios libres de secuestro en 2022?", "presence", {"presence:sin"}),
    ("¿qué municipios tuvieron algún caso de trata de personas en 2019?", "presence", {"presence:con"}),
    # breakdown by modalidad inside a place
    ("homicidios dolosos en Celaya por modalidad en 2023", "breakdown", set()),
    ("desglose de homicidios culposos de León en 2024", "breakdown", set()),
    ("¿con qué arma se cometieron los homicidios dolosos en Irapuato en 2022?", "breakdown", set()),
    ("modalidades del homicidio doloso en el estado en 2023", "breakdown", set()),
    ("¿qué porcentaje de los homicidios dolosos de Celaya en 2023 fueron con arma de fuego?", "breakdown", set()),
    ("% de los homicidios de León que se cometieron con arma blanca en 2022", "breakdown", set()),
    ("¿qué parte de los asesinatos en Irapuato son con arma de fuego?", "breakdown", set()),
    # ...but a place's share of the state stays a share
    ("¿qué porcentaje de los homicidios con arma de fuego del estado ocurrieron en León?", "share", set()),
    ("Participación de cada municipio en los homicidios dolosos con arma de fuego de 2024", "share", set()),
    ("¿qué tipo de secuestro predominó en León entre 2015 y 2020?", "breakdown", set()),
    ("cómo se reparten los homicidios culposos por tipo en Celaya en 2022", "breakdown", set()),
    ("feminicidios en Celaya según el medio empleado, 2018", "breakdown", set()),
    ("participación de cada modalidad en los homicidios culposos del estado en 2021", "breakdown", set()),
    # annual series with year-over-year change
    ("tendencia anual de violencia familiar en León", "annual_series", set()),
    ("homicidios dolosos año por año en Celaya", "annual_series", set()),
    ("¿cómo han variado los feminicidios cada año en Guanajuato?", "annual_series", set()),
    ("variación anual de secuestros en el estado", "annual_series", set()),
    ("secuestros por año en Irapuato", "annual_series", set()),
    ("feminicidios x año en Celaya 2016-2020", "annual_series", set()),
    ("feminicidios en León año con año de 2016 a 2020", "annual_series", set()),
    ("variación año contra año del abuso sexual en Celaya entre 2017 y 2021", "annual_series", set()),
    ("¿subieron o bajaron cada año los homicidios culposos en Silao entre 2020 y 2024?", "annual_series", set()),
    # a place against the state
    ("¿la tasa de León está por encima del promedio estatal?", "places", {"vs_state"}),
    ("¿Celaya está arriba o abajo de la media estatal en homicidios dolosos?", "places", {"vs_state"}),
    ("homicidios dolosos de Irapuato frente al estado en 2023", "places", {"vs_state"}),
    ("¿Salamanca tiene más feminicidios por habitante que el promedio del estado?", "places", {"vs_state"}),
    ("secuestros en Celaya vs todo el estado 2021", "places", {"vs_state"}),
    ("tasa de feminicidio de León y del estado en 2022", "places", {"vs_state"}),
    ("¿la tasa de homicidio culposo de Irapuato supera la del estado?", "places", {"vs_state"}),
    ("violencia familiar de Salamanca comparada con la estatal en 2020", "places", {"vs_state"}),
]
DIRECTIONS = [
    ("¿En qué municipio bajaron más los homicidios dolosos entre 2022 y 2023?", "asc"),
    ("municipios donde más disminuyeron los feminicidios de 2021 a 2022", "asc"),
    ("¿dónde se redujeron más los secuestros en 2024 respecto a 2023?", "asc"),
    ("¿qué municipios aumentaron más sus homicidios en 2024 respecto a 2023?", "desc"),
    ("municipios donde más subió la violencia familiar entre 2021 y 2022", "desc"),
    ("¿en qué municipios crecieron más los homicidios culposos en 2023 frente a 2022?", "desc"),
    ("los 5 municipios donde más cayó el abuso sexual entre 2018 y 2019", "asc"),
    ("¿dónde bajó más la violencia familiar entre 2020 y 2021?", "asc"),
    # a superlative of a change with no place: the municipalities, ranked
    ("mayor aumento de robos 1er semestre 2025 vs 1er semestre 2024", "desc"),
    ("las mayores caídas de extorsión 2024 contra 2023", "asc"),
    ("mayor alza de feminicidios por municipio, 2021 contra 2020", "desc"),
    ("¿y cuáles subieron más?", "desc"),
    ("¿dónde bajaron más entre 2023 y 2024?", "asc"),
]
# a breakdown asked in everyday words (session 20): «de cada tipo», «por clase», «separados por…», «distribución»;
# the words are understood too, never «No tomé en cuenta»
BREAKDOWN_PHRASINGS = [
    "¿cuántos robos de cada tipo hubo en Celaya en 2023?",
    "robos por clase en Celaya en 2023",
    "robos separados por tipo en Salamanca 2024",
    "distribución por tipo de los robos en León 2024",
    "homicidios dolosos en León en 2024, separados por modalidad",
    "feminicidios de cada clase en el estado en 2023",
    "¿cuántos secuestros de cada tipo hubo en Guanajuato en 2022?",
    "robos en León en 2024 divididos por tipo",
    "cuántos hubo de cada tipo de robo en Irapuato en 2024",
    "robos en Celaya 2023 por categoría",
    "la distribución de los homicidios dolosos de Silao en 2024",
    "homicidios dolosos en Celaya 2024 clasificados por modalidad",
    "robos en Irapuato 2024 agrupados por tipo",
    "¿cuántos robos hubo en León en 2024 de cada clase?",
    "robos con violencia de cada tipo en León 2024",
    "¿cuánto de cada delito del grupo robos hubo en León en 2024?",
    "¿qué tipos de robo hubo en León en 2024 y cuántos de cada uno?",
]
NOT_BREAKDOWNS = [  # a distribution over time or places is no breakdown by kind
    ("distribución mensual de homicidios dolosos en León en 2024", "series"),
    ("distribución de los robos por municipio en 2024", "ranking"),
    ("robos de todo tipo en León en 2024", "single_value"),
]
NOT_CHANGES = [  # a low value is not a fall
    ("¿qué municipio tiene la tasa más baja de homicidios dolosos en 2023?", "ranking"),
    ("los 5 municipios con menos feminicidios en 2022", "ranking"),
    ("¿dónde hubo menos secuestros en 2024?", "ranking"),
]
SIDE_BY_SIDE = [
    "Celaya contra Salamanca en homicidio doloso 2023",
    "compara León e Irapuato en feminicidios 2022",
    "homicidios dolosos en Celaya, Salamanca e Irapuato en 2024",
    "León vs Celaya secuestros 2021",
]


@pytest.mark.parametrize(("question", "kind", "signals"), SHAPES)
def test_shape_kind_and_signals(ask, question, kind, signals):
    u = ask(question)
    assert u.kind == kind, (question, u.kind, u.signals)
    assert signals <= set(u.signals), (question, u.signals)


@pytest.mark.parametrize("question", BREAKDOWN_PHRASINGS)
def test_a_breakdown_in_everyday_words(ask, question):
    u = ask(question)
    assert u.kind == "breakdown", (question, u.kind, u.signals)
    assert not [t.text for t in u.unknown_terms], (question, u.unknown_terms)


@pytest.mark.parametrize(("question", "kind"), NOT_BREAKDOWNS)
def test_a_distribution_over_time_or_places_is_no_breakdown(ask, question, kind):
    assert ask(question).kind == kind


@pytest.mark.parametrize(("question", "direction"), DIRECTIONS)
def test_change_ranking_direction(ask, question, direction):
    u = ask(question)
    assert u.kind == "comparison" and u.group_by_municipio, (question, u.kind, u.signals)
    assert f"direction:{direction}" in u.signals


@pytest.mark.parametrize("question", SIDE_BY_SIDE)
def test_several_places_are_kept(ask, question):
    u = ask(question)
    assert len([p for p in u.places if p.nivel == "municipio"]) >= 2, (question, u.places)
    assert u.kind in ("single_value", "places"), (question, u.kind)


@pytest.mark.parametrize(("question", "kind"), NOT_CHANGES)
def test_a_low_value_is_not_a_fall(ask, question, kind):
    assert ask(question).kind == kind


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("mes con mas homicidios en leon", "mes con mas"),
        ("cuantos al dia en celaya", "al dia"),
        ("municipios sin secuestros", "municipios sin"),
        ("por modalidad en leon", "por modalidad"),
        ("tendencia anual", "anual"),
        ("esta por encima del promedio estatal", "promedio estatal"),
        ("donde bajaron mas", "bajaron"),
    ],
)
def test_shape_words_count_as_understood(text, word):
    from core.ask.understand.kind import cue_spans

    start = text.index(word)
    assert any(a <= start and start + len(word) <= b for a, b in cue_spans(text)), cue_spans(text)
