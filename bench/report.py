"""BENCHMARKS.md from ``results.json``: ratios first, absolute times second, then the causes.

``render`` writes the whole file; each numbered item lives in its own module: 3 in
``report_national``, 4 in ``report_etl`` (and its «Pendientes» in ``report_etl_pending``),
5 in ``browser_report``, «Antes y después» in ``report_before``; item 2 and the machine are here.
"""

from __future__ import annotations

from bench import browser_report, conversation_report, report_builds, report_etl, report_etl_pending, report_national
from bench import report_api as api_report
from bench.report_before import section as _before_after
from bench.report_fmt import SKIP
from bench.report_fmt import fmt as _f
from bench.report_fmt import ok as _ok
from bench.report_fmt import table as _table


def _machine(r: dict) -> list[str]:
    m = r["maquina"]
    fin = r.get("maquina_fin", {})
    rows = [
        ["núcleos (`nproc`)", m["nproc"]],
        ["CPU (`/proc/cpuinfo`)", m["cpu_model"]],
        ["memoria", f"{m['memoria_total_gb']} GB ({m['memoria_disponible_gb']} GB libres al empezar)"],
        ["Python / DuckDB", f"{m['python']} / {m['duckdb']}"],
        ["numpy / pyarrow", f"{m['numpy']} / {m['pyarrow']}"],
        ["plataforma", m["plataforma"]],
        ["carga promedio (1/5/15 min) al empezar", " / ".join(map(str, m["carga_promedio"]))],
        ["carga promedio al terminar", " / ".join(map(str, fin.get("carga_promedio", [])))],
        [
            "CPU robada por el hipervisor (1 s al empezar / al terminar)",
            f"{_f(r.get('robo_cpu_inicio_pct'))} % / {_f(r.get('robo_cpu_fin_pct'))} %",
        ],
    ]
    out = ["## Máquina", ""] + _table(["", ""], rows)
    load = m["carga_promedio"][0] if m.get("carga_promedio") else 0
    if load >= m["nproc"]:
        out.append(
            f"> **Contención.** La máquina es compartida y estaba cargada: carga de 1 min {load} sobre "
            f"{m['nproc']} núcleos al empezar (pruebas de otros ingenieros, un Streamlit). Por eso cada medida "
            "se repite, se informan p50 y p95, y herramienta/SQL y ETL/copia se alternan corrida a corrida "
            "para que el ruido les pegue por igual: las **razones** son más estables que los tiempos "
            "absolutos."
        )
    else:
        out.append(
            f"> **Contención.** La máquina es compartida (pruebas de otros ingenieros, un Streamlit); en esta "
            f"corrida estaba tranquila (carga de 1 min {load} sobre {m['nproc']} núcleos al empezar). Con la "
            "máquina cargada (carga ≈ 9, corridas anteriores) los tiempos absolutos fueron 2–4× mayores y "
            "más dispersos; las **razones** cambian menos porque herramienta/SQL y ETL/copia se alternan "
            "corrida a corrida. Cada medida se repite y se informan p50 y p95."
        )
    return out + [""]


def _pipeline(p: dict | None) -> list[str]:
    out = ["## 2. Pipeline de preguntas (latencia y exactitud)", ""]
    if not p or "omitido" in p:
        out.append(
            f"Pendiente: {p.get('omitido') if p else 'no se pidió'}. `python -m bench.run --only pipeline` lo "
            "corre en cuanto existan `evals/harness.py` y `evals/questions.json`."
        )
        return out + [""]
    out.append(
        f"{p['preguntas']} preguntas en {p['conversaciones']} conversaciones, almacén incluido (ETL real), "
        f'`Assistant(settings, use_cache=False).ask(q, conversación, planner="rules")`; una pasada de '
        f"calentamiento y {p['pasadas_medidas']} medida(s). Objetivo: total p95 ≤ {p['objetivo_p95_ms']:.0f} ms."
    )
    out.append("")
    rows = [[s, _f(v["p50"]), _f(v["p95"]), _f(v["max"])] for s, v in p["etapas_ms"].items()]
    out += _table(["etapa", "p50 ms", "p95 ms", "máx ms"], rows)
    au = p.get("auditoria")
    if au:
        a_, b_ = au["registro_con_log_nuevo_ms"], au["registro_con_log_abierto_ms"]
        c_ = au.get("registro_con_conexion_nueva_ms")
        out.append(
            f"Costo de un registro de auditoría (`audit_probe`, {au['n']} registros): con un `AuditLog` nuevo por "
            f"registro, como hacen `core/ask/audit.py:stage` y `core/api.py:execute` (la conexión SQLite del hilo "
            f"sigue abierta, `core/audit/connection.py`), p50 {_f(a_['p50'], 2)} / p95 {_f(a_['p95'], 2)} ms; con un "
            f"`AuditLog` que sigue abierto, p50 {_f(b_['p50'], 2)} / p95 {_f(b_['p95'], 2)} ms"
            + (
                f"; abriendo y cerrando la conexión en cada registro (lo que se hacía antes: el cierre hace "
                f"*checkpoint* del WAL), p50 {_f(c_['p50'], 2)} / p95 {_f(c_['p95'], 2)} ms."
                if c_
                else "."
            )
        )
        out.append("")
    cats = p.get("exactitud", {}).get("categories", {})
    if cats:
        rows = [
            [k, v["passed"], v["total"], f"{100 * v['accuracy']:.1f} %" if v["accuracy"] is not None else "—"]
            for k, v in cats.items()
        ]
        ok, tot = sum(v["passed"] for v in cats.values()), sum(v["total"] for v in cats.values())
        rows.append(["**total**", ok, tot, f"{100 * ok / tot:.1f} %" if tot else "—"])
        out.append("Exactitud por categoría (última pasada medida, verificadores de `evals.harness`):")
        out.append("")
        out += _table(["categoría", "bien", "total", "exactitud"], rows)
    return out


