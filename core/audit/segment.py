"""A verified segment of the audit chain: records ``first..last`` with their hashes, the seal facts and the check.

A supervisor hands a range of records to someone else (an inspector, a court) as one JSON document. It holds each
record as stored (its ``prev_hash`` and ``hash``), the facts the chain verification uses (the log's id, the anchor
as written outside the file, which rule seals the records and a fingerprint of the key), the result of verifying
the whole log and the segment when it was exported, and an HMAC of the whole document under the log's key.

``check_segment`` verifies such a document again. With the log's key (the installation that wrote it) every record
and the document itself are checked: an edited field, a removed or reordered record, a changed verification
result all fail. Without the key, only what needs no secret is checked (the links between records, the plain
``sha256:`` records) and the result says that the sealed content was not checked.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from core.audit import verify as audit_verify
from core.audit.records import _COLUMNS, _HASHED, _TABLE, GENESIS_HASH, AuditRecord, VerifyResult, _record, record_hash
from core.audit.seal import KEYED, PLAIN, Anchor, Seal, is_keyed, log_id, record_mac
from core.clock import iso_utc
from core.errors import ValidacionError
from core.text import canonical_json

if TYPE_CHECKING:
    from core.audit.log import AuditLog

FORMAT = "casandra-audit-segment/1"
MAX_RECORDS = 5000  # a document a browser downloads and a person can read; larger ranges go in several parts
MAC_FIELD = "segment_mac"


@dataclass(frozen=True)
class SegmentCheck:
    """Outcome of checking an exported segment; ``sealed`` says whether the key checked the sealed content."""

    ok: bool
    checked: int
    sealed: bool
    first_bad_seq: int | None = None
    reason: str | None = None
    problem: str | None = None  # a key of core.audit.verify.PROBLEMS


def key_id(key: bytes | None) -> str | None:
    """A fingerprint naming the key that sealed a log (its sha256; the key itself never leaves the installation)."""
    return None if key is None else PLAIN + hashlib.sha256(key).hexdigest()[:32]


def document_mac(key: bytes, document: dict) -> str:
    """HMAC of the whole document except the MAC field itself."""
    body = canonical_json({k: v for k, v in document.items() if k != MAC_FIELD})
    return KEYED + hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def bounds(first_seq: int, last_seq: int) -> None:
    """Refuse an empty, inverted or too long range, in Spanish."""
    if first_seq < 1 or last_seq < first_seq:
        raise ValidacionError(
            f"Rango de registros inválido: desde seq={first_seq} hasta seq={last_seq}.", path="first_seq"
        )
    if last_seq - first_seq + 1 > MAX_RECORDS:
        raise ValidacionError(
            f"El segmento pide {last_seq - first_seq + 1} registros; el máximo por archivo es {MAX_RECORDS}.",
            hints=["Exporte el rango en varias partes consecutivas."],
            path="last_seq",
        )


def build(
    records: list[AuditRecord],
    *,
    first_seq: int,
    last_seq: int,
    conn,
    seal: Seal,
    chain: VerifyResult,
    exported_at: str,
    exported_by: str,
) -> dict:
    """The segment document for ``records`` (seq order), verified with the key, and its MAC."""
    key = seal.key()
    anchor = seal.anchor()
    rules = sorted({KEYED if is_keyed(r.hash) else PLAIN for r in records})
    document = {
        "format": FORMAT,
        "log_id": log_id(conn),
        "first_seq": first_seq,
        "last_seq": last_seq,
        "count": len(records),
        "exported_at": exported_at,
        "exported_by": exported_by,
        "seal": {
            "rules": [rule.rstrip(":") for rule in rules],
            "key_id": key_id(key),
            "anchor": None if anchor is None else asdict(anchor),
            "genesis_hash": GENESIS_HASH,
        },
        "records": [record.as_dict() for record in records],
        "chain_verification": asdict(chain),
    }
    document["segment_verification"] = asdict(check_records(document, key))
    document[MAC_FIELD] = document_mac(key, document) if key is not None else None
    return document


def _fail(problem: str, checked: int, sealed: bool, seq: int | None, reason: str) -> SegmentCheck:
    return SegmentCheck(False, checked, sealed, seq, reason, problem)


def _shape(document: dict) -> str | None:
    """What is wrong with the document's frame (format, range, count, contiguous seqs), or None."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return f"No es un segmento de auditoría de Casandra (formato {FORMAT})."
    records = document.get("records")
    first, last = document.get("first_seq"), document.get("last_seq")
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) for r in records):
        return "El segmento no trae la lista de registros."
    if not isinstance(first, int) or not isinstance(last, int) or document.get("count") != len(records):
        return "El rango o la cuenta de registros del segmento no coincide con los registros que trae."
    if [r.get("seq") for r in records] != list(range(first, first + len(records))) or records[-1].get("seq") != last:
        return f"Los registros no son seq={first}..{last} consecutivos: se quitó, añadió o reordenó alguno."
    return None


