"""ui.session: settings follow CASANDRA_DATA_DIR; one store and one assistant per data folder."""

from __future__ import annotations

from ui import session


def test_settings_store_and_assistant(bundled_settings, monkeypatch):
    monkeypatch.setenv("CASANDRA_DATA_DIR", str(bundled_settings.data_dir))
    assert session.settings().data_dir == bundled_settings.data_dir
    assert session.store() is session.store()
    assert session.store().dataset_version == session.store().metadata()["dataset_version"]
    shared = session.assistant()
    assert shared is session.assistant()
    mine = session.assistant("ana@example.org", "analista")
    assert (mine.user, mine.role) == ("ana@example.org", "analista")
    assert (shared.user, shared.role) == ("local", "analista")  # the shared one is untouched
    assert mine.store is shared.store and mine.cache is shared.cache
