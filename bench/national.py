"""The national section: analysis-tool latency on the real national store, next to hand-written DuckDB SQL.

The store is the one ``python -m core build --nacional`` builds (``bench.national_store``): the bundled
files plus the 36 real national municipal Parquet parts (20 M rows), loaded by the real ETL. For every
case the plan goes through ``core.api.execute`` and its tool timing (``Execution.timings_ms["0:<tool>"]``)
is recorded next to the wall time of one hand-written SQL statement that computes the same result rows
straight from the version's Parquet files, in the same process, interleaved run by run (so neighbours'
load hits both alike). The answers are compared row by row. Without the parts (a fresh clone) the
section says so and is skipped.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import duckdb

from bench import national_store
from bench.common import norm_cell, quiet_fds, ratio, same_rows, stats
from bench.national_cases import TOOL_P95_MS, TOOL_RATIO, Case, NationalConfig, Paths, cases

NO_PARTS = "sin las partes nacionales (CASANDRA_NATIONAL_PARTS): la sección nacional se omite"

# -- building the store -------------------------------------------------------------------------


def build_bundled(work: Path) -> Path:
    """The bundled store (data/raw/manifest.json) built by the real ETL; returns its version folder."""
    from core.cli import load_manifest
    from core.config import DEFAULT_DATA_DIR, load_settings
    from core.etl import run_etl

    settings = load_settings(work / "bundled")
    if settings.store_dir.exists():
        shutil.rmtree(settings.store_dir)
    with quiet_fds():
        result = run_etl(load_manifest(DEFAULT_DATA_DIR / "raw"), settings)
    return settings.store_dir / "versions" / result.dataset_version


# -- running ------------------------------------------------------------------------------------


def _rows(env: dict) -> list[list]:
    return env["data"]["inline"]["rows"] if env.get("status") == "ok" else None


def run_case(case: Case, settings, paths: Paths, con: duckdb.DuckDBPyConnection, runs: int, warmup: int) -> dict:
    """Warm up, then ``runs`` interleaved (tool, SQL) pairs; timings and the comparison."""
    from core import api

    sql, params = case.sql(paths)
    tool_ms, exec_ms, sql_ms = [], [], []
    equal_all, worst, why, n_rows, env_meta = True, 0.0, "", None, {}
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        result = api.execution(case.plan, settings=settings, user="bench")
        t1 = time.perf_counter()
        got = con.execute(sql, params).fetchall()
        t2 = time.perf_counter()
        env = result.last
        if env.get("status") != "ok":
            return {"caso": case.name, "herramienta": case.tool, "error": env.get("error"), "plan": case.plan}
        key = next((k for k in result.timings_ms if k.endswith(":" + case.tool)), None)
        rows = _rows(env)
        ok, diff, reason = same_rows(rows, [list(r) for r in got])
        equal_all &= ok
        worst = worst if math.isnan(diff) else max(worst, diff)
        why = why or reason
        n_rows = len(rows)
        env_meta = {
            "date_range_effective": env["meta"].get("date_range_effective"),
            "range_adjusted": env["meta"].get("range_adjusted"),
            "warnings": env["meta"].get("warnings"),
        }
        if i >= warmup:
            tool_ms.append(result.timings_ms[key])
            exec_ms.append((t1 - t0) * 1000)
            sql_ms.append((t2 - t1) * 1000)
    t, s = stats(tool_ms), stats(sql_ms)
    return {
        "caso": case.name,
        "herramienta": case.tool,
        "nota": case.note,
        "plan": case.plan,
        "tool_ms": t,
        "execute_ms": stats(exec_ms),
        "sql_ms": s,
        "ratio_p50": ratio(t["p50"], s["p50"]),
        "ratio_p95": ratio(t["p95"], s["p95"]),
        "filas": n_rows,
        "respuestas_iguales": equal_all,
        "max_diff": worst,
        "diferencia": why,
        "cumple_p95": t["p95"] is not None and t["p95"] <= TOOL_P95_MS,
        "cumple_ratio": ratio(t["p95"], s["p95"]) is not None and ratio(t["p95"], s["p95"]) <= TOOL_RATIO,
        "meta": env_meta,
        "sql": " ".join(sql.split()),
        "muestras": {"tool_ms": [round(x, 2) for x in tool_ms], "sql_ms": [round(x, 2) for x in sql_ms]},
    }


@contextlib.contextmanager
def _instrumented(log: list):
    """Time every store query, the evidence step and the artifact write (this process only)."""
    from core import tools
    from core.dataset import store as st
    from core.engine import execute as ex

    state = {"evidence": False}
    orig_q, orig_ev, orig_wa = st.Store.query, ex._evidence, ex.write_artifact
    orig_cols = getattr(tools.ToolContext, "query_columns", None)

    def timed(fn):
        def run(self, sql, params=()):
            t0 = time.perf_counter()
            try:
                return fn(self, sql, params)
            finally:
                kind = "evidencia" if state["evidence"] else "sql_herramienta"
                log.append((kind, (time.perf_counter() - t0) * 1000, " ".join(sql.split())[:90]))

        return run

    query = timed(orig_q)

    def evidence(ctx, out):
        state["evidence"] = True
        try:
            return orig_ev(ctx, out)
        finally:
            state["evidence"] = False

    def artifact(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return orig_wa(*args, **kwargs)
        finally:
            log.append(("artefacto", (time.perf_counter() - t0) * 1000, ""))

    st.Store.query, ex._evidence, ex.write_artifact = query, evidence, artifact
    if orig_cols is not None:  # statements fetched as columns (older cores lack it)
        tools.ToolContext.query_columns = timed(orig_cols)
    try:
        yield
    finally:
        st.Store.query, ex._evidence, ex.write_artifact = orig_q, orig_ev, orig_wa
        if orig_cols is not None:
            tools.ToolContext.query_columns = orig_cols


def breakdown(case: Case, settings, runs: int = 5) -> dict:
    """Median split of one tool's time: its own queries, the evidence queries, the artifact, the rest."""
    from core import api

    runs_out: list[dict] = []
    for _ in range(runs):
        log: list = []
        with _instrumented(log):
            result = api.execution(case.plan, settings=settings, user="bench")
        key = next((k for k in result.timings_ms if k.endswith(":" + case.tool)), None)
        total = result.timings_ms.get(key, 0.0)
        one = {"tool_ms": total}
        for k in ("sql_herramienta", "evidencia", "artefacto"):
            one[k] = round(sum(ms for kind, ms, _ in log if kind == k), 2)
        one["python"] = round(max(0.0, total - one["sql_herramienta"] - one["evidencia"] - one["artefacto"]), 2)
        one["consultas_herramienta"] = sum(1 for kind, _, _ in log if kind == "sql_herramienta")
        one["consultas_evidencia"] = sum(1 for kind, _, _ in log if kind == "evidencia")
        one["consultas"] = [(kind, round(ms, 2), text) for kind, ms, text in log if kind != "artefacto"]
        runs_out.append(one)
    runs_out.sort(key=lambda r: r["tool_ms"])
    out = runs_out[len(runs_out) // 2]  # the run with the median tool time, whole
    out["corridas"] = len(runs_out)
    return out


def run(
    cfg: NationalConfig,
    work: Path,
    log=print,
    profile=None,
    profile_dir: Path | None = None,
    reuse: bool = True,
) -> dict:
    """Build the real national store and time every case; returns the JSON section (``omitido`` without parts).

    ``profile`` and ``profile_dir`` (the synthetic country's, for the ETL section) are not used here."""
    from core.config import load_settings
    from core.etl.publish import Depot

    parts = national_store.parts_folder()
    if parts is None:
        log(f"[national] {NO_PARTS}")
        return {"omitido": NO_PARTS}
    log(f"[national] almacén nacional con las partes de {parts}")
    built = national_store.build(work, parts, reuse)
    log(
        f"[national] ETL {built['etl_s']} s → {built['dataset_version']} {built['row_counts']}"
        + (" (reutilizado)" if built.get("reutilizado") else "")
    )
    settings = load_settings(built["data_dir"])
    depot = Depot(settings.store_dir)
    con = duckdb.connect()
    paths = Paths(depot.version_dir(depot.current_id()), con, Path(built["data_dir"]).parent / "parquet_copia")
    con.execute("SET enable_progress_bar = false")
    out = []
    for case in cases(cfg):
        res = run_case(case, settings, paths, con, cfg.runs, cfg.warmup)
        if "error" not in res:
            res["desglose"] = breakdown(case, settings, runs=max(3, min(5, cfg.runs)))
        out.append(res)
        if "error" in res:
            log(f"[national] {case.name}: ERROR {res['error']}")
        else:
            log(
                f"[national] {case.name}: tool p50 {res['tool_ms']['p50']} p95 {res['tool_ms']['p95']} ms; "
                f"SQL p50 {res['sql_ms']['p50']} p95 {res['sql_ms']['p95']} ms; ratio p95 {res['ratio_p95']}; "
                f"iguales={res['respuestas_iguales']} {res['diferencia']}"
            )
    con.close()
    return {
        "config": {k: v for k, v in asdict(cfg).items() if k not in ("per_state", "crimes", "seed")},
        "store": built,
        "casos": out,
        "objetivos": {"tool_p95_ms": TOOL_P95_MS, "ratio_max": TOOL_RATIO},
    }


def rows_repr(rows) -> list:
    """Rows as plain JSON (for debugging output)."""
    return [[norm_cell(c) for c in r] for r in rows]