def check_records(document: dict, key: bytes | None) -> SegmentCheck:
    """Check the frame, the links and each record's hash (sealed ones only with ``key``)."""
    sealed = key is not None
    broken = _shape(document)
    if broken:
        return _fail("segment_broken", 0, sealed, None, broken)
    anchor = (document.get("seal") or {}).get("anchor") or {}
    keyed_from = anchor.get("keyed_from")
    # The first record links to the one before the segment; only the chain's first record has a known predecessor.
    previous: str | None = GENESIS_HASH if document["first_seq"] == 1 else None
    for checked, values in enumerate(document["records"], start=1):
        seq = values["seq"]
        try:
            fields = {name: values[name] for name in _HASHED}
        except KeyError as exc:
            return _fail("edited", checked, sealed, seq, f"Al registro seq={seq} le falta el campo {exc}.")
        if previous is not None and values.get("prev_hash") != previous:
            return _fail(
                "edited",
                checked,
                sealed,
                seq,
                f"El registro seq={seq} no enlaza con {'el inicio de la cadena' if seq == 1 else f'seq={seq - 1}'}: "
                "su prev_hash no coincide; se alteró, quitó o reordenó un registro.",
            )
        digest = str(values.get("hash") or "")
        if is_keyed(digest):
            if key is not None and record_mac(key, values["prev_hash"], fields) != digest:
                return _fail(
                    "edited", checked, sealed, seq, f"El sello del registro seq={seq} no coincide con su contenido."
                )
        elif not digest.startswith(PLAIN) or (isinstance(keyed_from, int) and seq >= keyed_from):
            return _fail(
                "edited", checked, sealed, seq, f"El registro seq={seq} no lleva el sello que su bitácora exige."
            )
        elif record_hash(values["prev_hash"], fields) != digest:
            return _fail(
                "edited", checked, sealed, seq, f"El hash del registro seq={seq} no coincide con su contenido."
            )
        previous = digest
        if anchor.get("seq") == seq and anchor.get("hash") != digest:
            return _fail("anchor_forged", checked, sealed, seq, f"El registro seq={seq} no es el que selló el ancla.")
    return SegmentCheck(True, len(document["records"]), sealed)


def check_segment(document: dict, key: bytes | None) -> SegmentCheck:
    """Verify an exported segment: its records, and with the log's key its seal facts and the whole document."""
    result = check_records(document, key)
    if not result.ok or key is None:
        return result
    facts = document.get("seal") or {}
    if facts.get("key_id") != key_id(key):
        return _fail("segment_forged", result.checked, True, None, "El segmento no fue sellado con esta llave.")
    anchor = facts.get("anchor")
    try:
        anchor_ok = anchor is None or Anchor(**anchor).valid(key)
    except TypeError:
        anchor_ok = False
    if not anchor_ok:
        return _fail("anchor_forged", result.checked, True, None, "El ancla copiada en el segmento fue alterada.")
    if not hmac.compare_digest(str(document.get(MAC_FIELD) or ""), document_mac(key, document)):
        return _fail(
            "segment_forged",
            result.checked,
            True,
            None,
            "El documento del segmento fue alterado después de exportarlo (su sello no coincide).",
        )
    return result


def describe(result: SegmentCheck) -> str:
    """One Spanish line for a segment check: verified (with or without the key), or what failed and where."""
    if result.ok and result.sealed:
        return f"Segmento íntegro: {result.checked} registros verificados con la llave de la bitácora."
    if result.ok:
        return (
            f"Segmento coherente: {result.checked} registros enlazados; sin la llave de la bitácora no se "
            "comprobó el contenido de los registros sellados."
        )
    where = f" en seq={result.first_bad_seq}" if result.first_bad_seq is not None else ""
    return f"Segmento ALTERADO — {audit_verify.problem_label(result.problem)}{where}: {result.reason}"


def read(log: AuditLog, first_seq: int, last_seq: int) -> list[AuditRecord]:
    """The stored records ``first_seq..last_seq`` in chain order (``_record`` keeps a mangled payload visible)."""
    sql = f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE} WHERE seq BETWEEN ? AND ? ORDER BY seq"
    return [_record(row) for row in log._conn().execute(sql, (first_seq, last_seq))]


def head_seq(log: AuditLog) -> int:
    """The seq of the chain's last record (0 for an empty log)."""
    return int(log._conn().execute(f"SELECT coalesce(max(seq), 0) FROM {_TABLE}").fetchone()[0])


def export(log: AuditLog, first_seq: int, last_seq: int, *, user: str, role: str) -> dict:
    """The verified segment ``first_seq..last_seq`` (cut at the head) as a document; the export itself is audited."""
    bounds(first_seq, last_seq)
    chain = log.verify()
    head = head_seq(log)
    last = min(last_seq, head)
    if first_seq > last:
        raise ValidacionError(
            f"No hay registros desde seq={first_seq}: el último registro es seq={head}.", path="first_seq"
        )
    records = read(log, first_seq, last)
    document = build(
        records,
        first_seq=first_seq,
        last_seq=last,
        conn=log._conn(),
        seal=log.seal,
        chain=chain,
        exported_at=iso_utc(log.clock.now()),
        exported_by=user,
    )
    log.append(
        kind="audit_export",
        user=user,
        role=role,
        status="ok" if document["segment_verification"]["ok"] else "error",
        payload={
            "first_seq": first_seq,
            "last_seq": last,
            "count": len(records),
            "segment_mac": document[MAC_FIELD],
            "segment_verification": document["segment_verification"],
        },
    )
    return document
