"""A private copy of the bundled store for workspace tests (they write the audit and the workspace)."""

from __future__ import annotations

import shutil

import pytest

from core.config import Settings, load_settings

SHARED_STATE = shutil.ignore_patterns("audit", "keys", "artifacts", "settings.json")


@pytest.fixture
def own_data(bundled_settings, tmp_path) -> Settings:
    """The bundled store copied, without audit, keys, artifacts or settings."""
    shutil.copytree(bundled_settings.data_dir, tmp_path / "data", ignore=SHARED_STATE)
    return load_settings(tmp_path / "data")
