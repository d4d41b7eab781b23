"""The grammar of time (fixture tests/fixtures/understand/time_phrases.json): words, days, calendar parts, seasons."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from core.ask.understand.timeexpr import parse_time
from core.ask.understand.tokens import tokenize
from core.text import month_end
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE

PHRASES = json.loads((Path(__file__).resolve().parents[3] / "fixtures/understand/time_phrases.json").read_text())


def _first(ym: str) -> date:
    return date(int(ym[:4]), int(ym[5:7]), 1)


def _last(ym: str) -> date:
    return month_end(int(ym[:4]), int(ym[5:7]))


def _parse(text: str):
    return parse_time(tokenize(text).text, ANCHOR, MIN_DATE)


@pytest.mark.parametrize("text,desde,hasta,note", PHRASES["windows"])
def test_window(text, desde, hasta, note):
    res = _parse(text)
    assert res.window == (_first(desde), _last(hasta))
    assert res.compare_window is None
    assert not res.unparsed
    if note:
        assert any(note in n for n in res.notes), res.notes


@pytest.mark.parametrize("text,desde,hasta,base_desde,base_hasta", PHRASES["comparisons"])
def test_comparison(text, desde, hasta, base_desde, base_hasta):
    res = _parse(text)
    assert res.window == (_first(desde), _last(hasta))
    assert res.compare_window == (_first(base_desde), _last(base_hasta))


@pytest.mark.parametrize("text,term", PHRASES["unparsed"])
def test_unparsed_time_is_reported_not_defaulted(text, term):
    res = _parse(text)
    assert res.window is None
    assert any(term in u for u in res.unparsed), res.unparsed
    assert "time:unparsed" in res.signals


def test_previous_window_reference_is_flagged():
    """«el año anterior», «un año antes»: relative to the previous turn's window, so the follow-up can shift it."""
    for text in ("¿y el año anterior?", "¿y un año antes?", "¿y el año previo?"):
        assert "time:prev_of_previous" in _parse(text).signals
    assert "time:prev_of_previous" not in _parse("¿y el año pasado?").signals


@pytest.mark.parametrize(
    "text",
    ["los 5 municipios con más robos", "homicidios por cada cien mil habitantes", "el mes con más homicidios"],
)
def test_no_time(text):
    res = _parse(text)
    assert res.window is None and not res.unparsed


@pytest.mark.parametrize(
    "text,desde,hasta",
    [
        ("en lo que va del año", "2022-01", "2022-12"),
        ("los últimos 12 meses", "2022-01", "2022-12"),
        ("de enero a la fecha", "2022-01", "2022-12"),
        ("desde 2020", "2020-01", "2022-12"),
        ("en 2021", "2021-01", "2021-12"),  # an absolute window does not move
    ],
)
def test_relative_windows_count_from_the_crimes_last_month(text, desde, hasta):
    """A crime published to 2022-12 (violencia familiar): relative periods end there, and the answer says so."""
    from core.ask.understand.timeexpr import reanchor

    toks = tokenize(text).text
    res = reanchor(toks, parse_time(toks, ANCHOR, MIN_DATE), date(2022, 12, 31), ANCHOR, MIN_DATE)
    assert res.window == (_first(desde), _last(hasta))
    assert ("time:crime_anchor" in res.signals) is (desde != "2021-01")
