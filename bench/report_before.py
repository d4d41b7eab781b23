"""«Antes y después» in BENCHMARKS.md: an A/B of two cores (``results.json["ab"]``) and a summary of an earlier run.

``summarize`` keeps the few numbers of a run that a later one is compared with
(``python -m bench.run --report-only --antes OLD.json``); it also takes such a summary
written by hand, for a run whose results.json is gone.
"""

from __future__ import annotations

from bench.common import percentile
from bench.national_cases import TOOL_RATIO
from bench.report_etl import p50, peak_rss, unpivot, written
from bench.report_fmt import fmt as _f
from bench.report_fmt import ok as _ok
from bench.report_fmt import table as _table
from bench.report_fmt import times


def summarize(r: dict) -> dict:
    """The compact numbers of a run that a later run is compared with (``results.json["antes"]``)."""
    if "secciones" not in r:  # already a summary
        return {**r, "nota": r.get("nota_antes") or r.get("nota")}
    out: dict = {
        "generado": r.get("generado"),
        "carga_promedio": r.get("maquina", {}).get("carga_promedio"),
        "nucleos": r.get("maquina", {}).get("nproc"),
        "nota": r.get("nota_antes"),
    }
    n = r["secciones"].get("national")
    if n:
        cells = n["store"].get("row_counts", {}).get("incidents")
        out["national"] = {
            "etl_s": n["store"].get("etl_s"),
            "celdas": cells,
            "casos": {
                c["caso"]: {
                    "tool_p50": c["tool_ms"]["p50"],
                    "tool_p95": c["tool_ms"]["p95"],
                    "sql_p50": c["sql_ms"]["p50"],
                    "ratio_p50": c["ratio_p50"],
                    "ratio_p95": c["ratio_p95"],
                    "evidencia": [
                        c.get("desglose", {}).get("consultas_evidencia"),
                        c.get("desglose", {}).get("evidencia"),
                    ],
                }
                for c in n["casos"]
                if "error" not in c
            },
        }
    e = r["secciones"].get("etl")
    if e:
        runs = e["etl"]["corridas"]
        u = unpivot(e)
        out["etl"] = {
            "corridas": [{k: x.get(k) for k in ("wall_s", "peak_rss_mb", "returncode")} for x in runs],
            "etl_p50": p50(e["etl"]),
            "pico_rss_mb": e["etl"].get("pico_rss_mb_max"),
            "celdas": written(e, "etl"),
            "copia_p50": e["copia_duckdb"]["wall_s"]["p50"],
            "ratio_p50": e.get("ratio_p50"),
            "despivote_p50": p50(u),
            "ratio_despivote_p50": e.get("ratio_despivote_p50") if u else None,
            "falla": {k: v for k, v in (e.get("falla") or {}).items() if k in ("stderr", "fallo_en")} or None,
        }
        d = (e.get("falla") or {}).get("diagnostico")
        if d:
            out["etl"]["falla"]["fallo_en"] = d.get("fallo_en")
        prof = e.get("perfil")
        if prof:
            ref = prof.get("una_pasada") or {}
            out["etl"]["perfil"] = {
                "total_s": prof["total_s"],
                "copia_s": prof.get("copia_duckdb_s"),
                "una_pasada_s": ref.get("total_s"),
                "una_pasada_que_hace": ref.get("que_hace"),
                "sentencias": [[x["sentencia"], x["s"]] for x in prof["sentencias"][:6]],
            }
    p = r["secciones"].get("pipeline")
    if p and "omitido" not in p:
        out["pipeline"] = {k: p["etapas_ms"][k] for k in ("total", "execute", "audit") if k in p["etapas_ms"]}
    return out


