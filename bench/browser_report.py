"""Item 5 in BENCHMARKS.md: the «Objetivos» row, the «## 5. Navegador» section and its «Pendientes» entry.

Reads ``results.json["secciones"]["browser"]`` as written by ``bench.browser.run``: measured
(``casos``), ``{"omitido": reason}`` (no Chromium or Playwright) or ``{"error": message}``.
"""

from __future__ import annotations

from bench.browser import TARGET_P95_MS
from bench.report_fmt import fmt_ms, not_measured, ok, table, unmeasured_flag

GOAL = "navegador: de Enter a la respuesta dibujada, p95 ≤ 2 s"


def summary_rows(b: dict | None) -> list[list]:
    """The item-5 row of the «Objetivos» table."""
    why = not_measured(b, "casos", "browser")
    if why:
        return [["5", GOAL, why, unmeasured_flag(b)]]
    t = b["total_ms"]
    fails = f"; preguntas que fallaron: {len(b['fallas'])}" if b.get("fallas") else ""
    return [
        [
            "5",
            GOAL,
            f"p95 {fmt_ms(t['p95'])} ms (p50 {fmt_ms(t['p50'])} ms; {len(b['casos'])} preguntas × "
            f"{b['repeticiones']}){fails}; primera carga de la página {fmt_ms(b['carga_inicial_ms'])} ms",
            ok(b["cumple_p95"]),
        ]
    ]


def _drawn(xs: list[dict]) -> str:
    return (
        " + ".join(name for name, key in (("gráfica", "graficas"), ("tabla", "tablas")) if any(x[key] for x in xs))
        or "—"
    )


def _asked(case: dict) -> str:
    first = (case["muestras"] or [{}])[0]
    return f"{case['pregunta']} (tras «{first['antes']}»)" if first.get("antes") else case["pregunta"]


def section(b: dict | None) -> list[str]:
    """The «## 5. Navegador» section of BENCHMARKS.md."""
    out = ["## 5. Navegador: de la pregunta a la respuesta dibujada", ""]
    why = not_measured(b, "casos", "browser")
    if why:
        return out + [f"Sin medir en esta corrida ({why}).", ""]
    out += [
        f"{b['navegador']} sin interfaz, con Playwright {b['playwright']}, contra `streamlit run app.py` "
        f"(Streamlit {b['streamlit']}, modo local, almacén incluido). Cada muestra empieza en «Nueva "
        "conversación» de Consultar y va **de la tecla Enter al primer cuadro con la respuesta dibujada**, en el "
        "reloj de la página: el guion dejó de correr, el `st.status` dice «Listo», hay texto de respuesta y la "
        "gráfica y la tabla visibles ya se dibujaron (definición exacta en `bench/README.md`). Una pasada de "
        f"calentamiento y {b['repeticiones']} medidas por pregunta, cada una con otro año o municipio para que "
        "no conteste el caché del mismo día. Una pregunta corre el guion una sola vez: la misma ejecución "
        "que pregunta dibuja la respuesta (`ui/turns.py`). La columna hasta «Listo» va de Enter a que el "
        "`st.status` de la pregunta dice «Listo» (el pipeline); el resto es el dibujo de la respuesta en esa "
        "misma ejecución (gráfica, tabla y plan) y en el navegador. «servidor» = el total que "
        "muestra la página («Listo en N ms»); «Playwright» = de `press('Enter')` a que Python recibe el "
        "resultado. Carga promedio de 1 min al empezar / al terminar la sección: "
        f"{' / '.join(str(x) for x in b.get('carga_promedio', []))}.",
        "",
    ]
    head = [
        "caso",
        "pregunta",
        "p50 ms",
        "p95 ms",
        "máx ms",
        "hasta «Listo» p50 ms",
        "servidor p50 ms",
        "Playwright p95 ms",
        "se dibujó",
        "p95 ≤ 2 s",
    ]
    rows = [
        [
            c["caso"],
            _asked(c),
            fmt_ms(c["ms"]["p50"]),
            fmt_ms(c["ms"]["p95"]),
            fmt_ms(c["ms"]["max"]),
            fmt_ms(c["listo_ms"]["p50"]),
            fmt_ms(c["servidor_ms"]["p50"]),
            fmt_ms(c["ms_playwright"]["p95"]),
            _drawn(c["muestras"]),
            ok(c["cumple_p95"]),
        ]
        for c in b["casos"]
    ]
    t = b["total_ms"]
    rows.append(
        [
            "**todas**",
            f"{t['n']} muestras",
            fmt_ms(t["p50"]),
            fmt_ms(t["p95"]),
            fmt_ms(t["max"]),
            "",
            "",
            "",
            "",
            ok(b["cumple_p95"]),
        ]
    )
    out += table(head, rows)
    r = b["recarga_ms"]
    out += [
        f"Carga de la página: la primera visita a Consultar en el servidor recién arrancado tarda "
        f"{fmt_ms(b['carga_inicial_ms'])} ms (de `goto` al cuadro de chat listo; el servidor arrancó en "
        f"{b['arranque_servidor_s']} s); recargarla después del calentamiento, p50 {fmt_ms(r['p50'])} ms y p95 "
        f"{fmt_ms(r['p95'])} ms ({r['n']} recargas). La primera pregunta de la sesión no cuenta: carga en el "
        "navegador el código de Plotly y de la tabla (varios segundos).",
        "",
    ]
    if any(x.get("repetida") for c in b["casos"] for x in c["muestras"]):
        out += [
            "Hubo más repeticiones que variantes: las marcadas `repetida` en `results.json` pudieron salir del "
            "caché del mismo día.",
            "",
        ]
    for f in b.get("fallas", []):
        out.append(f"- Falló «{f['caso']}» (pasada {f['pasada']}): {f['error']}")
    return out + ([""] if b.get("fallas") else [])


def pending(b: dict | None, number: int) -> list[str]:
    """A «Pendientes» entry when item 5 misses its target (empty otherwise)."""
    if not_measured(b, "casos", "browser") or b["cumple_p95"]:
        return []
    slow = sorted(b["casos"], key=lambda c: -(c["ms"]["p95"] or 0))[:3]
    p95 = b["total_ms"]["p95"]
    over = p95 is not None and p95 > TARGET_P95_MS
    out = [f"### {number}. Navegador: " + (f"p95 {fmt_ms(p95)} ms (> 2 s)" if over else "preguntas que fallaron"), ""]
    if over:
        cases = ", ".join(
            f"{c['caso']} ({fmt_ms(c['ms']['p95'])} / {fmt_ms(c['listo_ms']['p50'])} / "
            f"{fmt_ms(c['servidor_ms']['p50'])} ms)"
            for c in slow
        )
        out.append(
            f"Casos más lentos (p95 en la página / p50 hasta «Listo» / p50 del servidor): {cases}. El "
            "pipeline del servidor es la parte pequeña; el resto es el arranque de la ejecución del guion y "
            "sus mensajes por etapa (hasta «Listo»), el dibujo de la respuesta en esa misma ejecución "
            "(figuras de Plotly, la tabla y el plan), el dibujo en el navegador y la carga de la máquina "
            "durante la medida (sección 5)."
        )
    if b.get("fallas"):
        out.append(f"Preguntas que fallaron: {len(b['fallas'])}; ver la sección 5.")
    return out + [""]
