"""The time window of a plan step: whole months, clamped to the published data and to the crimes' coverage.

Split from core/engine/validate.py (which collects every problem of a plan); the problems found here go to
the same collector.
"""

from __future__ import annotations

from datetime import date, timedelta

from core.engine.limits import short
from core.errors import ProblemCollector
from core.text import month_end
from core.tools import Scope


def first_day(d: date) -> date:
    """First day of d's month."""
    return d.replace(day=1)


def last_day(d: date) -> date:
    """Last day of d's month."""
    return month_end(d.year, d.month)


def parse_date(value, problems: ProblemCollector, path: str) -> date | None:
    """An ISO date of a plan, or None with an INVALID_DATE_RANGE problem collected."""
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        problems.add("INVALID_DATE_RANGE", f"Fecha inexistente: {short(value, 20)}.", ["Use AAAA-MM-DD."], path)
        return None


def resolve_window(
    start: date,
    end: date,
    metadata: dict,
    strict: bool,
    problems: ProblemCollector,
    path: str,
    until: date | None = None,
) -> tuple[date, date, list[str]] | None:
    """Align a window to whole months and clamp it to the watermark (docs/contracts/001_casandra_v0.md §5).

    ``until``: a later watermark for a step whose crimes' own series end after the store's last month."""
    notes: list[str] = []
    if start > end:
        problems.add(
            "INVALID_DATE_RANGE", f"from ({start}) es posterior a to ({end}).", ["Asegure 'from' <= 'to'."], path
        )
        return None
    a, b = first_day(start), last_day(end)
    if (a, b) != (start, end):
        notes.append(f"ventana alineada a meses completos: {a}..{b}")
    lo, hi = date.fromisoformat(metadata["min_date"]), date.fromisoformat(metadata["max_date"])
    hi = max(hi, until or hi)
    if b < lo or a > hi:
        problems.add(
            "INVALID_DATE_RANGE",
            f"La ventana {a}..{b} está fuera de los datos ({lo}..{hi}).",
            ["Consulte la cobertura de cada delito en la página Datos."],
            path,
        )
        return None
    if a < lo or b > hi:
        if strict:
            problems.add(
                "INVALID_DATE_RANGE",
                f"La ventana {a}..{b} excede los datos ({lo}..{hi}) y strict_time está activo.",
                ["Desactive strict_time o ajuste from/to."],
                path,
            )
            return None
        a, b = max(a, lo), min(b, hi)
        notes.append(f"recortada a los datos disponibles: {a}..{b}")
    return a, b, notes


def _coverage_runs(
    metadata: dict, delito: str, estado_id: str | None, entidad_id: str | None = None
) -> list[tuple[date, date]]:
    info = metadata.get("coverage", {}).get(delito)
    runs = []
    if info:
        states = info["estados"]
        runs = states.get(estado_id, []) if estado_id else [r for rs in states.values() for r in rs]
    # a municipality's own finer file (Irapuato's subtipos) covers that municipality only
    runs = runs + ((metadata.get("coverage_municipal") or {}).get(delito) or {}).get(entidad_id or "", [])
    return [(date.fromisoformat(r["desde"]), date.fromisoformat(r["hasta"])) for r in runs]


def publishes(metadata: dict, scope: Scope, key: str) -> bool:
    """Whether the step's place publishes ``key`` in some month of its window (its coverage, the state's or the
    municipality's own file's): a crime it does not publish has no zero (0003)."""
    estado = scope.entity.estado_id if scope.entity else None
    place = scope.entity.entidad_id if scope.entity is not None and scope.entity.nivel == "municipio" else None
    runs = _coverage_runs(metadata, key, estado, place)
    return any(a <= scope.date_to and b >= scope.date_from for a, b in runs) if scope.date_from else bool(runs)


def series_end(metadata: dict, scope: Scope, includes: dict[str, list[str]] | None = None) -> date | None:
    """The last month the step's crimes publish for its place: their own series' end (Irapuato's file runs to
    2025-12, the tipo × modalidad parquet to 2025-05), whatever the store's last month; None without crimes."""
    includes = includes or {}
    estado = scope.entity.estado_id if scope.entity else None
    place = scope.entity.entidad_id if scope.entity is not None and scope.entity.nivel == "municipio" else None
    ends = [
        b
        for k in scope.delitos
        for key in [k, *includes.get(k, [])]
        for _, b in _coverage_runs(metadata, key, estado, place)
    ]
    return max(ends) if ends else None