def section(r: dict) -> list[str]:
    """The «## Antes y después» section (empty without an A/B or an earlier run)."""
    a, ab = r.get("antes"), r.get("ab")
    if not a and not ab:
        return []
    out = ["## Antes y después", ""]
    note = (ab or {}).get("nota") or (a or {}).get("nota") or "ver `git log`"
    out.append(
        f"Entre la corrida anterior y esta cambió `core/` ({note}). Se registra el efecto con la misma "
        "máquina, los mismos datos y la misma semilla."
    )
    out.append("")
    if ab:
        out += _ab(ab)
    out += _national_compared(r, a)
    e, ea_ = r["secciones"].get("etl"), (a or {}).get("etl")
    if e and ea_:
        if any(x.get("returncode") == 0 for x in ea_["corridas"]):
            out += _etl_compared(r, a, e)
        else:
            out += _etl_failed_before(r, a, e)
    return out


def _ab(ab: dict) -> list[str]:
    out = [
        f"**A/B en el mismo momento** (`python -m bench.ab`: cada versión en su subproceso, alternadas "
        f"A, B, A, B; {ab['rondas']} rondas × {ab['corridas_por_ronda']} corridas por caso sobre el almacén "
        f"nacional de esta corrida). A = `{ab['core_importado']['A']}`, B = `{ab['core_importado']['B']}`.",
        "",
    ]
    ta, tb = ab["herramientas"]["A"], ab["herramientas"]["B"]
    rows = []
    for name, x in ta.items():
        y = tb.get(name)
        if not y or x.get("error") or y.get("error"):
            continue
        rows.append(
            [
                name,
                _f(x["tool_p50"]),
                _f(y["tool_p50"]),
                _f(x["sql_p50"]),
                f"{_f(x['ratio_p50'], 2)}×",
                f"{_f(y['ratio_p50'], 2)}×",
                f"{x['consultas'][0]} + {x['consultas'][1]}",
                f"{y['consultas'][0]} + {y['consultas'][1]}",
                _ok(x["iguales"] and y["iguales"]),
            ]
        )
    out += _table(
        [
            "caso",
            "herramienta p50 A (ms)",
            "B (ms)",
            "SQL p50 (ms)",
            "razón p50 A",
            "razón p50 B",
            "consultas A (propias + evidencia)",
            "B",
            "respuestas iguales",
        ],
        rows,
    )
    ea, eb = ab["etl_10pct"]["A"], ab["etl_10pct"]["B"]
    med = lambda runs: percentile([x["total_s"] for x in runs], 50)
    rows = [
        ["ETL (`run_etl`), s", " / ".join(_f(x["total_s"]) for x in ea), " / ".join(_f(x["total_s"]) for x in eb)],
        ["× copia directa", f"{med(ea) / ab['copia_s']:.1f}×", f"{med(eb) / ab['copia_s']:.1f}×"],
        [
            "pico RSS (MB)",
            _f(max((x.get("pico_rss_mb") or 0) for x in ea), 0),
            _f(max((x.get("pico_rss_mb") or 0) for x in eb), 0),
        ],
        [
            "sentencias más caras (s)",
            "; ".join(f"`{n}` {_f(v, 1)}" for n, v in ea[0]["sentencias"][:4]),
            "; ".join(f"`{n}` {_f(v, 1)}" for n, v in eb[0]["sentencias"][:4]),
        ],
    ]
    ref = f" y la referencia `etl_profile.single_pass` {_f(ab['una_pasada_s'], 2)} s" if ab.get("una_pasada_s") else ""
    out.append(
        f"ETL sobre el archivo reducido ({ab['celdas_10pct']:,} celdas, 10 % de los municipios); en el "
        f"mismo momento la copia directa tardó {_f(ab['copia_s'], 2)} s{ref}:"
    )
    out.append("")
    return out + _table(["", "A", "B"], rows)


