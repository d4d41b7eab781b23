"""Shared fixtures: isolated data folders and one bundled store per test worker."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.cli import load_manifest
from core.clock import FixedClock
from core.config import DEFAULT_DATA_DIR, Settings, load_settings
from core.etl import run_etl

FIXTURES = Path(__file__).parent / "fixtures"
RAW = DEFAULT_DATA_DIR / "raw"


@pytest.fixture
def clock() -> FixedClock:
    """A fixed instant so versions and audit records are reproducible."""
    return FixedClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC))


@pytest.fixture
def empty_settings(tmp_path: Path) -> Settings:
    """Settings over an empty data folder."""
    return load_settings(tmp_path / "data")


@pytest.fixture(scope="session")
def bundled_settings(tmp_path_factory) -> Settings:
    """A store built once from every bundled file (data/raw/manifest.json)."""
    settings = load_settings(tmp_path_factory.mktemp("bundled") / "data")
    run_etl(load_manifest(RAW), settings, clock=FixedClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC)))
    return settings
