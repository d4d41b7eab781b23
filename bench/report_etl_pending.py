"""Item 4 in «Pendientes»: why the ETL misses its targets, from the numbers of the run.

``ETL_WHY`` explains the statements of today's ETL by the label ``bench.etl_profile`` gives
them (matched by prefix); a statement without an entry is listed with its numbers only.
"""

from __future__ import annotations

from bench.etl_throughput import ETL_RATIO as RATIO
from bench.etl_throughput import ETL_UNPIVOT_RATIO
from bench.report_etl import copy_base, meets, p50, unpivot
from bench.report_fmt import fmt as _f
from bench.report_fmt import times

_WRITE = (
    "la escritura de las celdas de un archivo que no es toda la versión siguiente (otra carga o más archivos): despivota "
    "los doce meses y escribe cada celda con su `row_id` aritmético, su fecha, sus claves (ENUM), su conteo y su línea "
    "de origen (Parquet v2, zstd) en la carpeta de la carga; en una primera carga de un solo archivo las celdas van "
    "directo a `incidents_cells` (decisión 0015, sesión 24).",
    "es el trabajo propio de un almacén de una fila por celda: {cells} celdas en el archivo nacional donde la copia "
    "escribe {rows} filas.",
)

ETL_WHY = {  # label prefix → (what the statement does, what is left to gain there)
    "CREATE direct_mem.raw_": (
        "la lectura tipada del CSV a una tabla en memoria (meses como `DOUBLE`, para notar un conteo no entero): el "
        "mismo `read_csv` que paga la copia.",
        "es el piso de la lectura; solo bajaría leyendo y escribiendo en una misma pasada, y entonces las revisiones "
        "tendrían que correr sobre lo ya escrito.",
    ),
    "COPY (… UNPIVOT …)": _WRITE,
    "COPY ( SELECT kh_i": _WRITE,  # the label before bench.etl_profile named streamed COPYs by their file
    "CREATE cell_summary": (
        "una agregación de las celdas por archivo × estado × delito × mes (celdas, eventos y dos resúmenes enteros de "
        "`row_id`) que contesta propiedad, cobertura, reporte por delito, diferencias de una primera carga y huella "
        "de contenido; relee las celdas del Parquet recién escrito.",
        "las mismas sumas pueden salir de la tabla ancha en memoria (doce meses por fila; {rows} filas en el archivo "
        "nacional) antes de borrarla, sin releer las celdas.",
    ),
    "CREATE direct_summary_": (
        "el resumen de lo cargado (celdas, eventos y dos huellas enteras de `row_id` por estado × delito × mes) "
        "calculado de las filas anchas en memoria: contesta propiedad, cobertura, reportes por delito y la huella de "
        "contenido de la versión.",
        "poco: ya lee {rows} filas anchas en vez de {cells} celdas.",
    ),
    "CREATE qdb_new.incidents_by_state": (
        "las sumas por estado × delito × modalidad × mes de las celdas municipales, que leen las herramientas "
        "nacionales (en orden de delito y mes; decisión 0012); en una primera carga de un solo archivo, de sus "
        "filas anchas en memoria (decisión 0015, sesión 24), si no un GROUP BY sobre `incidents`.",
        "poco: ya lee las filas anchas, doce veces menos que las celdas.",
    ),
    "CREATE qdb_new.incidents": (
        "la única escritura de las celdas en una primera carga de un solo archivo: la tabla `incidents_cells` de la "
        "base de consulta de la versión (`store.duckdb`, la que leen las herramientas), con sus claves como ENUM, "
        "`cubre`, `origen` y `estatal`; la versión ya no guarda `incidents.parquet` (decisión 0015, sesión 24). "
        "DuckDB guarda su `row_id` sin comprimir (307 MB de la base nacional).",
        "guardar `row_id` comprimible (base de la línea + mes: la base nacional de 307 a 100 MB, medido) cambia el "
        "esquema que leen las herramientas y su evidencia (`row_id IN …`): un cambio propio, no de rendimiento.",
    ),
    "(Python) sha256": (
        "sha256 del archivo y revisión de su codificación, en Python (el hash en un segundo hilo).",
        "es una lectura del archivo que la copia no hace; podría solaparse con la lectura de DuckDB.",
    ),
    "SELECT count(*), min(anio)": (
        "las revisiones de la ruta directa en una sola agregación sobre la tabla en memoria: años, conteos negativos, "
        "fraccionarios o enormes y claves repetidas.",
        "poco: es lo que permite saltarse la ruta celda por celda.",
    ),
}


