"""Anomalies (tool 10): months whose count departs from the entity's own recent history.

For every entity in scope the monthly series of the selected crimes is built in one SQL
query (calendar months × entities, LEFT JOIN the sums; inside a crime's coverage an
absent cell is a zero, outside it the month does not exist). Each month of the window is
scored against the ``window`` calendar months before it with a robust z-score:

* ``z = 0.6745 · (x − mediana) / MAD``, ``MAD = mediana(|x_i − mediana|)``;
* when MAD = 0: ``z = (x − mediana) / (1.2533 · media(|x_i − mediana|))``;
* when that is 0 too (a flat base): the month is skipped if x equals the median, else
  ``z = ±99`` (capped, marked in ``z_acotado``). Any |z| above 99 is capped the same way.

A month needs at least ``window // 2`` published base months. It is an anomaly when
``|z| >= z_threshold``; ``severity = 1 − z_threshold / |z|`` (0 at the threshold, → 1).
"""

from __future__ import annotations

import warnings as _warnings
from datetime import date

import numpy as np

from core.text import month_count, shift_months
from core.tools import EVIDENCE_IDS, Evidence, ResolvedStep, ToolContext, ToolOutput
from core.tools.scope import crime_label, period_label, where
from core.tools.tally import per_child

COLUMNS = [
    ("entidad_id", "string"),
    ("label", "string"),
    ("fecha", "date"),
    ("conteo", "int"),
    ("mediana", "float"),
    ("z_score", "float"),
    ("severity", "float"),
    ("direccion", "string"),
    ("z_acotado", "bool"),
]
MAD_K = 0.6745
MEANAD_K = 1.2533
Z_CAP = 99.0


