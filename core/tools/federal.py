"""Federal-jurisdiction carpetas (tool 23): «¿cuántos delitos federales hubo en Guanajuato en 2024?».

The SESNSP federal file (IDEFF, carpetas of the Fiscalía General de la República) by state and month, broken down
by ley, concepto or tipo, or by state. Its cases are in no fuero común file, so they are labelled federal and never
added to the común series; federal narcotics are not the state's narcomenudeo. The country's total includes the
file's «Extranjero» row, which is no state and is shown apart.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_pct, join_y
from core.engine.envelope import records
from core.tools import ResolvedStep, ToolContext, ToolOutput
from core.tools.evidence import national as national_evidence
from core.tools.national import COUNTRY, Series, crime, place, provenance, source_line
from core.tools.national import warnings as national_warnings
from core.tools.national import window as national_window
from core.tools.statecells import state_cells

COLUMNS = [("clave", "string"), ("label", "string"), ("ley", "string"), ("conteo", "int"), ("porcentaje", "float")]
FEDERAL = Series("carpetas", "federal", "IDEFF")
# desglose -> (key column, label column, ley column) over the joined crime levels ``l`` and places ``p``
GROUPS = {
    "ley": ("l.ley", "l.ley", "l.ley"),
    "concepto": ("l.tipo_key", "l.tipo", "l.ley"),
    "tipo": ("c.delito", "l.tipo || ' — ' || l.subtipo", "l.ley"),
    "estado": ("c.lugar_id", "coalesce(p.label, 'Extranjero (no es un estado)')", "NULL"),
}
NOT_COMUN = "Fuero federal (FGR): estas carpetas no están en el fuero común y no se suman con él."


def fuero_federal(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Federal carpetas of a state (or the country) in a window, by ley, concepto, tipo or state, largest first."""
    args = step.args
    win = national_window(ctx, FEDERAL, args.get("desde"), args.get("hasta"))
    lugar_id, label = place(ctx, args.get("lugar_id", "GTO"))
    crime_ = crime(ctx, FEDERAL, args.get("clave_delito"))
    by = args.get("desglose", "concepto")
    key, name, ley = GROUPS[by]
    at, at_params = ("TRUE", []) if lugar_id == COUNTRY else ("o.lugar_id = ?", [lugar_id])
    cells, params = state_cells(FEDERAL, crime_, win, at, at_params)
    sql = f"""WITH c AS MATERIALIZED ({cells}),
             l AS (SELECT DISTINCT delito, tipo_key, ley, tipo, subtipo FROM crime_levels
                   WHERE fuero = ? AND metodologia = ?),
             g AS (SELECT {key} AS clave, any_value({name}) AS label, any_value({ley}) AS ley, sum(c.eventos) AS n
                   FROM c LEFT JOIN l USING (delito) LEFT JOIN places p ON p.lugar_id = c.lugar_id GROUP BY 1)
        SELECT clave, label, ley, n, CASE WHEN sum(n) OVER () > 0 THEN round(100 * n / sum(n) OVER (), 2) END,
               (SELECT list(DISTINCT source_file) FROM c),
               (SELECT coalesce(sum(eventos), 0) FROM c WHERE lugar_id = ?)
        FROM g ORDER BY n DESC, clave"""
    got = ctx.query(sql, [*params, FEDERAL.fuero, FEDERAL.metodologia, f"{COUNTRY}.EXTRANJERO"])
    rows = [[r[0], r[1], r[2], int(r[3]), r[4]] for r in got]
    total = sum(r[3] for r in rows)
    files = [f for f in (got[0][5] if got else None) or [] if f]
    abroad = int(got[0][6]) if got else 0
    prov = provenance(FEDERAL, files, win)
    metrics = {
        **prov,
        "lugar_id": lugar_id,
        "lugar": label,
        "delito": crime_.key,
        "delito_label": crime_.label,
        "desglose": by,
        "total": total,
        "extranjero": abroad if lugar_id == COUNTRY else None,
        "mayor": rows[0][1] if rows else None,
        "mayor_conteo": rows[0][3] if rows else None,
    }
    warns = [NOT_COMUN, *national_warnings(FEDERAL, crime_, win)]
    if lugar_id == COUNTRY and abroad:
        warns.append(
            f"El total nacional incluye {abroad:,} carpetas registradas como «Extranjero», que no es un estado."
        )
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Fuero federal por {by} — {label}, {win.label} ({source_line(FEDERAL, files)})",
        highlights=[f"Total federal {total:,}"] + [f"{r[1]}: {r[3]:,} ({r[4]} %)" for r in rows[:5]],
        metrics=metrics,
        warnings=warns,
        extra_meta={**win.meta(), **prov},
        empty=not total,
        evidence=national_evidence(FEDERAL, crime_, win, None if lugar_id == COUNTRY else lugar_id),
    )


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """The federal total and its largest parts, said as federal."""
    met = env.get("metrics") or {}
    what = "" if met.get("delito") is None else f" de {met.get('delito_label', '').lower()}"
    out = [
        f"{met.get('lugar')} registró {fmt_int(met.get('total'))} carpetas del fuero federal{what} {per}."
        + (
            f" Las principales por {met.get('desglose')}: "
            + join_y(f"{r['label'].lower()} {fmt_int(r['conteo'])} ({fmt_pct(r['porcentaje'] or 0)})" for r in rows[:3])
            + "."
            if rows
            else ""
        )
    ]
    out.append(
        "Son delitos federales (FGR), distintos de los del fuero común: no se suman con ellos. "
        f"Cifras: {met.get('serie', '')}; fuente: {', '.join(met.get('fuente') or [])}."
    )
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Bars of federal carpetas by the breakdown asked."""
    met = env.get("metrics") or {}
    return {
        "type": "bar",
        "x": "label",
        "y": "conteo",
        "title": f"Fuero federal por {met.get('desglose', '')} — {met.get('lugar', '')}",
        "y_label": "Carpetas del fuero federal",
        "data": records(env),
    }
