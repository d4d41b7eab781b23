"""Yearly total of every crime (tool 14): the separate ``annual`` series, never the monthly one.

The series is a third-party aggregate of all fuero común crimes per municipality and year.
2015–2025 use the SESNSP IDFC methodology; 2026 uses the new RNID methodology and is
partial (January–August), so it is not comparable with the earlier years. Every result
says so.
"""

from __future__ import annotations

from core.text import MONTHS
from core.tools import Evidence, ResolvedStep, ToolContext, ToolOutput

COLUMNS = [
    ("entidad_id", "string"),
    ("label", "string"),
    ("anio", "int"),
    ("conteo", "int"),
    ("metodologia", "string"),
    ("parcial", "bool"),
]


def _year_info(ctx: ToolContext, years: range) -> dict[int, dict]:
    """metodologia / parcial / meses of each year of the series inside ``years``."""
    info = ctx.metadata.get("annual_series", {}).get("total_delitos", {}).get("years", {})
    return {int(y): v for y, v in info.items() if int(y) in years}


def _method_warnings(ctx: ToolContext, info: dict[int, dict]) -> list[str]:
    """Spanish warnings for the RNID years and the partial years of the window."""
    out = []
    rnid = sorted(y for y, v in info.items() if v.get("metodologia") == "RNID")
    if rnid:
        every = _year_info(ctx, range(10_000))
        older = sorted(y for y, v in every.items() if v.get("metodologia") != "RNID")
        span = "los años anteriores"
        if older:
            span = f"{older[0]}–{older[-1]}" if older[0] != older[-1] else f"{older[0]}"
        out.append(
            f"{', '.join(map(str, rnid))} usa la nueva metodología del SESNSP (RNID): no es comparable con "
            f"{span} (metodología anterior)."
        )
    for y, v in sorted(info.items()):
        if v.get("parcial"):
            n = int(v.get("meses") or 0)
            span = f"enero–{MONTHS[n - 1]}" if 1 <= n <= 12 else "solo parte del año"
            out.append(f"{y} es parcial: cubre {span} ({n} meses), no el año completo.")
    return out


def _year_note(row: list) -> str:
    """'2026: 106,146 (RNID, parcial)' for a per-year row."""
    notes = [n for n, on in ((row[4], row[4] == "RNID"), ("parcial", row[5])) if on]
    return f"{row[2]}: {row[3]:,}" + (f" ({', '.join(notes)})" if notes else "")


def total_anual(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Per year for the entity (actual, or a municipality); per municipality summed over the years (hijos)."""
    scope = step.scope
    entity = scope.entity
    y0, y1 = scope.date_from.year, scope.date_to.year
    info = _year_info(ctx, range(y0, y1 + 1))
    if entity.nivel == "estado":
        cond, params = "i.estado_id = ?", [entity.estado_id]
    else:
        cond, params = "i.entidad_id = ?", [entity.entidad_id]
    cond += " AND i.delito = ? AND i.anio BETWEEN ? AND ?"
    params += ["total_delitos", y0, y1]
    hijos = entity.nivel == "estado" and scope.nivel == "hijos"
    warnings = _method_warnings(ctx, info)
    if scope.delitos or scope.metodos or scope.violencia:
        warnings.append("El total anual suma todos los delitos: los filtros de delito o de método no se aplican.")
    years_label = f"{y0}" if y0 == y1 else f"{y0}..{y1}"
    if hijos:
        got = ctx.query(
            f"""SELECT i.entidad_id, e.label, sum(i.eventos), count(DISTINCT i.anio)
                FROM annual i JOIN entities e ON e.entidad_id = i.entidad_id
                WHERE {cond} GROUP BY 1, 2""",
            params,
        )
        methods = "/".join(dict.fromkeys(v.get("metodologia") for _, v in sorted(info.items()) if v.get("metodologia")))
        partial = any(v.get("parcial") for v in info.values())
        rows = [[eid, label, y1, int(n), methods or None, partial] for eid, label, n, _ in got]
        desc = step.args.get("orden", "desc") == "desc"
        rows.sort(key=lambda r: (-r[3] if desc else r[3], r[0]))
        state_total = sum(r[3] for r in rows)
        rows = rows[: int(step.args.get("top_k", 10))]
        if y0 != y1:
            warnings.append(f"Cada fila suma los años {y0}..{y1}; la columna anio indica el último año ({y1}).")
        if len({v.get("metodologia") for v in info.values()}) > 1:
            warnings.append("La suma mezcla metodologías distintas (IDFC y RNID).")
        if rows:
            cond += f" AND i.entidad_id IN ({', '.join('?' for _ in rows)})"
            params += [r[0] for r in rows]
        highlights = ([f"Top-1: {rows[0][1]} ({rows[0][3]:,} delitos)"] if rows else []) + [
            f"Total estatal {state_total:,}",
            f"Años {years_label}",
        ]
        return ToolOutput(
            columns=list(COLUMNS),
            rows=rows,
            headline=f"Total anual de delitos (fuero común) — municipios de {entity.label}, {years_label}",
            highlights=highlights,
            evidence=Evidence(cond, params, table="annual"),
            warnings=warnings,
            metrics={"total_conteo": state_total, "anios": years_label, "entidades": len(rows)},
        )
    got = {
        int(y): (int(n), m, bool(p))
        for y, n, m, p in ctx.query(
            f"""SELECT i.anio, sum(i.eventos), min(i.metodologia), bool_or(i.parcial)
            FROM annual i WHERE {cond} GROUP BY 1 ORDER BY 1""",
            params,
        )
    }
    rows = [[entity.entidad_id, entity.label, y, n, m, p] for y, (n, m, p) in sorted(got.items())]
    missing = [y for y in range(y0, y1 + 1) if y not in got]
    if missing:
        warnings.append(f"Sin total anual publicado para {', '.join(map(str, missing))}.")
    highlights = [_year_note(r) for r in rows[-3:]]
    comparable = [r for r in rows if r[4] != "RNID" and not r[5]]
    metrics = {
        "anios": years_label,
        "filas": len(rows),
        "ultimo_anio_completo": comparable[-1][2] if comparable else None,
        "conteo_ultimo_anio_completo": comparable[-1][3] if comparable else None,
        # the sum of the comparable years only: a partial RNID year is never added to them
        "total_comparable": sum(r[3] for r in comparable),
        "anios_comparables": len(comparable),
    }
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Total anual de delitos (fuero común) — {entity.label}, {years_label}",
        highlights=highlights,
        evidence=Evidence(cond, params, table="annual"),
        warnings=warnings,
        metrics=metrics,
    )
