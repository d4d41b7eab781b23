"""The route stage's rules: confidence from measurable signals, mode and domains by kind, hints (tables of cases)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.ask import route as router
from core.ask.understand import CrimeMatch, PlaceMatch, Understanding

NOW = datetime(2026, 1, 15, tzinfo=UTC)


def u(kind="single_value", places=(), crimes=(), **kw):
    return Understanding(question="q", normalized="q", places=list(places), crimes=list(crimes), kind=kind, **kw)


LEON = PlaceMatch("GTO.MUN.LEON", "León", "municipio", "leon", 100.0)
FUZZY = PlaceMatch("GTO.MUN.CELAYA", "Celaya", "municipio", "celayaa", 88.0)
DOLOSO = CrimeMatch("homicidio_doloso", "Homicidio doloso", "homicidios dolosos", 100.0, True)


LEON = PlaceMatch("GTO.MUN.LEON", "León", "municipio", "leon", 100.0)
FUZZY = PlaceMatch("GTO.MUN.CELAYA", "Celaya", "municipio", "celayaa", 88.0)
DOLOSO = CrimeMatch("homicidio_doloso", "Homicidio doloso", "homicidios dolosos", 100.0, True)


@pytest.mark.parametrize(
    "understanding,expected",
    [
        (u(places=[LEON], crimes=[DOLOSO]), "high"),
        (u(places=[FUZZY], crimes=[DOLOSO]), "medium"),
        (u(places=[LEON]), "medium"),
        (u(places=[FUZZY], generic_place="mi municipio"), "low"),
        (u(kind="unknown"), "low"),
    ],
)
def test_confidence_comes_from_measurable_signals(understanding, expected):
    assert router.confidence(understanding, "relevant") == expected


@pytest.mark.parametrize(
    "kind,mode,domain",
    [
        ("single_value", "fast", "incidencia"),
        ("ranking", "fast", "incidencia"),
        ("series", "fast", "tendencias"),
        ("comparison", "deep", "comparacion"),
        ("anomalies", "deep", "anomalias"),
        ("patterns", "deep", "patrones"),
    ],
)
def test_mode_and_domains_by_kind(kind, mode, domain):
    plan = router.route(u(kind=kind, places=[LEON], crimes=[DOLOSO]), "relevant", "auto", "q", NOW, False)
    assert plan.mode == mode and plan.domains_selected[0] == domain and plan.flags == []


def test_multi_part_questions_force_deep_and_hints_are_preferences():
    two = u(places=[LEON, FUZZY], crimes=[DOLOSO])
    plan = router.route(two, "relevant", "auto", "q", NOW, False)
    assert plan.mode == "deep" and "mode-forced-deep" in plan.flags
    plan = router.route(u(places=[LEON], crimes=[DOLOSO]), "relevant", "patrones", "q", NOW, False)
    assert "domain-hint-overridden" in plan.flags and plan.domain_hint == "patrones"
    plan = router.route(u(kind="series", places=[LEON], crimes=[DOLOSO]), "relevant", "tendencias", "q", NOW, False)
    assert plan.flags == [] and "se respetó" in plan.rationale