def _joined(runs: list[tuple[date, date]]) -> list[tuple[date, date]]:
    """Sorted runs with the ones that touch or overlap joined: Irapuato's own December 2025 continues the homicide
    file's 2020-01..2025-11, one run, not a gap."""
    out: list[tuple[date, date]] = []
    for a, b in runs:
        if out and a <= out[-1][1] + timedelta(days=1):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def apply_coverage(
    scope: Scope,
    metadata: dict,
    problems: ProblemCollector,
    path: str,
    labels: dict,
    includes: dict[str, list[str]] | None = None,
) -> None:
    """Clamp the window to the selected crimes' coverage; outside it there is no number.

    A tipo-level key (``homicidio``) is covered where any of its subtipos is."""
    if scope.date_from is None or not scope.delitos:
        return
    includes = includes or {}
    estado = scope.entity.estado_id if scope.entity else None
    place = scope.entity.entidad_id if scope.entity is not None and scope.entity.nivel == "municipio" else None
    runs = {
        k: _joined(
            sorted({r for key in [k, *includes.get(k, [])] for r in _coverage_runs(metadata, key, estado, place)})
        )
        for k in scope.delitos
    }
    overlapping = {k: [r for r in rs if r[0] <= scope.date_to and r[1] >= scope.date_from] for k, rs in runs.items()}
    if not any(overlapping.values()):
        spans = "; ".join(
            f"{labels.get(k, k)}: " + (", ".join(f"{a:%Y-%m}..{b:%Y-%m}" for a, b in rs) or "sin datos")
            for k, rs in runs.items()
        )
        problems.add(
            "DATA_QUALITY_ISSUE",
            f"No hay datos publicados de {', '.join(labels.get(k, k) for k in scope.delitos)} entre "
            f"{scope.date_from:%Y-%m} y {scope.date_to:%Y-%m}. Cobertura: {spans}.",
            ["Elija una ventana dentro de la cobertura del delito.", "Un mes no publicado no es un cero."],
            path,
        )
        return
    lo = min(r[0] for rs in overlapping.values() for r in rs)
    hi = max(r[1] for rs in overlapping.values() for r in rs)
    a, b = max(scope.date_from, lo), min(scope.date_to, hi)
    if (a, b) != (scope.date_from, scope.date_to):
        scope.adjustments.append(f"recortada a la cobertura del delito: {a}..{b}")
        scope.date_from, scope.date_to = a, b
    for k, rs in overlapping.items():
        if not any(r[0] <= a and r[1] >= b for r in rs):
            scope.warnings.append(
                f"{labels.get(k, k)} no cubre toda la ventana {a:%Y-%m}..{b:%Y-%m}"
                + (": sin datos en ella." if not rs else ".")
            )


def common_span(
    metadata: dict, scope: Scope, keys: list[str], includes: dict[str, list[str]]
) -> tuple[date, date] | None:
    """The part of the step's window that every key with some published month in it covers whole (each key's
    runs joined with its subtipos' and, for a municipality, its own file's): the months where a total over all
    of them adds the same crimes; None when no month is covered by them all."""
    estado = scope.entity.estado_id if scope.entity else None
    place = scope.entity.entidad_id if scope.entity is not None and scope.entity.nivel == "municipio" else None
    a, b = scope.date_from, scope.date_to
    for k in keys:
        runs = _joined(
            sorted({r for key in [k, *includes.get(k, [])] for r in _coverage_runs(metadata, key, estado, place)})
        )
        inside = [(max(x, a), min(y, b)) for x, y in runs if x <= b and y >= a]
        if not inside:
            continue  # no month of it in the window: not part of this total at all
        # the longest run inside the window is the one this key shares with the others (runs are whole months)
        a, b = max(inside, key=lambda r: r[1] - r[0])
        if a > b:
            return None
    return (a, b) if a <= b else None
