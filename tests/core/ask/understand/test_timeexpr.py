"""Time expressions → whole-month windows against the anchor 2025-11-30 (min_date 2015-01-01)."""

from __future__ import annotations

from datetime import date

import pytest

from core.ask.understand.timeexpr import month_end, parse_time, shift_months
from core.ask.understand.tokens import tokenize
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE

D = date

WINDOWS = [
    ("¿Cuántos homicidios hubo en 2024?", (D(2024, 1, 1), D(2024, 12, 31))),
    ("homicidios durante 2023", (D(2023, 1, 1), D(2023, 12, 31))),
    ("homicidios en el 2022", (D(2022, 1, 1), D(2022, 12, 31))),
    ("robos entre marzo y junio de 2024", (D(2024, 3, 1), D(2024, 6, 30))),
    ("robos de enero a marzo de 2025", (D(2025, 1, 1), D(2025, 3, 31))),
    ("robos de noviembre a febrero de 2024", (D(2023, 11, 1), D(2024, 2, 29))),
    ("robos de enero de 2024 a marzo de 2025", (D(2024, 1, 1), D(2025, 3, 31))),
    ("homicidios de 2019 a 2020", (D(2019, 1, 1), D(2020, 12, 31))),
    ("homicidios entre 2019 y 2020", (D(2019, 1, 1), D(2020, 12, 31))),
    ("homicidios del 2019 al 2021", (D(2019, 1, 1), D(2021, 12, 31))),
    ("homicidios 2019-2020", (D(2019, 1, 1), D(2020, 12, 31))),
    ("homicidios desde 2019 hasta 2021", (D(2019, 1, 1), D(2021, 12, 31))),
    ("primer semestre de 2025", (D(2025, 1, 1), D(2025, 6, 30))),
    ("segundo semestre del 2023", (D(2023, 7, 1), D(2023, 12, 31))),
    ("segundo trimestre de 2024", (D(2024, 4, 1), D(2024, 6, 30))),
    ("cuarto trimestre 2024", (D(2024, 10, 1), D(2024, 12, 31))),
    ("1er trimestre de 2025", (D(2025, 1, 1), D(2025, 3, 31))),
    ("primer trimestre de este año", (D(2025, 1, 1), D(2025, 3, 31))),
    ("segundo semestre del año pasado", (D(2024, 7, 1), D(2024, 12, 31))),
    ("en marzo de 2024", (D(2024, 3, 1), D(2024, 3, 31))),
    ("en marzo 2024", (D(2024, 3, 1), D(2024, 3, 31))),
    ("en febrero del 2024", (D(2024, 2, 1), D(2024, 2, 29))),
    ("en 03/2024", (D(2024, 3, 1), D(2024, 3, 31))),
    ("en 2024-03", (D(2024, 3, 1), D(2024, 3, 31))),
    ("en mar-2024", (D(2024, 3, 1), D(2024, 3, 31))),
    ("en marzo", (D(2025, 3, 1), D(2025, 3, 31))),  # latest March not after the anchor
    ("en diciembre", (D(2024, 12, 1), D(2024, 12, 31))),
    ("en marzo del año pasado", (D(2024, 3, 1), D(2024, 3, 31))),
    ("en los últimos 12 meses", (D(2024, 12, 1), D(2025, 11, 30))),
    ("ultimos doce meses", (D(2024, 12, 1), D(2025, 11, 30))),
    ("los últimos 6 meses", (D(2025, 6, 1), D(2025, 11, 30))),
    ("los ultimos 3 meses", (D(2025, 9, 1), D(2025, 11, 30))),
    ("los últimos dos años", (D(2023, 12, 1), D(2025, 11, 30))),
    # three or more back-to-back periods listed are one span; months listed take the year said last
    ("sumando 2018, 2019 y 2020", (D(2018, 1, 1), D(2020, 12, 31))),
    ("en enero, febrero y marzo de 2024", (D(2024, 1, 1), D(2024, 3, 31))),
    ("2021, 2022, 2023 y 2024", (D(2021, 1, 1), D(2024, 12, 31))),
    # «completo», «cerrado», «entero»: the last calendar unit published whole, not the last 12 (3, 6) months
    ("el último año completo que tengan", (D(2024, 1, 1), D(2024, 12, 31))),
    ("en el ultimo ano cerrado", (D(2024, 1, 1), D(2024, 12, 31))),
    ("el último trimestre completo", (D(2025, 7, 1), D(2025, 9, 30))),
    ("el último semestre entero", (D(2025, 1, 1), D(2025, 6, 30))),
    ("el último año", (D(2024, 12, 1), D(2025, 11, 30))),
    ("el último trimestre", (D(2025, 9, 1), D(2025, 11, 30))),
    ("el año pasado", (D(2024, 1, 1), D(2024, 12, 31))),
    ("el año anterior", (D(2024, 1, 1), D(2024, 12, 31))),
    ("el año antepasado", (D(2023, 1, 1), D(2023, 12, 31))),
    ("hace dos años", (D(2023, 1, 1), D(2023, 12, 31))),
    ("este año", (D(2025, 1, 1), D(2025, 11, 30))),
    ("en lo que va del año", (D(2025, 1, 1), D(2025, 11, 30))),
    ("en lo que va de 2025", (D(2025, 1, 1), D(2025, 11, 30))),
    ("desde 2022", (D(2022, 1, 1), D(2025, 11, 30))),
    ("a partir de 2023", (D(2023, 1, 1), D(2025, 11, 30))),
    ("desde marzo de 2023", (D(2023, 3, 1), D(2025, 11, 30))),
    ("de 2020 a la fecha", (D(2020, 1, 1), D(2025, 11, 30))),
    ("después de 2022", (D(2023, 1, 1), D(2025, 11, 30))),
    ("hasta 2021", (D(2015, 1, 1), D(2021, 12, 31))),
    ("antes de 2021", (D(2015, 1, 1), D(2020, 12, 31))),
    ("el último mes", (D(2025, 11, 1), D(2025, 11, 30))),
    ("el mes pasado", (D(2025, 11, 1), D(2025, 11, 30))),
    ("en todo el periodo", (D(2015, 1, 1), D(2025, 11, 30))),
    ("¿Cuántos homicidios hubo en 2023 y 2024?", (D(2023, 1, 1), D(2024, 12, 31))),
]


