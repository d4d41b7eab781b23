"""Places side by side (tool 19): two or more municipalities, and the state, in one table with counts and rates,
and each place's verdict against the state rate («¿la tasa de León está por encima del promedio estatal?»).

The state's rate is its events over the sum of its municipalities' CONAPO population of the
window's end year; the municipal average (state events ÷ municipalities) is given beside it.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_num, join_y
from core.engine.envelope import records
from core.tools import EVIDENCE_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import crime_label, period_label, where

COLUMNS = [
    ("entidad_id", "string"),
    ("label", "string"),
    ("conteo", "int"),
    ("poblacion", "int"),
    ("tasa_per_100k", "float"),
    ("frente_al_estado", "string"),
]
_VERDICT = "CASE WHEN t IS NULL OR ts IS NULL THEN NULL WHEN t > ts THEN 'por encima' WHEN t < ts THEN 'por debajo' ELSE 'igual' END"


def comparar_lugares(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """One row per asked place in the order asked, then the state; rates and the verdict against the state rate."""
    scope = step.scope
    state = scope.entity
    places = [e for e in step.args.get("entidades", []) if e != state.entidad_id]
    with_state = bool(step.args.get("incluir_estado", True))
    cond, params = where(scope)
    year = scope.date_to.year
    sql = f"""WITH f AS MATERIALIZED (SELECT i.entidad_id, i.eventos, i.row_id FROM incidents i WHERE {cond}),
        pick AS (SELECT unnest(l) AS entidad_id, generate_subscripts(l, 1) AS pos FROM (SELECT ?::VARCHAR[] AS l)),
        pop AS (SELECT entidad_id, any_value(poblacion) AS poblacion FROM population
                WHERE fuente = 'CONAPO' AND anio = ? AND estado_id = ? GROUP BY 1),
        c AS (SELECT entidad_id, sum(eventos) AS n, count(*) FILTER (WHERE eventos > 0) AS nev,
                     min(row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE eventos > 0) AS ids FROM f GROUP BY 1),
        st AS (SELECT coalesce((SELECT sum(eventos) FROM f), 0) AS n,
                      (SELECT sum(poblacion) FROM pop) AS poblacion,
                      (SELECT count(*) FROM entities WHERE nivel = 'municipio' AND estado_id = ?) AS municipios),
        r AS (SELECT p.pos, e.entidad_id, e.label, coalesce(c.n, 0) AS n, pop.poblacion, c.nev, c.ids
              FROM pick p JOIN entities e USING (entidad_id) LEFT JOIN c USING (entidad_id)
              LEFT JOIN pop USING (entidad_id)),
        k AS (SELECT r.*, CASE WHEN r.poblacion > 0 THEN round(r.n / r.poblacion * 100000, 2) END AS t,
                     CASE WHEN st.poblacion > 0 THEN round(st.n / st.poblacion * 100000, 2) END AS ts,
                     st.n AS ns, st.poblacion AS ps, st.municipios
              FROM r, st)
        SELECT pos, entidad_id, label, n, poblacion, t, {_VERDICT}, nev, ids, ns, ps, ts, municipios FROM k
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, st.n, st.poblacion,
               CASE WHEN st.poblacion > 0 THEN round(st.n / st.poblacion * 100000, 2) END, st.municipios FROM st"""
    got = ctx.query(sql, [*params, places, year, state.estado_id, state.estado_id])
    tail = next(r for r in got if r[0] is None)
    found = sorted((r for r in got if r[0] is not None), key=lambda r: r[0])
    n_state, pop_state, rate_state, n_mun = int(tail[9]), tail[10], tail[11], int(tail[12] or 0)
    rows = [[r[1], r[2], int(r[3]), r[4], r[5], r[6]] for r in found]
    if with_state:
        rows.append([state.entidad_id, state.label, n_state, pop_state, rate_state, None])
    ids = sorted(int(x) for r in found for x in (r[8] or []))[: EVIDENCE_IDS + 1]
    ev_cond = cond + f" AND i.entidad_id IN ({', '.join('?' for _ in found)})" if found else cond
    metrics = {
        "estado": state.label,
        "conteo_estatal": n_state,
        "tasa_estatal": rate_state,
        "promedio_municipal": round(n_state / n_mun, 2) if n_mun else None,
        "municipios": n_mun,
        "anio_poblacion": year,
        "lugares": [r[2] for r in found],
    }
    warnings = []
    if any(r[4] is None for r in found):
        warnings.append(f"Sin población CONAPO {year} para algún municipio: su tasa queda sin dato.")
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Lugares de {crime_label(ctx, scope)} — {join_y([r[2] for r in found])}, {period_label(scope)}",
        highlights=[f"{r[2]}: {int(r[3]):,}" + (f" ({r[5]} por 100 mil)" if r[5] is not None else "") for r in found]
        + [f"{state.label}: {n_state:,}" + (f" ({rate_state} por 100 mil)" if rate_state is not None else "")],
        evidence=Evidence(
            ev_cond,
            [*params, *(r[1] for r in found)],
            ids=ids,
            total=sum(int(r[7] or 0) for r in found),
        ),
        warnings=warnings,
        metrics=metrics,
    )


def check(check) -> None:
    """Validation: the places are municipalities of the step's state."""
    state = check.scope.entity
    if state is None:
        return
    if state.nivel != "estado":
        check.problem(
            "INVALID_PAYLOAD",
            f"{check.spec.name}: entidad_id es el estado; los municipios van en entidades.",
            ["Ejemplo: entidad_id: GTO, entidades: [GTO.MUN.CELAYA, GTO.MUN.SALAMANCA]"],
            ".args.entidad_id",
        )
        return
    for k, e in enumerate(check.args.get("entidades", [])):
        if e != state.entidad_id and not e.startswith(f"{state.estado_id}."):
            check.problem("INVALID_PAYLOAD", f"{e} no es un municipio de {state.label}.", [], f".args.entidades[{k}]")