def robust_z(values: np.ndarray, window: int) -> dict[str, np.ndarray]:
    """Score every month from index ``window`` on against the ``window`` months before it.

    ``values``: entities × months, NaN where the month is not published. Returns arrays
    (entities × target months): ``x``, ``median``, ``z`` (NaN where not evaluated),
    ``evaluated``, ``capped`` and ``enough`` (the base had ``window // 2`` published months).
    """
    n_ent, n_months = values.shape
    targets = n_months - window
    if targets <= 0:
        empty = np.zeros((n_ent, 0))
        return {
            "x": empty,
            "median": empty,
            "z": empty,
            "evaluated": empty.astype(bool),
            "capped": empty.astype(bool),
            "enough": empty.astype(bool),
        }
    base = np.lib.stride_tricks.sliding_window_view(values, window, axis=1)[:, :targets, :]
    x = values[:, window:]
    with _warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        _warnings.simplefilter("ignore", RuntimeWarning)
        n_base = np.sum(~np.isnan(base), axis=2)
        med = np.nanmedian(base, axis=2)
        dev = np.abs(base - med[..., None])
        mad = np.nanmedian(dev, axis=2)
        meanad = np.nanmean(dev, axis=2)
        z_mad = MAD_K * (x - med) / mad
        z_mean = (x - med) / (MEANAD_K * meanad)
        z_flat = np.where(x > med, np.inf, np.where(x < med, -np.inf, np.nan))
        z = np.where(mad > 0, z_mad, np.where(meanad > 0, z_mean, z_flat))
    enough = n_base >= max(1, window // 2)
    evaluated = enough & ~np.isnan(x) & ~np.isnan(z)
    z = np.where(evaluated, z, np.nan)
    capped = evaluated & (np.abs(z) > Z_CAP)
    z = np.clip(z, -Z_CAP, Z_CAP)
    return {"x": x, "median": med, "z": z, "evaluated": evaluated, "capped": capped, "enough": enough}


def _series(ctx: ToolContext, step: ResolvedStep, start: date, first: date, end: date) -> dict[str, np.ndarray]:
    """Every entity × published month of ``start..end`` in one statement, as columns.

    Columns: ``k`` (the entity's position by code), ``entidad_id``, ``label``, ``t`` (months
    since ``start``), ``delitos`` (published that month), ``conteo``, and the evidence of
    each cell of the window (from ``first``): ``nev`` rows with events and ``ids``, their
    smallest row ids. Every row of the scope counts as evidence, published or not.
    """
    scope = step.scope
    entity = scope.entity
    cond, params = where(scope, with_window=False)
    if per_child(scope):
        ents_sql = "SELECT entidad_id, label, cve FROM entities WHERE nivel = 'municipio' AND estado_id = ?"
        ents_params = [entity.estado_id]
        key_sql, key_params = "i.entidad_id", []
    else:
        ents_sql = "SELECT CAST(? AS VARCHAR) AS entidad_id, CAST(? AS VARCHAR) AS label, NULL::VARCHAR AS cve"
        ents_params = [entity.entidad_id, entity.label]
        key_sql, key_params = "CAST(? AS VARCHAR)", [entity.entidad_id]
    crime_sql, crime_params = "", []
    if scope.delito_keys:
        crime_sql = f" AND delito IN ({', '.join('?' for _ in scope.delito_keys)})"
        crime_params = list(scope.delito_keys)
    sql = f"""
    WITH cov AS (
        SELECT delito, desde, hasta FROM coverage
        WHERE granularity = 'month' AND estado_id = ?{crime_sql}
    ), months AS (
        SELECT CAST(m AS DATE) AS fecha
        FROM generate_series(CAST(? AS DATE), CAST(? AS DATE), INTERVAL 1 MONTH) t(m)
    ), covered AS (
        SELECT mo.fecha, string_agg(DISTINCT cov.delito, '|' ORDER BY cov.delito) AS delitos
        FROM months mo JOIN cov ON mo.fecha BETWEEN cov.desde AND cov.hasta
        GROUP BY mo.fecha
    ), ents AS (
        SELECT entidad_id, label, row_number() OVER (ORDER BY cve, entidad_id) - 1 AS k FROM ({ents_sql})
    ), cells AS (
        SELECT {key_sql} AS entidad_id, i.fecha, i.eventos, i.row_id,
               EXISTS (SELECT 1 FROM cov WHERE cov.delito = i.delito AND i.fecha BETWEEN cov.desde AND cov.hasta) AS pub
        FROM incidents i
        WHERE {cond} AND i.fecha BETWEEN ? AND ?
    ), sums AS (
        SELECT entidad_id, fecha, sum(eventos) FILTER (WHERE pub) AS n,
               count(*) FILTER (WHERE eventos > 0 AND fecha >= ?) AS nev,
               min(row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE eventos > 0 AND fecha >= ?) AS ids
        FROM cells GROUP BY 1, 2
    )
    SELECT e.k, e.entidad_id, e.label, datediff('month', CAST(? AS DATE), c.fecha) AS t, c.delitos,
           CAST(coalesce(s.n, 0) AS DOUBLE) AS conteo, coalesce(s.nev, 0) AS nev,
           coalesce(s.ids, CAST([] AS BIGINT[])) AS ids
    FROM ents e CROSS JOIN covered c
    LEFT JOIN sums s ON s.entidad_id = e.entidad_id AND s.fecha = c.fecha"""
    all_params = [
        entity.estado_id,
        *crime_params,
        start,
        end,
        *ents_params,
        *key_params,
        *params,
        start,
        end,
        first,
        first,
        start,
    ]
    return ctx.query_columns(sql, all_params)


def _who(scope) -> str:
    e = scope.entity
    if e.nivel == "estado" and scope.nivel == "hijos":
        return f"municipios de {e.entidad_id}"
    return e.label


def detectar_anomalias(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Monthly anomalies per entity by robust z-score against the previous ``window`` months."""
    scope = step.scope
    window = int(step.args.get("window", 12))
    thr = float(step.args.get("z_threshold", 3.0))
    top_k = int(step.args.get("top_k", 10))
    first = scope.date_from.replace(day=1)
    last = scope.date_to.replace(day=1)
    start = shift_months(first, -window)
    n_months = month_count(start, last)
    cols = _series(ctx, step, start, first, last)
    ks, ts = cols["k"].astype(np.int64), cols["t"].astype(np.int64)
    n_ent = int(ks.max()) + 1 if len(ks) else 0  # every entity has a row in each published month
    values = np.full((n_ent, n_months), np.nan)
    values[ks, ts] = cols["conteo"]
    cell = np.full((n_ent, n_months), -1)  # the row of each entity-month, for the evidence
    cell[ks, ts] = np.arange(len(ks))
    firsts = np.unique(ks, return_index=True)[1]
    entities = list(zip(cols["entidad_id"][firsts].tolist(), cols["label"][firsts].tolist()))
    compositions = set(cols["delitos"].tolist())
    scored = robust_z(values, window)
    x, med, z, evaluated, capped = (scored[k] for k in ("x", "median", "z", "evaluated", "capped"))
    is_anom = evaluated & (np.abs(np.nan_to_num(z)) >= thr)

    anomalies = []
    for k, t in zip(*np.nonzero(is_anom)):
        zk = float(z[k, t])
        eid, label = entities[k]
        anomalies.append(
            {
                "entidad_id": eid,
                "label": label,
                "fecha": shift_months(first, int(t)),
                "conteo": int(x[k, t]),
                "mediana": float(med[k, t]),
                "z_score": round(zk, 2),
                "severity": round(1 - thr / abs(zk), 3),
                "direccion": "alza" if zk > 0 else "baja",
                "z_acotado": bool(capped[k, t]),
            }
        )
    anomalies.sort(key=lambda a: (-a["severity"], a["fecha"], a["entidad_id"]))
    rows = [[a[c] for c, _ in COLUMNS] for a in anomalies[:top_k]]

    total = len(anomalies)
    gravedad = round(sum(a["severity"] for a in anomalies) / total, 3) if total else 0
    with_anom = len({a["entidad_id"] for a in anomalies})
    warnings: list[str] = []
    skipped = int(np.sum(~np.isnan(x) & ~scored["enough"]))
    if skipped:
        warnings.append(
            f"{skipped} mes(es)-entidad sin base suficiente (menos de {max(1, window // 2)} meses "
            f"publicados entre los {window} previos): no se evaluaron."
        )
    if len(compositions) > 1:
        warnings.append(
            "Los delitos seleccionados tienen coberturas distintas: cada mes suma solo los delitos "
            "publicados ese mes, lo que puede crear saltos artificiales."
        )
    if any(a["z_acotado"] for a in anomalies):
        warnings.append(f"Algunos z-score se acotaron a ±{Z_CAP:g} (base sin variación).")
    if scope.entity.nivel == "municipio" and scope.nivel == "hijos" and "nivel" in getattr(step, "given", ()):
        warnings.append(f"{scope.entity.label} es un municipio: no tiene hijos; se analiza el municipio.")

    highlights = []
    if anomalies:
        a = anomalies[0]
        highlights.append(
            f"Mayor: {a['label']} {a['fecha']:%Y-%m} ({a['conteo']} vs mediana {a['mediana']:g}, "
            f"z={a['z_score']}, {a['direccion']})"
        )
        highlights.append(f"{with_anom} entidad(es) con anomalías; gravedad promedio {gravedad}")
    highlights.append(f"Umbral |z| ≥ {thr:g}; base de {window} meses previos")

    out = ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=(f"Anomalías de {crime_label(ctx, scope)} — {_who(scope)}, {period_label(scope)}: {total} detectadas"),
        highlights=highlights,
        evidence=_evidence(scope, anomalies, cols, cell[:, window:][is_anom]),
        warnings=warnings,
        metrics={
            "total_anomalias": total,
            "gravedad_promedio": gravedad,
            "entidades_con_anomalias": with_anom,
            "z_threshold": thr,
            "window": window,
        },
    )
    out.all_anomalies = anomalies  # the complete list, for agrupar_por_entidad (rows keep only top_k)
    return out


def _evidence(scope, anomalies: list[dict], cols: dict[str, np.ndarray], rows: np.ndarray) -> Evidence | None:
    """The incidents of the anomalous entity-months (scope filters, no window), with their summary.

    The months travel as two list parameters joined in a semi-join: a literal row list
    with thousands of placeholders is an order of magnitude slower. ``rows``: the
    statement's rows of those entity-months, which already hold their evidence.
    """
    if not anomalies:
        return None
    ids = np.sort(np.concatenate([np.asarray(cols["ids"][r], dtype=np.int64) for r in rows]))[: EVIDENCE_IDS + 1]
    summary = {"ids": ids.tolist(), "total": int(cols["nev"][rows].sum())}
    cond, params = where(scope, with_window=False)
    pairs = sorted({(a["entidad_id"], a["fecha"]) for a in anomalies})
    if scope.entity.nivel == "estado" and scope.nivel != "hijos":
        cond += " AND i.fecha IN (SELECT unnest(CAST(? AS DATE[])))"
        return Evidence(cond, params + [sorted({f for _, f in pairs})], **summary)
    cond += " AND (i.entidad_id, i.fecha) IN (SELECT unnest(CAST(? AS VARCHAR[])), unnest(CAST(? AS DATE[])))"
    return Evidence(cond, params + [[e for e, _ in pairs], [f for _, f in pairs]], **summary)
