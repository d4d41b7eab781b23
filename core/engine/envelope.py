"""The envelope ("Sobre", docs/contracts/001_casandra_v0.md §4.4): one per tool, success or error, same
shape always."""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from core.engine.catalog import ENVELOPE_SCHEMA_VERSION
from core.errors import error_payload

DEFAULT_MAX_ROWS = 50
_TYPES = {"string": pa.string(), "int": pa.int64(), "float": pa.float64(), "date": pa.date32(), "bool": pa.bool_()}


def jsonable(value: Any) -> Any:
    """Plain JSON value for a cell (dates as ISO text, NaN as null)."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def write_artifact(folder: Path, day: str, name: str, columns: list[tuple[str, str]], rows: list[list]) -> str:
    """Write the full table as Parquet; returns its ``artifact://`` address."""
    target = folder / "tables" / day
    target.mkdir(parents=True, exist_ok=True)
    arrays = []
    for idx, (_col, kind) in enumerate(columns):
        values = [r[idx] for r in rows]
        try:
            arrays.append(pa.array(values, type=_TYPES.get(kind, pa.string())))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays.append(pa.array([None if v is None else str(v) for v in values], type=pa.string()))
    table = pa.Table.from_arrays(arrays, names=[c for c, _ in columns])
    tmp = target / f".{name}.tmp"
    pq.write_table(table, tmp, compression="zstd")
    tmp.replace(target / f"{name}.parquet")
    return f"artifact://tables/{day}/{name}.parquet"


def ok_envelope(
    *,
    tool: str,
    tool_version: str,
    headline: str,
    highlights: list[str],
    columns: list[tuple[str, str]],
    rows: list[list],
    max_rows: int,
    artifacts: dict[str, str],
    evidence: list[dict],
    metrics: dict | None,
    meta: dict,
) -> dict:
    """A success envelope, exactly the blocks of §4.4 (+ metrics, §13.2)."""
    shown = rows[:max_rows]
    env = {
        "status": "ok",
        "tool": tool,
        "summary": {"headline": headline, "highlights": highlights},
        "data": {
            "inline": {
                "columns": [{"name": n, "type": t} for n, t in columns],
                "rows": [[jsonable(v) for v in r] for r in shown],
                "limit_notice": {"applied": len(rows) > max_rows, "max_rows": max_rows, "total_rows": len(rows)},
            },
            "artifacts": {"tables": artifacts},
        },
        "evidence": evidence,
        "meta": {"schema_version": ENVELOPE_SCHEMA_VERSION, "tool_version": tool_version, **meta},
    }
    if metrics is not None:
        env["metrics"] = {k: jsonable(v) for k, v in metrics.items()}
    return env


def error_envelope(exc: BaseException, *, tool: str, tool_version: str | None, meta: dict | None = None) -> dict:
    """An error envelope; the one mapper ``error_payload`` fills its error block."""
    return {
        "status": "error",
        "tool": tool,
        "error": error_payload(exc),
        "meta": {"schema_version": ENVELOPE_SCHEMA_VERSION, "tool_version": tool_version, **(meta or {})},
    }


# -- readers: the one way every consumer (compose, charts, UI, evals, jobs) reads an envelope --------


def tool_name(envelope: dict | None) -> str:
    """'rank_por_delito' from 'rank_por_delito@1.1.0' ('' for None)."""
    return str((envelope or {}).get("tool") or "").split("@")[0]


def columns(envelope: dict | None) -> list[str]:
    """Column names of the inline table."""
    inline = ((envelope or {}).get("data") or {}).get("inline") or {}
    return [c["name"] for c in inline.get("columns") or []]


def records(envelope: dict | None) -> list[dict]:
    """Inline rows as dicts keyed by column name."""
    names = columns(envelope)
    inline = ((envelope or {}).get("data") or {}).get("inline") or {}
    # rows and columns come from the same tool output; a short row must not break the answer
    return [dict(zip(names, row, strict=False)) for row in inline.get("rows") or []]
