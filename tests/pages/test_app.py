"""AppTest: the app starts and the Datos page shows the store's metadata."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def test_datos_page_shows_version_and_coverage(bundled_settings, monkeypatch):
    monkeypatch.setenv("CASANDRA_DATA_DIR", str(bundled_settings.data_dir))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "Datos"
    assert "datos hasta 2025-11-30" in at.caption[0].value
    assert len(at.dataframe) == 2


def test_datos_page_on_an_empty_store(empty_settings, monkeypatch):
    monkeypatch.setenv("CASANDRA_DATA_DIR", str(empty_settings.data_dir))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert "No hay datos publicados" in at.warning[0].value
