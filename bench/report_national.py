"""Item 3 in BENCHMARKS.md: the «Objetivos» rows, section 3 (tools vs hand-written SQL) and its «Pendientes» entry.

Reads ``results.json["secciones"]["national"]`` as written by ``bench.national.run``. The
«Pendientes» text is built from the per-case breakdown (``desglose``): it names a cause
only where that run's numbers show it.
"""

from __future__ import annotations

from bench.common import percentile
from bench.report_fmt import NO, YES
from bench.report_fmt import fmt as _f
from bench.report_fmt import ok as _ok
from bench.report_fmt import table as _table

RATIO = 1.3  # bench.national.TOOL_RATIO


def summary_rows(n: dict) -> list[list]:
    """The item-3 rows of the «Objetivos» table."""
    if "omitido" in n:  # a clone without the national parts: nothing measured, nothing failed
        return [["3", "herramientas: p95 ≤ 300 ms y ≤ 1.3× SQL", f"omitida ({n['omitido']})", "—"]]
    cases = [c for c in n.get("casos", []) if "error" not in c]
    if not cases:
        return [["3", "herramientas: p95 ≤ 300 ms y ≤ 1.3× SQL", "sin resultados", NO]]
    worst = max(cases, key=lambda c: c["tool_ms"]["p95"])
    worst_r = max(cases, key=lambda c: c["ratio_p95"] or 0)
    n_p95 = sum(c["cumple_p95"] for c in cases)
    n_r = sum(c["cumple_ratio"] for c in cases)
    eq = sum(c["respuestas_iguales"] for c in cases)
    return [
        [
            "3",
            "herramienta p95 ≤ 300 ms",
            f"{n_p95}/{len(cases)} casos; peor p95 {_f(worst['tool_ms']['p95'])} ms ({worst['caso']})",
            _ok(n_p95 == len(cases)),
        ],
        [
            "3",
            "herramienta ≤ 1.3× el SQL escrito a mano (p95)",
            f"{n_r}/{len(cases)} casos; peor {_f(worst_r['ratio_p95'], 2)}× ({worst_r['caso']})",
            _ok(n_r == len(cases)),
        ],
        [
            "3",
            "misma respuesta que el SQL escrito a mano",
            f"{eq}/{len(cases)} casos, en todas las corridas",
            _ok(eq == len(cases)),
        ],
    ]


def section(n: dict) -> list[str]:
    """The «## 3. Escala nacional» section."""
    out = ["## 3. Escala nacional: herramientas frente a SQL escrito a mano", ""]
    if "omitido" in n:
        return [*out, f"Sección omitida: {n['omitido']}.", ""]
    st = n["store"]
    cfg = n["config"]
    counts = st["row_counts"] or {}
    out.append(
        f"Almacén nacional real (`python -m core build --nacional`): los archivos incluidos más las "
        f"{st.get('archivos_partes', 36)} partes Parquet municipales del país → **{counts.get('observations', 0):,} "
        f"observaciones** (carga: {_f(st['etl_s'])} s"
        f"{', reutilizada de una corrida anterior' if st.get('reutilizado') else ''}). "
        "Herramientas nacionales (ranking_estados, victimas_sexo_edad, fuero_federal) sobre los 32 estados"
        + (f" y herramientas municipales sobre los municipios de {cfg['estado']}. " if cfg.get("estado") else ". ")
        + f"Cada caso: {cfg['warmup']} corridas de calentamiento y {cfg['runs']} medidas; herramienta = "
        '`Execution.timings_ms["0:<herramienta>"]` de `core.api.execute`; SQL = una sentencia DuckDB escrita '
        "a mano sobre los Parquet de la versión (`read_parquet`), misma respuesta comparada fila por fila."
    )
    out.append("")
    out.append("### Razones (herramienta ÷ SQL escrito a mano)")
    out.append("")
    rows = []
    for c in n["casos"]:
        if "error" in c:
            rows.append([c["caso"], "error", "", "", "", ""])
            continue
        rows.append(
            [
                c["caso"],
                f"{_f(c['ratio_p50'], 2)}×",
                f"{_f(c['ratio_p95'], 2)}×",
                YES if c["respuestas_iguales"] else f"{NO} ({c['diferencia']})",
                _ok(c["cumple_p95"]),
                _ok(c["cumple_ratio"]),
            ]
        )
    out += _table(["caso", "razón p50", "razón p95", "respuestas iguales", "p95 ≤ 300 ms", "≤ 1.3×"], rows)
    out.append("### Tiempos absolutos (ms)")
    out.append("")
    rows = []
    for c in n["casos"]:
        if "error" in c:
            rows.append([c["caso"], str(c["error"])[:80]] + [""] * 7)
            continue
        t, e, s = c["tool_ms"], c["execute_ms"], c["sql_ms"]
        rows.append(
            [
                c["caso"],
                _f(t["p50"]),
                _f(t["p95"]),
                _f(e["p50"]),
                _f(e["p95"]),
                _f(s["p50"]),
                _f(s["p95"]),
                c["filas"],
                c["nota"],
            ]
        )
    out += _table(
        [
            "caso",
            "herramienta p50",
            "herramienta p95",
            "`execute` p50",
            "`execute` p95",
            "SQL p50",
            "SQL p95",
            "filas",
            "alcance",
        ],
        rows,
    )
    out.append(
        "`execute` = la llamada completa a `core.api.execute` (validación, catálogo, herramienta, evidencia, "
        "artefacto y registro de auditoría)."
    )
    out.append("")
    out.append("### Desglose de la herramienta (corrida mediana de 5, instrumentada)")
    out.append("")
    rows = []
    for c in n["casos"]:
        d = c.get("desglose")
        if not d:
            continue
        sql50 = c["sql_ms"]["p50"]
        rows.append(
            [
                c["caso"],
                _f(d["tool_ms"]),
                f"{d['consultas_herramienta']} / {_f(d['sql_herramienta'])}",
                f"{d['consultas_evidencia']} / {_f(d['evidencia'])}",
                _f(d["artefacto"]),
                _f(d["python"]),
                f"{100 * d['evidencia'] / d['tool_ms']:.0f} %" if d["tool_ms"] else "—",
                f"{(d['tool_ms'] - d['evidencia']) / sql50:.2f}×" if sql50 else "—",
            ]
        )
    out += _table(
        [
            "caso",
            "total ms",
            "consultas propias (n / ms)",
            "evidencia (n / ms)",
            "artefacto ms",
            "Python ms",
            "evidencia / total",
            "(total − evidencia) ÷ SQL p50",
        ],
        rows,
    )
    out.append(
        "La última columna estima la razón si la evidencia no se calculara en cada ejecución (ver "
        "«Pendientes»); es una cuenta sobre la corrida instrumentada, no una medida de código cambiado."
    )
    out.append("")
    return out


