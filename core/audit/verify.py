"""Checking the audit log: the chain in seq order, then the anchor kept outside the file (the Celador).

Each record is checked with the rule its hash names: ``sha256:`` (logs written before the seal, and records
before the key existed) or ``hmac-sha256:`` (the key in the seal). Then the anchor says whether what is left
is everything that was sealed. ``check`` names what happened (``VerifyResult.problem``, labelled in Spanish by
``PROBLEMS``) and the first record it touches.
"""

from __future__ import annotations

import json
import sqlite3

from core.audit.records import _COLUMNS, _TABLE, GENESIS_HASH, VerifyResult, _tools_tuple, record_hash
from core.audit.seal import PLAIN, Anchor, Seal, SelloError, is_keyed, log_id, record_mac

PROBLEMS = {
    "edited": "Registro alterado",
    "tail_deleted": "Registros borrados al final",
    "emptied": "Todos los registros borrados",
    "file_missing": "Archivo de auditoría borrado o reemplazado",
    "key_missing": "Llave de auditoría ausente o ilegible",
    "anchor_missing": "Ancla de auditoría ausente",
    "anchor_forged": "Ancla de auditoría alterada",
    "segment_broken": "Segmento incompleto o desordenado",
    "segment_forged": "Segmento alterado después de exportarlo",
}


def problem_label(code: str | None) -> str:
    """The Spanish name of what verify found (``PROBLEMS``)."""
    return PROBLEMS.get(code or "", "Problema de auditoría")


def describe(result: VerifyResult) -> str:
    """One Spanish line for a verify result: intact, or what was done and the first record it touches."""
    if result.ok:
        return f"Cadena de auditoría íntegra: {result.checked} registros verificados."
    where = f" en seq={result.first_bad_seq}" if result.first_bad_seq is not None else ""
    job = f" (job_id={result.first_bad_job_id})" if result.first_bad_job_id else ""
    return f"Cadena de auditoría ROTA — {problem_label(result.problem)}{where}{job}: {result.reason}"


def _fail(problem: str, checked: int, seq: int | None, job_id: str | None, reason: str) -> VerifyResult:
    return VerifyResult(False, checked, seq, job_id, reason, problem)


def check(conn: sqlite3.Connection, seal: Seal) -> VerifyResult:
    """Verify the log behind ``conn`` against its seal; the first problem found, or ok."""
    # Key and anchor are read under the appenders' lock and before the snapshot: an anchor only moves after its
    # record is committed, so the one read here is never ahead of the records read below.
    with seal.locked(create=False):
        try:
            key = seal.key()
        except SelloError as exc:
            return _fail("key_missing", 0, None, None, exc.details)
        anchor = seal.anchor()
    if key is None and anchor is not None:
        return _fail(
            "key_missing",
            0,
            None,
            None,
            "Falta la llave de la bitácora de auditoría y existe su ancla: la bitácora estaba sellada. "
            "Restaure la llave desde su respaldo para verificarla.",
        )
    if key is not None and anchor is not None and not anchor.valid(key):
        return _fail(
            "anchor_forged",
            0,
            None,
            None,
            "El ancla de la bitácora de auditoría fue alterada: su sello no coincide con la llave.",
        )
    conn.execute("BEGIN")  # one consistent snapshot while other processes append
    rows = conn.cursor()
    try:
        return _check_snapshot(conn, rows, key, anchor)
    finally:
        rows.close()
        conn.execute("COMMIT")


