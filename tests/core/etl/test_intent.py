"""A switch of CURRENT and its records as one step: intent, settle, reconcile (core/etl/intent.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.audit.log import AuditLog
from core.errors import DatosFaltantesError
from core.etl import intent
from core.etl.publish import Depot

V1, V2 = "gx-2026.01.15-aaaaaaaa", "gx-2026.01.16-bbbbbbbb"


@pytest.fixture
def depot(tmp_path: Path) -> Depot:
    """A store with two complete (tiny) versions, V1 current."""
    store = Depot(tmp_path / "store")
    for vid in (V1, V2):
        folder = store.version_dir(vid)
        folder.mkdir(parents=True)
        (folder / "metadata.json").write_text(json.dumps({"dataset_version": vid, "updated_at": vid}))
    store.switch(V1)
    return store


@pytest.fixture
def log(tmp_path: Path) -> AuditLog:
    return AuditLog(tmp_path / "audit" / "audit.sqlite3")


def record(vid: str) -> dict:
    return {
        "kind": "etl",
        "user": "ana",
        "role": "steward",
        "status": "published",
        "dataset_version": vid,
        "payload": {},
    }


def history(depot: Depot) -> list[dict]:
    path = depot.root / "history.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def half_done(depot: Depot, vid: str, *, switched: bool, with_history: bool = False) -> dict:
    """What a process killed mid-publish leaves: the intent, maybe the switch, maybe the history line."""
    job = intent.new_intent(vid, {"event": "publish", "dataset_version": vid}, record(vid))
    intent.write_intent(depot.root, job)
    if switched:
        depot.switch(vid)
    if with_history:
        depot.record({**job["event"], "job_id": job["id"]})
    return job


def test_publish_writes_the_history_line_and_the_audit_record_with_one_job_id(depot, log):
    with depot.lock():
        job_id = depot.publish(V2, {"event": "publish", "dataset_version": V2}, record(V2), log)
    assert depot.current_id() == V2
    assert history(depot)[-1]["job_id"] == job_id
    stored = log.get(job_id)
    assert (stored.kind, stored.status, stored.dataset_version, stored.payload) == ("etl", "published", V2, {})
    assert not depot.pending() and not (depot.root / intent.INTENT).exists()


def test_an_incomplete_version_is_refused_before_any_intent(depot, log):
    with depot.lock(), pytest.raises(DatosFaltantesError):
        depot.publish("gx-2000.01.01-deadbeef", {"event": "publish"}, record("x"), log)
    assert not depot.pending() and depot.current_id() == V1


@pytest.mark.parametrize("with_history", [False, True], ids=["killed-after-switch", "killed-after-history"])
def test_a_switch_without_its_records_is_settled_once_on_the_next_start(depot, log, with_history):
    job = half_done(depot, V2, switched=True, with_history=with_history)
    assert depot.current_id() == V2 and log.get(job["id"]) is None

    settled = depot.reconcile(log)
    assert settled["id"] == job["id"]
    assert [h["job_id"] for h in history(depot)] == [job["id"]]
    stored = log.get(job["id"])
    assert stored.dataset_version == V2 and stored.payload == {"reconciled": True}
    assert not depot.pending()
    # Settling again (a second start, or a crash while settling) writes nothing twice.
    intent.write_intent(depot.root, job)
    depot.reconcile(log)
    assert len(history(depot)) == 1 and log.count() == 1 and log.verify().ok


def test_an_intent_whose_switch_never_happened_is_dropped(depot, log):
    job = half_done(depot, V2, switched=False)
    assert depot.reconcile(log) is None
    assert depot.current_id() == V1 and history(depot) == [] and log.get(job["id"]) is None
    assert not depot.pending()


def test_a_record_that_cannot_be_written_yet_waits_for_a_log(depot, log):
    half_done(depot, V2, switched=True)
    with depot.lock():  # a publish with no audit log settles the leftover's history, keeps its record owed
        depot.publish(V1, {"event": "rollback", "to": V1})
    assert depot.pending() and (depot.root / intent.OWED).is_dir()
    assert [h["event"] for h in history(depot)] == ["publish", "rollback"]
    depot.reconcile(log)
    assert [r.dataset_version for r in log.list(kind="etl")] == [V2]
    assert not depot.pending()


def test_a_busy_store_is_not_reconciled_without_waiting(depot, log):
    half_done(depot, V2, switched=True)
    with depot.lock():  # a load in progress
        assert depot.reconcile(log, wait=False) is None
        assert depot.pending()
    assert depot.reconcile(log, wait=False) is not None
    assert not depot.pending()


def test_a_leftover_is_settled_before_the_next_publish_replaces_it(depot, log):
    first = half_done(depot, V2, switched=True)
    with depot.lock():
        second = depot.publish(V1, {"event": "rollback", "to": V1}, record(V1) | {"kind": "rollback"}, log)
    assert [h["job_id"] for h in history(depot)] == [first["id"], second]
    assert [r.job_id for r in log.list()] == [second, first["id"]]


def test_rollback_carries_its_audit_record(depot, log):
    depot.rollback(V2, "2026-01-16T00:00:00Z", log=log, user="sofia", role="steward")
    stored = log.list(kind="rollback")[0]
    assert (stored.user, stored.dataset_version, stored.payload) == ("sofia", V2, {"from": V1, "to": V2})
    assert history(depot)[-1] == {
        "event": "rollback",
        "from": V1,
        "to": V2,
        "at": "2026-01-16T00:00:00Z",
        "job_id": stored.job_id,
    }