# The parts of a tool's time beyond the hand-written SQL, as measured by the breakdown.
PARTS = ("consultas propias", "evidencia", "artefacto", "Python")


def _parts(c: dict) -> dict[str, float]:
    d = c["desglose"]
    return {
        "consultas propias": (d.get("sql_herramienta") or 0) - (c["sql_ms"]["p50"] or 0),
        "evidencia": d.get("evidencia") or 0,
        "artefacto": d.get("artefacto") or 0,
        "Python": d.get("python") or 0,
    }


def _names(cases: list[dict]) -> str:
    return ", ".join(c["caso"] for c in cases)


def pending(n: dict | None, number: int) -> list[str]:
    """A «Pendientes» entry when some tool misses its targets (empty otherwise)."""
    cases = [c for c in (n or {}).get("casos", []) if "error" not in c]
    bad = [c for c in cases if not c.get("cumple_ratio") or not c.get("cumple_p95")]
    if not bad:
        return []
    out = [f"### {number}. Herramientas más lentas que su SQL (objetivo ≤ 1.3×)", ""]
    missed = ", ".join(
        f"{c['caso']} ({_f(c['ratio_p50'], 2)}× / {_f(c['ratio_p95'], 2)}×)" for c in cases if not c["cumple_ratio"]
    )
    slow = ", ".join(f"{c['caso']} ({_f(c['tool_ms']['p95'])} ms)" for c in cases if not c["cumple_p95"])
    if missed:
        out.append(f"No cumplen la razón (p50 / p95): {missed}.")
    if slow:
        out.append(f"No cumplen p95 ≤ 300 ms: {slow}.")
    tail = [c for c in bad if not c["cumple_ratio"] and c["ratio_p50"] is not None and c["ratio_p50"] <= RATIO]
    if tail:
        out.append(
            f"{_names(tail)}: la mediana sí cumple (p50 ≤ 1.3×); falla la cola (p95), la parte más sensible a "
            "la carga de la máquina compartida."
        )
    out.append("")
    with_d = [c for c in bad if (c.get("desglose") or {}).get("tool_ms") and c["sql_ms"].get("p50")]
    if not with_d:
        return out + [
            "Esta corrida no tiene el desglose instrumentado de esos casos: no se atribuye la diferencia.",
            "",
        ]
    runs = max((c["desglose"].get("corridas") or 0) for c in with_d)
    out.append(
        "**Qué muestra el desglose** (sección 3; la corrida mediana de "
        f"{runs or 'las'} instrumentadas de cada caso). El SQL escrito a mano es una sentencia; el «exceso» "
        "de la herramienta sobre él (total − SQL p50) se reparte en: sus consultas por encima del SQL a mano, "
        "las consultas de evidencia, el artefacto y Python fuera de las consultas. Es una cuenta sobre una "
        "corrida, no una medida de código cambiado."
    )
    out.append("")
    rows, lead = [], {p: [] for p in PARTS}
    for c in with_d:
        d, parts = c["desglose"], _parts(c)
        top = max(PARTS, key=lambda p: parts[p])
        lead[top].append(c)
        rows.append(
            [
                c["caso"],
                _f(d["tool_ms"]),
                _f(c["sql_ms"]["p50"]),
                f"{d.get('consultas_herramienta', '?')} / {_f(d.get('sql_herramienta'))}",
                _f(parts["consultas propias"]),
                f"{d.get('consultas_evidencia', '?')} / {_f(d.get('evidencia'))}",
                _f(d.get("artefacto")),
                _f(d.get("python")),
                top,
            ]
        )
    out += _table(
        [
            "caso",
            "total ms",
            "SQL a mano p50 ms",
            "consultas propias (n / ms)",
            "propias − SQL a mano ms",
            "evidencia (n / ms)",
            "artefacto ms",
            "Python ms",
            "mayor parte del exceso",
        ],
        rows,
    )
    out += _causes(with_d, lead)
    return out + [""]


