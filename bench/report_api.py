"""Issue 16 §6 in BENCHMARKS.md: the «Objetivos» row, the «API HTTP bajo carga» section and its «Pendientes» entry.

Reads ``results.json["secciones"]["api"]`` as written by ``bench.api_load.run``: measured (``por_endpoint``) or
``{"error": message}`` when the run broke.
"""

from __future__ import annotations

from bench.report_fmt import fmt, table

POINT = "16.6"
GOAL = "API: 50 clientes × 200 solicitudes, 0 errores, versión consistente"
ENDPOINTS = {"plan": "`POST /plan/execute`", "ask": "`POST /ask`"}
FULL = (50, 200)


def _not_measured(a: dict | None) -> str | None:
    """Why the section has no numbers (None when it has them)."""
    if not a:
        return "no se corrió (`python -m bench.run --only api`)"
    if "por_endpoint" in a:
        return None
    return f"error: {a.get('error', '?')}"


def _scale(a: dict) -> str:
    reduced = (a["clientes"], a["solicitudes_por_cliente"]) != FULL
    return f"{a['clientes']} × {a['solicitudes_por_cliente']}" + (" (escala reducida)" if reduced else "")


def _versions(a: dict) -> str:
    v = a["consistencia"]["por_version"]
    return f"anterior {fmt(v['anterior'])}, nueva {fmt(v['nueva'])}, mezcladas {fmt(v['mezcla'])}"


def _audit(au: dict) -> str:
    """Audit records against answered requests, per endpoint."""
    per = ", ".join(
        f"{ENDPOINTS.get(k, k)} {fmt(au['registros'].get(k, 0))} de {fmt(n)}" for k, n in au["respondidas"].items()
    )
    return f"registros por respuesta: {per} ({'completa' if au['completa'] else 'INCOMPLETA'})"


def summary_rows(a: dict | None) -> list[list]:
    """The «Objetivos» row."""
    why = _not_measured(a)
    if why:
        return [[POINT, GOAL, why, "❌ no" if a and "error" in a else "—"]]
    ep = a["por_endpoint"]
    p95 = "; ".join(f"{k} p95 {fmt(ep[k]['p95'], 0)} ms" for k in ("plan", "ask") if k in ep)
    measured = (
        f"{_scale(a)}: {fmt(a['solicitudes'])} solicitudes, {fmt(a['rendimiento_rps'])}/s; "
        f"errores {fmt(a['errores']['total'])}; {p95}; respuestas por versión: {_versions(a)}; "
        f"problemas de versión {fmt(a['consistencia']['problemas'])}"
    )
    return [[POINT, GOAL, measured, "✅ sí" if a["cumple"] else "❌ no"]]


def section(a: dict | None) -> list[str]:
    """The «API HTTP bajo carga» section: how it is measured, latency per endpoint and versions seen."""
    out = [f"## {POINT} API HTTP bajo carga (`python -m bench.run --only api`)", ""]
    why = _not_measured(a)
    if why:
        return out + [f"Sin medir: {why}.", ""]
    pub = a["publicacion"]
    ref = a["referencias_que_cambian"]
    out += [
        f"`python -m core api` (uvicorn, un proceso) sobre {a['almacen']}; "
        f"{a['clientes']} clientes concurrentes (asyncio + `httpx.AsyncClient`, {a['tokens']['analistas']} tokens de "
        f"analista con tasa propia {a['tokens']['tasa_por_token']} para que el límite por omisión no responda 429) "
        f"envían {a['solicitudes_por_cliente']} solicitudes cada uno, una tras otra: "
        f"{fmt(a['mezcla'].get('plan', 0))} planes reales ({len(a['planes'])} distintos) y "
        f"{fmt(a['mezcla'].get('ask', 0))} preguntas en español ({len(a['preguntas'])} distintas, planificador de "
        f"reglas). Al llegar a la mitad, un steward publica una versión nueva por `POST /datasets` (la revisión de "
        f"León, 12 celdas): empezó a los {fmt(pub.get('inicio_s'))} s y respondió a los {fmt(pub.get('fin_s'))} s "
        f"({fmt((pub.get('ms') or 0) / 1000)} s; estado {pub.get('status')}, {pub.get('resultado') or '—'}). "
        f"Rendimiento: {fmt(a['rendimiento_rps'])} solicitudes/s en {fmt(a['duracion_carga_s'])} s; carga promedio "
        f"de la máquina {' → '.join(str(x[0]) for x in a.get('carga_promedio') or [])}.",
        "",
    ]
    rows = [
        [
            ENDPOINTS.get(k, k),
            fmt(v["solicitudes"]),
            fmt(v["errores"]),
            fmt(v["p50"], 0),
            fmt(v["p95"], 0),
            fmt(v["p99"], 0),
            fmt(v["max"], 0),
        ]
        for k, v in a["por_endpoint"].items()
    ]
    t = a["total_ms"]
    total_errors = a["errores"]["total"]
    rows.append(
        ["**total**", fmt(a["solicitudes"]), fmt(total_errors), *(fmt(t[k], 0) for k in ("p50", "p95", "p99", "max"))]
    )
    out += table(["endpoint", "solicitudes", "errores", "p50 ms", "p95 ms", "p99 ms", "máx ms"], rows)
    c = a["consistencia"]
    v = c["por_version"]
    out += table(
        ["versión que nombra la respuesta", "respuestas"],
        [
            [f"anterior (`{a['versiones']['anterior']}`)", fmt(v["anterior"])],
            [f"nueva (`{a['versiones']['nueva']}`)", fmt(v["nueva"])],
            ["dos o más (mezcla)", fmt(v["mezcla"])],
            ["ninguna / desconocida", fmt(v["sin_version"] + v["desconocida"])],
        ],
    )
    au, log = a["auditoria"], a["registro_servidor"]
    out += [
        f"Cada respuesta nombra una sola `dataset_version` (sobres, plan y texto de la respuesta); la anterior si "
        "terminó antes de la carga, la nueva si empezó después de que la carga respondió, y un cliente nunca vuelve a "
        "la anterior tras ver la nueva. Sus filas son las de la versión que nombra: cada plan y pregunta se respondió "
        f"a solas en cada versión como referencia ({ref['cambian']} de {ref['de']} cambian con la revisión). "
        f"Problemas: {fmt(c['problemas'])}"
        + (f" ({', '.join(f'{k}: {n}' for k, n in c['por_motivo'].items())})" if c["por_motivo"] else "")
        + f". Errores por estado: {a['errores']['por_estado'] or 'ninguno'}. Auditoría: {_audit(au)}. "
        f"Registro del servidor: {log['tracebacks']} trazas, {log['bloqueos_sqlite']} «database is locked».",
        "",
    ]
    return out


def pending(a: dict | None, number: int) -> list[str]:
    """The «Pendientes» entry when the run was measured and missed its target (empty otherwise)."""
    if _not_measured(a) or a["cumple"]:
        return []
    c = a["consistencia"]
    return [
        f"### {number}. API bajo carga: {a['errores']['total']} errores, {c['problemas']} problemas de versión",
        "",
        f"Errores por estado: {a['errores']['por_estado'] or 'ninguno'}; problemas: {c['por_motivo'] or 'ninguno'}; "
        f"publicación: estado {a['publicacion'].get('status')}, versión nueva "
        f"{'sí' if a['publico_version_nueva'] else 'no'}. Ejemplos en `results.json` (sección `api`).",
        "",
    ]