def _national_compared(r: dict, a: dict | None) -> list[str]:
    """Item 3 per case: the tool against its hand-written SQL before and after."""
    before = ((a or {}).get("national") or {}).get("casos") or {}
    after = {c["caso"]: c for c in (r["secciones"].get("national") or {}).get("casos", []) if "error" not in c}
    names = [n for n in after if n in before]
    if not names:
        return []
    limit = TOOL_RATIO
    rows, met = [], [0, 0]
    for n in names:
        b, c = before[n], after[n]
        met[0] += (b["ratio_p95"] or 99) <= limit
        met[1] += (c["ratio_p95"] or 99) <= limit
        rows.append(
            [
                n,
                _f(b["tool_p50"]),
                _f(c["tool_ms"]["p50"]),
                f"{_f(b['ratio_p50'], 2)}× / {_f(b['ratio_p95'], 2)}×",
                f"{_f(c['ratio_p50'], 2)}× / {_f(c['ratio_p95'], 2)}×",
            ]
        )
    out = [
        f"**Herramientas frente a SQL escrito a mano** (sección 3; antes = corrida del {a['generado']}). Cumplen "
        f"≤ {limit}× (p95): **{met[0]}/{len(names)} antes, {met[1]}/{len(names)} después**. Los milisegundos "
        "dependen de la carga del momento; las razones se miden alternando herramienta y SQL.",
        "",
    ]
    return out + _table(
        ["caso", "herramienta p50 antes (ms)", "después (ms)", "razón p50 / p95 antes", "después"], rows
    )


def _load_after(r: dict, e: dict):
    """The 1-minute load when section 4 was measured (a partial run records its own)."""
    for u in r.get("actualizaciones", []):
        if e.get("generado") and u["generado"] == e["generado"] and "etl" in u["secciones"]:
            return u["carga_promedio"][0]
    return r["maquina"]["carga_promedio"][0]


def _etl_failed_before(r: dict, a: dict, e: dict) -> list[str]:
    ea_ = a["etl"]
    runs = ea_["corridas"]
    fe = (ea_.get("falla") or {}).get("fallo_en") or {}
    ok = [x for x in e["etl"]["corridas"] if x["returncode"] == 0]
    before = (
        f"**falla sin memoria** (`RESOURCE_LIMIT`) en {len(runs)} de {len(runs)} corridas, tras "
        f"{', '.join(_f(x['wall_s']) + ' s' for x in runs)} (pico RSS "
        f"{_f(max(x['peak_rss_mb'] for x in runs), 0)} MB)"
        + (
            f", en `{fe.get('sentencia')}` (`{fe.get('donde')}`, a los {_f(fe.get('inicio_s'))} s de carga)"
            if fe
            else ""
        )
    )
    after = (
        (
            f"termina en {', '.join(_f(x['wall_s']) + ' s' for x in ok)} (pico RSS "
            f"{_f(max(x['peak_rss_mb'] for x in ok), 0)} MB), {_f((ok[0].get('row_counts') or {}).get('incidents'))} "
            "celdas publicadas"
        )
        if ok
        else "falla"
    )
    out = [
        f"**Archivo nacional completo** (`python -m core etl`, límite 1GB). Antes = corrida completa del "
        f"{a['generado']} con la máquina cargada (carga 1 min {a['carga_promedio'][0]} sobre "
        f"{a.get('nucleos') or r['maquina']['nproc']} núcleos); después = esta corrida (carga "
        f"{_load_after(r, e)}). Los segundos no se comparan (la carga era otra); la falla sí, porque es de memoria, "
        "no de tiempo:",
        "",
    ]
    return out + _table(["", "antes", "después"], [["archivo nacional, 1GB", before, after]])