def _check_snapshot(
    conn: sqlite3.Connection, rows: sqlite3.Cursor, key: bytes | None, anchor: Anchor | None
) -> VerifyResult:
    if anchor is not None and anchor.log_id != log_id(conn):
        return _fail(
            "file_missing",
            0,
            1 if anchor.seq else None,
            None,
            f"El archivo de la bitácora no es el que selló el ancla (que registra {anchor.seq} registros): "
            "se borró o se reemplazó.",
        )
    keyed_from = anchor.keyed_from if anchor is not None else None
    expected_prev, previous_seq, checked, keyed_seen, anchored = GENESIS_HASH, None, 0, False, None
    for row in rows.execute(f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE} ORDER BY seq"):
        values = dict(zip(_COLUMNS, row))
        checked += 1
        seq, job_id = values["seq"], values["job_id"]
        where = f"seq={seq} (job_id={job_id})"
        if values["prev_hash"] != expected_prev:
            before = f"el registro seq={previous_seq}" if previous_seq is not None else "el inicio de la cadena"
            return _fail(
                "edited",
                checked,
                seq,
                job_id,
                f"El registro {where} no enlaza con {before}: su prev_hash no coincide; "
                "se borró, insertó o alteró un registro anterior.",
            )
        try:
            payload = json.loads(values["payload"])
        except (TypeError, ValueError):
            return _fail(
                "edited",
                checked,
                seq,
                job_id,
                f"El registro {where} tiene un payload que no es JSON válido: fue alterado.",
            )
        fields = dict(values, tools=list(_tools_tuple(values["tools"])), payload=payload)
        digest = values["hash"] or ""
        if is_keyed(digest):
            if key is None:
                return _fail(
                    "key_missing",
                    checked,
                    seq,
                    job_id,
                    f"El registro {where} está sellado con la llave de auditoría, pero la llave falta: "
                    "restáurela desde su respaldo para verificarlo.",
                )
            expected, keyed_seen = record_mac(key, values["prev_hash"], fields), True
        elif digest.startswith(PLAIN) and not keyed_seen and (keyed_from is None or seq < keyed_from):
            expected = record_hash(values["prev_hash"], fields)
        else:
            return _fail(
                "edited",
                checked,
                seq,
                job_id,
                f"El registro {where} no lleva el sello de la llave aunque la bitácora ya estaba sellada: "
                "fue reescrito.",
            )
        if expected != digest:
            return _fail(
                "edited",
                checked,
                seq,
                job_id,
                f"El hash del registro {where} no coincide con su contenido: el registro fue alterado.",
            )
        if anchor is not None and seq == anchor.seq:
            anchored = digest
        expected_prev, previous_seq = digest, seq
    return _check_ends(conn, checked, previous_seq or 0, key, anchor, anchored)


def _check_ends(
    conn: sqlite3.Connection, checked: int, last: int, key: bytes | None, anchor: Anchor | None, anchored: str | None
) -> VerifyResult:
    """What the chain alone cannot show: records missing after the last one, per the counter and the anchor."""
    # AUTOINCREMENT never reuses a seq: a head below the counter means removed tail records (unless the counter
    # was reset too, which the anchor catches).
    counter = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (_TABLE,)).fetchone()
    high = max(int(counter[0]) if counter else 0, anchor.seq if anchor is not None else 0)
    if high > last and checked == 0:
        return _fail(
            "emptied",
            0,
            1,
            None,
            f"Se borraron todos los registros de la bitácora: se habían sellado o asignado hasta seq={high}.",
        )
    if high > last:
        return _fail(
            "tail_deleted",
            checked,
            last + 1,
            None,
            f"Faltan registros al final de la cadena: el último es seq={last} "
            f"pero se asignaron o sellaron hasta seq={high}.",
        )
    if anchor is not None and anchor.seq > 0 and anchored != anchor.hash:
        return _fail(
            "tail_deleted",
            checked,
            anchor.seq,
            None,
            f"El registro seq={anchor.seq} no es el que selló el ancla: se borraron registros y se escribieron "
            "otros en su lugar.",
        )
    if key is not None and anchor is None:
        return _fail(
            "anchor_missing",
            checked,
            None,
            None,
            "Falta el ancla de la bitácora de auditoría (existe su llave): no se puede descartar que se "
            "borraran registros al final.",
        )
    return VerifyResult(True, checked)
