"""One statement per entity table: the entities of a result, their counts, population and evidence.

The entity tools (rank_por_delito, top_entidades_por_total, agrupar_por_entidad,
comparar_periodos) need the entities of the scope, their events in one or two windows,
the CONAPO population of a year and the evidence behind the rows they return. One
statement reads ``incidents`` once for all of it. For the municipalities of a state the
statement also ranks them as the tool will (``Rank``, a window function) and returns the
smallest row ids of the first ``top_k``; the tool ranks again in Python (the reference)
and uses those ids only when both picked the same entities. Otherwise (a tie that
rounding decides differently, or a ranking SQL cannot do) the evidence carries no summary
and the executor queries it as before. A ranking by counts alone (by events, or by the
change between two windows: integers, which SQL and Python cannot order differently) is
done by the statement, which returns only the shown municipalities (``_children_top``):
570 rows for Oaxaca cost more to send and rank than the statement itself. Identifiers come from this module; every value is a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.tools import FIRST_IDS, Entity, Evidence, Scope, ToolContext, first_ids

COLUMNS = ("n", "nb", "tasa", "porcentaje")  # what a Rank may order by


@dataclass(frozen=True)
class Rank:
    """How the tool orders the entities (an ORDER BY over ``COLUMNS``) and how many it shows."""

    order: str
    top_k: int | None = None  # None: every entity

    @staticmethod
    def by(column: str, desc: bool, top_k: int | None) -> Rank:
        """Entities without a value last, then by the column, then by entidad_id."""
        if column not in COLUMNS:
            raise ValueError(f"no se puede ordenar por {column}")
        return Rank(f"({column} IS NULL), {column} {'DESC' if desc else 'ASC'}", top_k)


@dataclass
class Tally:
    """What the statement returned, per entity of the result (in the order of their codes)."""

    entities: list[Entity]
    counts: dict[str, int]
    base: dict[str, int]
    pops: dict[str, int | None]
    evidence_rows: dict[str, int]  # rows with events per entity (the rows evidence counts)
    top: list[str] | None = None  # the entities the statement ranked first
    top_ids: list[int] | None = None  # first EVIDENCE_IDS + 1 row ids of their rows (of every row: one entity)
    # Set when the statement ranked and kept only the first entities (``entities`` is then that
    # ranking): the events of every entity in scope per window (``n``, ``nb``), and how many
    # entities pass the frequency filter.
    totals: dict[str, int] | None = None
    ranked: int | None = None

    def evidence(self, cond: str, params: list, shown: list[str], per_child: bool) -> Evidence:
        """The evidence of the shown entities (all the scope's rows when none or not per child)."""
        if per_child and shown:
            where = cond + f" AND i.entidad_id IN ({', '.join('?' for _ in shown)})"
            if self.top is not None and sorted(self.top) == sorted(shown):
                return Evidence(
                    where, params + shown, ids=self.top_ids, total=sum(self.evidence_rows.get(e, 0) for e in shown)
                )
            return Evidence(where, params + shown)
        if not per_child and self.top_ids is not None:
            return Evidence(cond, params, ids=self.top_ids, total=sum(self.evidence_rows.values()))
        return Evidence(cond, params)


def per_child(scope: Scope) -> bool:
    """Whether the result lists the municipalities of a state (nivel hijos) rather than the entity."""
    return scope.entity is not None and scope.entity.nivel == "estado" and scope.nivel == "hijos"


def _frequency(scope: Scope) -> tuple[str, list]:
    """The filtro_frecuencia minimums as a condition over ``n`` and ``tasa`` (as frequency_ok)."""
    f = scope.frecuencia
    if not f or f.get("por", "entidad") != "entidad":
        return "TRUE", []
    parts, params = [], []
    if f.get("min_eventos") is not None:
        parts.append("n >= ?")
        params.append(f["min_eventos"])
    if f.get("min_tasa") is not None:
        parts.append("tasa IS NOT NULL AND tasa >= ?")
        params.append(f["min_tasa"])
    return " AND ".join(parts) or "TRUE", params


def _sums(windows: list[tuple[date, date] | None]) -> tuple[list[str], list[str], list]:
    """Column names (``n``, ``nb``), their sums and parameters: the rows inside each window."""
    names = ["n", "nb"][: len(windows)]
    sums, params = [], []
    for w in windows:
        sums.append("sum(eventos) FILTER (WHERE fecha BETWEEN ? AND ?)" if w else "sum(eventos)")
        params += list(w) if w else []
    return names, sums, params


def _entity(ctx: ToolContext, scope: Scope, cond: str, params: list, windows, year: int | None) -> Tally:
    """The entity itself (a state as a whole, or a municipality): one aggregate over its rows."""
    e = scope.entity
    names, sums, sum_params = _sums(windows)
    if year is None:
        pop, pop_params = "NULL", []
    elif e.nivel == "estado":  # the sum of its municipalities, None without any
        pop = """(SELECT CASE WHEN count(*) > 0 THEN sum(poblacion) END FROM population
                  WHERE fuente = 'CONAPO' AND anio = ? AND estado_id = ?)"""
        pop_params = [year, e.estado_id]
    else:
        pop = "(SELECT any_value(poblacion) FROM population WHERE fuente = 'CONAPO' AND anio = ? AND entidad_id = ?)"
        pop_params = [year, e.entidad_id]
    row = ctx.query(
        f"""SELECT {", ".join(f"coalesce({s}, 0)" for s in sums)},
                   count(*) FILTER (WHERE eventos > 0), coalesce({FIRST_IDS}, []), {pop}
            FROM incidents i WHERE {cond}""",
        sum_params + pop_params + params,
    )[0]
    k = len(names)
    eid = e.entidad_id
    return Tally(
        entities=[e],
        counts={eid: int(row[0])},
        base={eid: int(row[1])} if k > 1 else {},
        pops={eid: int(row[k + 2]) if row[k + 2] is not None else None},
        evidence_rows={eid: int(row[k])},
        top_ids=[int(x) for x in row[k + 1]],
    )


def _municipality_counts(names: list[str], sums: list[str], cond: str, ids: bool) -> str:
    """``ents``, the state's municipalities (parameter: the state), and ``c``, per municipality read: the
    window sums (their parameters, then ``cond``'s), rows with events and, with ``ids``, the smallest row ids."""
    return f"""ents AS (SELECT entidad_id, nivel, estado_id, label, cve FROM entities
                      WHERE nivel = 'municipio' AND estado_id = ?),
        c AS (SELECT entidad_id, {", ".join(f"{x} AS {n}" for x, n in zip(sums, names))},
                     count(*) FILTER (WHERE eventos > 0) AS nev, {FIRST_IDS if ids else "NULL"} AS ids
              FROM incidents i WHERE {cond} GROUP BY entidad_id)"""


def _children(
    ctx: ToolContext, scope: Scope, cond: str, params: list, windows, year: int | None, rank: Rank | None
) -> Tally:
    """The municipalities of a state, in the order of their codes, each with its smallest row ids when ranked first."""
    e = scope.entity
    names, sums, sum_params = _sums(windows)
    pop, pop_params = "NULL::BIGINT AS poblacion", []
    if year is not None:
        pop = """(SELECT any_value(poblacion) FROM population p
                  WHERE p.fuente = 'CONAPO' AND p.anio = ? AND p.entidad_id = e.entidad_id) AS poblacion"""
        pop_params = [year]
    top, top_params = "NULL", []
    if rank is not None:  # the tool's ranking, as a window: no second pass over the rows
        freq, top_params = _frequency(scope)
        top = f"({freq})"
        if rank.top_k is not None:
            top += (
                f" AND row_number() OVER (PARTITION BY ({freq}) ORDER BY {rank.order}, entidad_id) <= {int(rank.top_k)}"
            )
            top_params = top_params * 2
    order = rank.order if rank is not None else ""
    share = (
        "CASE WHEN sum(n) OVER () <> 0 THEN round(100 * n / sum(n) OVER (), 2) END" if "porcentaje" in order else "NULL"
    )
    tasa = (
        "CASE WHEN poblacion <> 0 THEN round(n / poblacion * 100000, 2) END"
        if "tasa" in order or "tasa" in top
        else "NULL"
    )
    sql = f"""
        WITH {_municipality_counts(names, sums, cond, ids=rank is not None)},
        r AS (SELECT e.entidad_id, e.nivel, e.estado_id, e.label, e.cve,
                     {", ".join(f"coalesce(c.{n}, 0) AS {n}" for n in names)}, coalesce(c.nev, 0) AS nev,
                     {pop}, c.ids
              FROM ents e LEFT JOIN c USING (entidad_id)),
        k AS (SELECT *, {tasa} AS tasa, {share} AS porcentaje FROM r),
        t AS (SELECT *, coalesce({top}, false) AS top FROM k)
        SELECT entidad_id, nivel, estado_id, label, cve, {", ".join(names)}, nev, poblacion, top,
               CASE WHEN top THEN ids END
        FROM t"""
    # By code, as the municipalities are listed: sorting 570 rows here is cheaper than an ORDER BY.
    rows = sorted(
        ctx.query(sql, [e.estado_id] + sum_params + params + pop_params + top_params),
        key=lambda r: (r[4] is None, r[4] or "", r[0]),
    )
    k = len(names)
    out = Tally(
        entities=[Entity._make(r[:5]) for r in rows],
        counts={r[0]: int(r[5]) for r in rows},
        base={r[0]: int(r[6]) for r in rows} if k > 1 else {},
        pops={r[0]: int(r[6 + k]) if r[6 + k] is not None else None for r in rows},
        evidence_rows={r[0]: int(r[5 + k]) for r in rows},
    )
    if rank is not None:
        out.top = [r[0] for r in rows if r[7 + k]]
        out.top_ids = first_ids(r[8 + k] for r in rows)
    return out


def _children_top(
    ctx: ToolContext, scope: Scope, cond: str, params: list, windows, year: int | None, rank: Rank
) -> Tally:
    """The first ``top_k`` municipalities of a state by their counts, ranked by the statement itself.

    Counts are integers, so SQL's order is exactly the tool's (no rounding to disagree on):
    only the shown rows come back, each with its smallest row ids, beside the events of every
    municipality per window and how many pass the frequency filter."""
    e = scope.entity
    names, sums, sum_params = _sums(windows)
    freq, freq_params = _frequency(scope)
    pop, pop_params = "NULL::BIGINT", []
    if year is not None:
        pop = """(SELECT any_value(poblacion) FROM population p
                  WHERE p.fuente = 'CONAPO' AND p.anio = ? AND p.entidad_id = k.entidad_id)"""
        pop_params = [year]
    sql = f"""
        WITH {_municipality_counts(names, sums, cond, ids=True)},
        r AS (SELECT e.entidad_id, e.nivel, e.estado_id, e.label, e.cve,
                     {", ".join(f"coalesce(c.{n}, 0) AS {n}" for n in names)}, coalesce(c.nev, 0) AS nev, c.ids
              FROM ents e LEFT JOIN c USING (entidad_id)),
        k AS (SELECT * FROM r WHERE {freq} ORDER BY {rank.order}, entidad_id LIMIT {int(rank.top_k)}),
        tot AS (SELECT {", ".join(f"coalesce(sum({n}), 0) AS total_{n}" for n in names)},
                       count(*) FILTER (WHERE {freq}) AS passing FROM r)
        SELECT k.entidad_id, k.nivel, k.estado_id, k.label, k.cve, k.nev, {pop}, k.ids, tot.passing,
               row_number() OVER (ORDER BY {rank.order}, entidad_id),
               {", ".join(f"k.{n}" for n in names)}, {", ".join(f"tot.total_{n}" for n in names)}
        FROM tot LEFT JOIN k ON TRUE"""
    got = ctx.query(sql, [e.estado_id] + sum_params + params + freq_params + freq_params + pop_params)
    rows = sorted((r for r in got if r[0] is not None), key=lambda r: r[9])  # a join keeps no order
    w = len(names)
    return Tally(
        entities=[Entity._make(r[:5]) for r in rows],
        counts={r[0]: int(r[10]) for r in rows},
        base={r[0]: int(r[11]) for r in rows} if w > 1 else {},
        pops={r[0]: int(r[6]) if r[6] is not None else None for r in rows},
        evidence_rows={r[0]: int(r[5]) for r in rows},
        top=[r[0] for r in rows],
        top_ids=first_ids(r[7] for r in rows),
        totals={n: int(got[0][10 + w + i]) for i, n in enumerate(names)},
        ranked=int(got[0][8]),
    )


def tally(
    ctx: ToolContext,
    scope: Scope,
    cond: str,
    params: list,
    *,
    windows: list[tuple[date, date] | None],
    year: int | None = None,
    rank: Rank | None = None,
    top_only: bool = False,
) -> Tally:
    """Counts per window (``n``, then ``nb``), population and evidence of the result's entities, in one statement.

    ``cond``/``params``: the rows read (alias ``i``); each window sums the rows inside it
    (None: every row read). Evidence counts every row read with events. ``top_only``: a
    ranking by counts alone needs only its first entities (see ``_children_top``).
    """
    if per_child(scope):
        if (
            top_only
            and rank is not None
            and rank.top_k is not None
            and not any(c in rank.order for c in ("tasa", "porcentaje"))
        ):
            return _children_top(ctx, scope, cond, params, windows, year, rank)
        return _children(ctx, scope, cond, params, windows, year, rank)
    return _entity(ctx, scope, cond, params, windows, year)
