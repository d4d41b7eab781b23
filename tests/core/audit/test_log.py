"""The Celador's audit log: hash chain, append-only storage, migrations, filters, CLI."""

from __future__ import annotations

import argparse
import csv
import io
import json
import multiprocessing
import shutil
import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import core.audit.log as audit_module
from core.audit.activity import per_user_day
from core.audit.cli import register_cli
from core.audit.log import (
    GENESIS_HASH,
    AuditLog,
    AuditRecord,
    VerifyResult,
    record_hash,
)
from core.audit.records import _FILTERS, AuditFilters
from core.audit.seal import record_mac
from core.clock import Clock, FixedClock
from core.config import load_settings
from core.errors import RangoFueraDeCorte, ValidacionError

T0 = datetime(2026, 1, 1, 10, 0, 0, tzinfo=UTC)


class StepClock(Clock):
    """Answers T0, T0 + step, T0 + 2·step… one instant per call."""

    def __init__(self, start: datetime = T0, step: timedelta = timedelta(days=1)):
        self._next = start
        self._step = step

    def now(self) -> datetime:
        current = self._next
        self._next += self._step
        return current


def _db(tmp_path: Path) -> Path:
    return tmp_path / "audit" / "audit.sqlite3"


# The five records of the filter table; with StepClock they get 2026-01-01 … 2026-01-05.
SAMPLE = [
    dict(
        job_id="r1",
        kind="ask",
        user="ana",
        role="analista",
        status="ok",
        question="Homicidios en León 2024",
        dataset_version="v1",
        tools=("buscar", "serie"),
        payload={"plan": {"delito": "homicidio_doloso"}, "nota": "100% confiable"},
    ),
    dict(
        job_id="r2",
        kind="execute",
        user="ana",
        role="analista",
        status="error",
        dataset_version="v1",
        tools=("serie",),
        payload={"error": {"code": "COMPUTE_ERROR"}, "timings_ms": {"serie": 12.5}},
    ),
    dict(
        job_id="r3",
        kind="etl",
        user="sistema",
        role="admin",
        status="ok",
        dataset_version="v2",
        payload={"rows": 123, "source": "aXb"},
    ),
    dict(
        job_id="r4",
        kind="ask",
        user="beto",
        role="analista",
        status="refused",
        question="Robo a negocio en Celaya",
        dataset_version="v2",
        tools=("buscar_serie",),
        payload={},
    ),
    dict(
        job_id="r5",
        kind="plan_edit",
        user="beto",
        role="analista",
        status="ok",
        dataset_version="v2",
        tools=("serie",),
        payload={"diff": "a_b"},
    ),
]


@pytest.fixture
def log(tmp_path: Path) -> AuditLog:
    audit = AuditLog(_db(tmp_path), clock=FixedClock(T0))
    audit.clock = StepClock()  # records get 2026-01-01 … 2026-01-05
    for item in SAMPLE:
        audit.append(**item)
    yield audit
    audit.close()


def _raw(path: Path) -> sqlite3.Connection:
    """A plain connection, as an attacker with file access would open."""
    return sqlite3.connect(str(path), isolation_level=None)


# -- append / get ------------------------------------------------------------------------


def test_append_returns_stored_record_and_chains(tmp_path: Path) -> None:
    audit = AuditLog(_db(tmp_path), clock=FixedClock(datetime(2026, 2, 12, 18, 14, 0, 123456)))
    first = audit.append(
        kind="ask",
        user="toni",
        role="analista",
        status="ok",
        question="¿Cuántos robos?",
        payload={"query_plan": {"mode": "deep", "confidence": "high"}, "timings_ms": {"plan": 3}},
        query_hash="sha256:abc",
        catalog_version="cat-1",
        dataset_version="ds-1",
        tools=["serie", "ranking"],
    )
    second = audit.append(kind="execute", user="toni", role="analista", status="ok", payload={})

    assert isinstance(first, AuditRecord)
    assert first.seq == 1 and second.seq == 2
    assert first.ts == "2026-02-12T18:14:00Z"
    assert len(first.job_id) == 32 and int(first.job_id, 16) >= 0  # uuid4 hex
    assert first.prev_hash == GENESIS_HASH
    assert second.prev_hash == first.hash
    assert first.hash.startswith("hmac-sha256:") and len(first.hash) == 12 + 64
    assert first.hash == record_mac(audit.seal.key(), first.prev_hash, first.hashed_fields())
    assert audit.get(first.job_id) == first
    assert audit.get(second.job_id) == second
    assert audit.get("no-such-job") is None
    assert first.tools == ("serie", "ranking")
    assert second.tools == () and second.question is None


