"""Pydantic models of the envelope (docs/contracts/001_casandra_v0.md §4.4): the contract every tool output obeys.

The executor builds envelopes as plain dicts for speed; these models validate them in
tests and at the API edge, and export the JSON Schema kept in ``catalogs/contracts``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.errors import ACCESS_CODES, CRITICAL_CODES, NON_CRITICAL_CODES


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Column(_Strict):
    """A column of the inline table."""

    name: str
    type: Literal["string", "int", "float", "date", "bool"]


class LimitNotice(_Strict):
    """Whether the inline rows were cut to ``max_rows``."""

    applied: bool
    max_rows: int
    total_rows: int


class Inline(_Strict):
    """The inline table."""

    columns: list[Column]
    rows: list[list[Any]]
    limit_notice: LimitNotice


class Artifacts(_Strict):
    """Full tables written as Parquet."""

    tables: dict[str, str]


class Data(_Strict):
    """Inline data and artifacts."""

    inline: Inline
    artifacts: Artifacts


class Summary(_Strict):
    """Headline and highlights."""

    headline: str
    highlights: list[str]


class EvidenceRef(_Strict):
    """Curated row ids behind a result."""

    table: str
    ids: list[int]
    total: int
    truncated: bool


class DateRange(_Strict):
    """An ISO date window."""

    from_: str = Field(alias="from")
    to: str


class OkMeta(BaseModel):
    """Meta of a success envelope: the §4.4 keys plus warnings, retry and job id."""

    model_config = ConfigDict(extra="allow")
    schema_version: str
    tool_version: str
    dataset_version: str
    anchor_date: str
    date_range_effective: DateRange | None
    range_adjusted: bool
    timing_ms: float
    query_hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    warnings: list[str] = Field(default_factory=list)


class OkEnvelope(_Strict):
    """A success envelope."""

    status: Literal["ok"]
    tool: str = Field(pattern=r"^[a-z_]+@\d+\.\d+\.\d+$")
    summary: Summary
    data: Data
    evidence: list[EvidenceRef]
    metrics: dict[str, Any] | None = None
    meta: OkMeta


class Problem(_Strict):
    """One problem of an error envelope."""

    code: str
    details: str
    hints: list[str]
    path: str | None = None


class ErrorBlock(_Strict):
    """The error block (code of §6, Spanish details, hints, every problem)."""

    code: Literal[CRITICAL_CODES + NON_CRITICAL_CODES + ACCESS_CODES]  # core/errors.py's codes, the contract's order
    http_status: int
    details: str
    hints: list[str]
    problems: list[Problem] | None = None


class ErrorMeta(BaseModel):
    """Meta of an error envelope."""

    model_config = ConfigDict(extra="allow")
    schema_version: str
    tool_version: str | None


class ErrorEnvelope(_Strict):
    """An error envelope."""

    status: Literal["error"]
    tool: str
    error: ErrorBlock
    meta: ErrorMeta


def validate_envelope(env: dict) -> OkEnvelope | ErrorEnvelope:
    """Check an envelope dict against the contract (raises pydantic.ValidationError)."""
    model = OkEnvelope if env.get("status") == "ok" else ErrorEnvelope
    return model.model_validate(env)
