"""Fixtures of the ui helper tests: a private copy of the bundled store (its audit log is
written here, never in the shared one), its catalog, metadata and an Assistant."""

from __future__ import annotations

import shutil

import pytest

from core.ask.context import Assistant
from core.config import Settings, load_settings
from core.dataset.store import get_store
from core.engine.catalog import build_catalog


@pytest.fixture(scope="session")
def ui_settings(bundled_settings, tmp_path_factory) -> Settings:
    """A writable copy of the bundled store for the ui tests (evidence runs and turns are audited)."""
    target = tmp_path_factory.mktemp("ui") / "data"
    shutil.copytree(bundled_settings.data_dir, target)
    return load_settings(target)


@pytest.fixture(scope="session")
def catalog(ui_settings):
    """The CatalogSpec of the bundled dataset."""
    return build_catalog(get_store(ui_settings))


@pytest.fixture(scope="session")
def metadata(ui_settings) -> dict:
    """Metadata of the bundled dataset (max_date 2025-11-30)."""
    return get_store(ui_settings).metadata()


@pytest.fixture(scope="session")
def engine(ui_settings) -> Assistant:
    """One Assistant over the copy, auditing as a test user."""
    return Assistant(settings=ui_settings, user="tester@example.org", role="analista")