def why(label: str) -> tuple[str, str] | None:
    """What a profiled statement does and what is left to gain there (None when unknown)."""
    return next((v for k, v in ETL_WHY.items() if label.startswith(k)), None)


def failure_pending(e: dict | None, number: int) -> list[str]:
    """A «Pendientes» entry when the national load does not finish (empty otherwise)."""
    fa = (e or {}).get("falla")
    if not fa:
        return []
    d = fa.get("diagnostico") or {}
    fe = d.get("fallo_en") or {}
    return [
        f"### {number}. La ETL no carga el archivo nacional: se queda sin memoria",
        "",
        f"Falla `{fe.get('sentencia')}` (`{fe.get('donde')}`) a los {_f(fe.get('inicio_s'))} s de carga "
        f"({(d.get('error') or fa.get('stderr', ''))[:200]}). Ver la sección 4.",
        "",
    ]


def pending(e: dict | None, number: int) -> list[list[str]]:
    """The «Pendientes» entries for the ratio and the RSS of item 4, numbered from ``number``."""
    if not e or e.get("falla"):
        return []
    entries = []
    if False in meets(e):
        entries.append(_ratio(e, number))
    if e.get("cumple_rss") is False:
        prof = e.get("perfil") or {}
        seen = (
            f" En el perfil (archivo reducido) el pico fue {_f(prof['pico_rss_mb'], 0)} MB."
            if prof.get("pico_rss_mb")
            else ""
        )
        entries.append(
            [
                f"### {number + len(entries)}. Pico de RSS de la ETL sobre 2 GB",
                "",
                "`core/config.py` limita DuckDB a `etl_memory_limit` (1GB), pero el RSS del proceso suma el "
                f"intérprete y la memoria de DuckDB fuera de ese límite.{seen}",
                "",
            ]
        )
    return entries


def _floor_x(prof: dict, e: dict | None = None):
    """Today's floor ÷ the bare copy, both in one process: on the national file when measured, else the reduced one."""
    full = (e or {}).get("piso_completo") or {}
    if full.get("ratio_copia_en_proceso"):
        return full["ratio_copia_en_proceso"]
    ref = prof.get("una_pasada") or {}
    c_in = ref.get("copia_en_proceso_s")
    return ref["total_s"] / c_in if ref.get("que_hace") and c_in else None


def _decision(e: dict) -> list[str]:
    """What meeting ≤ 2.5× the copy would take, from the floor and the two layouts measured on the national file."""
    full, d = e.get("piso_completo") or {}, e.get("disenos") or {}
    if not (full.get("copia_en_proceso_s") and d.get("copia_en_proceso_s")):
        return []
    read_x = full["lectura_s"] / full["copia_en_proceso_s"]
    wide_x = d["escritura_ancha_s"] / d["copia_en_proceso_s"]
    etl, copy = p50(e["etl"]), p50(e["copia_duckdb"])
    extra = (
        (
            f" (la ETL real menos su piso: {etl - full['total_s']:.1f} s, {(etl - full['total_s']) / copy:.1f}× la "
            "copia, con el arranque)"
        )
        if etl and copy and etl > full["total_s"]
        else ""
    )
    worst = max(d["consultas"], key=lambda q: (q["ancha_anio_ms"] or q["ancha_ms"]) / q["larga_ms"])
    slow = (worst["ancha_anio_ms"] or worst["ancha_ms"]) / worst["larga_ms"]
    return [
        f"**Qué haría falta.** Leer el CSV tipado ya cuesta {read_x:.1f}× la copia. Con filas anchas (sección 4, "
        f"«¿Y si el almacén guardara las filas anchas?») la escritura bajaría a {wide_x:.1f}× y el piso a "
        f"~{read_x + wide_x:.1f}× **antes** de revisar años, conteos y claves, resolver etiquetas, calcular el "
        f"sha256 de procedencia, resumir la versión y arrancar el intérprete, que hoy suman más que el margen "
        f"restante{extra}; y «{worst['consulta']}» se vuelve {slow:.1f}× más lenta aun con el filtro por año. Cumplir "
        f"≤ {RATIO:.1f}× pide quitar revisiones o procedencia a la carga o escribir las celdas una sola vez (hoy el Parquet "
        "de la versión y su base de consulta): es una decisión de diseño, no una optimización pendiente.",
        "",
    ]


