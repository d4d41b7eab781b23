"""BENCHMARKS.md from ``results.json``: ratios first, absolute times second, then the causes."""
from __future__ import annotations

from bench import browser_report
from bench.common import percentile

YES, NO, SKIP = "✅ sí", "❌ no", "—"


def _f(v, nd: int = 1, unit: str = "") -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.{nd}f}{unit}"
    if isinstance(v, int):
        return f"{v:,}{unit}"
    return f"{v}{unit}"


def _ok(flag) -> str:
    return SKIP if flag is None else (YES if flag else NO)


def _table(head: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out + [""]


def _machine(r: dict) -> list[str]:
    m = r["maquina"]
    fin = r.get("maquina_fin", {})
    rows = [["núcleos (`nproc`)", m["nproc"]], ["CPU (`/proc/cpuinfo`)", m["cpu_model"]],
            ["memoria", f"{m['memoria_total_gb']} GB ({m['memoria_disponible_gb']} GB libres al empezar)"],
            ["Python / DuckDB", f"{m['python']} / {m['duckdb']}"],
            ["numpy / pyarrow", f"{m['numpy']} / {m['pyarrow']}"], ["plataforma", m["plataforma"]],
            ["carga promedio (1/5/15 min) al empezar", " / ".join(map(str, m["carga_promedio"]))],
            ["carga promedio al terminar", " / ".join(map(str, fin.get("carga_promedio", [])))],
            ["CPU robada por el hipervisor (1 s al empezar / al terminar)",
             f"{_f(r.get('robo_cpu_inicio_pct'))} % / {_f(r.get('robo_cpu_fin_pct'))} %"]]
    out = ["## Máquina", ""] + _table(["", ""], rows)
    load = m["carga_promedio"][0] if m.get("carga_promedio") else 0
    if load >= m["nproc"]:
        out.append(f"> **Contención.** La máquina es compartida y estaba cargada: carga de 1 min {load} sobre "
                   f"{m['nproc']} núcleos al empezar (pruebas de otros ingenieros, un Streamlit). Por eso cada medida "
                   "se repite, se informan p50 y p95, y herramienta/SQL y ETL/copia se alternan corrida a corrida "
                   "para que el ruido les pegue por igual: las **razones** son más estables que los tiempos "
                   "absolutos.")
    else:
        out.append(f"> **Contención.** La máquina es compartida (pruebas de otros ingenieros, un Streamlit); en esta "
                   f"corrida estaba tranquila (carga de 1 min {load} sobre {m['nproc']} núcleos al empezar). Con la "
                   "máquina cargada (carga ≈ 9, corridas anteriores) los tiempos absolutos fueron 2–4× mayores y "
                   "más dispersos; las **razones** cambian menos porque herramienta/SQL y ETL/copia se alternan "
                   "corrida a corrida. Cada medida se repite y se informan p50 y p95.")
    return out + [""]


def _national_summary(n: dict) -> list[list]:
    cases = [c for c in n.get("casos", []) if "error" not in c]
    if not cases:
        return [["3", "herramientas: p95 ≤ 300 ms y ≤ 1.3× SQL", "sin resultados", NO]]
    worst = max(cases, key=lambda c: c["tool_ms"]["p95"])
    worst_r = max(cases, key=lambda c: c["ratio_p95"] or 0)
    n_p95 = sum(c["cumple_p95"] for c in cases)
    n_r = sum(c["cumple_ratio"] for c in cases)
    eq = sum(c["respuestas_iguales"] for c in cases)
    return [
        ["3", "herramienta p95 ≤ 300 ms", f"{n_p95}/{len(cases)} casos; peor p95 {_f(worst['tool_ms']['p95'])} ms "
                                          f"({worst['caso']})", _ok(n_p95 == len(cases))],
        ["3", "herramienta ≤ 1.3× el SQL escrito a mano (p95)",
         f"{n_r}/{len(cases)} casos; peor {_f(worst_r['ratio_p95'], 2)}× ({worst_r['caso']})", _ok(n_r == len(cases))],
        ["3", "misma respuesta que el SQL escrito a mano", f"{eq}/{len(cases)} casos, en todas las corridas",
         _ok(eq == len(cases))],
    ]


def _national(n: dict) -> list[str]:
    st = n["store"]
    g = st["generador"]
    cfg = n["config"]
    out = ["## 3. Escala nacional: herramientas frente a SQL escrito a mano", ""]
    out.append(f"Almacén sintético del país cargado con la ETL real (`run_etl`): {g['municipios']:,} municipios de "
               f"{g['estados']} estados × {len(g['delitos'])} delitos ({g['filas_por_municipio_anio']} filas IDM_NM por "
               f"municipio-año) × {g['anios'][0]}–{g['anios'][1]}; CSV IDM_NM latin-1 de {g['bytes'] / 2**20:,.0f} MB, "
               f"{g['rows']:,} filas → **{st['row_counts']['incidents']:,} celdas** en `incidents.parquet` "
               f"(carga: {_f(st['etl_s'])} s{', reutilizada de una corrida anterior' if st.get('reutilizado') else ''}). "
               f"Distribuciones tomadas de los datos reales de Guanajuato (ver `bench/README.md`). "
               f"Cada caso: {cfg['warmup']} corridas de calentamiento y {cfg['runs']} medidas; herramienta = "
               "`Execution.timings_ms[\"0:<herramienta>\"]` de `core.api.execute`; SQL = una sentencia DuckDB escrita "
               "a mano sobre los Parquet de la versión (`read_parquet`), misma respuesta comparada fila por fila.")
    out.append("")
    out.append("### Razones (herramienta ÷ SQL escrito a mano)")
    out.append("")
    rows = []
    for c in n["casos"]:
        if "error" in c:
            rows.append([c["caso"], "error", "", "", "", ""])
            continue
        rows.append([c["caso"], f"{_f(c['ratio_p50'], 2)}×", f"{_f(c['ratio_p95'], 2)}×",
                     YES if c["respuestas_iguales"] else f"{NO} ({c['diferencia']})",
                     _ok(c["cumple_p95"]), _ok(c["cumple_ratio"])])
    out += _table(["caso", "razón p50", "razón p95", "respuestas iguales", "p95 ≤ 300 ms", "≤ 1.3×"], rows)
    out.append("### Tiempos absolutos (ms)")
    out.append("")
    rows = []
    for c in n["casos"]:
        if "error" in c:
            rows.append([c["caso"], str(c["error"])[:80]] + [""] * 7)
            continue
        t, e, s = c["tool_ms"], c["execute_ms"], c["sql_ms"]
        rows.append([c["caso"], _f(t["p50"]), _f(t["p95"]), _f(e["p50"]), _f(e["p95"]), _f(s["p50"]), _f(s["p95"]),
                     c["filas"], c["nota"]])
    out += _table(["caso", "herramienta p50", "herramienta p95", "`execute` p50", "`execute` p95", "SQL p50", "SQL p95",
                   "filas", "alcance"], rows)
    out.append("`execute` = la llamada completa a `core.api.execute` (validación, catálogo, herramienta, evidencia, "
               "artefacto y registro de auditoría).")
    out.append("")
    out.append("### Desglose de la herramienta (corrida mediana de 5, instrumentada)")
    out.append("")
    rows = []
    for c in n["casos"]:
        d = c.get("desglose")
        if not d:
            continue
        sql50 = c["sql_ms"]["p50"]
        rows.append([c["caso"], _f(d["tool_ms"]), f"{d['consultas_herramienta']} / {_f(d['sql_herramienta'])}",
                     f"{d['consultas_evidencia']} / {_f(d['evidencia'])}", _f(d["artefacto"]), _f(d["python"]),
                     f"{100 * d['evidencia'] / d['tool_ms']:.0f} %" if d["tool_ms"] else "—",
                     f"{(d['tool_ms'] - d['evidencia']) / sql50:.2f}×" if sql50 else "—"])
    out += _table(["caso", "total ms", "consultas propias (n / ms)", "evidencia (n / ms)", "artefacto ms",
                   "Python ms", "evidencia / total", "(total − evidencia) ÷ SQL p50"], rows)
    out.append("La última columna estima la razón si la evidencia no se calculara en cada ejecución (ver "
               "«Pendientes»); es una cuenta sobre la corrida instrumentada, no una medida de código cambiado.")
    out.append("")
    return out


def _etl_summary(e: dict) -> list[list]:
    f = e.get("falla")
    if f and e["etl"]["wall_s"]["n"] == 0:
        run = next(r for r in e["etl"]["corridas"] if r["returncode"] != 0)
        re_ = f.get("reintento") or {}
        retry = ""
        if re_:
            retry = (f"; con `CASANDRA_ETL_MEMORY_LIMIT={re_['memory_limit']}`: "
                     + (f"{_f(re_['wall_s'])} s = {_f(f.get('ratio_reintento'), 1)}× la copia, pico RSS "
                        f"{_f(re_['peak_rss_mb'], 0)} MB" if re_.get("returncode") == 0 else f"también falla (rc {re_.get('returncode')})"))
        return [
            ["4", "ETL ≤ 1.5× la copia `read_csv` → Parquet de DuckDB",
             f"**la carga falla** sin memoria (`RESOURCE_LIMIT`) tras {_f(run['wall_s'])} s con el límite por omisión "
             f"(1GB); la copia tarda {_f(e['copia_duckdb']['wall_s']['p50'])} s{retry}", NO],
            ["4", "pico de RSS de la ETL ≤ 2 GB", f"{_f(run['peak_rss_mb'], 0)} MB hasta fallar"
             + (f"; {_f(re_['peak_rss_mb'], 0)} MB con {re_['memory_limit']}" if re_ else ""),
             "❌ no (no termina)" if not re_ or re_.get("returncode") != 0 or re_["peak_rss_mb"] > 2048
             else "✅ sí"],
        ]
    return [
        ["4", "ETL ≤ 1.5× la copia `read_csv` → Parquet de DuckDB",
         f"{_f(e.get('ratio_p50'), 1)}× ({_f(e['etl']['wall_s']['p50'])} s frente a "
         f"{_f(e['copia_duckdb']['wall_s']['p50'])} s)", _ok(e.get("cumple_ratio"))],
        ["4", "pico de RSS de la ETL ≤ 2 GB", f"{_f(e['etl'].get('pico_rss_mb_max'), 0)} MB", _ok(e.get("cumple_rss"))],
    ]


def _etl(e: dict) -> list[str]:
    a = e["archivo"]
    out = ["## 4. ETL: archivo nacional IDM_NM frente a la copia directa de DuckDB", ""]
    out.append(f"Archivo sintético en el formato original IDM_NM (encabezado original, latin-1): "
               f"{a['bytes'] / 2**20:,.0f} MB, {a['rows']:,} filas ({a['filas_por_municipio_anio']} por municipio-año, "
               f"el catálogo completo del SESNSP), **{a['cells']:,} celdas mensuales**, {a['municipios']:,} municipios, "
               f"{a['anios'][0]}–{a['anios'][1]}. ETL = `python -m core --data-dir … etl ARCHIVO --quiet` en un "
               "subproceso (carpeta de datos vacía, `etl_memory_limit` 1GB por omisión); copia = `COPY (SELECT * FROM "
               "read_csv(path, encoding='latin-1', header=true)) TO 'x.parquet' (FORMAT parquet)` en otro subproceso. "
               "Tiempo de pared y pico de RSS del árbol de procesos muestreado cada 50 ms con psutil; corridas "
               "alternadas.")
    out.append("")
    out.append("### Razón")
    out.append("")
    out += _table(["", "ETL ÷ copia (p50)", "pico RSS ETL", "¿≤ 1.5×?", "¿RSS ≤ 2 GB?"],
                  [["archivo nacional", f"{_f(e.get('ratio_p50'), 1)}×",
                    f"{_f(e['etl'].get('pico_rss_mb_max'), 0)} MB", _ok(e.get("cumple_ratio")),
                    _ok(e.get("cumple_rss"))]])
    out.append("### Tiempos absolutos")
    out.append("")
    rows = []
    for label, key in (("ETL (`python -m core etl`)", "etl"), ("copia DuckDB `read_csv` → Parquet", "copia_duckdb")):
        block = e[key]
        w = block["wall_s"]
        cpu = [r.get("cpu_s") for r in block["corridas"] if r.get("returncode") == 0]
        rows.append([label, w["n"], _f(w["p50"]), _f(w["min"]), _f(w["max"]), _f(block.get("pico_rss_mb_max"), 0),
                     _f(percentile(cpu, 50)), _f(block.get("mb_por_s"), 2),
                     _f(e["etl"].get("celdas_por_s")) if key == "etl" else "—"])
    out += _table(["proceso", "corridas", "pared p50 (s)", "mín (s)", "máx (s)", "pico RSS (MB)", "CPU p50 (s)",
                   "MB/s", "celdas/s"], rows)
    f = e.get("falla")
    if f:
        out.append("### La carga nacional no termina")
        out.append("")
        run = next((r for r in e["etl"]["corridas"] if r["returncode"] != 0), {})
        out.append(f"`python -m core etl` sale con código {run.get('returncode')} tras {_f(run.get('wall_s'))} s "
                   f"(pico RSS {_f(run.get('peak_rss_mb'), 0)} MB, CPU {_f(run.get('cpu_s'))} s):")
        out.append("")
        out.append("```")
        out.append(f.get("stderr", "").strip()[:500])
        out.append("```")
        out.append("")
        d = f.get("diagnostico")
        if d:
            fe = d.get("fallo_en") or {}
            out.append(f"Repetida en el proceso del benchmark con cada sentencia cronometrada "
                       f"(`bench/etl_profile.py`, mismo límite de 1GB): falla en **`{fe.get('sentencia')}`** "
                       f"(`{fe.get('donde')}`), que empieza a los {_f(fe.get('inicio_s'))} s de carga y corre "
                       f"{_f(fe.get('s'))} s antes del error; pico RSS del proceso {_f(d.get('pico_rss_mb'), 0)} MB. "
                       f"Error: `{(d.get('error') or '')[:220]}`.")
            out.append("")
            rows = [[f"`{x['sentencia']}`", f"`{x['donde']}`", _f(x["s"], 1)] for x in d.get("orden", [])]
            if rows:
                out.append("Sentencias de ≥ 1 s, en orden de ejecución hasta la falla:")
                out.append("")
                out += _table(["sentencia", "función", "s"], rows)
        re_ = f.get("reintento")
        if re_:
            ok = re_.get("returncode") == 0
            out.append(f"Con `CASANDRA_ETL_MEMORY_LIMIT={re_['memory_limit']}` (subproceso medido igual): "
                       + (f"termina en **{_f(re_['wall_s'])} s = {_f(f.get('ratio_reintento'), 1)}× la copia**, "
                          f"pico RSS {_f(re_['peak_rss_mb'], 0)} MB, CPU {_f(re_.get('cpu_s'))} s, "
                          f"{_f((re_.get('row_counts') or {}).get('incidents'))} celdas publicadas."
                          if ok else f"también falla (código {re_.get('returncode')}): "
                                     f"`{(re_.get('stderr') or '')[:200]}`"))
            out.append("")
    prof = e.get("perfil")
    if prof:
        pa = prof["archivo"]
        out.append(f"### Dónde se va el tiempo de la ETL (perfil por sentencia, {pa['celdas']:,} celdas, "
                   f"{pa['municipios']:,} municipios)")
        out.append("")
        out.append(f"`bench/etl_profile.py` envuelve la conexión de `core.etl.pipeline._connect` y cronometra cada "
                   f"sentencia. Carga total {_f(prof['total_s'])} s (la copia DuckDB del mismo archivo: "
                   f"{_f(prof.get('copia_duckdb_s'))} s, razón "
                   f"{_f(prof['total_s'] / prof['copia_duckdb_s'], 1) if prof.get('copia_duckdb_s') else '—'}×).")
        out.append("")
        ref = prof.get("una_pasada")
        if ref and prof.get("copia_duckdb_s"):
            out += _table(["mismo archivo reducido", "s", "× copia"],
                          [["copia DuckDB `read_csv` → Parquet", _f(prof["copia_duckdb_s"], 2), "1.0×"],
                           ["**una pasada de referencia** (`etl_profile.single_pass`: leer, mapear etiquetas, "
                            "despivotar, `row_id`, ordenar, Parquet; 1 GB)", _f(ref["total_s"], 2),
                            f"{ref['total_s'] / prof['copia_duckdb_s']:.1f}×"],
                           ["ETL real (`run_etl`)", _f(prof["total_s"], 2),
                            f"{prof['total_s'] / prof['copia_duckdb_s']:.1f}×"]])
        rows = [[f"`{s['sentencia']}`", f"`{s['donde']}`", s["veces"], _f(s["s"], 2), f"{_f(s['pct'])} %"]
                for s in prof["sentencias"][:10]]
        out += _table(["sentencia", "función", "veces", "s", "% del total"], rows)
    return out


def _pipeline(p: dict | None) -> list[str]:
    out = ["## 2. Pipeline de preguntas (latencia y exactitud)", ""]
    if not p or "omitido" in p:
        out.append(f"Pendiente: {p.get('omitido') if p else 'no se pidió'}. `python -m bench.run --only pipeline` lo "
                   "corre en cuanto existan `core/evaluation.py` y `tests/eval/questions.json`.")
        return out + [""]
    out.append(f"{p['preguntas']} preguntas en {p['conversaciones']} conversaciones, almacén incluido (ETL real), "
               f"`Assistant(settings, use_cache=False).ask(q, conversación, planner=\"rules\")`; una pasada de "
               f"calentamiento y {p['pasadas_medidas']} medida(s). Objetivo: total p95 ≤ {p['objetivo_p95_ms']:.0f} ms.")
    out.append("")
    rows = [[s, _f(v["p50"]), _f(v["p95"]), _f(v["max"])] for s, v in p["etapas_ms"].items()]
    out += _table(["etapa", "p50 ms", "p95 ms", "máx ms"], rows)
    au = p.get("auditoria")
    if au:
        a_, b_ = au["registro_con_log_nuevo_ms"], au["registro_con_log_abierto_ms"]
        out.append(f"Costo de un registro de auditoría (`audit_probe`, {au['n']} registros): con un `AuditLog` nuevo por "
                   f"registro, como hacen `core/stages.py:audit` y `core/api.py:execute` (abrir SQLite, anotar, cerrar: "
                   f"el cierre hace *checkpoint* del WAL), p50 {_f(a_['p50'], 2)} / p95 {_f(a_['p95'], 2)} ms; con uno "
                   f"que sigue abierto, p50 {_f(b_['p50'], 2)} / p95 {_f(b_['p95'], 2)} ms. Con la máquina cargada la "
                   "primera cifra sube a decenas de ms; mantener un `AuditLog` por proceso la evita.")
        out.append("")
    cats = p.get("exactitud", {}).get("categories", {})
    if cats:
        rows = [[k, v["passed"], v["total"], f"{100 * v['accuracy']:.1f} %" if v["accuracy"] is not None else "—"]
                for k, v in cats.items()]
        ok, tot = sum(v["passed"] for v in cats.values()), sum(v["total"] for v in cats.values())
        rows.append(["**total**", ok, tot, f"{100 * ok / tot:.1f} %" if tot else "—"])
        out.append("Exactitud por categoría (última pasada medida, verificadores de `core.evaluation`):")
        out.append("")
        out += _table(["categoría", "bien", "total", "exactitud"], rows)
    return out


ETL_WHY = {  # what each heavy statement of the current code does, and what to change
    "CREATE new_incidents": (
        "`core/etl/merge.py`, `assemble()`: `UNION ALL` de `cur_incidents` y `curated_batch` con sus 18 columnas "
        "(11 de texto: estado, municipio, bien jurídico, tipo, subtipo, modalidad, `source_file`…), dos `LEFT JOIN` "
        "(`key_owner`, `owner`) y `ORDER BY delito, fecha, cve_municipio` de las filas anchas; con 1 GB el "
        "ordenamiento derrama a disco.",
        "ordenar solo columnas angostas (`row_id`, `delito`, `fecha`, `cve_municipio`, `eventos`, claves) y unir las "
        "etiquetas por `entidad_id`/`delito`/`metodo` al escribir el Parquet; en una primera carga "
        "(`cur_incidents` vacía) saltar la unión y los `JOIN` de propiedad."),
    "INSERT curated_batch": (
        "`core/etl/curate.py`, `curate()`: copia cada celda válida de `checked` (`ANTI JOIN dups`) con el `md5` del "
        "`row_id` y las 16 columnas de etiquetas repetidas por celda.",
        "guardar en `curated_batch` solo claves y conteo, y las etiquetas una vez por municipio (`ent_map`) y por "
        "delito × modalidad (`crime_map`)."),
    "CREATE parsed": (
        "`curate()`, `PARSE_SQL`: materializa todas las celdas con las etiquetas de `ent_map` y `crime_map` ya "
        "unidas (`LEFT JOIN … IS NOT DISTINCT FROM` sobre 5 y 6 columnas de texto).",
        "fusionar `parsed` y `checked` en una sola sentencia y unir por una clave entera de cada mapa (id de fila "
        "distinta) en lugar de 5–6 textos por celda."),
    "CREATE checked": (
        "`curate()`, `CHECK_SQL`: otra copia completa de `parsed` (`SELECT *`) solo para añadir `fecha` y `motivo`.",
        "calcular `fecha` y `motivo` en la misma sentencia que `parsed` (ver arriba)."),
    "INSERT cells": (
        "`core/etl/load.py`, `stage_cells()`: el `UNPIVOT` escribe 19 columnas de texto por celda, incluidos "
        "`source_file` y las etiquetas crudas, doce veces por fila del archivo.",
        "despivotar solo `rowid`, `columna` y `valor` y llevar las columnas descriptivas por fila (`raw_<n>`), no "
        "por celda."),
    "CREATE keyed": (
        "`curate()`: tres funciones de ventana sobre `SELECT *` de `checked` para hallar claves repetidas.",
        "una agregación angosta de claves repetidas (`GROUP BY … HAVING count(*) > 1`) y un anti-join."),
}


def _pendientes(r: dict) -> list[str]:
    out = ["## Pendientes", ""]
    n = r["secciones"].get("national")
    e = r["secciones"].get("etl")
    items = 0
    fa = (e or {}).get("falla")
    if fa:
        items += 1
        d = fa.get("diagnostico") or {}
        fe = d.get("fallo_en") or {}
        out.append(f"### {items}. La ETL no carga el archivo nacional: se queda sin memoria")
        out.append("")
        out.append(f"Falla `{fe.get('sentencia')}` (`{fe.get('donde')}`) a los {_f(fe.get('inicio_s'))} s de carga "
                   f"({(d.get('error') or fa.get('stderr', ''))[:200]}). Ver la sección 4.")
        out.append("")
    cases = [c for c in (n or {}).get("casos", []) if "error" not in c]
    if cases and any(not c.get("cumple_ratio") or not c.get("cumple_p95") for c in cases):
        items += 1
        with_d = [c for c in cases if c.get("desglose") and c["desglose"].get("tool_ms")]
        ev_share = percentile([100 * c["desglose"]["evidencia"] / c["desglose"]["tool_ms"] for c in with_d], 50)
        n_ev = percentile([c["desglose"]["consultas_evidencia"] for c in with_d], 50)
        missed = ", ".join(f"{c['caso']} ({_f(c['ratio_p50'], 2)}× / {_f(c['ratio_p95'], 2)}×)" for c in cases
                           if not c["cumple_ratio"])
        slow = ", ".join(f"{c['caso']} ({_f(c['tool_ms']['p95'])} ms)" for c in cases if not c["cumple_p95"])
        out.append(f"### {items}. Herramientas más lentas que su SQL (objetivo ≤ 1.3×)")
        out.append("")
        if missed:
            out.append(f"No cumplen la razón (p50 / p95): {missed}.")
        if slow:
            out.append(f"No cumplen p95 ≤ 300 ms: {slow}.")
        out.append("")
        out.append("**Causa.** No es DuckDB ni Python (Python < 6 ms en el desglose): el SQL de cada herramienta "
                   "es equivalente al escrito a mano, pero la herramienta hace **varias pasadas** sobre "
                   "`incidents.parquet` donde basta una, y cada consulta vuelve a abrir el Parquet y recorrer sus "
                   "grupos de filas:")
        out.append("")
        ev_txt = "1 consulta" if n_ev == 1 else f"{_f(n_ev, 0)} consultas"
        out.append(f"1. **Evidencia en cada ejecución: {ev_txt} más sobre `incidents`** (mediana {_f(ev_share, 0)} % "
                   "del tiempo de la herramienta). `core/execute.py`, `run_validated()` llama `_evidence()` después "
                   "de *cada* análisis para listar hasta 501 `row_id` y contarlos, aunque casi nunca se miran. "
                   "**Cambio:** no resolver los ids en `run_validated`: dejar `Evidence(where, params)` en "
                   "`ctx.outputs` (y en el sobre, sin ids) y consultarlos solo cuando corre `listar_evidencia` o la "
                   "UI abre el panel de evidencia. La última columna del desglose estima la razón sin esa consulta.")
        out.append("2. **Ranking, agrupación y comparación: 3 consultas en vez de 1.** `core/tools/scope.py`: "
                   "`children()` (entities), `counts_by_entity()` (incidents) y `population()` (population) van por "
                   "separado desde `ranking.py:_ranked` y `grouping.py:agrupar_por_entidad`; "
                   "`series.py:comparar_periodos` llama `counts_by_entity` dos veces (ventana y base): dos pasadas "
                   "por `incidents`. **Cambio:** una función `entity_counts(ctx, scope, ventanas, año)` con "
                   "`entities LEFT JOIN (SELECT entidad_id, sum(eventos) FILTER (WHERE fecha BETWEEN …) … "
                   "GROUP BY entidad_id) LEFT JOIN population` en una sentencia — como `_rank_sql` y "
                   "`_comparar_sql` en `bench/national.py` —; el orden y el top-k pueden quedarse en Python.")
        out.append("3. `detectar_anomalias` hace además `children()` aparte de su serie (2 consultas); "
                   "`detectar_patrones` ya hace una sola y queda a ≈1.3× solo por la evidencia.")
        out.append("")
    if e and not e.get("cumple_ratio") and not fa:
        items += 1
        prof = e.get("perfil") or {}
        out.append(f"### {items}. ETL {_f(e.get('ratio_p50'), 1)}× más lenta que la copia de DuckDB "
                   "(objetivo ≤ 1.5×)")
        out.append("")
        out.append(f"El archivo nacional carga en {_f(e['etl']['wall_s']['p50'])} s contra "
                   f"{_f(e['copia_duckdb']['wall_s']['p50'])} s de la copia directa; leer el CSV (`CREATE raw_1`) y "
                   "escribir el Parquet (`COPY new_incidents`) son una fracción pequeña del perfil. **Causa:** la "
                   "tabla completa se materializa varias veces, con todas sus columnas de texto repetidas por "
                   "celda, dentro de `staging.duckdb` con 1 GB de memoria (lo que no cabe derrama a `spill/`). "
                   "Por sentencia (perfil de la sección 4), de mayor a menor:")
        if prof.get("copia_duckdb_s") and e["copia_duckdb"]["wall_s"]["p50"]:
            small = prof["total_s"] / prof["copia_duckdb_s"]
            out[-1] = out[-1].replace("Por sentencia", f"El costo crece más que el archivo: con el 10 % de los "
                                      f"municipios la razón es {small:.0f}×, con el archivo completo "
                                      f"{e['ratio_p50']:.0f}× (más derrame a disco con el mismo 1 GB). Por sentencia")
        out.append("")
        total = prof.get("total_s") or 0
        for st in prof.get("sentencias", [])[:8]:
            why = ETL_WHY.get(st["sentencia"])
            if not why or st.get("pct", 0) < 5:
                continue
            out.append(f"- **`{st['sentencia']}`** ({_f(st['pct'])} %, {_f(st['s'], 1)} de {_f(total, 1)} s): {why[0]} "
                       f"**Cambio:** {why[1]}")
        out.append("")
        ref = prof.get("una_pasada")
        if ref and prof.get("copia_duckdb_s"):
            out.append(f"**Sobre el objetivo.** En el mismo archivo reducido, la *una pasada de referencia* "
                       f"(`bench/etl_profile.py:single_pass`: leer, mapear etiquetas, despivotar, `row_id`, ordenar y "
                       f"escribir, sin cuarentena ni fusión con la versión vigente) tarda "
                       f"{ref['total_s'] / prof['copia_duckdb_s']:.1f}× la copia directa y la ETL real "
                       f"{prof['total_s'] / prof['copia_duckdb_s']:.1f}×. Despivotar 12 meses, calcular `row_id` y "
                       "ordenar por `delito, fecha, cve_municipio` es trabajo que la copia no hace, así que ≤ 1.5× "
                       "la copia no es alcanzable con esta forma de datos. Lo que sí se puede pedir: acercar la ETL "
                       f"a la referencia (hoy ≈ {prof['total_s'] / ref['total_s']:.1f}× ella) con los cambios de "
                       "arriba, y fijar el objetivo contra `single_pass` (p. ej. ETL ≤ 2× la una pasada).")
            out.append("")
    if e and e.get("cumple_rss") is False and not fa:
        items += 1
        out.append(f"### {items}. Pico de RSS de la ETL sobre 2 GB")
        out.append("")
        out.append("`core/config.py` limita DuckDB a `etl_memory_limit` (1GB), pero el RSS del proceso suma el "
                   "intérprete y memoria de DuckDB fuera del límite. Las tablas angostas de arriba lo reducen.")
        out.append("")
    p = r["secciones"].get("pipeline")
    if p and "omitido" not in p and not p.get("cumple_p95"):
        items += 1
        slow = sorted(((s, v["p95"]) for s, v in p["etapas_ms"].items() if s != "total"), key=lambda x: -x[1])[:3]
        out.append(f"### {items}. Pipeline de preguntas: p95 total {_f(p['etapas_ms']['total']['p95'])} ms (> 150 ms)")
        out.append("")
        out.append("Etapas con mayor p95: " + ", ".join(f"{s} {_f(v)} ms" for s, v in slow) + ".")
        out.append("")
    b = r["secciones"].get("browser")
    slow_browser = browser_report.pending(b, items + 1)
    if slow_browser:
        items += 1
        out += slow_browser
    if not items:
        out.append("Todos los objetivos medidos se cumplen.")
        out.append("")
    if "casos" not in (b or {}):
        out.append(f"Sin medir en esta corrida: punto 5, tiempo de respuesta en el navegador — "
                   f"{browser_report.summary_rows(b)[0][2]}.")
    return out + [""]


def summarize(r: dict) -> dict:
    """The compact numbers of a run that a later run is compared with (``results.json["antes"]``)."""
    out: dict = {"generado": r.get("generado"), "carga_promedio": r.get("maquina", {}).get("carga_promedio"),
                 "nota": r.get("nota_antes")}
    n = r["secciones"].get("national")
    if n:
        out["national"] = {"etl_s": n["store"].get("etl_s"), "casos": {
            c["caso"]: {"tool_p50": c["tool_ms"]["p50"], "tool_p95": c["tool_ms"]["p95"], "sql_p50": c["sql_ms"]["p50"],
                        "ratio_p50": c["ratio_p50"], "ratio_p95": c["ratio_p95"],
                        "evidencia": [c.get("desglose", {}).get("consultas_evidencia"),
                                      c.get("desglose", {}).get("evidencia")]}
            for c in n["casos"] if "error" not in c}}
    e = r["secciones"].get("etl")
    if e:
        runs = e["etl"]["corridas"]
        out["etl"] = {"corridas": [{k: x.get(k) for k in ("wall_s", "peak_rss_mb", "returncode")} for x in runs],
                      "copia_p50": e["copia_duckdb"]["wall_s"]["p50"], "ratio_p50": e.get("ratio_p50"),
                      "falla": {k: v for k, v in (e.get("falla") or {}).items() if k in ("stderr", "fallo_en")}
                      or None}
        d = (e.get("falla") or {}).get("diagnostico")
        if d:
            out["etl"]["falla"]["fallo_en"] = d.get("fallo_en")
        prof = e.get("perfil")
        if prof:
            out["etl"]["perfil"] = {"total_s": prof["total_s"], "copia_s": prof.get("copia_duckdb_s"),
                                    "una_pasada_s": (prof.get("una_pasada") or {}).get("total_s"),
                                    "sentencias": [[x["sentencia"], x["s"]] for x in prof["sentencias"][:6]]}
    p = r["secciones"].get("pipeline")
    if p and "omitido" not in p:
        out["pipeline"] = {k: p["etapas_ms"][k] for k in ("total", "execute", "audit") if k in p["etapas_ms"]}
    return out


def _before_after(r: dict) -> list[str]:
    a, ab = r.get("antes"), r.get("ab")
    if not a and not ab:
        return []
    out = ["## Antes y después de un cambio hecho mientras se medía", ""]
    note = (ab or {}).get("nota") or (a or {}).get("nota") or "ver `git log`"
    out.append(f"Mientras se escribía y corría este benchmark otra persona cambió `core/` ({note}). Se registra el "
               "efecto con la misma máquina, los mismos datos y la misma semilla.")
    out.append("")
    if ab:
        out.append(f"**A/B en el mismo momento** (`python -m bench.ab`: cada versión en su subproceso, alternadas "
                   f"A, B, A, B; {ab['rondas']} rondas × {ab['corridas_por_ronda']} corridas por caso sobre el almacén "
                   f"nacional de esta corrida). A = `{ab['core_importado']['A']}`, B = `{ab['core_importado']['B']}`.")
        out.append("")
        ta, tb = ab["herramientas"]["A"], ab["herramientas"]["B"]
        rows = []
        for name, x in ta.items():
            y = tb.get(name)
            if not y or x.get("error") or y.get("error"):
                continue
            rows.append([name, _f(x["tool_p50"]), _f(y["tool_p50"]), _f(x["sql_p50"]), f"{_f(x['ratio_p50'], 2)}×",
                         f"{_f(y['ratio_p50'], 2)}×", f"{x['consultas'][0]} + {x['consultas'][1]}",
                         f"{y['consultas'][0]} + {y['consultas'][1]}", _ok(x["iguales"] and y["iguales"])])
        out += _table(["caso", "herramienta p50 A (ms)", "B (ms)", "SQL p50 (ms)", "razón p50 A", "razón p50 B",
                       "consultas A (propias + evidencia)", "B", "respuestas iguales"], rows)
        ea, eb = ab["etl_10pct"]["A"], ab["etl_10pct"]["B"]
        med = lambda runs: percentile([x["total_s"] for x in runs], 50)
        rows = [["ETL (`run_etl`), s", " / ".join(_f(x["total_s"]) for x in ea), " / ".join(_f(x["total_s"]) for x in eb)],
                ["× copia directa", f"{med(ea) / ab['copia_s']:.1f}×", f"{med(eb) / ab['copia_s']:.1f}×"],
                ["pico RSS (MB)", _f(max((x.get("pico_rss_mb") or 0) for x in ea), 0),
                 _f(max((x.get("pico_rss_mb") or 0) for x in eb), 0)],
                ["sentencias más caras (s)", "; ".join(f"`{n}` {_f(v, 1)}" for n, v in ea[0]["sentencias"][:4]),
                 "; ".join(f"`{n}` {_f(v, 1)}" for n, v in eb[0]["sentencias"][:4])]]
        out.append(f"ETL sobre el archivo reducido ({ab['celdas_10pct']:,} celdas, 10 % de los municipios); en el "
                   f"mismo momento la copia directa tardó {_f(ab['copia_s'], 2)} s y la una pasada de referencia "
                   f"{_f(ab['una_pasada_s'], 2)} s:")
        out.append("")
        out += _table(["", "A", "B"], rows)
    e, ea_ = r["secciones"].get("etl"), (a or {}).get("etl")
    if e and ea_:
        runs = ea_["corridas"]
        fe = (ea_.get("falla") or {}).get("fallo_en") or {}
        ok = [x for x in e["etl"]["corridas"] if x["returncode"] == 0]
        before = (f"**falla sin memoria** (`RESOURCE_LIMIT`) en {len(runs)} de {len(runs)} corridas, tras "
                  f"{', '.join(_f(x['wall_s']) + ' s' for x in runs)} (pico RSS "
                  f"{_f(max(x['peak_rss_mb'] for x in runs), 0)} MB)"
                  + (f", en `{fe.get('sentencia')}` (`{fe.get('donde')}`, a los {_f(fe.get('inicio_s'))} s de carga)"
                     if fe else "")) if all(x["returncode"] != 0 for x in runs) else \
            f"termina en {', '.join(_f(x['wall_s']) + ' s' for x in runs)}"
        after = (f"termina en {', '.join(_f(x['wall_s']) + ' s' for x in ok)} (pico RSS "
                 f"{_f(max(x['peak_rss_mb'] for x in ok), 0)} MB), {_f((ok[0].get('row_counts') or {}).get('incidents'))} "
                 "celdas publicadas") if ok else "falla"
        out.append(f"**Archivo nacional completo** (`python -m core etl`, límite 1GB). Antes = corrida completa del "
                   f"{a['generado']} con la máquina cargada (carga 1 min {a['carga_promedio'][0]} sobre 2 núcleos); "
                   f"después = esta corrida (carga {r['maquina']['carga_promedio'][0]}). Los segundos no se comparan "
                   "(la carga era otra); la falla sí, porque es de memoria, no de tiempo:")
        out.append("")
        out += _table(["", "antes", "después"], [["archivo nacional, 1GB", before, after]])
    return out


def render(r: dict) -> str:
    """The whole BENCHMARKS.md."""
    secs = r["secciones"]
    total = r.get("duracion_total_s") or 0
    out = ["# Benchmarks", "",
           f"Generado por `make bench` (`python -m bench.run --scale {r['escala']}`) el {r['generado']} — duración "
           f"total {total / 60:.1f} min. Datos completos: `bench/out/results.json` (no versionado). Cómo se mide: "
           "`bench/README.md`.", ""]
    for u in r.get("actualizaciones", []):
        out += [f"Actualizado el {u['generado']}: sección(es) {', '.join(u['secciones'])} "
                f"(`python -m bench.run --only {','.join(u['secciones'])}`, {u['duracion_s'] / 60:.1f} min).", ""]
    out.append("## Objetivos")
    out.append("")
    rows = []
    if "national" in secs:
        rows += _national_summary(secs["national"])
    if "etl" in secs:
        rows += _etl_summary(secs["etl"])
    p = secs.get("pipeline")
    if p and "omitido" not in p:
        rows.append(["2", "pipeline de preguntas p95 ≤ 150 ms", f"{_f(p['etapas_ms']['total']['p95'])} ms",
                     _ok(p["cumple_p95"])])
    else:
        rows.append(["2", "pipeline de preguntas p95 ≤ 150 ms", "no implementado aún", SKIP])
    rows += browser_report.summary_rows(secs.get("browser"))
    out += _table(["punto", "objetivo", "medido", "¿cumple?"], rows)
    out += _machine(r)
    if "national" in secs:
        out += _national(secs["national"])
    if "etl" in secs:
        out += _etl(secs["etl"])
    out += _pipeline(secs.get("pipeline"))
    out += browser_report.section(secs.get("browser"))
    out += _before_after(r)
    out += _pendientes(r)
    return "\n".join(out)