def test_payload_is_stored_as_canonical_json(tmp_path: Path) -> None:
    audit = AuditLog(_db(tmp_path), clock=FixedClock(T0))
    rec = audit.append(
        kind="etl",
        user="u",
        role="admin",
        status="ok",
        job_id="j1",
        payload={"b": (1, 2), "a": "León", "when": datetime(2026, 1, 1), "path": Path("/x")},
    )
    assert rec.payload == {"a": "León", "b": [1, 2], "when": "2026-01-01 00:00:00", "path": "/x"}
    stored = _raw(audit.path).execute("SELECT payload FROM audit_records WHERE job_id='j1'").fetchone()[0]
    assert stored == '{"a":"León","b":[1,2],"path":"/x","when":"2026-01-01 00:00:00"}'
    assert audit.get("j1") == rec
    assert audit.verify().ok


@pytest.mark.parametrize(
    "bad",
    [
        dict(kind=""),
        dict(user=None),
        dict(payload=["not", "a", "dict"]),
        dict(tools=("a,b",)),
        dict(tools=("",)),
        dict(question=42),
        dict(job_id=""),
    ],
)
def test_append_rejects_bad_fields(tmp_path: Path, bad: dict) -> None:
    audit = AuditLog(_db(tmp_path), clock=FixedClock(T0))
    base = dict(kind="ask", user="u", role="analista", status="ok", payload={})
    with pytest.raises(ValueError):
        audit.append(**{**base, **bad})
    assert audit.count() == 0


def test_duplicate_job_id_is_refused_and_chain_stays_intact(tmp_path: Path) -> None:
    audit = AuditLog(_db(tmp_path), clock=FixedClock(T0))
    audit.append(kind="ask", user="u", role="r", status="ok", payload={}, job_id="same")
    with pytest.raises(ValueError, match="duplicado"):
        audit.append(kind="ask", user="u", role="r", status="ok", payload={}, job_id="same")
    audit.append(kind="ask", user="u", role="r", status="ok", payload={}, job_id="next")
    assert [r.seq for r in audit.list()] == [2, 1]
    assert audit.verify() == VerifyResult(True, 2)


# -- list / count filters ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, ["r5", "r4", "r3", "r2", "r1"]),
        ({"user": "ana"}, ["r2", "r1"]),
        ({"status": "ok"}, ["r5", "r3", "r1"]),
        ({"kind": "ask"}, ["r4", "r1"]),
        ({"tool": "serie"}, ["r5", "r2", "r1"]),
        ({"tool": "buscar"}, ["r1"]),  # not buscar_serie
        ({"tool": "buscar_serie"}, ["r4"]),
        ({"dataset_version": "v2"}, ["r5", "r4", "r3"]),
        ({"since": "2026-01-03"}, ["r5", "r4", "r3"]),
        ({"until": "2026-01-02"}, ["r2", "r1"]),  # a date covers the whole day
        ({"since": "2026-01-02T10:00:00Z", "until": "2026-01-04T09:59:59Z"}, ["r3", "r2"]),
        ({"since": "2026-01-02T04:00:00-06:00"}, ["r5", "r4", "r3", "r2"]),
        ({"text": "león"}, ["r1"]),
        ({"text": "Celaya"}, ["r4"]),
        ({"text": "COMPUTE_ERROR"}, ["r2"]),
        ({"text": "100%"}, ["r1"]),
        ({"text": "a_b"}, ["r5"]),  # '_' is literal, so "aXb" does not match
        ({"user": "beto", "status": "ok"}, ["r5"]),
        ({"kind": "ask", "dataset_version": "v2", "tool": "buscar_serie"}, ["r4"]),
        ({"user": "ana' OR '1'='1"}, []),
        ({"text": "%' OR 1=1 --"}, []),
        ({"status": "nada"}, []),
    ],
)
def test_list_filters(log: AuditLog, filters: dict, expected: list[str]) -> None:
    assert [r.job_id for r in log.list(**filters)] == expected
    assert log.count(**filters) == len(expected)


def test_list_limit_and_offset(log: AuditLog) -> None:
    assert [r.job_id for r in log.list(limit=2)] == ["r5", "r4"]
    assert [r.job_id for r in log.list(limit=2, offset=2)] == ["r3", "r2"]
    assert [r.job_id for r in log.list(limit=10, offset=4)] == ["r1"]
    assert log.list(limit=0) == []
    with pytest.raises(ValueError):
        log.list(limit=-1)


