"""Item 4 in BENCHMARKS.md: the «Objetivos» rows and section 4 (the ETL against DuckDB's bare copy).

Reads ``results.json["secciones"]["etl"]`` as written by ``bench.etl_throughput.run``: the
ETL, the bare ``read_csv`` → Parquet copy and, since the bare ``UNPIVOT`` reference was
added, ``despivote_duckdb``; runs from before it render «—» in its place. The «Pendientes»
entries of item 4 are in ``bench.report_etl_pending``.
"""

from __future__ import annotations

from bench.common import percentile
from bench.etl_throughput import ETL_RATIO, ETL_UNPIVOT_RATIO
from bench.report_fmt import NO, times
from bench.report_fmt import fmt as _f
from bench.report_fmt import ok as _ok
from bench.report_fmt import table as _table

MB = 2**20
COPY_SQL = "`COPY (SELECT * FROM read_csv(path, encoding='latin-1', header=true)) TO 'x.parquet' (FORMAT parquet)`"
UNPIVOT_SQL = (
    "`COPY (UNPIVOT (SELECT * FROM read_csv(…)) ON Enero, …, Diciembre INTO NAME mes VALUE eventos) "
    "TO 'x.parquet' (FORMAT parquet)`"
)
PROCESSES = (
    ("ETL (`python -m core etl`)", "etl"),
    ("copia DuckDB `read_csv` → Parquet", "copia_duckdb"),
    ("despivote DuckDB `read_csv` → `UNPIVOT` → Parquet", "despivote_duckdb"),
)


def p50(block: dict | None):
    """Median wall time of a measured process (None when it never finished)."""
    return ((block or {}).get("wall_s") or {}).get("p50")


def unpivot(e: dict) -> dict | None:
    """The bare-unpivot reference when this run measured it."""
    u = e.get("despivote_duckdb")
    return u if p50(u) else None


TARGET_UNPIVOT = f"ETL ≤ {ETL_UNPIVOT_RATIO:.1f}× el despivote `UNPIVOT` → Parquet de DuckDB (las mismas celdas)"
TARGET_COPY = f"ETL ≤ {ETL_RATIO:.1f}× la copia `read_csv` → Parquet de DuckDB"


def meets(e: dict) -> tuple[bool | None, bool | None]:
    """Whether the national load meets the issue's decided targets: (≤ 1.0× the bare unpivot, ≤ 2.5× the copy).

    Judged from the ratios, so an older ``results.json`` is read against today's targets; None: not measured."""
    ru = e.get("ratio_despivote_p50") if unpivot(e) else None
    rc = e.get("ratio_p50")
    return (None if ru is None else ru <= ETL_UNPIVOT_RATIO), (None if rc is None else rc <= ETL_RATIO)


def _ok_runs(block: dict) -> list[dict]:
    return [r for r in block.get("corridas", []) if r.get("returncode") == 0]


def peak_rss(block: dict):
    """Peak RSS (MB) of a process's successful runs."""
    return block.get("pico_rss_mb_max") or max((r.get("peak_rss_mb") or 0 for r in _ok_runs(block)), default=None)


def written(e: dict, key: str):
    """Rows each process wrote: the published cells for the ETL, DuckDB's count for the others."""
    for r in _ok_runs(e.get(key) or {}):
        if key == "etl":
            return (r.get("row_counts") or {}).get("incidents")
        try:
            return int(str(r.get("filas")).strip())
        except ValueError:
            return None
    return None


