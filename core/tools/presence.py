"""Municipalities with no event, or with at least one, in a window (tool 16): every municipality of the state
is considered, zero-filled, so «¿qué municipios no registraron…?» lists the zeros instead of a top 10.

A municipality is a zero only inside the crime's coverage: a window with no published month
has no zeros to give (validation already clamps the window to the coverage).
"""

from __future__ import annotations

from core.ask.wording import fmt_int, join_y
from core.engine.envelope import records
from core.tools import EVIDENCE_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import crime_label, period_label, where

COLUMNS = [("entidad_id", "string"), ("label", "string"), ("conteo", "int"), ("con_eventos", "bool")]
LISTED = 46  # a state's municipalities fit in one answer here; more are counted, not named


def municipios_por_presencia(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """The state's municipalities that meet ``condicion`` (sin: zero events; con: at least one), with the counts."""
    scope = step.scope
    state = scope.entity
    condicion = step.args.get("condicion", "sin")
    cond, params = where(scope)
    sql = f"""WITH c AS MATERIALIZED (SELECT i.entidad_id, sum(i.eventos) AS n,
                      min(i.row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE i.eventos > 0) AS ids,
                      count(*) FILTER (WHERE i.eventos > 0) AS nev
               FROM incidents i WHERE {cond} GROUP BY 1)
        SELECT e.entidad_id, e.label, coalesce(c.n, 0) AS n, coalesce(c.n, 0) > 0 AS con,
               coalesce(c.nev, 0), c.ids, e.cve
        FROM entities e LEFT JOIN c USING (entidad_id)
        WHERE e.nivel = 'municipio' AND e.estado_id = ?
        ORDER BY con DESC, n DESC, e.label"""
    got = ctx.query(sql, [*params, state.estado_id])
    with_events = [r for r in got if r[3]]
    chosen = with_events if condicion == "con" else [r for r in got if not r[3]]
    if condicion == "sin":
        chosen = sorted(chosen, key=lambda r: r[1])
    rows = [[r[0], r[1], int(r[2]), bool(r[3])] for r in chosen]
    ids = sorted(int(x) for r in with_events for x in (r[5] or []))[: EVIDENCE_IDS + 1]
    total = sum(int(r[2]) for r in got)
    metrics = {
        "condicion": condicion,
        "lugar": state.label,
        "total_municipios": len(got),
        "con_eventos": len(with_events),
        "sin_eventos": len(got) - len(with_events),
        "total": total,
    }
    shown = "sin eventos" if condicion == "sin" else "con al menos un evento"
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Presencia de {crime_label(ctx, scope)} — municipios de {state.label}, {period_label(scope)}",
        highlights=[
            f"{len(rows)} de {len(got)} municipios {shown}",
            f"Con eventos {metrics['con_eventos']}; sin eventos {metrics['sin_eventos']}",
        ],
        evidence=Evidence(cond, params, ids=ids, total=sum(int(r[4]) for r in with_events)),
        metrics=metrics,
    )


def check(check) -> None:
    """Validation: the tool lists a state's municipalities, so its entity is a state."""
    entity = check.scope.entity
    if entity is not None and entity.nivel != "estado":
        check.problem(
            "INVALID_PAYLOAD",
            f"{check.spec.name} recorre los municipios de un estado: entidad_id debe ser un estado.",
            ["Ejemplo: entidad_id: GTO"],
            ".args.entidad_id",
        )


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """How many municipalities have none / at least one, and which."""
    met = env.get("metrics") or {}
    n_all, con, sin = met.get("total_municipios", 0), met.get("con_eventos", 0), met.get("sin_eventos", 0)
    state = met.get("lugar", "")
    if met.get("condicion") == "con":
        out = [
            f"{con} de los {n_all} municipios de {state} registraron al menos un {noun(1)} {per}; "
            f"{sin} no registraron ninguno."
        ]
        if rows and len(rows) <= LISTED:
            out.append("Con al menos uno: " + join_y(f"{r['label']} ({fmt_int(r['conteo'])})" for r in rows) + ".")
        return out
    if not sin:
        return [f"Los {n_all} municipios de {state} registraron al menos un {noun(1)} {per}: ninguno quedó en cero."]
    out = [
        f"{sin} de los {n_all} municipios de {state} no registraron ningún {noun(1)} {per}; {con} registraron al menos uno."
    ]
    if rows and len(rows) <= LISTED:
        out.append("Sin ninguno: " + join_y(r["label"] for r in rows) + ".")
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """With events: a bar per municipality (a map when there are enough); without: the two groups counted."""
    met = env.get("metrics") or {}
    rows = records(env)
    crimes = env.get("summary", {}).get("headline", "").split(" — ")[0].replace("Presencia de ", "")
    if met.get("condicion") == "con" and rows:
        spec = {
            "type": "bar",
            "x": "label",
            "y": "conteo",
            "title": f"Municipios con al menos un caso: {crimes}",
            "y_label": "Delitos registrados",
            "data": rows,
        }
        if len(rows) >= 5:
            spec["map"] = {"key": "entidad_id", "value": "conteo"}
        return spec
    return {
        "type": "bar",
        "x": "grupo",
        "y": "municipios",
        "title": f"Municipios con y sin casos: {crimes}",
        "y_label": "Municipios",
        "data": [
            {"grupo": "Con al menos uno", "municipios": met.get("con_eventos", 0)},
            {"grupo": "Sin ninguno", "municipios": met.get("sin_eventos", 0)},
        ],
    }
