"""The HTTP API's bodies take their closed vocabularies from the contracts (one definition each)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from core.ask.contracts import DomainHint
from core.cli import build_parser
from core.expositor.models import AskRequest

ROOT = Path(__file__).resolve().parents[3]
# The domains after «comparacion» in a row as string literals: a copy of the contract's list
DOMAIN_RUN = re.compile(r'"patrones",\s*"anomalias",\s*"evidencia",\s*"metodologia"')


def _ask_choices() -> tuple:
    (ask,) = [a for a in build_parser()._subparsers._group_actions if "ask" in a.choices]
    (hint,) = [a for a in ask.choices["ask"]._actions if a.dest == "domain_hint"]
    return tuple(hint.choices)


def test_the_api_and_the_cli_offer_the_contracts_domain_hints() -> None:
    hints = get_args(DomainHint)
    assert AskRequest.model_json_schema()["properties"]["domain_hint"]["enum"] == list(hints)
    assert _ask_choices() == hints


@pytest.mark.parametrize("hint", ["auto", "metodologia", "lab"])
def test_a_contract_hint_is_accepted(hint: str) -> None:
    assert AskRequest(question="¿Cuántos robos hubo en Celaya?", domain_hint=hint).domain_hint == hint


def test_a_hint_outside_the_contract_is_refused() -> None:
    with pytest.raises(ValidationError):
        AskRequest(question="¿Cuántos robos hubo en Celaya?", domain_hint="astrologia")


def test_the_domain_names_are_listed_only_in_the_contract() -> None:
    copies = [
        str(path.relative_to(ROOT))
        for folder in ("core", "ui", "pages", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if DOMAIN_RUN.search(path.read_text(encoding="utf-8"))
    ]
    assert copies == ["core/ask/contracts.py"]