def _causes(cases: list[dict], lead: dict[str, list]) -> list[str]:
    total = len(cases)
    out = []
    led = lambda p: f" Es la mayor parte del exceso en {len(lead[p])} de {total}: {_names(lead[p])}." if lead[p] else ""
    multi = [c for c in cases if (c["desglose"].get("consultas_herramienta") or 0) > 1]
    single_slow = [
        c
        for c in cases
        if c["desglose"].get("consultas_herramienta") == 1
        and (c["desglose"].get("sql_herramienta") or 0) > RATIO * c["sql_ms"]["p50"]
    ]
    if lead["consultas propias"] or multi or single_slow:
        txt = "- **Consultas propias.**" + led("consultas propias")
        if multi:
            txt += (
                " Hacen más de una consulta donde el SQL escrito a mano hace una: "
                + ", ".join(f"{c['caso']} ({c['desglose']['consultas_herramienta']})" for c in multi)
                + "."
            )
        if single_slow:
            txt += (
                " Con una sola consulta, esa consulta tarda más que la escrita a mano: "
                + ", ".join(
                    f"{c['caso']} ({c['desglose']['sql_herramienta'] / c['sql_ms']['p50']:.2f}×)" for c in single_slow
                )
                + "; la diferencia está en el SQL mismo (comparar `desglose.consultas` con `sql` del caso en "
                "`results.json`)."
            )
        out.append(txt)
    ev = [c for c in cases if (c["desglose"].get("consultas_evidencia") or 0) > 0]
    if ev:
        share = percentile([100 * c["desglose"]["evidencia"] / c["desglose"]["tool_ms"] for c in ev], 50)
        n_ev = percentile([c["desglose"]["consultas_evidencia"] for c in ev], 50)
        who = f"{len(ev)} de {total} casos consulta" + ("n" if len(ev) > 1 else "")
        queries = f"{n_ev:.0f} consulta" + ("s" if round(n_ev) != 1 else "")
        out.append(
            f"- **Evidencia.** {who} su evidencia durante la ejecución ({queries} más sobre los datos; "
            f"mediana {_f(share, 0)} % del tiempo de la herramienta).{led('evidencia')}"
        )
    else:
        out.append(f"- **Evidencia.** Ninguno de los {total} casos consulta su evidencia durante la ejecución.")
    art = [c["desglose"].get("artefacto") or 0 for c in cases]
    art_share = percentile([100 * (c["desglose"].get("artefacto") or 0) / c["desglose"]["tool_ms"] for c in cases], 50)
    if lead["artefacto"] or art_share >= 10:
        out.append(
            f"- **Artefacto.** Escribirlo cuesta {_f(min(art))}–{_f(max(art))} ms (mediana {_f(art_share, 0)} % "
            f"del total).{led('artefacto')}"
        )
    py = [c["desglose"].get("python") or 0 for c in cases]
    py_share = percentile([100 * (c["desglose"].get("python") or 0) / c["desglose"]["tool_ms"] for c in cases], 50)
    if lead["Python"] or py_share >= 15:
        out.append(
            f"- **Python** fuera de las consultas: {_f(min(py))}–{_f(max(py))} ms (mediana {_f(py_share, 0)} % "
            f"del total).{led('Python')}"
        )
    else:
        out.append(
            f"- Python fuera de las consultas y el artefacto: ≤ {_f(max(py))} ms por caso "
            f"(mediana {_f(py_share, 0)} % del total); no es la causa."
        )
    return out
