"""Catalog tools: plain functions ``fn(ctx, step) -> ToolOutput`` named by the ToolSpecs.

Filters narrow the working set (entity, window, crimes, methods, frequency); analyses
read it and return a table. Tools never build SQL from user text: values travel as
parameters, identifiers come from the validated catalog.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

from core.engine.catalog import ToolSpec


class Entity(NamedTuple):
    """An entity of the store: the state or one municipality (a tuple: tools build thousands)."""

    entidad_id: str
    nivel: str  # "estado" | "municipio"
    estado_id: str
    label: str
    cve: str


@dataclass
class Scope:
    """The working set an analysis reads, after validation resolved every value."""

    entity: Entity | None = None
    nivel: str = "hijos"
    date_from: date | None = None
    date_to: date | None = None
    requested: tuple[str | None, str | None] = (None, None)
    adjustments: list[str] = field(default_factory=list)  # Spanish reasons for range_adjusted
    delitos: list[str] = field(default_factory=list)  # keys as asked
    delito_keys: list[str] = field(default_factory=list)  # keys to filter (tipo-level expanded)
    metodos: list[str] = field(default_factory=list)
    violencia: str | None = None
    frecuencia: dict | None = None
    warnings: list[str] = field(default_factory=list)
    series_end: date | None = None  # the crimes' own last published month for the place (validation sets it)

    @property
    def range_adjusted(self) -> bool:
        """Whether alignment or clamping changed the requested window."""
        return bool(self.adjustments)

    def copy(self) -> Scope:
        """An independent copy (each step gets its own)."""
        return Scope(
            self.entity,
            self.nivel,
            self.date_from,
            self.date_to,
            self.requested,
            list(self.adjustments),
            list(self.delitos),
            list(self.delito_keys),
            list(self.metodos),
            self.violencia,
            dict(self.frecuencia) if self.frecuencia else None,
            list(self.warnings),
            self.series_end,
        )


@dataclass
class ResolvedStep:
    """A validated plan step: its spec, normalized args and the scope it runs on."""

    index: int
    spec: ToolSpec
    args: dict[str, Any]
    scope: Scope
    given: frozenset[str] = frozenset()  # argument names the plan wrote (the rest are defaults)


EVIDENCE_IDS = 500  # row ids an envelope's evidence lists (the smallest; ``truncated`` says if there are more)
# SQL: the smallest EVIDENCE_IDS + 1 row ids with events, sorted (one more than listed tells ``truncated``)
FIRST_IDS = f"min(row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE eventos > 0)"


def first_ids(lists: Iterable[Iterable[int] | None]) -> list[int]:
    """The smallest ``EVIDENCE_IDS + 1`` row ids of several groups' id lists (disjoint groups), sorted."""
    return heapq.nsmallest(EVIDENCE_IDS + 1, (int(x) for ids in lists if ids for x in ids))


@dataclass
class Evidence:
    """How to find the curated rows behind a result (re-queried by listar_evidencia).

    A tool that already read those rows in its own statement passes their summary too:
    ``ids``, the smallest ``EVIDENCE_IDS + 1`` row ids, sorted, and ``total``, the number of
    rows (``eventos > 0``), so the executor does not scan the table again.
    """

    where: str
    params: list[Any]
    table: str = "incidents"
    ids: list[int] | None = None
    total: int | None = None
    # rows of other tables summed into the same result (a national figure whose Guanajuato cells are the sum of
    # its municipal incidents); listar_evidencia lists them beside this table's, keyed by table + row_id
    also: list[Evidence] = field(default_factory=list)


@dataclass
class ToolOutput:
    """What a tool computed; the executor turns it into an envelope."""

    columns: list[tuple[str, str]]
    rows: list[list[Any]]
    headline: str
    highlights: list[str] = field(default_factory=list)
    evidence: Evidence | None = None
    metrics: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    artifact_name: str | None = None
    extra_meta: dict[str, Any] = field(default_factory=dict)
    empty: bool = False  # rows exist but carry no events (all zeros): counts as an empty result


@dataclass
class ToolContext:
    """What a running tool may use: the read-only store, the catalog, earlier outputs."""

    store: Any
    catalog: Any
    metadata: dict
    outputs: list[tuple[ResolvedStep, ToolOutput]] = field(default_factory=list)

    def query(self, sql: str, params: list | tuple = ()) -> list[tuple]:
        """Parameterized, fully fetched query on the current version."""
        return self.store.query(sql, params)

    def query_columns(self, sql: str, params: list | tuple = ()) -> dict[str, Any]:
        """Parameterized query fetched as one NumPy array per column (for results of many rows)."""
        return self.store.cursor().execute(sql, list(params)).fetchnumpy()

    def memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """A fact of the current version computed once per version where the store keeps them (else each call)."""
        keep = getattr(self.store, "memo", None)
        return keep(key, compute) if keep else compute()

    def previous(self, kind: str | None = None, name: str | None = None) -> tuple[ResolvedStep, ToolOutput] | None:
        """The latest earlier output, optionally of a tool kind or name."""
        for step, out in reversed(self.outputs):
            if (kind is None or step.spec.kind == kind) and (name is None or step.spec.name == name):
                return step, out
        return None