def test_list_rejects_bad_dates(log: AuditLog) -> None:
    with pytest.raises(ValidacionError):
        log.list(since="ayer")
    with pytest.raises(RangoFueraDeCorte):
        log.list(since="2026-01-05", until="2026-01-01")


# -- append-only ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_records SET status = 'ok' WHERE job_id = 'r2'",
        "UPDATE audit_records SET payload = '{}'",
        "DELETE FROM audit_records WHERE job_id = 'r3'",
        "DELETE FROM audit_records",
        "UPDATE schema_migrations SET name = 'x'",
        "DELETE FROM schema_migrations",
    ],
)
def test_records_are_append_only(log: AuditLog, statement: str) -> None:
    raw = _raw(log.path)
    with pytest.raises(sqlite3.IntegrityError, match="solo anexado"):
        raw.execute(statement)
    raw.close()
    assert log.count() == 5
    assert log.get("r2").status == "error"
    assert log.verify().ok


def test_database_uses_wal(log: AuditLog) -> None:
    raw = _raw(log.path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()


# -- migrations ----------------------------------------------------------------------------


def test_migrations_recorded_and_idempotent(tmp_path: Path) -> None:
    path = _db(tmp_path)
    first = AuditLog(path, clock=FixedClock(T0))
    assert first.schema_version() == 3
    applied = first.migrations()
    assert [(v, n) for v, n, _ in applied] == [(1, "init"), (2, "list_filter_indexes"), (3, "log_identity")]
    assert all(at == "2026-01-01T10:00:00Z" for _, _, at in applied)
    first.append(kind="ask", user="u", role="r", status="ok", payload={})

    second = AuditLog(path, clock=FixedClock(T0 + timedelta(days=30)))  # open again
    assert second.schema_version() == 3
    assert second.migrations() == applied  # nothing re-applied, nothing re-recorded
    assert second.count() == 1

    raw = _raw(path)
    indexes = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    plan = " ".join(
        str(row[-1])
        for row in raw.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM audit_records WHERE ts >= ?", ("x",))
    )
    raw.close()
    assert {"ix_audit_records_ts", "ix_audit_records_user_kind"} <= indexes
    assert "ix_audit_records_ts" in plan


def test_new_migration_applies_once_on_existing_database(tmp_path: Path, monkeypatch) -> None:
    path = _db(tmp_path)
    AuditLog(path, clock=FixedClock(T0)).append(kind="ask", user="u", role="r", status="ok", payload={})

    folder = tmp_path / "migrations"
    shutil.copytree(audit_module.MIGRATIONS_DIR, folder)
    (folder / "0004_add_notes.sql").write_text(
        "-- test-only migration\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n"
        "CREATE TRIGGER notes_no_delete BEFORE DELETE ON notes\nBEGIN\n"
        "    SELECT RAISE(ABORT, 'no');\nEND;\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(audit_module, "MIGRATIONS_DIR", folder)
    later = T0 + timedelta(days=1)
    upgraded = AuditLog(path, clock=FixedClock(later))
    assert upgraded.schema_version() == 4
    assert upgraded.migrations()[-1] == (4, "add_notes", "2026-01-02T10:00:00Z")
    assert [v for v, _, _ in upgraded.migrations()] == [1, 2, 3, 4]
    AuditLog(path, clock=FixedClock(later))  # idempotent
    assert [v for v, _, _ in upgraded.migrations()] == [1, 2, 3, 4]
    assert upgraded.count() == 1 and upgraded.verify().ok


def test_bad_migration_rolls_back_entirely(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "migrations"
    shutil.copytree(audit_module.MIGRATIONS_DIR, folder)
    (folder / "0004_broken.sql").write_text("CREATE TABLE x (a INTEGER);\nTHIS IS NOT SQL;\n")
    monkeypatch.setattr(audit_module, "MIGRATIONS_DIR", folder)
    with pytest.raises(sqlite3.OperationalError):
        AuditLog(_db(tmp_path), clock=FixedClock(T0))
    raw = _raw(_db(tmp_path))
    tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    raw.close()
    assert "audit_records" not in tables and "x" not in tables  # the whole batch rolled back


def test_for_settings_uses_audit_dir(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    audit = AuditLog.for_settings(settings)
    assert audit.path == settings.audit_dir / "audit.sqlite3"
    assert audit.path.exists()


# -- export --------------------------------------------------------------------------------


def test_export_json_round_trip(log: AuditLog) -> None:
    out = io.StringIO()
    assert log.export("json", out) == 5
    exported = json.loads(out.getvalue())
    assert exported == [r.as_dict() for r in reversed(log.list())]  # chain order
    # The export is verifiable on its own, with the log's key.
    prev = GENESIS_HASH
    for item in exported:
        assert item["prev_hash"] == prev
        assert record_mac(log.seal.key(), prev, item) == item["hash"]
        prev = item["hash"]


def test_export_csv_round_trip(log: AuditLog) -> None:
    out = io.StringIO()
    assert log.export("csv", out) == 5
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == [
        "seq",
        "job_id",
        "ts",
        "kind",
        "user",
        "role",
        "question",
        "status",
        "query_hash",
        "catalog_version",
        "dataset_version",
        "tools",
        "payload",
        "prev_hash",
        "hash",
    ]
    for row, record in zip(rows, reversed(log.list()), strict=True):
        rebuilt = {k: (v if v != "" else None) for k, v in row.items()}
        rebuilt["seq"] = int(row["seq"])
        rebuilt["tools"] = tuple(row["tools"].split(",")) if row["tools"] else ()
        rebuilt["payload"] = json.loads(row["payload"])
        assert AuditRecord(**rebuilt) == record


def test_export_filters_and_empty(log: AuditLog) -> None:
    out = io.StringIO()
    assert log.export("json", out, user="ana") == 2
    assert [item["job_id"] for item in json.loads(out.getvalue())] == ["r1", "r2"]
    out = io.StringIO()
    assert log.export("json", out, user="nadie") == 0
    assert json.loads(out.getvalue()) == []
    with pytest.raises(ValueError):
        log.export("xml", io.StringIO())
    with pytest.raises(TypeError):
        log.export("json", io.StringIO(), usuario="ana")


# -- verify / tampering --------------------------------------------------------------------


def test_verify_ok(log: AuditLog, tmp_path: Path) -> None:
    assert log.verify() == VerifyResult(True, 5, None, None, None)
    empty = AuditLog(tmp_path / "empty" / "audit.sqlite3")
    assert empty.verify() == VerifyResult(True, 0)


def test_editing_a_stored_record_is_detected(log: AuditLog) -> None:
    raw = _raw(log.path)
    raw.execute("DROP TRIGGER audit_records_no_update")  # what an attacker would do first
    raw.execute(
        "UPDATE audit_records SET payload = ? WHERE seq = 3",
        (json.dumps({"rows": 999, "source": "aXb"}, sort_keys=True, separators=(",", ":")),),
    )
    raw.close()
    result = log.verify()
    assert not result.ok
    assert (result.first_bad_seq, result.first_bad_job_id) == (3, "r3")
    assert result.checked == 3
    assert "alterado" in result.reason and "seq=3" in result.reason and "r3" in result.reason


@pytest.mark.parametrize(
    "rehash,bad",
    [
        (lambda log, prev, fields: record_hash(prev, fields), ("r3", "no lleva el sello")),  # the plain rule
        (lambda log, prev, fields: record_mac(b"x" * 32, prev, fields), ("r3", "no coincide")),  # a guessed key
        (lambda log, prev, fields: record_mac(log.seal.key(), prev, fields), ("r4", "no enlaza")),  # the key itself
    ],
    ids=["plain-sha256", "wrong-key", "stolen-key"],
)
def test_editing_a_record_and_its_hash_is_detected(log: AuditLog, rehash, bad) -> None:
    victim = log.get("r3")
    forged = dict(victim.hashed_fields(), status="error")
    raw = _raw(log.path)
    raw.execute("DROP TRIGGER audit_records_no_update")
    raw.execute(
        "UPDATE audit_records SET status = 'error', hash = ? WHERE seq = 3",
        (rehash(log, victim.prev_hash, forged),),
    )
    raw.close()
    result = log.verify()
    assert (result.ok, result.first_bad_job_id, result.problem) == (False, bad[0], "edited")
    assert bad[1] in result.reason  # with the key, only the next link shows it (it names record 3)


def test_editing_a_plain_column_is_detected(log: AuditLog) -> None:
    raw = _raw(log.path)
    raw.execute("DROP TRIGGER audit_records_no_update")
    raw.execute("UPDATE audit_records SET user = 'mallory' WHERE job_id = 'r2'")
    raw.close()
    result = log.verify()
    assert (result.ok, result.first_bad_seq, result.first_bad_job_id) == (False, 2, "r2")


def test_deleting_a_middle_record_is_detected(log: AuditLog) -> None:
    raw = _raw(log.path)
    raw.execute("DROP TRIGGER audit_records_no_delete")
    raw.execute("DELETE FROM audit_records WHERE seq = 3")
    raw.close()
    result = log.verify()
    assert not result.ok
    assert (result.first_bad_seq, result.first_bad_job_id) == (4, "r4")
    assert "no enlaza" in result.reason


def test_deleting_the_last_record_is_detected(log: AuditLog) -> None:
    raw = _raw(log.path)
    raw.execute("DROP TRIGGER audit_records_no_delete")
    raw.execute("DELETE FROM audit_records WHERE seq = 5")
    raw.close()
    result = log.verify()
    assert (result.ok, result.first_bad_seq, result.first_bad_job_id) == (False, 5, None)
    assert "Faltan registros" in result.reason


def test_corrupt_payload_is_reported_not_crashing(log: AuditLog) -> None:
    raw = _raw(log.path)
    raw.execute("DROP TRIGGER audit_records_no_update")
    raw.execute("UPDATE audit_records SET payload = 'not json' WHERE seq = 2")
    raw.close()
    assert log.get("r2").payload == {"_payload_invalido": "not json"}
    result = log.verify()
    assert (result.ok, result.first_bad_seq, result.first_bad_job_id) == (False, 2, "r2")


# -- CLI -----------------------------------------------------------------------------------


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="casandra")
    parser.add_argument("--data-dir")
    commands = parser.add_subparsers(dest="command", required=True)
    register_cli(commands)
    args = parser.parse_args(argv)
    return args.handler(args, load_settings(args.data_dir))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    audit = AuditLog.for_settings(load_settings(tmp_path), clock=FixedClock(T0))
    audit.clock = StepClock()
    for item in SAMPLE:
        audit.append(**item)
    audit.close()
    return tmp_path


def test_cli_list(data_dir: Path, capsys) -> None:
    assert _cli(["--data-dir", str(data_dir), "audit", "list", "--user", "ana", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [item["job_id"] for item in listed] == ["r2", "r1"]

    assert _cli(["--data-dir", str(data_dir), "audit", "list", "--tool", "serie", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("seq\t") and len(lines) == 3
    assert "r5" in lines[1] and "r2" in lines[2]

    assert _cli(["--data-dir", str(data_dir), "audit", "list", "--dataset-version", "v9"]) == 0
    assert "Sin registros" in capsys.readouterr().out

    assert _cli(["--data-dir", str(data_dir), "audit", "list", "--since", "mañana"]) == 2
    assert "Fecha inválida" in capsys.readouterr().err


def test_cli_verify_ok_and_broken(data_dir: Path, capsys) -> None:
    assert _cli(["--data-dir", str(data_dir), "audit", "verify"]) == 0
    assert "íntegra" in capsys.readouterr().out

    raw = _raw(load_settings(data_dir).audit_dir / "audit.sqlite3")
    raw.execute("DROP TRIGGER audit_records_no_update")
    raw.execute("UPDATE audit_records SET question = 'otra' WHERE seq = 4")
    raw.close()
    assert _cli(["--data-dir", str(data_dir), "audit", "verify"]) == 1
    out = capsys.readouterr().out
    assert "ROTA" in out and "seq=4" in out and "job_id=r4" in out


def test_cli_export(data_dir: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "out" / "audit.csv"
    assert _cli(["--data-dir", str(data_dir), "audit", "export", "--format", "csv", "--output", str(target)]) == 0
    assert "Exportados 5" in capsys.readouterr().err
    rows = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    assert [r["job_id"] for r in rows] == ["r1", "r2", "r3", "r4", "r5"]
    assert rows[0]["question"] == "Homicidios en León 2024"

    assert _cli(["--data-dir", str(data_dir), "audit", "export", "--format", "json", "--kind", "ask"]) == 0
    assert [item["job_id"] for item in json.loads(capsys.readouterr().out)] == ["r1", "r4"]


def test_cli_handler_resolves_settings_itself(data_dir: Path, capsys) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir")
    register_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["--data-dir", str(data_dir), "audit", "verify"])
    assert args.handler(args, None) == 0
    assert "5 registros" in capsys.readouterr().out


def test_cli_audit_needs_a_subcommand(data_dir: Path) -> None:
    with pytest.raises(SystemExit):
        _cli(["--data-dir", str(data_dir), "audit"])


# -- concurrency ---------------------------------------------------------------------------

WRITERS = 8
PER_WRITER = 1_000


def _writer(path: str, worker: int, count: int, barrier) -> None:
    """One process: open the (fresh) log together with the others, then append."""
    barrier.wait(timeout=60)
    audit = AuditLog(Path(path))
    for i in range(count):
        audit.append(
            kind="execute",
            user=f"user{worker}",
            role="analista",
            status="ok",
            question=f"pregunta {i}",
            tools=("serie", "ranking"),
            dataset_version="v1",
            payload={"worker": worker, "i": i, "timings_ms": {"plan": 1.5, "run": 12}, "rows": i},
            job_id=f"w{worker}-{i:04d}",
        )
    audit.close()


def _assert_anchored_at_head(audit: AuditLog, total: int) -> None:
    """One key for every writer, and the anchor (never moved backwards by a slower writer) at the head."""
    anchor = audit.seal.anchor()
    head = audit.list(limit=1)[0]
    assert anchor.valid(audit.seal.key()) and (anchor.seq, anchor.hash, anchor.keyed_from) == (total, head.hash, 1)
    assert all(r.hash.startswith("hmac-sha256:") for r in audit.list(limit=None))


@pytest.mark.slow  # eight Python processes writing 1000 records each
def test_eight_processes_append_concurrently_without_losing_records(tmp_path: Path) -> None:
    path = _db(tmp_path)  # not created yet: the writers race to create and migrate it
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WRITERS)
    procs = [ctx.Process(target=_writer, args=(str(path), w, PER_WRITER, barrier)) for w in range(WRITERS)]
    started = time.perf_counter()
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=300)
    elapsed = time.perf_counter() - started
    assert [proc.exitcode for proc in procs] == [0] * WRITERS
    print(f"\n{WRITERS}x{PER_WRITER} appends in {elapsed:.2f}s")

    audit = AuditLog(path)
    total = WRITERS * PER_WRITER
    assert audit.count() == total
    raw = _raw(path)
    assert raw.execute("SELECT count(DISTINCT job_id), min(seq), max(seq) FROM audit_records").fetchone() == (
        total,
        1,
        total,
    )
    raw.close()
    assert audit.verify() == VerifyResult(True, total)
    _assert_anchored_at_head(audit, total)
    assert [v for v, _, _ in audit.migrations()] == [1, 2, 3]  # migrated exactly once
    for worker in range(WRITERS):
        mine = audit.list(user=f"user{worker}", limit=None)
        assert [r.payload["i"] for r in mine] == list(range(PER_WRITER - 1, -1, -1))
    assert elapsed < 120


def test_threads_sharing_one_log(tmp_path: Path) -> None:
    audit = AuditLog(_db(tmp_path))

    def work(n: int) -> None:
        for i in range(100):
            audit.append(kind="ask", user=f"t{n}", role="analista", status="ok", payload={"i": i})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert audit.count() == 400
    assert audit.verify() == VerifyResult(True, 400)
    _assert_anchored_at_head(audit, 400)


# One value per filter that the sample's record r1 matches (2026-01-01, ana, ok, ask, serie, v1, «León»).
R1_FILTERS = {
    "since": "2026-01-01",
    "until": "2026-01-01",
    "user": "ana",
    "status": "ok",
    "kind": "ask",
    "tool": "serie",
    "dataset_version": "v1",
    "text": "León",
}


@pytest.mark.parametrize("name", list(AuditFilters.__annotations__))
def test_every_filter_is_taken_alike_by_list_count_export_and_activity(log: AuditLog, name: str) -> None:
    assert set(R1_FILTERS) == set(_FILTERS) == set(AuditFilters.__annotations__)  # named once: AuditFilters
    found = {name: R1_FILTERS[name]}
    listed = log.list(**found)
    assert "r1" in [r.job_id for r in listed] and log.count(**found) == len(listed)
    assert log.export("json", io.StringIO(), **found) == len(listed)
    assert sum(day.total for day in per_user_day(log, **found)) == len(listed)


@pytest.mark.parametrize(
    "call",
    [
        lambda log: log.list(usuario="ana"),
        lambda log: log.count(usuario="ana"),
        lambda log: per_user_day(log, usuario="ana"),
    ],
)
def test_an_unknown_filter_is_refused(log: AuditLog, call) -> None:
    with pytest.raises(TypeError, match="usuario"):
        call(log)