def summary_rows(e: dict) -> list[list]:
    """The item-4 rows of the «Objetivos» table."""
    f = e.get("falla")
    if f and e["etl"]["wall_s"]["n"] == 0:
        run = next(r for r in e["etl"]["corridas"] if r["returncode"] != 0)
        re_ = f.get("reintento") or {}
        retry = ""
        if re_:
            retry = f"; con `CASANDRA_ETL_MEMORY_LIMIT={re_['memory_limit']}`: " + (
                f"{_f(re_['wall_s'])} s = {_f(f.get('ratio_reintento'), 1)}× la copia, pico RSS "
                f"{_f(re_['peak_rss_mb'], 0)} MB"
                if re_.get("returncode") == 0
                else f"también falla (rc {re_.get('returncode')})"
            )
        return [
            [
                "4",
                f"{TARGET_UNPIVOT}; {TARGET_COPY}",
                f"**la carga falla** sin memoria (`RESOURCE_LIMIT`) tras {_f(run['wall_s'])} s con el límite por omisión "
                f"(1GB); la copia tarda {_f(e['copia_duckdb']['wall_s']['p50'])} s{retry}",
                NO,
            ],
            [
                "4",
                "pico de RSS de la ETL ≤ 2 GB",
                f"{_f(run['peak_rss_mb'], 0)} MB hasta fallar"
                + (f"; {_f(re_['peak_rss_mb'], 0)} MB con {re_['memory_limit']}" if re_ else ""),
                "❌ no (no termina)" if not re_ or re_.get("returncode") != 0 or re_["peak_rss_mb"] > 2048 else "✅ sí",
            ],
        ]
    u = unpivot(e)
    met_u, met_c = meets(e)
    etl = _f(e["etl"]["wall_s"]["p50"])
    return [
        [
            "4",
            TARGET_UNPIVOT,
            f"{_f(e.get('ratio_despivote_p50'), 2)}× ({etl} s frente a {_f(p50(u))} s)" if u else "no se midió",
            _ok(met_u),
        ],
        [
            "4",
            TARGET_COPY,
            f"{_f(e.get('ratio_p50'), 1)}× ({etl} s frente a {_f(e['copia_duckdb']['wall_s']['p50'])} s)",
            _ok(met_c),
        ],
        ["4", "pico de RSS de la ETL ≤ 2 GB", f"{_f(e['etl'].get('pico_rss_mb_max'), 0)} MB", _ok(e.get("cumple_rss"))],
    ]


def section(e: dict) -> list[str]:
    """The «## 4. ETL» section."""
    a = e["archivo"]
    u = unpivot(e)
    out = ["## 4. ETL: archivo nacional IDM_NM frente a la copia directa de DuckDB", ""]
    unp = (
        (
            f"; despivote = lo mismo con los doce meses despivotados, {UNPIVOT_SQL}, en un tercer subproceso: lo menos "
            "que cuesta en DuckDB un almacén de una fila por celda, sin etiquetas, revisiones, ids ni procedencia"
        )
        if "despivote_duckdb" in e
        else ""
    )
    out.append(
        f"Archivo sintético en el formato original IDM_NM (encabezado original, latin-1): "
        f"{a['bytes'] / MB:,.0f} MB, {a['rows']:,} filas ({a['filas_por_municipio_anio']} por municipio-año, "
        f"el catálogo completo del SESNSP), **{a['cells']:,} celdas mensuales**, {a['municipios']:,} municipios, "
        f"{a['anios'][0]}–{a['anios'][1]}. ETL = `python -m core --data-dir … etl ARCHIVO --quiet` en un "
        "subproceso (carpeta de datos vacía, `etl_memory_limit` 1GB por omisión); copia = "
        f"{COPY_SQL} en otro subproceso{unp}. Tiempo de pared y pico de RSS del árbol de procesos muestreado "
        "cada 50 ms con psutil; corridas alternadas."
    )
    out.append("")
    out.append("### Razones")
    out.append("")
    out += _table(
        [
            "",
            "ETL ÷ copia (p50)",
            f"¿≤ {ETL_RATIO:.1f}×?",
            "ETL ÷ despivote (p50)",
            f"¿≤ {ETL_UNPIVOT_RATIO:.1f}×?",
            "despivote ÷ copia (p50)",
            "pico RSS ETL",
            "¿RSS ≤ 2 GB?",
        ],
        [
            [
                "archivo nacional",
                _x(e.get("ratio_p50"), 1),
                _ok(meets(e)[1]),
                _x(e.get("ratio_despivote_p50") if u else None, 2),
                _ok(meets(e)[0]),
                times(p50(u), p50(e["copia_duckdb"])),
                _f(e["etl"].get("pico_rss_mb_max"), 0, " MB"),
                _ok(e.get("cumple_rss")),
            ]
        ],
    )
    if p50(e["etl"]):
        out += _ratios_note(e, u)
    out += _floor(e)
    out += _layouts(e)
    out.append("### Tiempos absolutos")
    out.append("")
    rows = []
    for label, key in PROCESSES:
        block = e.get(key)
        if block is None:
            continue
        w = block["wall_s"]
        cpu = [r.get("cpu_s") for r in _ok_runs(block)]
        mbs = block.get("mb_por_s") or (round(a["bytes"] / MB / w["p50"], 2) if w.get("p50") else None)
        cells_s = (
            e["etl"].get("celdas_por_s")
            if key == "etl"
            else round(a["cells"] / w["p50"])
            if key == "despivote_duckdb" and w.get("p50")
            else None
        )
        rows.append(
            [
                label,
                w["n"],
                _f(written(e, key)),
                _f(w["p50"]),
                _f(w["min"]),
                _f(w["max"]),
                _f(peak_rss(block), 0),
                _f(percentile(cpu, 50)),
                _f(mbs, 2),
                _f(cells_s),
            ]
        )
    out += _table(
        [
            "proceso",
            "corridas",
            "filas escritas",
            "pared p50 (s)",
            "mín (s)",
            "máx (s)",
            "pico RSS (MB)",
            "CPU p50 (s)",
            "MB/s",
            "celdas/s",
        ],
        rows,
    )
    out += _failure(e)
    out += _profile(e)
    return out


