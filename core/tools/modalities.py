"""Breakdown by modalidad inside one place (tool 17): each modalidad's events and share of the place's total,
beside the same shares for the whole state, so «¿qué porcentaje de los homicidios de Celaya fueron con arma
de fuego?» is answered inside Celaya, never as Celaya's share of the state.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_pct, join_y, state_name
from core.engine.envelope import records
from core.tools import EVIDENCE_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import crime_label, period_label, where

COLUMNS = [
    ("metodo", "string"),
    ("modalidad", "string"),
    ("conteo", "int"),
    ("porcentaje", "float"),
    ("conteo_estado", "int"),
    ("porcentaje_estado", "float"),
]


def desglose_modalidad(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """One row per modalidad: the place's events and share, and the state's, largest first."""
    scope = step.scope
    entity = scope.entity
    foco = step.args.get("foco")
    state_scope = scope.copy()
    state_scope.entity = entity._replace(entidad_id=entity.estado_id, nivel="estado")
    cond, params = where(state_scope)
    # the place's own rows by its own scope: a municipality's longer file (Irapuato's JSON to 2025-12) counts for
    # the municipality, while the state's figure reads only the months the state publishes (``estatal``)
    mine, mine_params = where(scope) if entity.nivel != "estado" else (cond, params)
    sql = f"""WITH g AS (SELECT i.metodo, coalesce(any_value(m.modalidad), i.metodo) AS modalidad,
                     coalesce(sum(i.eventos) FILTER (WHERE {mine}), 0) AS n,
                     coalesce(sum(i.eventos) FILTER (WHERE {cond}), 0) AS ns,
                     min(i.row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE ({mine}) AND i.eventos > 0) AS ids,
                     count(*) FILTER (WHERE ({mine}) AND i.eventos > 0) AS nev
              FROM incidents i LEFT JOIN methods m ON m.metodo = i.metodo WHERE ({cond}) OR ({mine})
              GROUP BY i.metodo)
        SELECT metodo, modalidad, n,
               CASE WHEN sum(n) OVER () > 0 THEN round(100 * n / sum(n) OVER (), 2) END,
               ns, CASE WHEN sum(ns) OVER () > 0 THEN round(100 * ns / sum(ns) OVER (), 2) END, ids, nev
        FROM g ORDER BY n DESC, ns DESC, metodo"""
    got = ctx.query(sql, [*mine_params, *params, *mine_params, *mine_params, *params, *mine_params])
    rows = [[r[0], r[1], int(r[2]), r[3], int(r[4]), r[5]] for r in got]
    # the state's rows of this crime come from one municipality only (a subtipo only Irapuato's file publishes):
    # no state share to set beside the place's
    places_in_state = ctx.query(f"SELECT count(DISTINCT i.entidad_id) FROM incidents i WHERE {cond}", params)[0][0]
    total, total_state = sum(r[2] for r in rows), sum(r[4] for r in rows)
    focus = next((r for r in rows if r[0] == foco), None)
    warnings = []
    if len(rows) == 1 and rows[0][0] in scope.delito_keys:
        warnings.append("Este delito no se publica desglosado por modalidad: hay una sola categoría.")
    if foco and focus is None:
        warnings.append("La modalidad pedida no aparece en este delito en el periodo.")
    metrics = {
        "lugar": entity.label,
        "estado": state_scope.entity.estado_id,
        "es_estado": entity.nivel == "estado",
        "total": total,
        "total_estado": total_state,
        "municipios_estado": int(places_in_state or 0),
        "foco": foco,
        "foco_modalidad": focus[1] if focus else None,
        "foco_conteo": focus[2] if focus else None,
        "foco_porcentaje": focus[3] if focus else None,
        "foco_porcentaje_estado": focus[5] if focus else None,
    }
    ids = sorted(int(x) for r in got for x in (r[6] or []))[: EVIDENCE_IDS + 1]
    ev_cond, ev_params = mine, mine_params
    highlights = [f"Total {total:,} en {entity.label}"]
    if rows and total:
        highlights.append(f"Mayor modalidad: {rows[0][1]} ({rows[0][3]} %)")
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Modalidades de {crime_label(ctx, scope)} — {entity.label}, {period_label(scope)}",
        highlights=highlights,
        evidence=Evidence(ev_cond, ev_params, ids=ids, total=sum(int(r[7]) for r in got)),
        warnings=warnings,
        metrics=metrics,
        empty=not total,
    )


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """The asked modalidad's share inside the place (and the state's), or every modalidad's share."""
    met = env.get("metrics") or {}
    who, total = met.get("lugar", ""), met.get("total", 0)
    state_words = "todo el estado" if met.get("es_estado") else f"todo {_state(met)}"
    # the state's rows are this place's own, or one municipality's: no state figure to set beside
    compared = not met.get("es_estado") and met.get("total_estado") != total and met.get("municipios_estado", 2) > 1
    out = []
    if met.get("foco_modalidad") is not None:
        out.append(
            f"En {who}, {fmt_int(met['foco_conteo'])} de los {fmt_int(total)} {noun()} {per} fueron "
            f"{met['foco_modalidad'].lower()}: el {fmt_pct(met['foco_porcentaje'] or 0)}."
        )
        if compared and met.get("foco_porcentaje_estado") is not None:
            out.append(f"En {state_words} la proporción fue {fmt_pct(met['foco_porcentaje_estado'])}.")
        return out
    shown = [r for r in rows if r["conteo"]][:6]
    out.append(
        f"{who} registró {fmt_int(total)} {noun()} {per}. Por modalidad: "
        + join_y(f"{r['modalidad'].lower()} {fmt_int(r['conteo'])} ({fmt_pct(r['porcentaje'] or 0)})" for r in shown)
        + "."
    )
    if compared and shown:
        top = shown[0]
        out.append(f"En {state_words}, {top['modalidad'].lower()} fue el {fmt_pct(top['porcentaje_estado'] or 0)}.")
    return out


def _state(met: dict) -> str:
    return state_name(met.get("estado", ""))


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Shares per modalidad, the place beside the state (grouped bars)."""
    met = env.get("metrics") or {}
    rows = [r for r in records(env) if r["conteo"] or r["conteo_estado"]]
    crimes = env.get("summary", {}).get("headline", "").split(" — ")[0].replace("Modalidades de ", "")
    spec = {
        "type": "bar",
        "x": "modalidad",
        "y": ["porcentaje", "porcentaje_estado"] if not met.get("es_estado") else "porcentaje",
        "title": f"Modalidades: {crimes} — {met.get('lugar', '')}",
        "y_label": "Porcentaje del total",
        "data": rows,
    }
    if not met.get("es_estado"):
        spec.update(
            barmode="group", series_labels={"porcentaje": met.get("lugar", ""), "porcentaje_estado": _state(met)}
        )
    return spec