def _ratio(e: dict, number: int) -> list[str]:
    a, prof, u = e["archivo"], e.get("perfil") or {}, unpivot(e)
    etl, copy = p50(e["etl"]), p50(e["copia_duckdb"])
    rd = e.get("ratio_despivote_p50") if u else None
    vs_u = f" y {_f(rd, 2)}× el despivote (objetivo ≤ {ETL_UNPIVOT_RATIO:.1f}×)" if rd is not None else ""
    out = [
        f"### {number}. ETL {_f(e.get('ratio_p50'), 1)}× la copia de DuckDB (objetivo ≤ {RATIO:.1f}×){vs_u}",
        "",
    ]
    txt = f"El archivo nacional carga en {_f(etl)} s contra {_f(copy)} s de la copia directa"
    txt += (
        f" y {_f(p50(u))} s del despivote simple de DuckDB (ETL ÷ despivote = {_f(e.get('ratio_despivote_p50'), 2)}×)."
        if u
        else "."
    )
    pa, base = prof.get("archivo"), copy_base(prof)
    if pa and base and copy and pa.get("municipios", 0) < a.get("municipios", 0):
        same = ", las dos en el mismo proceso" if (prof.get("una_pasada") or {}).get("copia_en_proceso_s") else ""
        txt += (
            f" Con el {100 * pa['municipios'] / a['municipios']:.0f} % de los municipios (el perfil de la sección "
            f"4{same}) la razón es {prof['total_s'] / base:.1f}×; con el archivo completo, {etl / copy:.1f}×."
        )
    out += [txt, ""]
    uc = p50(u) / copy if u and copy else None
    fx = _floor_x(prof, e)
    unreachable = uc is not None and uc > RATIO and (fx is None or fx > RATIO)
    head = (
        f"**Por qué ≤ {RATIO:.1f}× la copia no es alcanzable con un almacén de una fila por celda.**"
        if unreachable
        else "**Qué hace la ETL que la copia no hace.**"
    )
    txt = (
        f"{head} La copia lee el CSV y escribe sus {a['rows']:,} filas anchas tal como vienen. La ETL escribe "
        f"{a['cells']:,} celdas ({a['cells'] / a['rows']:.0f} por fila), cada una con `row_id`, fecha, claves y "
        "línea de origen, después de revisar años, conteos y claves repetidas y de resolver las etiquetas contra "
        "el catálogo, y resume lo cargado para la propiedad, la cobertura, los reportes y la huella de contenido "
        "de la versión."
    )
    if uc:
        txt += f" Solo despivotar con DuckDB, sin nada de eso, cuesta {uc:.1f}× la copia en esta corrida" + (
            ", más que todo el margen del objetivo." if uc > RATIO else "."
        )
        rd = e.get("ratio_despivote_p50")
        if rd is not None and rd < 1:
            txt += (
                f" La ETL ya tarda menos que ese despivote ({rd:.2f}×): escribe claves donde él repite las "
                "etiquetas de texto de la fila en cada celda."
            )
    if fx is not None:
        where = " en el archivo nacional" if (e.get("piso_completo") or {}).get("ratio_copia_en_proceso") else ""
        txt += (
            " Ni siquiera el piso de este diseño (leer y escribir las celdas con claves, sin nada más; ver abajo) "
            f"cabe en el objetivo: {fx:.1f}× la copia{where}."
            if fx > RATIO
            else f" Pero el piso de este diseño (leer y escribir las celdas con claves, sin nada más; ver abajo) cuesta "
            f"{fx:.1f}× la copia: la forma de los datos no descarta el objetivo; lo que falta está en lo que la "
            "ETL añade a eso."
        )
    out += [txt, ""]
    out += _where(e, prof)
    out += _floor(prof, u, e)
    out += _decision(e)
    return out