def _pipeline_pending(p: dict | None, number: int) -> list[str]:
    if not p or "omitido" in p or p.get("cumple_p95"):
        return []
    slow = sorted(((s, v["p95"]) for s, v in p["etapas_ms"].items() if s != "total"), key=lambda x: -x[1])[:3]
    return [
        f"### {number}. Pipeline de preguntas: p95 total {_f(p['etapas_ms']['total']['p95'])} ms (> 150 ms)",
        "",
        "Etapas con mayor p95: " + ", ".join(f"{s} {_f(v)} ms" for s, v in slow) + ".",
        "",
    ]


def _pendientes(r: dict) -> list[str]:
    secs = r["secciones"]
    e, b = secs.get("etl"), secs.get("browser")
    entries: list[list[str]] = []  # each numbered by how many came before it
    for make in (
        lambda k: [report_etl_pending.failure_pending(e, k)],
        lambda k: [report_national.pending(secs.get("national"), k)],
        lambda k: report_etl_pending.pending(e, k),
        lambda k: [_pipeline_pending(secs.get("pipeline"), k)],
        lambda k: [browser_report.pending(b, k)],
        lambda k: [conversation_report.pending(secs.get("conversation"), k)],
        lambda k: [api_report.pending(secs.get("api"), k)],
    ):
        entries += [x for x in make(len(entries) + 1) if x]
    out = ["## Pendientes", ""] + [line for entry in entries for line in entry]
    if not entries:
        out += ["Todos los objetivos medidos se cumplen.", ""]
    if "casos" not in (b or {}):
        out.append(
            f"Sin medir en esta corrida: punto 5, tiempo de respuesta en el navegador — "
            f"{browser_report.summary_rows(b)[0][2]}."
        )
    return out + [""]


def render(r: dict) -> str:
    """The whole BENCHMARKS.md."""
    secs = r["secciones"]
    total = r.get("duracion_total_s") or 0
    out = [
        "# Benchmarks",
        "",
        f"Generado por `make bench` (`python -m bench.run --scale {r['escala']}`) el {r['generado']} — duración "
        f"total {total / 60:.1f} min. Datos completos: `bench/out/results.json` (no versionado). Cómo se mide: "
        "`bench/README.md`.",
        "",
    ]
    for u in r.get("actualizaciones", []):
        out += [
            f"Actualizado el {u['generado']}: sección(es) {', '.join(u['secciones'])} "
            f"(`python -m bench.run --only {','.join(u['secciones'])}`, {u['duracion_s'] / 60:.1f} min).",
            "",
        ]
    out.append("## Objetivos")
    out.append("")
    rows = []
    if "national" in secs:
        rows += report_national.summary_rows(secs["national"])
    if "etl" in secs:
        rows += report_etl.summary_rows(secs["etl"])
        rows += report_builds.summary_rows(report_builds.load(secs.get("builds")))  # bench.national_parts
    p = secs.get("pipeline")
    if p and "omitido" not in p:
        rows.append(
            [
                "2",
                "pipeline de preguntas p95 ≤ 150 ms",
                f"{_f(p['etapas_ms']['total']['p95'])} ms",
                _ok(p["cumple_p95"]),
            ]
        )
    else:
        rows.append(["2", "pipeline de preguntas p95 ≤ 150 ms", "no implementado aún", SKIP])
    rows += browser_report.summary_rows(secs.get("browser"))
    rows += conversation_report.summary_rows(secs.get("conversation"))
    rows += api_report.summary_rows(secs.get("api"))
    out += _table(["punto", "objetivo", "medido", "¿cumple?"], rows)
    out += _machine(r)
    if "national" in secs:
        out += report_national.section(secs["national"])
    if "etl" in secs:
        out += report_etl.section(secs["etl"])
        out += report_builds.section(report_builds.load(secs.get("builds")))
    out += _pipeline(secs.get("pipeline"))
    out += browser_report.section(secs.get("browser"))
    out += conversation_report.section(secs.get("conversation"))
    out += api_report.section(secs.get("api"))
    out += _before_after(r)
    out += _pendientes(r)
    return "\n".join(out)
