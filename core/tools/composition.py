"""What a place's crimes are made of (tool 20 with no crime asked): every crime of the place at the SESNSP tipo
level, with its events and share of the place's total, the most common first.

The tipo is the one level every municipality publishes every month (the tipo × modalidad parquet; Irapuato's
subtipos and the homicide file's doloso / culposo sum back to it), so every share has the same denominator: the
place's every carpeta of the months in which it publishes every tipo. Months where only some series run (homicide
after the parquet's May 2025) are left out and said, never mixed into a total. A crime the question names
(«¿qué peso tiene la violencia familiar en el total?») is the focus: its count and share of that same total.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_pct, join_y
from core.engine.window import common_span, publishes
from core.errors import DatosFaltantesError
from core.tools import EVIDENCE_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import period_label, where

COLUMNS = [("delito", "string"), ("label", "string"), ("conteo", "int"), ("porcentaje", "float")]
MODE = "composicion"


def _label(crimes: dict, key: str) -> str:
    """«Homicidio (doloso y culposo)»: a tipo that sums its subtipos names them, so a sum never hides its parts."""
    row = crimes.get(key) or {}
    tipo = row.get("tipo") or row.get("subtipo") or key
    members = [m for m in (row.get("incluye") or "").split("|") if m in crimes]
    if len(members) == 2:
        short = [crimes[m]["subtipo"].lower().removeprefix(tipo.lower()).strip() for m in members]
        if all(short):
            return f"{tipo} ({short[0]} y {short[1]})"
    return f"{tipo} (todas sus formas)" if len(members) > 2 else tipo


def composition(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Every tipo of the place in the window's complete months: events and share, most common first (top_k rows
    kept, the rest summed in the metrics); ``foco`` (a crime key) gets its own count and share of the same total."""
    scope = step.scope
    crimes = {c["delito"]: c for c in ctx.catalog.crimes}
    tipos: dict[str, list[str]] = {}
    for c in crimes.values():
        if c.get("granularity") == "month":
            tipos.setdefault(c["tipo_key"], []).append(c["delito"])
    span = common_span(ctx.metadata, scope, sorted(tipos), tipos)
    if span is None:
        raise DatosFaltantesError(
            f"No hay un mes de {period_label(scope)} con todos los delitos publicados para {scope.entity.label}."
        )
    if span != (scope.date_from, scope.date_to):  # only some series run in the other months: never half a total
        scope.date_from, scope.date_to = span
        scope.adjustments.append(
            "solo en esos meses se publican todos los delitos del lugar; un total parcial no se compara"
        )
    cond, params = where(scope)
    sql = f"""SELECT c.tipo_key AS k, sum(i.eventos) AS n, min(i.row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE i.eventos > 0),
                     count(*) FILTER (WHERE i.eventos > 0)
              FROM incidents i JOIN crimes c USING (delito) WHERE {cond} GROUP BY k ORDER BY n DESC, k"""
    got = ctx.query(sql, params)
    rows = [[r[0], _label(crimes, r[0]), int(r[1]), None] for r in got]
    total = sum(r[2] for r in rows)
    for r in rows:
        r[3] = round(100 * r[2] / total, 2) if total else None
    metrics = {
        "modo": MODE,
        "lugar": scope.entity.label,
        "nivel": scope.entity.nivel,
        "total": total,
        "delitos": len(rows),
        "con_casos": sum(1 for r in rows if r[2]),
    }
    foco = step.args.get("foco")
    if foco:
        metrics.update(_focus(ctx, scope, foco, crimes, rows, total))
    top_k = step.args.get("top_k")
    if top_k and len(rows) > top_k:
        rest = rows[top_k:]
        metrics.update(resto_delitos=len(rest), resto_conteo=sum(r[2] for r in rest))
        rows = rows[:top_k]
    ids = sorted(int(x) for r in got for x in (r[2] or []))[: EVIDENCE_IDS + 1]
    highlights = [f"Total {total:,} en {scope.entity.label}"] + [f"{r[1]}: {r[2]:,}" for r in rows[:10]]
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Delitos por tipo — {scope.entity.label}, {period_label(scope)}",
        highlights=highlights,
        evidence=Evidence(cond, params, ids=ids, total=sum(int(r[3]) for r in got)),
        metrics=metrics,
        empty=not total,
    )