@pytest.mark.parametrize("text,window", WINDOWS)
def test_window(text, window):
    res = parse_time(tokenize(text).text, ANCHOR, MIN_DATE)
    assert res.window == window
    assert res.compare_window is None
    assert res.window_text


COMPARISONS = [
    ("homicidios 2024 vs 2023", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    ("homicidios 2024 contra 2023", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    ("homicidios en 2024 comparado con 2023", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    ("¿hubo más homicidios en 2024 que en 2023?", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    ("compara 2023 y 2024", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    ("compara 2024 con 2023", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    (
        "¿cómo cambiaron los robos entre 2023 y 2024?",
        (D(2024, 1, 1), D(2024, 12, 31)),
        (D(2023, 1, 1), D(2023, 12, 31)),
    ),
    ("comparado con 2023", (D(2024, 1, 1), D(2024, 12, 31)), (D(2023, 1, 1), D(2023, 12, 31))),
    (
        "¿aumentaron en 2024 respecto al año anterior?",
        (D(2024, 1, 1), D(2024, 12, 31)),
        (D(2023, 1, 1), D(2023, 12, 31)),
    ),
    ("¿aumentaron respecto al año anterior?", (D(2025, 1, 1), D(2025, 11, 30)), (D(2024, 1, 1), D(2024, 11, 30))),
    ("¿hubo más este año que el año pasado?", (D(2025, 1, 1), D(2025, 11, 30)), (D(2024, 1, 1), D(2024, 11, 30))),
    (
        "primer semestre de 2025 vs primer semestre de 2024",
        (D(2025, 1, 1), D(2025, 6, 30)),
        (D(2024, 1, 1), D(2024, 6, 30)),
    ),
    ("marzo de 2024 contra marzo de 2023", (D(2024, 3, 1), D(2024, 3, 31)), (D(2023, 3, 1), D(2023, 3, 31))),
    (
        "de enero a noviembre de 2025 frente al mismo periodo de 2024",
        (D(2025, 1, 1), D(2025, 11, 30)),
        (D(2024, 1, 1), D(2024, 11, 30)),
    ),
    ("¿bajaron los feminicidios de 2021 a 2022?", (D(2022, 1, 1), D(2022, 12, 31)), (D(2021, 1, 1), D(2021, 12, 31))),
    ("diferencia de homicidios entre 2022 y 2023", (D(2023, 1, 1), D(2023, 12, 31)), (D(2022, 1, 1), D(2022, 12, 31))),
    ("en 2022 en comparación con 2021", (D(2022, 1, 1), D(2022, 12, 31)), (D(2021, 1, 1), D(2021, 12, 31))),
    (
        "últimos 12 meses comparado con el año anterior",
        (D(2024, 12, 1), D(2025, 11, 30)),
        (D(2023, 12, 1), D(2024, 11, 30)),
    ),
]


@pytest.mark.parametrize("text,window,base", COMPARISONS)
def test_comparison(text, window, base):
    res = parse_time(tokenize(text).text, ANCHOR, MIN_DATE)
    assert (res.window, res.compare_window) == (window, base)
    assert "time:compare" in res.signals


@pytest.mark.parametrize(
    "text",
    [
        "homicidios mes por mes en León",
        "¿qué meses tienen más robos?",
        "por mes",
        "el mes con más homicidios",
        "top 5 municipios",
        "homicidios por 100,000 habitantes",
        "homicidios en León",
        "",
    ],
)
def test_no_window(text):
    assert parse_time(tokenize(text).text, ANCHOR, MIN_DATE).window is None


def test_sub_monthly_is_flagged():
    res = parse_time(tokenize("homicidios de hoy").text, ANCHOR, MIN_DATE)
    assert "time:sub_monthly" in res.signals and res.window == (D(2025, 11, 1), D(2025, 11, 30))


@pytest.mark.parametrize(
    "text,window",
    [("desde 2030", (D(2030, 1, 1), D(2030, 12, 31))), ("antes de 2015", (D(2014, 1, 1), D(2014, 12, 31)))],
)
def test_outside_data_stays_well_formed(text, window):
    res = parse_time(tokenize(text).text, ANCHOR, MIN_DATE)
    assert res.window == window and "time:outside_data" in res.signals


def test_window_text_keeps_the_words():
    res = parse_time(tokenize("robos entre marzo y junio de 2024 en León").text, ANCHOR, MIN_DATE)
    assert res.window_text == "entre marzo y junio de 2024"


def test_anchor_not_wall_clock():
    res = parse_time(tokenize("últimos 12 meses").text, D(2020, 6, 30), MIN_DATE)
    assert res.window == (D(2019, 7, 1), D(2020, 6, 30))


def test_date_helpers():
    assert month_end(2024, 2) == D(2024, 2, 29)
    assert shift_months(D(2025, 1, 15), -1) == D(2024, 12, 1)


# Blind probes dev_as / dev_ar / dev_aq (session 23): year-to-date «acumulados», two-digit years in a range, bare
# abbreviated month ranges, and a day range said after «cambio de tema»
WINDOWS_S23 = [
    ("acumulado a octubre de 2025", (D(2025, 1, 1), D(2025, 10, 31))),
    ("el acumulado al cierre de septiembre", (D(2025, 1, 1), D(2025, 9, 30))),
    ("acumulado al corte de junio del 2024", (D(2024, 1, 1), D(2024, 6, 30))),
    ("cifras acumuladas hasta agosto de 2023", (D(2023, 1, 1), D(2023, 8, 31))),
    ("homicidios acumulados a mayo 2022", (D(2022, 1, 1), D(2022, 5, 31))),
    ("acumulado enero-octubre de 2024", (D(2024, 1, 1), D(2024, 10, 31))),
    ("acumulado ene-oct 2024", (D(2024, 1, 1), D(2024, 10, 31))),
    ("del 21 al 24, que año tuvo mas en leon", (D(2021, 1, 1), D(2024, 12, 31))),
    ("homicidios del 19 al 24", (D(2019, 1, 1), D(2024, 12, 31))),
    ("homicidios 2019-24", (D(2019, 1, 1), D(2024, 12, 31))),
    ("homicidios de 2020 a 24", (D(2020, 1, 1), D(2024, 12, 31))),
    ("robos desde el 18 hasta el 22", (D(2018, 1, 1), D(2022, 12, 31))),
    ("entre el 21 y el 23", (D(2021, 1, 1), D(2023, 12, 31))),
    ("abr-jun?", (D(2025, 4, 1), D(2025, 6, 30))),
    ("jul-sep?", (D(2025, 7, 1), D(2025, 9, 30))),
    ("¿y oct-nov?", (D(2025, 10, 1), D(2025, 11, 30))),
    ("ene - mar", (D(2025, 1, 1), D(2025, 3, 31))),
    ("¿y de oct a dic?", (D(2024, 10, 1), D(2024, 12, 31))),
    ("sep.", (D(2025, 9, 1), D(2025, 9, 30))),
    ("¿y en dic?", (D(2024, 12, 1), D(2024, 12, 31))),
    ("Cambio de tema: violaciones en Celaya del 1 de enero al 30 de junio de 2021.", (D(2021, 1, 1), D(2021, 6, 30))),
    ("cambiemos de tema, robos del 1 de marzo al 31 de mayo de 2024", (D(2024, 3, 1), D(2024, 5, 31))),
]


@pytest.mark.parametrize("text,window", WINDOWS_S23)
def test_window_s23(text, window):
    res = parse_time(tokenize(text).text, ANCHOR, MIN_DATE)
    assert res.window == window
    assert res.compare_window is None
    assert not res.unparsed


@pytest.mark.parametrize(
    "text,window",
    [
        ("del 21 al 24 de marzo de 2024", (D(2024, 3, 1), D(2024, 3, 31))),
        ("los 24 homicidios de 2023", (D(2023, 1, 1), D(2023, 12, 31))),
        ("hace 2 años", (D(2023, 1, 1), D(2023, 12, 31))),
    ],
)
def test_numbers_that_are_not_short_years(text, window):
    assert parse_time(tokenize(text).text, ANCHOR, MIN_DATE).window == window


@pytest.mark.parametrize(
    "text,window,base",
    [
        (
            "Necesitamos el acumulado a octubre de 2025 contra el acumulado a octubre de 2024.",
            (D(2025, 1, 1), D(2025, 10, 31)),
            (D(2024, 1, 1), D(2024, 10, 31)),
        ),
        (
            "acumulado a septiembre de 2025 vs el mismo periodo de 2024",
            (D(2025, 1, 1), D(2025, 9, 30)),
            (D(2024, 1, 1), D(2024, 9, 30)),
        ),
        (
            "el acumulado al cierre de agosto 2024 frente al acumulado al cierre de agosto 2023",
            (D(2024, 1, 1), D(2024, 8, 31)),
            (D(2023, 1, 1), D(2023, 8, 31)),
        ),
    ],
)
def test_comparison_s23(text, window, base):
    res = parse_time(tokenize(text).text, ANCHOR, MIN_DATE)
    assert (res.window, res.compare_window) == (window, base)