def _where(e: dict, prof: dict) -> list[str]:
    if not prof.get("sentencias"):
        return []
    a, total = e["archivo"], prof["total_s"]
    pa, c_in = prof.get("archivo") or {}, (prof.get("una_pasada") or {}).get("copia_en_proceso_s")
    copies = f"{_f(c_in, 2)} s en el mismo proceso" if c_in else f"{_f(prof.get('copia_duckdb_s'))} s"
    out = [
        f"**Dónde se va el tiempo** (perfil de la sección 4: {_f(pa.get('celdas'))} celdas, {_f(total)} s en el "
        f"proceso del benchmark; la copia del mismo archivo, {copies}), sentencias de ≥ 5 % de mayor a menor:",
        "",
    ]
    fill = {"cells": f"{a['cells']:,}", "rows": f"{a['rows']:,}"}
    for st in [s for s in prof["sentencias"] if (s.get("pct") or 0) >= 5][:6]:
        head = f"- **`{st['sentencia']}`** ({_f(st['pct'])} %, {_f(st['s'], 2)} s)"
        w = why(st["sentencia"])
        out.append(f"{head}: {w[0]} **Qué queda:** {w[1].format(**fill)}" if w else f"{head}, en `{st['donde']}`.")
    rest = prof.get("otros_s")
    if rest is not None and total and rest / total >= 0.05:
        out.append(
            f"- fuera de las sentencias cronometradas ({100 * rest / total:.1f} %, {_f(rest, 2)} s): Python "
            "entre sentencias (etiquetas, metadatos) y copiar y publicar los archivos de la versión."
        )
    return out + [""]


def _floor(prof: dict, u: dict | None, e: dict) -> list[str]:
    out = []
    ref, base, total = prof.get("una_pasada"), copy_base(prof), prof.get("total_s")
    if ref and base and total and ref.get("que_hace"):
        f = ref["total_s"]
        where = " en el mismo proceso" if ref.get("copia_en_proceso_s") else ""
        txt = (
            f"**Piso de este diseño.** `etl_profile.single_pass` —{ref['que_hace']}— tarda {_f(f, 2)} s sobre el "
            f"mismo archivo reducido, {times(f, base)} la copia{where}; la ETL real, {_f(total, 2)} s "
            f"({times(total, f)} el piso)."
        )
        if total > f:
            txt += (
                f" Lo que la ETL añade a leer y escribir —revisiones, etiquetas, resumen, publicación— son "
                f"{total - f:.1f} s, el {100 * (total - f) / total:.0f} % de la carga."
            )
        out += [txt, ""]
    elif ref and base and total:
        out += [
            f"En el mismo archivo reducido, la una pasada de referencia de entonces (ordenaba y calculaba md5 por "
            f"celda) tardaba {times(ref['total_s'], base)} la copia y la ETL real {times(total, base)}.",
            "",
        ]
    rd = e.get("ratio_despivote_p50")
    if u and rd is not None:
        out += [
            "**Objetivos.** Contra la copia, el objetivo mide sobre todo la forma de los datos (filas anchas "
            "frente a una fila por celda); contra el despivote simple, que escribe las mismas celdas, mide el costo de "
            f"la ETL misma. El issue decidió los dos: ≤ {ETL_UNPIVOT_RATIO:.1f}× el despivote y ≤ {RATIO:.1f}× la copia; "
            f"hoy ETL ÷ despivote = {rd:.2f}×, "
            f"{'dentro' if rd <= ETL_UNPIVOT_RATIO else 'fuera'} de su objetivo.",
            "",
        ]
    return out
