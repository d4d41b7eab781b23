"""Lexicons over the bundled store and a small Jalisco store; the fixed anchor of the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.ask.understand.lexicon import Lexicon
from core.ask.understand.parse import understand
from core.config import load_settings
from core.dataset.store import Store
from core.engine.catalog import build_catalog
from core.etl import SourceSpec, run_etl
from tests.core.ask.understand.helpers import ANCHOR, MIN_DATE

JALISCO_CSV = Path(__file__).resolve().parents[3] / "fixtures" / "etl" / "jalisco_idm.csv"


@pytest.fixture(scope="session")
def catalog(bundled_settings):
    """The catalog of the bundled Guanajuato store."""
    return build_catalog(Store(bundled_settings))


@pytest.fixture(scope="session")
def lexicon(catalog) -> Lexicon:
    """The lexicon of the bundled store."""
    return Lexicon.from_catalog(catalog)


@pytest.fixture(scope="session")
def ask(lexicon):
    """understand() against the bundled store with the test anchor."""
    return lambda question: understand(question, lexicon, ANCHOR, MIN_DATE)


@pytest.fixture(scope="session")
def jalisco_lexicon(tmp_path_factory) -> Lexicon:
    """The lexicon of a store loaded only from a Jalisco file."""
    settings = load_settings(tmp_path_factory.mktemp("jalisco") / "data")
    run_etl([SourceSpec(JALISCO_CSV)], settings)
    return Lexicon.from_catalog(build_catalog(Store(settings)))
