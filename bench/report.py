"""BENCHMARKS.md from ``results.json``: ratios first, absolute times second, then the causes."""
from __future__ import annotations

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
    out.append(f"> **Contención.** La máquina es compartida: otros procesos (pruebas de otros ingenieros, un "
               f"Streamlit) corrían a la vez; la carga de 1 min era {load} sobre {m['nproc']} núcleos al empezar. "
               "Por eso cada medida se repite, se informan mediana (p50) y p95, y la herramienta y su SQL se "
               "alternan corrida a corrida para que el ruido les pegue por igual: las **razones** son más "
               "estables que los tiempos absolutos, que en una máquina quieta serían menores.")
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


def _pendientes(r: dict) -> list[str]:
    out = ["## Pendientes", ""]
    n = r["secciones"].get("national")
    e = r["secciones"].get("etl")
    items = 0
    if n and any(not c.get("cumple_ratio") or not c.get("cumple_p95") for c in n["casos"] if "error" not in c):
        items += 1
        cases = [c for c in n["casos"] if "error" not in c and c.get("desglose")]
        ev_share = percentile([100 * c["desglose"]["evidencia"] / c["desglose"]["tool_ms"]
                               for c in cases if c["desglose"]["tool_ms"]], 50)
        missed = ", ".join(f"{c['caso']} ({_f(c['ratio_p95'], 2)}×)" for c in n["casos"]
                           if "error" not in c and not c["cumple_ratio"])
        slow = ", ".join(f"{c['caso']} ({_f(c['tool_ms']['p95'])} ms)" for c in n["casos"]
                         if "error" not in c and not c["cumple_p95"])
        out.append(f"### {items}. Herramientas más lentas que su SQL (objetivo ≤ 1.3×, p95 ≤ 300 ms)")
        out.append("")
        if missed:
            out.append(f"No cumplen la razón: {missed}.")
        if slow:
            out.append(f"No cumplen p95 ≤ 300 ms: {slow}.")
        out.append("")
        out.append("**Causa.** No es DuckDB ni Python: el SQL que escribe cada herramienta es equivalente al escrito a "
                   "mano, pero la herramienta hace **varias pasadas** sobre `incidents.parquet` donde basta una (ver "
                   "*Desglose*; cada consulta abre el Parquet y recorre sus grupos de filas otra vez, y con la máquina "
                   "cargada cada viaje cuesta además su turno de CPU):")
        out.append("")
        out.append(f"1. **Evidencia: 2 pasadas extra por herramienta** (mediana {_f(ev_share, 0)} % del tiempo de la "
                   "herramienta). `core/execute.py`, `_evidence()`, la llama `run_validated()` después de *cada* "
                   "análisis: `SELECT row_id … ORDER BY row_id LIMIT 501` y luego `SELECT count(*)` con el mismo "
                   "`WHERE`. **Cambio:** (a) no calcular los ids en `run_validated`: guardar `Evidence(where, params)` "
                   "en el sobre (o en `ctx.outputs`) y resolver los ids solo cuando corre `listar_evidencia` o la UI "
                   "abre la evidencia; o, como mínimo, (b) una sola consulta: `SELECT list(row_id ORDER BY row_id)"
                   "[1:501], count(*) FROM incidents i WHERE … AND eventos > 0`.")
        out.append("2. **Ranking/agrupación/comparación: 3–4 consultas en vez de 1.** `core/tools/scope.py`: "
                   "`children()` (entities), `counts_by_entity()` (incidents) y `population()` (population) se "
                   "llaman por separado desde `ranking.py:_ranked`, `grouping.py:agrupar_por_entidad` y "
                   "`series.py:comparar_periodos` (que además llama `counts_by_entity` dos veces, una por ventana, "
                   "o sea dos pasadas sobre `incidents`). **Cambio:** una función `entity_counts(ctx, scope, "
                   "windows, year)` que haga `entities LEFT JOIN (SELECT entidad_id, sum(eventos) FILTER (WHERE "
                   "fecha BETWEEN …) … GROUP BY entidad_id) LEFT JOIN population` en una sentencia, como "
                   "`_rank_sql`/`_comparar_sql` en `bench/national.py`; el orden y el top-k pueden quedarse en Python.")
        out.append("3. `write_artifact` (Parquet con la tabla completa) cuesta unos pocos ms por herramienta; no es la "
                   "causa, pero podría escribirse perezosamente igual que la evidencia.")
        out.append("")
        out.append("Con (1) y (2) cada herramienta de conteo queda en una consulta sobre `incidents` más una sobre "
                   "tablas pequeñas, la misma forma que el SQL escrito a mano. detectar_patrones ya hace una sola "
                   "consulta propia y detectar_anomalias dos (`children` y la serie); ambas pagan sobre todo la "
                   "evidencia. La columna «(total − evidencia) ÷ SQL p50» del desglose da el orden de lo que (1) "
                   "recupera.")
        out.append("")
    fa = (e or {}).get("falla")
    if fa:
        items += 1
        d = fa.get("diagnostico") or {}
        fe = d.get("fallo_en") or {}
        re_ = fa.get("reintento") or {}
        out.append(f"### {items}. La ETL no carga el archivo nacional: se queda sin memoria (límite 1GB)")
        out.append("")
        out.append(f"`python -m core etl` sobre el archivo nacional ({e['archivo']['bytes'] / 2**20:,.0f} MB, "
                   f"{e['archivo']['cells']:,} celdas) termina con `RESOURCE_LIMIT` («La carga excedió la memoria "
                   "disponible»), nada se publica. Es el caso de uso principal (el archivo IDM_NM completo de "
                   "~380 MB), así que este es el pendiente más importante.")
        out.append("")
        if fe.get("sentencia") == "CREATE new_incidents":
            out.append(f"**Causa.** Falla `CREATE TABLE new_incidents` en `core/etl/merge.py`, `assemble()`, a los "
                       f"{_f(fe.get('inicio_s'))} s de carga y tras {_f(fe.get('s'))} s dentro de la sentencia "
                       "(`failed to pin block … 953.6 MiB/953.6 MiB used`): `max(load_seq) OVER (PARTITION BY "
                       "row_id)` sobre la unión de `cur_incidents` y `curated_batch` — una partición por celda, "
                       f"{e['archivo']['cells']:,} particiones — con las 18 columnas (11 de texto) de cada fila, "
                       "más el `LEFT JOIN owner` y el `ORDER BY delito, fecha, cve_municipio` de la tabla ancha, "
                       "todo en una sentencia y con `preserve_insertion_order = true` (`pipeline.py:_connect`). El "
                       "operador de ventana necesita tener fijados en memoria los bloques de la partición que "
                       "ordena y no los puede desalojar al disco: con 1 GB no alcanza. Las etapas anteriores "
                       "(`keyed`, `curated_batch`) sí terminan, más lentas, porque sus agregaciones y ordenamientos "
                       "derraman a `spill/`.")
            out.append("")
            out.append("**Cambio** (`merge.py:assemble`): decidir qué fila sobrevive con columnas angostas y unir lo "
                       "ancho una sola vez: (a) `winners AS (SELECT row_id, max(load_seq) AS key_owner FROM "
                       "(SELECT row_id, 0 AS load_seq FROM cur_incidents UNION ALL SELECT row_id, load_seq FROM "
                       "curated_batch) GROUP BY row_id)` — una agregación de dos columnas que DuckDB derrama a "
                       "disco — o, más simple, un anti-join `NOT EXISTS (SELECT 1 FROM curated_batch b WHERE "
                       "b.row_id = i.row_id AND b.load_seq > i.load_seq)`; (b) en una primera carga "
                       "(`cur_incidents` vacía y un solo archivo) no hace falta nada de eso; (c) "
                       "`SET preserve_insertion_order = false` después de `load.read_raw` (solo ahí importa el orden "
                       "del archivo, para `rowid` → línea); el `ORDER BY` explícito sigue ordenando el Parquet.")
        else:
            out.append(f"**Causa.** Falla `{fe.get('sentencia')}` en `{fe.get('donde')}` a los "
                       f"{_f(fe.get('inicio_s'))} s de carga ({(d.get('error') or '')[:200]}).")
        out.append("")
        if re_:
            if re_.get("returncode") == 0:
                out.append(f"Con `CASANDRA_ETL_MEMORY_LIMIT={re_['memory_limit']}` la misma carga termina en "
                           f"{_f(re_['wall_s'])} s con pico RSS {_f(re_['peak_rss_mb'], 0)} MB: subir el límite "
                           "esconde la falla pero rompe el otro objetivo (RSS ≤ 2 GB) y el comentario de "
                           "`core/config.py` («keeps RSS under 2 GB»).")
            else:
                out.append(f"Con `CASANDRA_ETL_MEMORY_LIMIT={re_['memory_limit']}` también falla "
                           f"(código {re_.get('returncode')}).")
            out.append("")
        out.append("Aparte: con un límite de memoria muy bajo, un `OutOfMemoryException` dentro de `read_csv` "
                   "(`core/etl/load.py`, `read_raw`) se informa como «No se pudo leer … como CSV» "
                   "(`ValidacionError`), un mensaje engañoso; debería dejar pasar `duckdb.OutOfMemoryException` "
                   "para que `_run_locked` la convierta en `RESOURCE_LIMIT`.")
        out.append("")
    if e and not e.get("cumple_ratio"):
        items += 1
        prof = e.get("perfil") or {}
        top = prof.get("sentencias", [])
        share = lambda name: next((s["pct"] for s in top if s["sentencia"].endswith(name)), None)  # noqa: E731
        fa = e.get("falla") or {}
        r_ = e.get("ratio_p50") or fa.get("ratio_reintento")
        if r_ is None and prof.get("copia_duckdb_s"):
            r_ = round(prof["total_s"] / prof["copia_duckdb_s"], 1)
        out.append(f"### {items}. ETL {_f(r_, 1)}× más lenta que la copia de DuckDB (objetivo ≤ 1.5×)")
        out.append("")
        out.append("**Causa** (perfil por sentencia arriba): la lectura del CSV (`CREATE raw_1`) y la escritura del "
                   "Parquet son una fracción mínima; el tiempo se va en **materializar la tabla completa cinco veces, "
                   "con todas sus columnas de texto, y ordenarla dos veces** dentro de `staging.duckdb` con 1 GB de "
                   "memoria (derrama a disco):")
        out.append("")
        out.append(f"1. `core/etl/curate.py`, `curate()`, `INSERT INTO curated_batch … GROUP BY load_seq, cve_municipio, "
                   f"fecha, delito, metodo` con 11 `any_value(...)` de texto ({_f(share('curated_batch'))} % del total): "
                   "agrega *todas* las celdas aunque solo los archivos de formato reducido pueden sumar claves "
                   "repetidas; en IDM_NM cada grupo tiene una fila. **Cambio:** para `load_seq NOT IN (reducidos)` "
                   "insertar `SELECT … FROM keyed WHERE k_rank = 1` sin agregar, y agregar solo las filas de los "
                   "archivos reducidos.")
        out.append(f"2. `curate()`, `CREATE TABLE keyed` ({_f(share('keyed'))} %): tres funciones de ventana (`count`, "
                   "`row_number`, `min` `OVER (PARTITION BY load_seq, cve_municipio, fecha, delito, metodo)`) sobre "
                   "`SELECT *` de `checked` (≈30 columnas): un ordenamiento completo de filas anchas solo para hallar "
                   "duplicados, que casi nunca hay. **Cambio:** hallar los duplicados con una agregación angosta "
                   "(`SELECT load_seq, cve_municipio, fecha, delito, metodo, count(*), min(source_row) … GROUP BY ALL "
                   "HAVING count(*) > 1`, normalmente vacía) y excluirlos con un anti-join; `row_id` se calcula en la "
                   "misma pasada.")
        out.append(f"3. `core/etl/merge.py`, `assemble()`, `CREATE TABLE new_incidents` ({_f(share('new_incidents'))} %): "
                   "`max(load_seq) OVER (PARTITION BY row_id)` sobre la unión de la versión vigente y el lote, más "
                   "`ORDER BY delito, fecha, cve_municipio`. En una primera carga `cur_incidents` está vacía y la "
                   "ventana no decide nada. **Cambio:** resolver la propiedad con un anti-join (`NOT EXISTS` una clave "
                   "más nueva) y saltarlo cuando la versión vigente no tiene filas de los delitos del lote; conservar "
                   "el `ORDER BY` (da Parquet con buenos mapas de zonas para las consultas).")
        out.append(f"4. `curate()`, `CREATE TABLE parsed` y `CREATE TABLE checked` ({_f(share('parsed'))} % y "
                   f"{_f(share('checked'))} %), y `load.py`, `stage_cells()`, `INSERT INTO cells` "
                   f"({_f(share('cells'))} %): cada etapa es una tabla nueva que copia todas las columnas "
                   "(`source_file`, etiquetas de estado, municipio, bien jurídico, tipo, subtipo, modalidad… como "
                   "VARCHAR por celda). **Cambio:** llevar solo claves (`load_seq`, `source_row`, `columna`, "
                   "`cve_municipio`, `delito`, `metodo`, `fecha`, `valor`) por `cells → parsed → checked → keyed`, "
                   "fusionar `parsed` y `checked` en una sola sentencia, y unir las etiquetas desde `ent_map`/"
                   "`crime_map` solo al escribir `curated_batch`.")
        out.append("")
        ref = prof.get("una_pasada")
        if ref and prof.get("copia_duckdb_s"):
            out.append(f"**Sobre el objetivo.** Aun la *una pasada de referencia* (sin cuarentena, sin duplicados, sin "
                       f"fusión con la versión vigente) tarda {ref['total_s'] / prof['copia_duckdb_s']:.1f}× la copia "
                       f"directa en el mismo archivo, frente a {prof['total_s'] / prof['copia_duckdb_s']:.1f}× de la "
                       "ETL real: despivotar 12 meses, calcular `row_id` y ordenar por `delito, fecha, cve_municipio` "
                       "es trabajo que la copia no hace. ≤ 1.5× la copia no es alcanzable con esta forma de datos; "
                       f"(1)–(4) apuntan a acercar la ETL a esa referencia (≈ {prof['total_s'] / ref['total_s']:.0f}× "
                       "hoy). Propuesta: fijar el objetivo contra la referencia (p. ej. ETL ≤ 1.5× `single_pass`) y "
                       "volver a medir con `python -m bench.run --only etl`.")
        else:
            out.append("Aun con todo eso la ETL tiene que despivotar 12 columnas, validar y deduplicar, trabajo que la "
                       "copia directa no hace. Volver a medir con `python -m bench.run --only etl`.")
        out.append("")
    if e and e.get("cumple_rss") is False:
        items += 1
        out.append(f"### {items}. Pico de RSS de la ETL sobre 2 GB")
        out.append("")
        out.append("`core/config.py` limita DuckDB a `etl_memory_limit` (1GB), pero el RSS del proceso suma el "
                   "intérprete, los `fetchall()` de `build_maps` y las cachés de DuckDB fuera del límite. Bajar "
                   "`CASANDRA_ETL_MEMORY_LIMIT` o aplicar los cambios de arriba (tablas angostas) lo reduce.")
        out.append("")
    p = r["secciones"].get("pipeline")
    if p and "omitido" not in p and not p.get("cumple_p95"):
        items += 1
        slow = sorted(((s, v["p95"]) for s, v in p["etapas_ms"].items() if s != "total"), key=lambda x: -x[1])[:3]
        out.append(f"### {items}. Pipeline de preguntas: p95 total {_f(p['etapas_ms']['total']['p95'])} ms (> 150 ms)")
        out.append("")
        out.append("Etapas con mayor p95: " + ", ".join(f"{s} {_f(v)} ms" for s, v in slow) + ".")
        out.append("")
        au = p.get("auditoria")
        st = p["etapas_ms"].get("audit")
        if st:
            probe = ""
            if au:
                a, b = au["registro_con_log_nuevo_ms"], au["registro_con_log_abierto_ms"]
                probe = (f" Medido aparte (`bench/pipeline.py:audit_probe`, {au['n']} registros): abrir, anotar y cerrar "
                         f"un `AuditLog` cuesta p50 {_f(a['p50'], 2)} / p95 {_f(a['p95'], 2)} ms; anotar en uno que "
                         f"sigue abierto, p50 {_f(b['p50'], 2)} / p95 {_f(b['p95'], 2)} ms.")
            out.append(f"- **Auditoría** (etapa `audit`: p50 {_f(st['p50'])} / p95 {_f(st['p95'])} ms). "
                       "`core/stages.py`, `audit()`, hace `with AuditLog.for_settings(ctx.settings, …) as log:` en cada "
                       "pregunta: construye un `AuditLog` (`core/audit.py`, `__init__` → `_migrate()` relee las "
                       "migraciones), abre una conexión SQLite nueva (`_conn()`: `journal_mode=WAL`, `busy_timeout`) y "
                       "al salir la cierra (`close()`); al cerrarse la última conexión de una base WAL, SQLite hace "
                       f"*checkpoint* y borra el `-wal`, con `fsync`.{probe} **Cambio:** un `AuditLog` por proceso y "
                       "carpeta (caché como `core.store.get_store`), con la conexión por hilo abierta; `audit()` y "
                       "`core/api.py:execute` lo reutilizan en vez de abrir y cerrar.")
        ex = p["etapas_ms"].get("execute")
        if ex:
            out.append(f"- **Ejecución** (etapa `execute`: p50 {_f(ex['p50'])} / p95 {_f(ex['p95'])} ms): las mismas "
                       "pasadas extra de la sección anterior — `core/execute.py:_evidence` (2 consultas por "
                       "herramienta) y las 3–4 consultas de `core/tools/scope.py` — sobre el almacén incluido.")
        out.append("")
    if not items:
        out.append("Todos los objetivos medidos se cumplen.")
        out.append("")
    out.append("Sin medir todavía: punto 2 (pipeline de preguntas) hasta que exista el conjunto de evaluación, y "
               "punto 5 (tiempo de respuesta en el navegador).")
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
    a = r.get("antes")
    if not a:
        return []
    out = ["## Antes y después de un cambio hecho mientras se medía", ""]
    out.append(f"Mientras corría este benchmark otra persona cambió `core/` ({a.get('nota') or 'ver git log'}). "
               f"«Antes» es la corrida completa del {a['generado']} (carga 1 min {a['carga_promedio'][0]}), "
               f"«después» esta ({r['generado']}, carga {r['maquina']['carga_promedio'][0]}); misma máquina, mismos "
               "datos, misma semilla. Con otra carga de la máquina, compare las **razones** más que los ms.")
    out.append("")
    n, na = r["secciones"].get("national"), a.get("national")
    if n and na:
        rows = []
        for c in n["casos"]:
            b = na["casos"].get(c["caso"])
            if not b or "error" in c:
                continue
            d = c.get("desglose", {})
            rows.append([c["caso"], _f(b["tool_p50"]), _f(c["tool_ms"]["p50"]), f"{_f(b['ratio_p50'], 2)}×",
                         f"{_f(c['ratio_p50'], 2)}×", f"{_f(b['ratio_p95'], 2)}×", f"{_f(c['ratio_p95'], 2)}×",
                         f"{b['evidencia'][0]} / {_f(b['evidencia'][1])}",
                         f"{d.get('consultas_evidencia')} / {_f(d.get('evidencia'))}"])
        out += _table(["caso", "herramienta p50 antes (ms)", "después", "razón p50 antes", "después", "razón p95 antes",
                       "después", "evidencia antes (n / ms)", "después"], rows)
        out.append(f"Carga del almacén nacional (33 filas por municipio-año, {n['store']['row_counts']['incidents']:,} "
                   f"celdas, `run_etl` en el proceso): antes {_f(na.get('etl_s'))} s, después "
                   f"{_f(n['store'].get('etl_s'))} s{' (reutilizado)' if n['store'].get('reutilizado') else ''}.")
        out.append("")
    e, ea = r["secciones"].get("etl"), a.get("etl")
    if e and ea:
        def outcome(runs, falla):
            ok = [x for x in runs if x["returncode"] == 0]
            if ok:
                return f"termina: {', '.join(_f(x['wall_s']) + ' s' for x in ok)} (pico RSS {_f(max(x['peak_rss_mb'] for x in ok), 0)} MB)"
            fe = (falla or {}).get("fallo_en") or {}
            return (f"**falla** sin memoria: {', '.join(_f(x['wall_s']) + ' s' for x in runs)} (pico RSS "
                    f"{_f(max(x['peak_rss_mb'] for x in runs), 0)} MB)"
                    + (f"; en `{fe.get('sentencia')}` (`{fe.get('donde')}`)" if fe else ""))
        now_runs = [{k: x.get(k) for k in ("wall_s", "peak_rss_mb", "returncode")} for x in e["etl"]["corridas"]]
        fe_now = {"fallo_en": ((e.get("falla") or {}).get("diagnostico") or {}).get("fallo_en")}
        rows = [["archivo nacional, `python -m core etl` (1GB)", outcome(ea["corridas"], ea.get("falla")),
                 outcome(now_runs, fe_now if e.get("falla") else None)],
                ["razón ETL ÷ copia (p50)", f"{_f(ea.get('ratio_p50'), 1)}×", f"{_f(e.get('ratio_p50'), 1)}×"]]
        pa, pn = ea.get("perfil"), e.get("perfil")
        if pa and pn:
            rows.append(["perfil 10 %: ETL / una pasada / copia (s)",
                         f"{_f(pa['total_s'])} / {_f(pa.get('una_pasada_s'))} / {_f(pa.get('copia_s'), 2)}",
                         f"{_f(pn['total_s'])} / {_f((pn.get('una_pasada') or {}).get('total_s'))} / "
                         f"{_f(pn.get('copia_duckdb_s'), 2)}"])
            rows.append(["perfil 10 %: sentencias más caras (s)",
                         "; ".join(f"`{x}` {_f(y, 1)}" for x, y in pa["sentencias"][:4]),
                         "; ".join(f"`{x['sentencia']}` {_f(x['s'], 1)}" for x in pn["sentencias"][:4])])
        out += _table(["", "antes", "después"], rows)
    p, pa_ = r["secciones"].get("pipeline"), a.get("pipeline")
    if p and pa_ and "omitido" not in p:
        rows = [[k, f"{_f(pa_[k]['p50'])} / {_f(pa_[k]['p95'])}", f"{_f(p['etapas_ms'][k]['p50'])} / "
                 f"{_f(p['etapas_ms'][k]['p95'])}"] for k in ("execute", "audit", "total") if k in pa_]
        out.append("Pipeline de preguntas (p50 / p95 ms):")
        out.append("")
        out += _table(["etapa", "antes", "después"], rows)
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
    rows.append(["5", "tiempo de respuesta en el navegador", "no implementado aún", SKIP])
    out += _table(["punto", "objetivo", "medido", "¿cumple?"], rows)
    out += _machine(r)
    if "national" in secs:
        out += _national(secs["national"])
    if "etl" in secs:
        out += _etl(secs["etl"])
    out += _pipeline(secs.get("pipeline"))
    out += ["## 5. Navegador", "", "No implementado aún (lo prepara otra persona).", ""]
    out += _before_after(r)
    out += _pendientes(r)
    return "\n".join(out)