def _x(v, nd: int) -> str:
    return "—" if v is None else f"{v:,.{nd}f}×"


def _ratios_note(e: dict, u: dict | None) -> list[str]:
    a = e["archivo"]
    txt = (
        f"La copia escribe las {a['rows']:,} filas anchas del archivo tal como vienen; la ETL escribe "
        f"{a['cells']:,} celdas ({a['cells'] / a['rows']:.0f} por fila: una por mes), cada una con su `row_id`, "
        "su fecha, sus claves y su línea de origen."
    )
    if not u:
        why = "no terminó" if "despivote_duckdb" in e else "no se midió (`despivote_duckdb` se añadió después)"
        return [txt + f" El despivote simple {why} en esta corrida.", ""]
    rd = e.get("ratio_despivote_p50")
    txt += (
        f" El despivote simple escribe {_f(written(e, 'despivote_duckdb') or a['cells'])} celdas y cuesta "
        f"{times(p50(u), p50(e['copia_duckdb']))} la copia."
    )
    if rd is not None and rd < 1:
        rss_e, rss_u = e["etl"].get("pico_rss_mb_max"), peak_rss(u)
        mem = (
            f", con menos memoria (pico RSS {_f(rss_e, 0)} MB frente a {_f(rss_u, 0)} MB)"
            if rss_e and rss_u and rss_e < rss_u
            else ""
        )
        txt += (
            f" La ETL tarda menos que él ({_f(rd, 2)}×){mem}: escribe claves (enteros y ENUM) donde el despivote "
            "repite en cada celda las columnas de texto de su fila."
        )
    elif rd is not None:
        txt += f" La ETL tarda {_f(rd, 2)}× el despivote simple."
    return [txt, ""]


def _floor(e: dict) -> list[str]:
    """The design's floor measured on the national file itself, next to the copy in the same process."""
    fl = e.get("piso_completo")
    if not fl:
        return []
    etl = p50(e["etl"])
    return [
        f"**Piso del diseño en el archivo nacional** (`etl_profile.single_pass`, en el proceso del benchmark: "
        f"{fl['que_hace']}): {_f(fl['total_s'], 2)} s (lectura tipada {_f(fl['lectura_s'], 2)} s, escritura de las "
        f"celdas {_f(fl['resto_s'], 2)} s) frente a la copia en el mismo proceso, {_f(fl['copia_en_proceso_s'], 2)} s: "
        f"**{_x(fl.get('ratio_copia_en_proceso'), 2)} la copia sin revisar nada, sin etiquetas, sin resumen, sin "
        "publicar y sin arrancar Python**. Un almacén de una fila por celda con sus claves no baja de ahí en esta "
        "máquina: leer el CSV ya cuesta casi lo que la copia entera, y escribir 12 celdas por fila con clave, fecha "
        "e id cuesta otra copia."
        + (
            f" La ETL real ({_f(etl, 2)} s con el arranque del intérprete) es {times(etl, fl['total_s'])} ese piso."
            if etl
            else ""
        ),
        "",
    ]


