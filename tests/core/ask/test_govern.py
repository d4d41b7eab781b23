"""The govern stage's rules: lab access only with a supervisor's approval (table of cases)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.ask import govern as governor
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
    "requested,approved,status,flags",
    [
        (False, False, "denied", []),
        (True, False, "denied", ["lab-access-requested", "lab-access-denied"]),
        (True, True, "approved", ["lab-access-requested", "lab-access-approved"]),
        (False, True, "approved", ["lab-access-approved"]),
    ],
)
def test_governor_lab_decisions(requested, approved, status, flags):
    plan = router.route(u(places=[LEON], crimes=[DOLOSO]), "relevant", "auto", "q", NOW, False)
    decision, updated = governor.decide(plan, requested, approved, NOW)
    assert decision.lab_policy.status == status and updated.lab_policy.status == status
    assert decision.flags == flags and [f for f in updated.flags if f.startswith("lab")] == flags
    assert "lab" not in updated.domains_selected
