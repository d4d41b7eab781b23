"""The crimes a pattern analysis reads (tool 8): items, their published months, shared SQL and evidence.

An item is one asked crime key: the store crimes it sums (a parent key includes its
children) and the months inside the window where every one of them is published.
Co-occurrence and seasonality (``core.tools.patterns``) both start from these items.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.text import month_count, month_end
from core.tools import Evidence, ResolvedStep, Scope, ToolContext, first_ids
from core.tools.scope import where

Run = tuple[date, date]


@dataclass
class Item:
    """One crime of the analysis: the asked key, the store crimes it sums and its published months."""

    key: str
    label: str
    delitos: list[str]
    runs: list[Run]  # published months inside the window, first-of-month bounds

    @property
    def months(self) -> int:
        """Published months inside the window."""
        return sum(month_count(a, b) for a, b in self.runs)


# -- coverage --------------------------------------------------------------------------


def _month(d: date) -> date:
    return d.replace(day=1)


def _runs(ctx: ToolContext, delito: str, estado_id: str) -> list[Run]:
    """Monthly coverage runs of one store crime in a state (first-of-month bounds)."""
    info = (ctx.metadata.get("coverage") or {}).get(delito)
    if not info or info.get("granularity", "month") != "month":
        return []
    return sorted(
        (_month(date.fromisoformat(r["desde"])), _month(date.fromisoformat(r["hasta"])))
        for r in info.get("estados", {}).get(estado_id, [])
    )


def _intersect(a: list[Run], b: list[Run]) -> list[Run]:
    out = []
    for a1, a2 in a:
        for b1, b2 in b:
            lo, hi = max(a1, b1), min(a2, b2)
            if lo <= hi:
                out.append((lo, hi))
    return sorted(out)


def _clip(runs: list[Run], start: date, end: date) -> list[Run]:
    return _intersect(runs, [(_month(start), _month(end))])


def _labels(ctx: ToolContext) -> dict[str, str]:
    names = {c["delito"]: c["subtipo"] for c in ctx.catalog.crimes}
    for key, info in (ctx.metadata.get("coverage") or {}).items():
        names.setdefault(key, info.get("label") or key)
    return names


def _expand(ctx: ToolContext, key: str) -> list[str]:
    """A tipo-level key sums the subtipos it includes (as validation expands it)."""
    incl = next((c.get("incluye") or "" for c in ctx.catalog.crimes if c["delito"] == key), "")
    return sorted({key, *[x for x in incl.split("|") if x]})


def _item(ctx: ToolContext, key: str, scope: Scope, names: dict[str, str]) -> Item:
    """An item's published months: those where every component with coverage is published, and for a tipo
    also those its own tipo-level rows cover (the parquet's «Robo» holds every robo subtipo; docs/decisions/0012)."""
    estado = scope.entity.estado_id
    delitos = _expand(ctx, key)
    covered = [r for r in (_runs(ctx, d, estado) for d in delitos if d != key) if r]
    runs: list[Run] = []
    if covered:
        runs = covered[0]
        for other in covered[1:]:
            runs = _intersect(runs, other)
    runs = _union(runs + _runs(ctx, key, estado)) if len(delitos) > 1 else _runs(ctx, key, estado) or runs
    return Item(key, names.get(key, key), delitos, _clip(runs, scope.date_from, scope.date_to))


def _union(runs: list[Run]) -> list[Run]:
    """Overlapping or adjacent runs joined."""
    out: list[Run] = []
    for a, b in sorted(runs):
        if out and a <= date(out[-1][1].year + out[-1][1].month // 12, out[-1][1].month % 12 + 1, 1):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _monthly_crimes(ctx: ToolContext) -> list[str]:
    return sorted(
        k for k, v in (ctx.metadata.get("coverage") or {}).items() if v.get("granularity", "month") == "month"
    )


def select(ctx: ToolContext, step: ResolvedStep, tipo: str) -> tuple[list[Item], str | None, list[str]]:
    """The crimes to analyse, the anchor crime (co-occurrence with one asked crime) and warnings."""
    scope = step.scope
    names = _labels(ctx)
    warnings: list[str] = []
    asked = list(scope.delitos)
    anchor = None
    if asked:
        items = [_item(ctx, k, scope, names) for k in asked]
        empty = [i for i in items if not i.runs]
        if empty:
            warnings.append("Sin meses publicados en la ventana para: " + ", ".join(i.label for i in empty) + ".")
        items = [i for i in items if i.runs]
        if tipo == "coocurrencia" and len(asked) == 1:
            if not items:
                return [], None, warnings
            anchor = items[0].key
            taken = set(items[0].delitos)
            others = [_item(ctx, k, scope, names) for k in _monthly_crimes(ctx) if k not in taken]
            items += [i for i in others if i.runs]
    else:
        items = [i for i in (_item(ctx, k, scope, names) for k in _monthly_crimes(ctx)) if i.runs]
        _clamp_to_coverage(scope, items)
        partial = [i for i in items if i.months < _span(scope)]
        if partial:
            groups: dict[str, list[str]] = {}
            for i in partial:
                spans = ", ".join(f"{a:%Y-%m}..{b:%Y-%m}" for a, b in i.runs)
                groups.setdefault(spans, []).append(i.label)
            detail = "; ".join(f"{', '.join(labels)} {spans}" for spans, labels in sorted(groups.items()))
            warnings.append(
                f"Cada delito tiene su propia cobertura y solo se evalúa en sus meses publicados: {detail}."
            )
    return items, anchor, warnings


def _span(scope: Scope) -> int:
    return month_count(scope.date_from, scope.date_to)


def _clamp_to_coverage(scope: Scope, items: list[Item]) -> None:
    """Without ``delito`` validation cannot clamp the window: shrink it to the crimes' published months."""
    if not items:
        return
    lo = min(r[0] for i in items for r in i.runs)
    hi = max(r[1] for i in items for r in i.runs)
    a = max(scope.date_from, lo)
    b = min(scope.date_to, month_end(hi.year, hi.month))
    if (a, b) != (scope.date_from, scope.date_to):
        scope.adjustments.append(f"recortada a la cobertura de los delitos: {a}..{b}")
        scope.date_from, scope.date_to = a, b


# -- SQL pieces --------------------------------------------------------------------------


def item_params(items: list[Item]) -> list:
    """Parameters of the ``sel`` (item → store crime) and ``pub`` (item → published run) CTEs."""
    sel_item = [i.key for i in items for _ in i.delitos]
    sel_delito = [d for i in items for d in i.delitos]
    pub_item = [i.key for i in items for _ in i.runs]
    pub_from = [a for i in items for a, _ in i.runs]
    pub_to = [b for i in items for _, b in i.runs]
    return [sel_item, sel_delito, pub_item, pub_from, pub_to]


BASE_CTES = """
    sel AS (SELECT unnest(?::VARCHAR[]) AS item, unnest(?::VARCHAR[]) AS delito),
    pub AS (SELECT unnest(?::VARCHAR[]) AS item, unnest(?::DATE[]) AS desde, unnest(?::DATE[]) AS hasta),
    item_months AS (
        SELECT DISTINCT item, CAST(unnest(generate_series(CAST(desde AS TIMESTAMP), CAST(hasta AS TIMESTAMP),
                                                          INTERVAL 1 MONTH)) AS DATE) AS fecha
        FROM pub)"""


def unfiltered(scope: Scope) -> Scope:
    """The scope without its crime filter: the items say which crimes are read."""
    s = scope.copy()
    s.delito_keys = []
    return s


# -- evidence --------------------------------------------------------------------------


def evidence(
    scope: Scope, items: list[Item], keys: set[str], found: dict[str, tuple[int, list[int]]] | None = None
) -> Evidence | None:
    """The scope's incidents of the crimes behind the returned patterns.

    ``found``: per crime, its rows with events and smallest row ids, when the tool's own
    statement read them (the executor then does not read them again)."""
    delitos = sorted({d for i in items if i.key in keys for d in i.delitos})
    if not delitos:
        return None
    cond, params = where(unfiltered(scope))
    cond += f" AND i.delito IN ({', '.join('?' for _ in delitos)})"
    if found is None:
        return Evidence(cond, params + delitos)
    got = [found[d] for d in delitos if d in found]
    return Evidence(cond, params + delitos, ids=first_ids(xs for _, xs in got), total=sum(n for n, _ in got))