def _layouts(e: dict) -> list[str]:
    """One row per cell (the store) against one per line with twelve month columns (``bench.store_layouts``)."""
    d = e.get("disenos")
    if not d:
        return []
    c = d["copia_en_proceso_s"]
    out = [
        "### ¿Y si el almacén guardara las filas anchas?",
        "",
        f"`bench/store_layouts.py`, en un proceso y desde una misma lectura tipada del archivo nacional: escribir las "
        f"celdas (una fila por mes, como hoy) cuesta {_f(d['escritura_larga_s'], 2)} s ({times(d['escritura_larga_s'], c)} "
        f"la copia en el mismo proceso, {_f(c, 2)} s; {_f(d['larga_mb'])} MB); escribir las filas anchas con las mismas "
        f"claves, ids y procedencia, {_f(d['escritura_ancha_s'], 2)} s ({times(d['escritura_ancha_s'], c)}; "
        f"{_f(d['ancha_mb'])} MB). Leerlas exige despivotar en cada consulta (una vista con `UNNEST`): un filtro de "
        "ventana sobre `fecha` ya no llega al Parquet, y uno sobre el año sí.",
        "",
    ]
    rows = [
        [q["consulta"], _f(q["larga_ms"]), _f(q["ancha_ms"]), _f(q["ancha_anio_ms"]) if q["ancha_anio_ms"] else "—"]
        for q in d["consultas"]
    ]
    out += _table(["consulta (mediana ms)", "por celda (hoy)", "por línea, vista", "por línea, vista + año"], rows)
    out.append(
        "Aun por línea, leer el CSV cuesta casi la copia entera y escribir otro tanto de una fracción de ella: "
        f"lo que queda bajo {ETL_RATIO:.1f}× no alcanza para revisar, resumir, calcular el sha256 y arrancar Python; y "
        "cada consulta que no diga el año (o que recorra el país) se vuelve varias veces más lenta."
    )
    out.append("")
    return out


def _failure(e: dict) -> list[str]:
    f = e.get("falla")
    if not f:
        return []
    out = ["### La carga nacional no termina", ""]
    run = next((r for r in e["etl"]["corridas"] if r["returncode"] != 0), {})
    out.append(
        f"`python -m core etl` sale con código {run.get('returncode')} tras {_f(run.get('wall_s'))} s "
        f"(pico RSS {_f(run.get('peak_rss_mb'), 0)} MB, CPU {_f(run.get('cpu_s'))} s):"
    )
    out.append("")
    out.append("```")
    out.append(f.get("stderr", "").strip()[:500])
    out.append("```")
    out.append("")
    d = f.get("diagnostico")
    if d:
        fe = d.get("fallo_en") or {}
        out.append(
            f"Repetida en el proceso del benchmark con cada sentencia cronometrada "
            f"(`bench/etl_profile.py`, mismo límite de 1GB): falla en **`{fe.get('sentencia')}`** "
            f"(`{fe.get('donde')}`), que empieza a los {_f(fe.get('inicio_s'))} s de carga y corre "
            f"{_f(fe.get('s'))} s antes del error; pico RSS del proceso {_f(d.get('pico_rss_mb'), 0)} MB. "
            f"Error: `{(d.get('error') or '')[:220]}`."
        )
        out.append("")
        rows = [[f"`{x['sentencia']}`", f"`{x['donde']}`", _f(x["s"], 1)] for x in d.get("orden", [])]
        if rows:
            out.append("Sentencias de ≥ 1 s, en orden de ejecución hasta la falla:")
            out.append("")
            out += _table(["sentencia", "función", "s"], rows)
    re_ = f.get("reintento")
    if re_:
        ok = re_.get("returncode") == 0
        out.append(
            f"Con `CASANDRA_ETL_MEMORY_LIMIT={re_['memory_limit']}` (subproceso medido igual): "
            + (
                f"termina en **{_f(re_['wall_s'])} s = {_f(f.get('ratio_reintento'), 1)}× la copia**, "
                f"pico RSS {_f(re_['peak_rss_mb'], 0)} MB, CPU {_f(re_.get('cpu_s'))} s, "
                f"{_f((re_.get('row_counts') or {}).get('incidents'))} celdas publicadas."
                if ok
                else f"también falla (código {re_.get('returncode')}): `{(re_.get('stderr') or '')[:200]}`"
            )
        )
        out.append("")
    return out