def _rate(value) -> str:
    return f"{fmt_num(value, 1)} por cada 100 mil habitantes" if value is not None else "sin tasa (sin población)"


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """Each place's count and rate; against the state: both rates and the verdict."""
    met = env.get("metrics") or {}
    places = [r for r in rows if r["frente_al_estado"] is not None or ".MUN." in r["entidad_id"]]
    out = []
    if len(places) == 1:
        p = places[0]
        verdict = p["frente_al_estado"]
        out.append(
            f"{p['label']} registró {fmt_int(p['conteo'])} {noun(p['conteo'])} {per}: una tasa de {_rate(p['tasa_per_100k'])}."
        )
        if verdict and met.get("tasa_estatal") is not None:
            word = {"igual": "igual a"}.get(verdict, f"{verdict} de")
            out.append(
                f"Está {word} la tasa estatal de {met['estado']} ({fmt_num(met['tasa_estatal'], 1)}; "
                f"{fmt_int(met['conteo_estatal'])} en todo el estado)."
            )
        if met.get("promedio_municipal") is not None:
            out.append(
                f"El promedio por municipio fue {fmt_num(met['promedio_municipal'], 1)} ({met.get('municipios')} municipios)."
            )
        return out
    out.append(
        "Lado a lado "
        + per
        + ": "
        + join_y(f"{p['label']} {fmt_int(p['conteo'])} ({_rate(p['tasa_per_100k'])})" for p in places)
        + "."
    )
    if places:
        top = max(places, key=lambda p: p["conteo"])
        if sum(p["conteo"] == top["conteo"] for p in places) == 1:
            out.append(f"{top['label']} registró más {noun()}.")
        rated = [p for p in places if p["tasa_per_100k"] is not None]
        high = max(rated, key=lambda p: p["tasa_per_100k"]) if len(rated) == len(places) else None
        if (
            high is not None
            and high is not top
            and sum(p["tasa_per_100k"] == high["tasa_per_100k"] for p in rated) == 1
        ):
            # «¿cuál tuvo la tasa más alta?»: the most cases and the highest rate are often not the same place
            out.append(f"La tasa más alta es la de {high['label']} ({_rate(high['tasa_per_100k'])}).")
    if met.get("tasa_estatal") is not None:
        out.append(
            f"Tasa estatal de {met['estado']}: {fmt_num(met['tasa_estatal'], 1)} ({fmt_int(met['conteo_estatal'])} casos); "
            + join_y(f"{p['label']} está {p['frente_al_estado']}" for p in places if p["frente_al_estado"])
            + "."
        )
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Grouped bars: the places and the state by rate (counts when there is no population)."""
    rows = records(env)
    by_rate = all(r["tasa_per_100k"] is not None for r in rows)
    y = "tasa_per_100k" if by_rate else "conteo"
    crimes = env.get("summary", {}).get("headline", "").split(" — ")[0].replace("Lugares de ", "")
    return {
        "type": "bar",
        "barmode": "group",
        "x": "label",
        "y": [y],
        "series_labels": {y: "Tasa por cada 100 mil habitantes" if by_rate else "Delitos registrados"},
        "title": f"Comparación de lugares: {crimes}",
        "y_label": "Tasa por cada 100 mil habitantes" if by_rate else "Delitos registrados",
        "data": rows,
    }
