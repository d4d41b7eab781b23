"""Plan API helpers for the UI: audited loads, previews, rollbacks and the lab setting."""

from __future__ import annotations

from core import api
from core.ask.govern import lab_approved
from core.audit.log import AuditLog
from core.etl import SourceSpec
from tests.conftest import FIXTURES, RAW
from tests.core.etl.test_semantics import snapshot


def test_preview_publishes_nothing_and_loads_are_audited(empty_settings, clock):
    first = api.load_files(
        [SourceSpec(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv")],
        settings=empty_settings,
        user="sofia@example.org",
        clock=clock,
    )
    before = snapshot(empty_settings.store_dir)
    preview = api.load_files(
        [SourceSpec(FIXTURES / "etl" / "leon_revision.csv")], settings=empty_settings, dry_run=True, clock=clock
    )
    assert preview["status"] == "preview" and preview["cambios"]["totales"]["cambiadas"] == 12
    assert snapshot(empty_settings.store_dir) == before
    log = AuditLog.for_settings(empty_settings)
    records = log.list(kind="etl")
    assert len(records) == 1 and records[0].user == "sofia@example.org"
    assert records[0].dataset_version == first["dataset_version"]


def test_refused_loads_and_rollbacks_are_audited(empty_settings, clock):
    import pytest

    from core.errors import DatosFaltantesError

    first = api.load_files(
        [SourceSpec(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv")], settings=empty_settings, clock=clock
    )
    with pytest.raises(DatosFaltantesError):
        api.load_files(
            [SourceSpec(FIXTURES / "etl" / "header_only.csv")], settings=empty_settings, user="x", clock=clock
        )
    newest = api.load_files([SourceSpec(FIXTURES / "etl" / "leon_revision.csv")], settings=empty_settings, clock=clock)
    api.rollback(first["dataset_version"], settings=empty_settings, user="sofia", clock=clock)
    log = AuditLog.for_settings(empty_settings)
    assert [r.status for r in log.list(kind="etl")] == ["published", "refused", "published"]
    assert log.list(kind="rollback")[0].payload["to"] == first["dataset_version"]
    # The newest is not current after the rollback. Named by its id: with a fixed clock both versions share
    # updated_at, so their order in the listing is their content hashes' (which change with the derivation).
    current = {v["dataset_version"]: v["current"] for v in api.versions(empty_settings)}
    assert current == {first["dataset_version"]: True, newest["dataset_version"]: False}
    assert log.verify().ok


def test_lab_setting_is_audited_and_read_by_the_governor(empty_settings):
    assert not lab_approved(empty_settings)
    api.set_lab_approval(True, settings=empty_settings, user="sup@example.org")
    assert lab_approved(empty_settings)
    rec = AuditLog.for_settings(empty_settings).list(kind="settings")[0]
    assert rec.user == "sup@example.org" and rec.payload == {"lab_approved": True}


def test_quarantine_rows_are_listed(empty_settings, clock):
    api.load_files(
        [SourceSpec(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv")], settings=empty_settings, clock=clock
    )
    api.load_files([SourceSpec(FIXTURES / "etl" / "bad_rows.csv")], settings=empty_settings, clock=clock)
    rows = api.quarantine(empty_settings)
    assert len(rows) == 15 and {"motivo", "source_row", "source_file"} <= set(rows[0])
