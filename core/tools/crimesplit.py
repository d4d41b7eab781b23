"""Breakdown by crime inside one place (tool 20): when a question sums several crimes («homicidios dolosos y
culposos», «ambos» after «¿doloso o culposo?»), the total comes with each crime's events and share, so a sum
never hides its parts (issue 13 §3: «homicidios» answered as doloso + culposo only with the split shown).
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_pct, join_y
from core.engine.window import publishes
from core.tools import EVIDENCE_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput, composition
from core.tools.scope import crime_label, period_label, where

COLUMNS = [("delito", "string"), ("label", "string"), ("conteo", "int"), ("porcentaje", "float")]


def desglose_delito(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """One row per crime asked: the place's events and share of their sum, largest first (published zeros kept).

    A crime the place does not publish in the window (no cell and no coverage) is no row «0»: a sum whose parts are rows
    (a group such as robo a transeúnte, a tipo) is left out, and any other is named as not published
    (docs/decisions/0003-not-published-is-not-zero.md). With no crime asked, every crime of the place by tipo
    (core/tools/composition.py)."""
    if not step.scope.delitos:
        return composition.composition(ctx, step)
    scope = step.scope
    entity = scope.entity
    cond, params = where(scope)
    keys = list(scope.delito_keys)
    # every asked crime the place publishes gets its row, even with no events: a split that drops a zero reads as a
    # missing crime
    asked = ", ".join("(?)" for _ in keys) or "(NULL)"
    sql = f"""WITH asked(delito) AS (VALUES {asked}),
             g AS (SELECT i.delito, sum(i.eventos) AS n,
                          min(i.row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE i.eventos > 0) AS ids,
                          count(*) FILTER (WHERE i.eventos > 0) AS nev, count(*) AS cells
                   FROM incidents i WHERE {cond} GROUP BY i.delito)
        SELECT a.delito, coalesce(g.n, 0) AS n,
               CASE WHEN sum(coalesce(g.n, 0)) OVER () > 0
                    THEN round(100 * coalesce(g.n, 0) / sum(coalesce(g.n, 0)) OVER (), 2) END,
               g.ids, coalesce(g.nev, 0), coalesce(g.cells, 0)
        FROM asked a LEFT JOIN g ON g.delito = a.delito ORDER BY n DESC, a.delito"""
    got = ctx.query(sql, [*keys, *params])
    crimes = {c["delito"]: c for c in ctx.catalog.crimes}
    names = {k: c["subtipo"] for k, c in crimes.items()}
    published = {r[0] for r in got if r[5] or publishes(ctx.metadata, scope, r[0])}
    parts = lambda k: {x for x in ((crimes.get(k) or {}).get("incluye") or "").split("|") if x}
    unpublished = [names.get(r[0], r[0]) for r in got if r[0] not in published and not parts(r[0]) & published]
    rows = [[r[0], names.get(r[0], r[0]), int(r[1]), r[2]] for r in got if r[0] in published]
    total = sum(r[2] for r in rows)
    ids = sorted(int(x) for r in got for x in (r[3] or []))[: EVIDENCE_IDS + 1]
    highlights = [f"Total {total:,} en {entity.label}"] + [f"{r[1]}: {r[2]:,}" for r in rows]
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Desglose por delito de {crime_label(ctx, scope)} — {entity.label}, {period_label(scope)}",
        highlights=highlights,
        evidence=Evidence(cond, params, ids=ids, total=sum(int(r[4]) for r in got)),
        metrics={
            "lugar": entity.label,
            "total": total,
            "delitos": len(rows),
            "no_publicados": unpublished,
            "tipo": _whole_tipo(crimes, scope.delitos),
        },
        empty=not total,
    )


def _whole_tipo(crimes: dict, keys: list[str]) -> str | None:
    """«Robo» when the asked crimes are every subtipo of one tipo («de los robos, ¿qué porcentaje fueron a negocio?»):
    the answer names the tipo, not a list of fourteen subtipos."""
    tipos = {(crimes.get(k) or {}).get("tipo_key") for k in keys}
    if len(keys) < 3 or len(tipos) != 1 or None in tipos:
        return None
    tipo = tipos.pop()
    members = {k for k, c in crimes.items() if c.get("tipo_key") == tipo and c.get("nivel") == "subtipo"}
    return (crimes.get(tipo) or {}).get("tipo") if members <= set(keys) else None


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """The sum and each crime's part: «Celaya registró 522 …: homicidio doloso 443 (84.9 %) y … 79 (15.1 %).»"""
    met = env.get("metrics") or {}
    if met.get("modo") == composition.MODE:
        return composition.lead(env, rows, noun, per)
    total = met.get("total", 0)
    parts = join_y(f"{r['label'].lower()} {fmt_int(r['conteo'])} ({fmt_pct(r['porcentaje'] or 0)})" for r in rows)
    if met.get("tipo"):  # every subtipo of one tipo: the tipo's total, split
        out = [
            f"{met.get('lugar', '')} registró {fmt_int(total)} carpetas de {met['tipo'].lower()} {per}; por subtipo: {parts}."
        ]
    else:
        out = [f"{met.get('lugar', '')} registró {fmt_int(total)} {noun(total)} {per}, sumados: {parts}."]
    missing = [m.lower() for m in met.get("no_publicados") or []]
    if missing:  # never a «0» row: not published is not zero
        verb = "no se publica" if len(missing) == 1 else "no se publican"
        out.append(f"{join_y(missing).capitalize()} {verb} para {met.get('lugar', '')} en ese periodo (no es un cero).")
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Events per crime (bars), the parts of the sum."""
    met = env.get("metrics") or {}
    data = [{"label": r[1], "conteo": r[2]} for r in env.get("data", {}).get("inline", {}).get("rows", [])]
    return {"type": "bar", "x": "label", "y": "conteo", "title": f"Por delito — {met.get('lugar', '')}", "data": data}
