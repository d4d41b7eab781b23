"""Audit records: their hash chain, the numbered migrations and the list filters (the Celador).

``hash = sha256(prev_hash + canonical_json(fields))`` over every field except ``seq`` and
``hash`` (records since the seal use the keyed form, ``core.audit.seal.record_mac``);
migrations are the numbered SQL files in ``core/audit/migrations``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypedDict, Unpack

from core.clock import iso_utc
from core.errors import RangoFueraDeCorte, ValidacionError
from core.text import canonical_json

DB_FILENAME = "audit.sqlite3"
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
GENESIS_HASH = "sha256:" + "0" * 64
BUSY_TIMEOUT_MS = 30_000

_TABLE = "audit_records"
_COLUMNS = (
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
)
_HASHED = tuple(c for c in _COLUMNS if c not in ("seq", "hash"))
_MIGRATION_NAME = re.compile(r"^(\d{4})_([A-Za-z0-9_]+)\.sql$")


class AuditFilters(TypedDict, total=False):
    """The filters of ``AuditLog.list`` and ``count`` (each optional; a record matches all that are given)."""

    since: str | None
    until: str | None
    user: str | None
    status: str | None
    kind: str | None
    tool: str | None
    dataset_version: str | None
    text: str | None


_FILTERS = tuple(AuditFilters.__annotations__)


def record_hash(prev_hash: str, fields: dict) -> str:
    """``sha256:<hex>`` of ``prev_hash`` + canonical JSON of a record's hashed fields."""
    body = canonical_json({name: fields[name] for name in _HASHED})
    return "sha256:" + hashlib.sha256((prev_hash + body).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class AuditRecord:
    """One stored audit record, as read back from the log."""

    seq: int
    job_id: str
    ts: str
    kind: str
    user: str
    role: str
    question: str | None
    status: str
    query_hash: str | None
    catalog_version: str | None
    dataset_version: str | None
    tools: tuple[str, ...]
    payload: dict
    prev_hash: str
    hash: str

    def as_dict(self) -> dict:
        """JSON-ready form (``tools`` as a list); the shape of the JSON export."""
        return {name: (list(self.tools) if name == "tools" else getattr(self, name)) for name in _COLUMNS}

    def hashed_fields(self) -> dict:
        """The fields covered by ``hash`` (everything except ``seq`` and ``hash``)."""
        data = self.as_dict()
        return {name: data[name] for name in _HASHED}


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of checking the chain; ``reason`` explains a failure in Spanish, ``problem`` names its kind."""

    ok: bool
    checked: int
    first_bad_seq: int | None = None
    first_bad_job_id: str | None = None
    reason: str | None = None
    problem: str | None = None  # a key of core.audit.verify.PROBLEMS


@dataclass(frozen=True)
class Migration:
    """One numbered schema migration file."""

    version: int
    name: str
    path: Path

    def statements(self) -> list[str]:
        """The file's SQL split into complete statements (triggers kept whole)."""
        out: list[str] = []
        pending = ""
        for line in self.path.read_text(encoding="utf-8").splitlines(keepends=True):
            if not pending and (not line.strip() or line.lstrip().startswith("--")):
                continue
            pending += line
            if sqlite3.complete_statement(pending):
                out.append(pending.strip())
                pending = ""
        if pending.strip():
            raise RuntimeError(f"Migración {self.path.name}: sentencia SQL incompleta al final del archivo")
        return out


def discover_migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The ``NNNN_name.sql`` files of ``folder`` in version order (versions must be unique)."""
    found: dict[int, Migration] = {}
    for path in sorted(folder.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise RuntimeError(f"Nombre de migración inválido: {path.name} (se espera NNNN_nombre.sql)")
        version = int(match.group(1))
        if version in found:
            raise RuntimeError(f"Versión de migración repetida: {version}")
        found[version] = Migration(version, match.group(2), path)
    return [found[v] for v in sorted(found)]


def _tools_column(tools: tuple[str, ...]) -> str | None:
    return ",".join(tools) if tools else None


def _tools_tuple(column: str | None) -> tuple[str, ...]:
    return tuple(column.split(",")) if column else ()


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _bound(value: str, *, end: bool) -> str:
    """A ``since``/``until`` value as a comparable ISO-8601 UTC string (dates cover the day)."""
    text = str(value).strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return f"{day.isoformat()}T{'23:59:59' if end else '00:00:00'}Z"
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValidacionError(
            f"Fecha inválida en el filtro de auditoría: {text!r}.",
            hints=["Use AAAA-MM-DD o AAAA-MM-DDTHH:MM:SSZ."],
            path="until" if end else "since",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return iso_utc(moment)


def _where(**filters: Unpack[AuditFilters]) -> tuple[str, list[Any]]:
    """The WHERE clause and its parameters for the list filters (always parameterized; an unknown filter is refused)."""
    unknown = set(filters) - set(_FILTERS)
    if unknown:
        raise TypeError(f"Filtros de auditoría desconocidos: {sorted(unknown)}")
    since, until, tool, text = (filters.get(name) for name in ("since", "until", "tool", "text"))
    clauses: list[str] = []
    params: list[Any] = []
    low = _bound(since, end=False) if since else None
    high = _bound(until, end=True) if until else None
    if low and high and low > high:
        raise RangoFueraDeCorte(f"El rango de fechas está invertido: desde {low} hasta {high}.", path="since")
    if low:
        clauses.append("ts >= ?")
        params.append(low)
    if high:
        clauses.append("ts <= ?")
        params.append(high)
    for column in ("user", "status", "kind", "dataset_version"):
        value = filters.get(column)
        if value is not None:
            clauses.append(f"{column} = ?")  # column names come from this fixed list only
            params.append(value)
    if tool is not None:
        clauses.append("instr(',' || coalesce(tools, '') || ',', ',' || ? || ',') > 0")
        params.append(tool)
    if text:
        clauses.append("(question LIKE ? ESCAPE '\\' OR payload LIKE ? ESCAPE '\\')")
        pattern = _like_pattern(text)
        params.extend([pattern, pattern])
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _record(row: sqlite3.Row | tuple) -> AuditRecord:
    values = dict(zip(_COLUMNS, row))
    try:
        payload = json.loads(values["payload"])
        if not isinstance(payload, dict):
            raise ValueError
    except (TypeError, ValueError):
        # A tampered row must not break the viewer; verify() reports it.
        payload = {"_payload_invalido": values["payload"]}
    values["payload"] = payload
    values["tools"] = _tools_tuple(values["tools"])
    return AuditRecord(**values)