def _etl_compared(r: dict, a: dict, e: dict) -> list[str]:
    b = a["etl"]
    ok_b = [x for x in b["corridas"] if x.get("returncode") == 0]
    wall_b = b.get("etl_p50") or percentile([x["wall_s"] for x in ok_b], 50)
    rss_b = b.get("pico_rss_mb") or max(x.get("peak_rss_mb") or 0 for x in ok_b)
    wall_a, copy_a, u = p50(e["etl"]), p50(e["copia_duckdb"]), unpivot(e)
    runs = lambda n: "1 corrida" if n == 1 else f"p50 de {n} corridas"
    rows = [
        ["ETL, pared (s)", f"{_f(wall_b)} ({runs(len(ok_b))})", f"{_f(wall_a)} ({runs(e['etl']['wall_s']['n'])})"],
        ["copia DuckDB, pared p50 (s)", _f(b.get("copia_p50")), _f(copy_a)],
        ["**ETL ÷ copia**", f"**{_f(b.get('ratio_p50'), 1)}×**", f"**{_f(e.get('ratio_p50'), 1)}×**"],
        ["despivote simple de DuckDB, pared p50 (s)", _f(b.get("despivote_p50")), _f(p50(u))],
        ["ETL ÷ despivote", times(wall_b, b.get("despivote_p50"), 2), times(wall_a, p50(u), 2)],
        ["pico RSS de la ETL (MB)", _f(rss_b, 0), _f(peak_rss(e["etl"]), 0)],
        ["celdas publicadas", _f(b.get("celdas")), _f(written(e, "etl"))],
    ]
    pb, pa = b.get("perfil") or {}, e.get("perfil") or {}
    if pb and pa:
        rows.append(
            [
                "perfil en el archivo reducido: ETL ÷ copia",
                times(pb.get("total_s"), pb.get("copia_s")),
                times(pa.get("total_s"), pa.get("copia_duckdb_s")),
            ]
        )
        rows.append(
            [
                "sentencias más caras del perfil (s)",
                "; ".join(f"`{n}` {_f(v, 1)}" for n, v in pb["sentencias"][:4]),
                "; ".join(f"`{x['sentencia']}` {_f(x['s'], 1)}" for x in pa["sentencias"][:4]),
            ]
        )
    nb, na = a.get("national") or {}, (r["secciones"].get("national") or {}).get("store") or {}
    if nb.get("etl_s") and na.get("etl_s") and nb.get("celdas") == na.get("row_counts", {}).get("incidents"):
        rows.append(
            [
                f"carga del almacén de la sección 3 (`run_etl`, {_f(na.get('row_counts', {}).get('incidents'))} "
                "celdas), s",
                _f(nb["etl_s"]),
                _f(na["etl_s"]) + (" (reutilizada)" if na.get("reutilizado") else ""),
            ]
        )
    out = [
        f"**Archivo nacional completo** (`python -m core etl`, límite 1GB). Antes = corrida del {a['generado']} "
        f"(carga de 1 min {(a.get('carga_promedio') or ['?'])[0]} al empezar, "
        f"{a.get('nucleos') or r['maquina']['nproc']} núcleos); después = "
        + (f"la sección 4 de esta corrida, del {e['generado']}" if e.get("generado") else "esta corrida")
        + f" (carga {_load_after(r, e)}). Los segundos dependen de la carga de la máquina compartida; la razón con "
        "la copia, medida en corridas alternadas en el mismo momento, bastante menos."
    ]
    cb, ca = b.get("celdas"), written(e, "etl")
    if cb and ca and cb != ca:
        out[-1] += f" **Ojo:** los archivos no son iguales ({cb:,} y {ca:,} celdas); solo las razones se comparan."
    out.append("")
    out += _table(["", "antes", "después"], rows)
    rb, ra = b.get("ratio_p50"), e.get("ratio_p50")
    if rb and ra:
        rss_a = peak_rss(e["etl"])
        by = (
            f" ({rb / ra:.0f} veces menor)"
            if rb >= 1.5 * ra
            else f" ({ra / rb:.0f} veces mayor)"
            if ra >= 1.5 * rb
            else ""
        )
        out += [
            f"La razón ETL ÷ copia pasó de {rb:.1f}× a {ra:.1f}×{by}"
            + (f" y el pico de RSS de la ETL, de {rss_b:,.0f} MB a {rss_a:,.0f} MB." if rss_a and rss_b else "."),
            "",
        ]
    return out