def _focus(ctx: ToolContext, scope, foco: str, crimes: dict, rows: list, total: int) -> dict:
    """The named crime's count and share of the place's total: its tipo row, or its own cells when it is a part of
    a tipo (homicidio doloso, Irapuato's robo a negocio); not published there, no figure (0003)."""
    label = (
        _label(crimes, foco)
        if (crimes.get(foco) or {}).get("nivel") == "tipo"
        else crimes.get(foco, {}).get("subtipo", foco)
    )
    at = next((n for n, r in enumerate(rows) if r[0] == foco), None)
    if at is not None:
        count = rows[at][2]
    else:
        keys = [foco, *[m for m in ((crimes.get(foco) or {}).get("incluye") or "").split("|") if m]]
        cond, params = where(scope)
        marks = ", ".join("?" for _ in keys)
        got = ctx.query(
            f"SELECT sum(eventos), count(*) FROM incidents i WHERE {cond} AND i.delito IN ({marks})", [*params, *keys]
        )
        if not got or not got[0][1] or not publishes(ctx.metadata, scope, foco):
            return {"foco": foco, "foco_label": label, "foco_publicado": False}
        count = int(got[0][0] or 0)
    share = round(100 * count / total, 2) if total else None
    return {
        "foco": foco,
        "foco_label": label,
        "foco_publicado": True,
        "foco_conteo": count,
        "foco_porcentaje": share,
        "foco_lugar": (at + 1) if at is not None else None,
    }


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """«En Celaya se registraron 14,757 carpetas de todos los delitos entre enero y diciembre de 2024; el más común fue
    robo: 3,441 (23.3 % del total).» With a focus, its count and share of that total come first."""
    met = env.get("metrics") or {}
    place, total = met.get("lugar", ""), met.get("total", 0)
    state = met.get("nivel") == "estado"
    whole = "del total de delitos del estado" if state else "del total de delitos del municipio"
    summed = " (la suma de sus municipios)" if state else ""
    out = []
    if met.get("foco") and met.get("foco_publicado"):
        rank = f"; es el {met['foco_lugar']}.º de {met['con_casos']} delitos con casos" if met.get("foco_lugar") else ""
        out.append(
            f"{place} registró {fmt_int(met['foco_conteo'])} carpetas de {met['foco_label'].lower()} {per}: "
            f"el {fmt_pct(met['foco_porcentaje'] or 0)} {whole}, que suma {fmt_int(total)} carpetas de todos los "
            f"delitos{summed}{rank}."
        )
        return out
    if met.get("foco"):  # never a share of a figure nobody published
        out.append(
            f"{met['foco_label']} no se publica desglosado para {place} en ese periodo (el dato municipal no lo "
            f"separa; no es un cero): no hay su parte {whole}."
        )
    if rows:
        top = rows[0]
        out.append(
            f"En {place} se registraron {fmt_int(total)} carpetas de todos los delitos{summed} {per}; el más común fue "
            f"{top['label'].lower()}: {fmt_int(top['conteo'])} ({fmt_pct(top['porcentaje'] or 0)} {whole})."
        )
    if len(rows) > 1:
        parts = join_y(
            f"{r['label'].lower()} {fmt_int(r['conteo'])} ({fmt_pct(r['porcentaje'] or 0)})" for r in rows[1:5]
        )
        out.append(f"Le siguen {parts}.")
    if met.get("resto_delitos"):
        share = 100 * met["resto_conteo"] / total if total else 0
        out.append(f"Los otros {met['resto_delitos']} delitos suman {fmt_int(met['resto_conteo'])} ({fmt_pct(share)}).")
    return out
