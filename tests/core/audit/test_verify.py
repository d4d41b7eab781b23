"""The tamper matrix: what someone who can write the audit file (not its key) does, and what verify says.

Before the seal (plain SHA-256, nothing outside the file) all four edits verified as «íntegra».
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.audit.cli import register_cli
from core.audit.log import AuditLog, VerifyResult, record_hash
from core.audit.records import discover_migrations
from core.audit.verify import PROBLEMS, describe
from core.config import load_settings

N = 10
ROOT = Path(__file__).resolve().parents[3]


def _raw(path: Path) -> sqlite3.Connection:
    """A plain connection, as an attacker with file access would open."""
    return sqlite3.connect(str(path), isolation_level=None)


def _fill(log: AuditLog, count: int = N, start: int = 0) -> None:
    for i in range(start, start + count):
        log.append(kind="ask", user=f"u{i}", role="analista", status="ok", question=f"q{i}", payload={"i": i})


@pytest.fixture
def settings(tmp_path: Path):
    settings = load_settings(tmp_path / "data")
    log = AuditLog.for_settings(settings)
    _fill(log)
    log.disconnect()
    return settings


def _path(settings) -> Path:
    return Path(settings.audit_dir) / "audit.sqlite3"


def edit_and_rechain(path: Path) -> None:
    """Change record 5 and recompute every hash after it with the only rule the file shows (sha256)."""
    con = _raw(path)
    con.execute("DROP TRIGGER audit_records_no_update")
    cols = [row[1] for row in con.execute("PRAGMA table_info(audit_records)")]
    rows = [dict(zip(cols, row)) for row in con.execute("SELECT * FROM audit_records ORDER BY seq")]
    prev = rows[3]["hash"]
    for row in rows[4:]:
        if row["seq"] == 5:
            row["question"] = "pregunta cambiada"
        digest = record_hash(prev, dict(row, prev_hash=prev, tools=[], payload=json.loads(row["payload"])))
        con.execute(
            "UPDATE audit_records SET question = ?, prev_hash = ?, hash = ? WHERE seq = ?",
            (row["question"], prev, digest, row["seq"]),
        )
        prev = digest
    con.close()


def delete_tail(path: Path) -> None:
    con = _raw(path)
    con.execute("DROP TRIGGER audit_records_no_delete")
    con.execute("DELETE FROM audit_records WHERE seq > 7")
    con.execute("UPDATE sqlite_sequence SET seq = 7 WHERE name = 'audit_records'")
    con.close()


def delete_all(path: Path) -> None:
    con = _raw(path)
    con.execute("DROP TRIGGER audit_records_no_delete")
    con.execute("DELETE FROM audit_records")
    con.execute("DELETE FROM sqlite_sequence")
    con.close()


def delete_file(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


# (tampering, problem, first bad seq, words of the Spanish reason)
TAMPERS = [
    (edit_and_rechain, "edited", 5, "no lleva el sello"),
    (delete_tail, "tail_deleted", 8, "Faltan registros al final"),
    (delete_all, "emptied", 1, "Se borraron todos los registros"),
    (delete_file, "file_missing", 1, "se borró o se reemplazó"),
]
IDS = ["a-edit-and-rechain", "b-delete-tail", "c-delete-all", "d-delete-file"]


def _cli(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="casandra")
    parser.add_argument("--data-dir")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args, load_settings(args.data_dir))


def test_a_clean_sealed_log_verifies(settings, capsys):
    assert AuditLog.for_settings(settings).verify() == VerifyResult(True, N)
    assert _cli(["--data-dir", str(settings.data_dir), "audit", "verify"]) == 0
    assert "íntegra: 10 registros" in capsys.readouterr().out


@pytest.mark.parametrize("tamper,problem,seq,words", TAMPERS, ids=IDS)
def test_each_tampering_is_detected_and_named(settings, capsys, tamper, problem, seq, words):
    tamper(_path(settings))
    result = AuditLog.for_settings(settings).verify()
    assert (result.ok, result.problem, result.first_bad_seq) == (False, problem, seq)
    assert words in result.reason
    assert _cli(["--data-dir", str(settings.data_dir), "audit", "verify"]) == 1
    out = capsys.readouterr().out
    assert f"ROTA — {PROBLEMS[problem]} en seq={seq}" in out and words in out


@pytest.mark.parametrize("tamper,problem,seq,words", TAMPERS, ids=IDS)
def test_appending_after_a_tampering_does_not_hide_it(settings, tamper, problem, seq, words):
    tamper(_path(settings))
    log = AuditLog.for_settings(settings)
    _fill(log, 5, start=100)  # the app keeps working; the anchor stays as evidence
    result = log.verify()
    assert not result.ok and result.problem in ("edited", "tail_deleted", "emptied", "file_missing")


@pytest.mark.slow  # one `python -m core` subprocess per tampering
@pytest.mark.parametrize("tamper,problem,seq,words", TAMPERS, ids=IDS)
def test_the_command_line_exits_non_zero_in_spanish(settings, tamper, problem, seq, words):
    tamper(_path(settings))
    proc = subprocess.run(
        [sys.executable, "-m", "core", "--data-dir", str(settings.data_dir), "audit", "verify"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"Cadena de auditoría ROTA — {PROBLEMS[problem]}") and words in proc.stdout
    assert "Traceback" not in proc.stderr


# -- the seal's own files ------------------------------------------------------------------


def test_a_missing_key_fails_verify_and_appends_instead_of_making_a_new_one(settings):
    log = AuditLog.for_settings(settings)
    log.seal.key_path.unlink()
    result = log.verify()
    assert (result.ok, result.problem) == (False, "key_missing") and "Restaure la llave" in result.reason
    from core.audit.seal import SelloError

    with pytest.raises(SelloError, match="no se crea una llave nueva"):
        log.append(kind="ask", user="u", role="analista", status="ok", payload={})
    assert not log.seal.key_path.exists() and log.count() == N


def test_an_unreadable_key_is_reported(settings):
    log = AuditLog.for_settings(settings)
    log.seal.key_path.write_text("not a key\n")
    assert (log.verify().problem, "ilegible" in log.verify().reason) == ("key_missing", True)


@pytest.mark.parametrize(
    "change,problem",
    [
        (lambda anchor: anchor.unlink(), "anchor_missing"),
        (lambda anchor: anchor.write_text(anchor.read_text().replace('"seq": 10', '"seq": 7')), "anchor_forged"),
        (lambda anchor: anchor.write_text("{"), "anchor_forged"),
    ],
    ids=["deleted", "seq-edited", "mangled"],
)
def test_the_anchor_itself_cannot_be_removed_or_edited(settings, change, problem):
    log = AuditLog.for_settings(settings)
    change(log.seal.anchor_path)
    result = log.verify()
    assert (result.ok, result.problem) == (False, problem)
    _fill(log, 1, start=50)  # an append does not rewrite a missing or forged anchor
    assert log.verify().problem == problem


def test_reanchor_accepts_a_known_loss_and_audits_it(settings, capsys):
    delete_tail(_path(settings))
    assert _cli(["--data-dir", str(settings.data_dir), "audit", "reanchor", "--motivo", "copia restaurada"]) == 0
    out = capsys.readouterr().out
    assert "Antes: Cadena de auditoría ROTA — Registros borrados al final" in out and "Después:" in out
    log = AuditLog.for_settings(settings)
    assert log.verify() == VerifyResult(True, 8)
    note = log.list(kind="audit_reanchor")[0]
    assert note.payload["reason"] == "copia restaurada" and note.payload["verify"]["problem"] == "tail_deleted"


def test_reanchor_does_not_hide_an_edited_record(settings):
    edit_and_rechain(_path(settings))
    log = AuditLog.for_settings(settings)
    log.reanchor(user="sup", role="supervisor", reason="prueba")
    assert (log.verify().problem, log.verify().first_bad_seq) == ("edited", 5)


def test_key_and_anchor_live_outside_the_audit_file(settings):
    log = AuditLog.for_settings(settings)
    assert log.seal.key_path == settings.data_dir / "keys" / "audit.key"
    assert log.seal.key_path.stat().st_mode & 0o777 == 0o600
    assert log.seal.anchor_path.stat().st_mode & 0o777 == 0o600
    key_hex = log.seal.key_path.read_text().strip()
    for suffix in ("", "-wal"):
        blob = Path(str(log.path) + suffix)
        assert not blob.exists() or key_hex.encode() not in blob.read_bytes()
    anchor = json.loads(log.seal.anchor_path.read_text())
    head = log.list(limit=1)[0]
    assert (anchor["seq"], anchor["hash"]) == (head.seq, head.hash) and anchor["mac"].startswith("hmac-sha256:")


def test_the_keys_folder_is_a_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("CASANDRA_AUDIT_KEYS_DIR", str(tmp_path / "elsewhere"))
    settings = load_settings(tmp_path / "data")
    log = AuditLog.for_settings(settings)
    _fill(log, 1)
    assert (tmp_path / "elsewhere" / "audit.key").is_file() and not (settings.data_dir / "keys").exists()


# -- logs written before the seal ----------------------------------------------------------


def _legacy(path: Path, count: int) -> None:
    """A log as the plain-SHA-256 code wrote it: migrations 1-2, ``sha256:`` records, no key, no anchor."""
    path.parent.mkdir(parents=True)
    con = _raw(path)
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for migration in discover_migrations()[:2]:
        for statement in migration.statements():
            con.execute(statement)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, 'x')", (migration.version, migration.name))
    prev = "sha256:" + "0" * 64
    for i in range(count):
        fields = dict(
            job_id=f"old{i}", ts="2025-01-01T00:00:00Z", kind="ask", user="u", role="analista", question=None,
            status="ok", query_hash=None, catalog_version=None, dataset_version=None, tools=[], payload={"i": i},
            prev_hash=prev,
        )  # fmt: skip
        digest = record_hash(prev, fields)
        con.execute(
            "INSERT INTO audit_records (job_id, ts, kind, user, role, status, payload, prev_hash, hash) "
            "VALUES (?, ?, 'ask', 'u', 'analista', 'ok', ?, ?, ?)",
            (fields["job_id"], fields["ts"], json.dumps({"i": i}), prev, digest),
        )
        prev = digest
    con.close()


def test_an_old_log_keeps_verifying_and_is_sealed_from_its_next_record(tmp_path):
    settings = load_settings(tmp_path / "data")
    _legacy(_path(settings), 6)
    log = AuditLog.for_settings(settings)
    assert log.verify() == VerifyResult(True, 6)  # no key yet: the old rule
    assert not log.seal.key_path.exists()
    _fill(log, 3)
    assert log.verify() == VerifyResult(True, 9)
    hashes = [r.hash.split(":")[0] for r in reversed(log.list())]
    assert hashes == ["sha256"] * 6 + ["hmac-sha256"] * 3
    assert json.loads(log.seal.anchor_path.read_text())["keyed_from"] == 7


def test_an_old_record_rewritten_after_the_seal_is_detected(tmp_path):
    settings = load_settings(tmp_path / "data")
    _legacy(_path(settings), 6)
    log = AuditLog.for_settings(settings)
    _fill(log, 3)
    edit_and_rechain(_path(settings))  # rewrites 5..9 with the plain rule
    result = log.verify()
    assert (result.ok, result.problem, result.first_bad_seq) == (False, "edited", 7)  # the first sealed record


def test_describe_is_spanish_for_every_problem():
    assert describe(VerifyResult(True, 3)) == "Cadena de auditoría íntegra: 3 registros verificados."
    for code, label in PROBLEMS.items():
        text = describe(VerifyResult(False, 0, 2, "j", "motivo", code))
        assert text == f"Cadena de auditoría ROTA — {label} en seq=2 (job_id=j): motivo"
