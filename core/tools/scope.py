"""SQL fragments and helpers shared by the analysis tools: scope filters, rates, labels."""

from __future__ import annotations

from datetime import date

from core.tools import Scope, ToolContext


def where(
    scope: Scope, alias: str = "i", with_window: bool = True, window: tuple[date, date] | None = None
) -> tuple[str, list]:
    """WHERE clause (without the keyword) and parameters for a scope."""
    a = f"{alias}." if alias else ""
    parts: list[str] = []
    params: list = []
    entity = scope.entity
    if entity is not None:
        if entity.nivel == "estado":
            parts.append(f"{a}estado_id = ?")
            params.append(entity.estado_id)
            # one municipality's longer file (Irapuato's JSON) never fills a month the state does not publish
            parts.append(f"{a}estatal")
        else:
            parts.append(f"{a}entidad_id = ?")
            params.append(entity.entidad_id)
    if with_window:
        start, end = window or (scope.date_from, scope.date_to)
        if start is not None and end is not None:
            parts.append(f"{a}fecha BETWEEN ? AND ?")
            params += [start, end]
    if scope.delito_keys:
        parts.append(f"{a}delito IN ({', '.join('?' for _ in scope.delito_keys)})")
        params += list(scope.delito_keys)
        # A subtipo row a standing tipo row already holds is skipped when that tipo is asked (never twice).
        parts.append(f"({a}cubre IS NULL OR {a}cubre NOT IN ({', '.join('?' for _ in scope.delitos)}))")
        params += list(scope.delitos)
    else:
        parts.append(f"{a}cubre IS NULL")  # all crimes: each tipo row once, never beside its subtipos
    if scope.metodos:
        parts.append(f"{a}metodo IN ({', '.join('?' for _ in scope.metodos)})")
        params += list(scope.metodos)
    if scope.violencia:
        parts.append(f"{a}metodo IN (SELECT metodo FROM methods WHERE violencia = ?)")
        params.append(scope.violencia)
    return (" AND ".join(parts) or "TRUE"), params


def rate(count: int | None, pop: int | None) -> float | None:
    """Events per 100,000 inhabitants, rounded to 2 decimals (None without population)."""
    if count is None or not pop:
        return None
    return round(count / pop * 100_000, 2)


def populations(ctx: ToolContext, estado_id: str, years: list[int]) -> dict[int, dict[str, int]]:
    """CONAPO mid-year population per year: each municipality of a state, and the state as the sum of its
    municipalities (keyed by ``estado_id``); a year or a place without population is absent, never a zero."""
    marks = ", ".join("?" for _ in years)
    got = ctx.query(
        f"""WITH p AS (SELECT anio, entidad_id, any_value(poblacion) AS poblacion FROM population
                       WHERE fuente = 'CONAPO' AND estado_id = ? AND anio IN ({marks}) GROUP BY 1, 2)
            SELECT anio, entidad_id, poblacion FROM p
            UNION ALL
            SELECT anio, ?, sum(poblacion) FROM p GROUP BY 1""",
        [estado_id, *years, estado_id],
    )
    out: dict[int, dict[str, int]] = {y: {} for y in years}
    for anio, entidad_id, poblacion in got:
        if poblacion is not None:
            out[int(anio)][entidad_id] = int(poblacion)
    return out


def frequency_ok(scope: Scope, count: int, tasa: float | None) -> bool:
    """Whether a row passes the filtro_frecuencia minimums (por entidad)."""
    f = scope.frecuencia
    if not f or f.get("por", "entidad") != "entidad":
        return True
    if f.get("min_eventos") is not None and count < f["min_eventos"]:
        return False
    return not (f.get("min_tasa") is not None and (tasa is None or tasa < f["min_tasa"]))


def period_label(scope: Scope) -> str:
    """'2024-01..2024-12' for headlines."""
    if scope.date_from is None or scope.date_to is None:
        return "todo el periodo"
    return f"{scope.date_from:%Y-%m}..{scope.date_to:%Y-%m}"


def crime_label(ctx: ToolContext, scope: Scope) -> str:
    """Readable name(s) of the crimes in scope."""
    if not scope.delitos:
        return "todos los delitos"
    names = {c["delito"]: c["subtipo"] for c in ctx.catalog.crimes}
    return ", ".join(names.get(d, d) for d in scope.delitos)