def reference_label(ref: dict) -> str:
    """What the profile's ``una_pasada`` measured: today's floor, or the sorting md5 pass of older runs."""
    if ref.get("que_hace"):
        return f"**piso de este diseño** (`etl_profile.single_pass`, 1 GB: {ref['que_hace']})"
    return (
        "una pasada de referencia de entonces (`etl_profile.single_pass` antes de 58e77a0: leer, mapear "
        "etiquetas, despivotar, `row_id` con md5, ordenar, Parquet; 1 GB)"
    )


def copy_base(prof: dict):
    """The reduced file's copy time for in-process numbers: the in-process copy when measured (no interpreter start)."""
    return (prof.get("una_pasada") or {}).get("copia_en_proceso_s") or prof.get("copia_duckdb_s")


def _profile(e: dict) -> list[str]:
    prof = e.get("perfil")
    if not prof:
        return []
    pa, copy_s, total = prof["archivo"], prof.get("copia_duckdb_s"), prof["total_s"]
    ref = prof.get("una_pasada")
    c_in = (ref or {}).get("copia_en_proceso_s")
    base = copy_base(prof)
    out = [
        f"### Dónde se va el tiempo de la ETL (perfil por sentencia, {pa['celdas']:,} celdas, "
        f"{pa['municipios']:,} municipios)",
        "",
    ]
    rest = prof.get("otros_s")
    rest_txt = (
        (
            f" {_f(rest, 2)} s quedan fuera de las sentencias cronometradas (Python entre sentencias, copiar y "
            "publicar los archivos de la versión)."
        )
        if rest is not None
        else ""
    )
    copies = f"{_f(copy_s)} s en su subproceso, {_f(c_in, 2)} s en este proceso" if c_in else f"{_f(copy_s)} s"
    out.append(
        f"`bench/etl_profile.py` envuelve la conexión de `core.etl.pipeline._connect` y cronometra cada "
        f"sentencia, en el proceso del benchmark (sin el arranque del intérprete ni las importaciones que paga "
        f"el subproceso). Carga total {_f(total)} s (la copia DuckDB del mismo archivo: {copies}; razón "
        f"{times(total, base)}).{rest_txt}"
    )
    out.append("")
    if ref and copy_s:
        rows = [
            [
                "copia DuckDB `read_csv` → Parquet" + (", en su subproceso (con el arranque)" if c_in else ""),
                _f(copy_s, 2),
                times(copy_s, base),
            ]
        ]
        if c_in:
            rows.append(["copia DuckDB `read_csv` → Parquet, en este proceso", _f(c_in, 2), "1.0×"])
        rows += [
            [reference_label(ref), _f(ref["total_s"], 2), times(ref["total_s"], base)],
            ["ETL real (`run_etl`)" + (", en este proceso" if c_in else ""), _f(total, 2), times(total, base)],
        ]
        out += _table(["mismo archivo reducido", "s", "× copia" + (" en este proceso" if c_in else "")], rows)
    rows = [
        [f"`{s['sentencia']}`", f"`{s['donde']}`", s["veces"], _f(s["s"], 2), f"{_f(s['pct'])} %"]
        for s in prof["sentencias"][:10]
    ]
    if rest is not None and total:
        rows.append(["(fuera de las sentencias cronometradas)", "", "", _f(rest, 2), f"{_f(100 * rest / total)} %"])
    out += _table(["sentencia", "función", "veces", "s", "% del total"], rows)
    return out
