"""Issue 15 §2 in BENCHMARKS.md: the «Objetivos» row, the «Conversación larga» section and its «Pendientes» entry.

Reads ``results.json["secciones"]["conversation"]`` as written by ``bench.conversation.run``: measured
(``por_turno_ms``), ``{"omitido": reason}`` (no Chromium or Playwright) or ``{"error": message}``.
"""

from __future__ import annotations

from bench.conversation import TARGET_P95_MS
from bench.report_fmt import fmt_ms, not_measured, ok, unmeasured_flag

GOAL = "conversación larga: de Enter a la respuesta dibujada en los turnos 16–20, p95 ≤ 1 s"
POINT = "15.2"


def summary_rows(c: dict | None) -> list[list]:
    """The «Objetivos» row."""
    why = not_measured(c, "por_turno_ms", "conversation")
    if why:
        return [[POINT, GOAL, why, unmeasured_flag(c)]]
    fails = f"; conversaciones que fallaron: {len(c['fallas'])}" if c.get("fallas") else ""
    return [
        [
            POINT,
            GOAL,
            f"p95 {fmt_ms(c['ultimos_ms']['p95'])} ms (turno {c['turnos']}: "
            f"p95 {fmt_ms(c['turno_final_ms']['p95'])} ms; turnos 1–5: p95 {fmt_ms(c['primeros_ms']['p95'])} ms; "
            f"final/inicio p50 ×{c.get('razon_final_inicio')}; "
            f"{c['repeticiones']} conversaciones){fails}",
            ok(c["cumple_p95"]),
        ]
    ]


def section(c: dict | None) -> list[str]:
    """The «Conversación larga» section: how it is measured and the time of every turn."""
    out = ["## 15.2 Conversación larga: cada turno hasta el 20", ""]
    why = not_measured(c, "por_turno_ms", "conversation")
    if why:
        return out + [f"Sin medir: {why}.", ""]
    out += [
        f"{c['repeticiones']} conversaciones de {c['turnos']} preguntas seguidas en Consultar (Chromium con "
        "Playwright, la misma medida que el punto 5: de la tecla Enter al primer cuadro con la respuesta dibujada). "
        "Los turnos anteriores se dibujan ligeros (texto y una tabla pequeña); la gráfica, el mapa y el plan, solo "
        f"en el último o al abrirlos. Objetivo: p95 ≤ {TARGET_P95_MS:,.0f} ms en los turnos "
        f"{c['ultimos_turnos'][0]}–{c['ultimos_turnos'][1]}. Recargar la página con la conversación de "
        f"{c['turnos']} turnos (la URL la nombra) la restaura en p50 {fmt_ms(c['recarga_ms']['p50'])} ms. "
        f"Mediana de los turnos finales entre la de los primeros: ×{c.get('razon_final_inicio')} (1 = no crece); "
        f"carga promedio de la máquina al medir: {' → '.join(str(x) for x in c.get('carga_promedio') or [])}.",
        "",
        "| turno | p50 ms | p95 ms | máx ms |",
        "|---:|---:|---:|---:|",
    ]
    for n, s in c["por_turno_ms"].items():
        out.append(f"| {n} | {fmt_ms(s['p50'])} | {fmt_ms(s['p95'])} | {fmt_ms(s['max'])} |")
    return out + [""]


def pending(c: dict | None, number: int) -> list[str]:
    """The «Pendientes» entry when the target is measured and missed (empty otherwise)."""
    if not_measured(c, "por_turno_ms", "conversation") or c["cumple_p95"]:
        return []
    slow = max(c["por_turno_ms"].items(), key=lambda kv: kv[1]["p95"] or 0)
    return [
        f"### {number}. Conversación larga: p95 {fmt_ms(c['ultimos_ms']['p95'])} ms en los últimos turnos (> 1 s)",
        "",
        f"El turno más lento es el {slow[0]} (p95 {fmt_ms(slow[1]['p95'])} ms)"
        + (f"; fallaron {len(c['fallas'])} conversaciones." if c.get("fallas") else "."),
        "",
    ]
