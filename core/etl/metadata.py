"""The metadata of a published version (docs/contracts/001_casandra_v0.md §8-§9) and the maps it carries."""

from __future__ import annotations

import re
import shutil
from datetime import date, timedelta
from pathlib import Path

from core.etl.precedence import month_bounds, place_coverage_sql
from core.etl.publish import Depot
from core.text import month_end

# The format of what a version derives from its data (the query database's one-number-per-cell
# ``incidents``, the municipal observations' coverage). Raised when that derivation changes, so
# the same files publish a new version and ``build --if-missing`` rebuilds a store made before.
DERIVED_FORMAT = 3


def stale(meta: dict | None) -> bool:
    """Whether a published version was derived in an older format than this code's."""
    return bool(meta) and int(meta.get("formato_derivados") or 1) < DERIVED_FORMAT


def new_geo(previous: dict, geo_files) -> bool:
    """Whether a load brings a map the previous version did not have."""
    have = {g.get("sha256") for g in previous.get("geo", {}).values()}
    return any(g.sha256 not in have for g in geo_files)


def _geo_key(geo_file) -> tuple[str, str]:
    """The file name a map is stored under in the version, and its key in the metadata."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(geo_file.name.split(":")[-1]).name)
    return safe, Path(safe).stem


def geo_digest(previous: dict | None, geo_files) -> list[str] | None:
    """The hashes of the maps the next version will carry (the previous ones, replaced or joined by
    this load's), for its content digest; None when it carries none.

    Taken from the resulting version, not from the load: reloading a built store's file without
    its map must give the digest the build gave, or an unchanged load publishes a new version."""
    shas = {key: info.get("sha256") for key, info in ((previous or {}).get("geo") or {}).items()}
    shas.update({_geo_key(g)[1]: g.sha256 for g in geo_files})
    return sorted(shas.values()) or None


def copy_geo(depot: Depot, previous: dict | None, geo_files, staging: Path) -> dict:
    """Carry the previous version's maps forward and add the new ones."""
    out: dict = {}
    (staging / "geo").mkdir(exist_ok=True)
    if previous:
        for key, info in previous.get("geo", {}).items():
            src = depot.version_dir(previous["dataset_version"]) / info["path"]
            if src.is_file():
                shutil.copyfile(src, staging / info["path"])
                out[key] = info
    for g in geo_files:
        safe, key = _geo_key(g)
        shutil.copyfile(g.path, staging / "geo" / safe)
        out[key] = {"path": f"geo/{safe}", "sha256": g.sha256, "archivo": g.name}
    return out


def _joined(runs: list[dict]) -> list[dict]:
    """Coverage runs sorted, a run that starts the month after the previous one ends joined to it."""
    out: list[dict] = []
    for r in sorted(runs, key=lambda r: r["desde"]):
        last = out[-1] if out else None
        if last and date.fromisoformat(last["hasta"]) + timedelta(days=1) >= date.fromisoformat(r["desde"]):
            last["hasta"] = max(last["hasta"], r["hasta"])
            last["meses"] = (last.get("meses") or 0) + (r.get("meses") or 0)
        else:
            out.append(dict(r))
    return out


# A municipality's curated cells in months its state's coverage leaves out (a load that brought only some
# municipalities of a month: core.etl.coverage.mark_partial_months): that municipality's own runs.
PLACE_CELLS_SQL = """
    SELECT entidad_id, delito, min(fecha), max(fecha), count(*)::INTEGER
    FROM (SELECT *, (year(fecha) * 12 + month(fecha))
                    - row_number() OVER (PARTITION BY entidad_id, delito ORDER BY fecha) AS grp
          FROM (SELECT DISTINCT entidad_id, estado_id, delito, fecha FROM new_incidents
                SEMI JOIN uncovered_slices USING (estado_id, delito, fecha)) i)
    GROUP BY entidad_id, delito, grp"""


def place_cells_sql(con) -> str | None:
    """``PLACE_CELLS_SQL`` when some month of the next version's cells lies outside its state's coverage, else None.

    Those months are found in the cells' summary (``new_incidents_summary``: one row per state, crime and month),
    so the cells themselves are read only when there are some: usually none (the national file's 29 M cells were
    deduplicated in 14 s to find that no month is left out)."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE uncovered_slices AS
           SELECT DISTINCT estado_id, delito, fecha FROM new_incidents_summary s
           WHERE NOT EXISTS (SELECT 1 FROM new_coverage_month c WHERE c.estado_id = s.estado_id
                             AND c.delito = s.delito AND s.fecha BETWEEN c.desde AND c.hasta)"""
    )
    return PLACE_CELLS_SQL if con.execute("SELECT count(*) FROM uncovered_slices").fetchone()[0] else None


# A crime a state's municipalities report as 0 in every published month (Guanajuato's «otros delitos que atentan
# contra la libertad personal», 2015-2025): a structural zero, most likely counted under another crime. A zero
# answer of it says so (core/ask/compose.py), never «no cases» alone.
# The cells are counted from their summary (one row per state, crime and month), not read again (29 M nationally).
ALWAYS_ZERO_SQL = """
    SELECT delito, list(estado_id ORDER BY estado_id)
    FROM (SELECT delito, estado_id FROM (
              SELECT delito::VARCHAR AS delito, estado_id::VARCHAR AS estado_id, sum(ev) AS eventos, sum(n) AS n
              FROM new_incidents_summary GROUP BY ALL
              UNION ALL SELECT delito, estado_id, sum(eventos), count(*) FROM new_observations
              WHERE nivel = 'municipio' AND medida = 'carpetas' AND vigente GROUP BY ALL)
          GROUP BY ALL HAVING sum(eventos) = 0 AND sum(n) >= 12)
    GROUP BY delito"""


def build_metadata(con, vid, digest, loaded_at, previous, counts, reports, load_id, geo) -> dict:
    """The version's metadata.json (docs/contracts/001_casandra_v0.md §8-§9)."""
    cov_rows = con.execute(
        """SELECT c.delito, c.granularity, c.estado_id, c.desde, c.hasta, c.meses,
                  coalesce(k.subtipo, c.delito)
           FROM (SELECT * FROM new_coverage UNION ALL SELECT * FROM new_obs_coverage) c
           LEFT JOIN new_crimes k USING (delito) ORDER BY c.delito, c.estado_id, c.desde"""
    ).fetchall()
    coverage: dict = {}
    for delito, gran, estado, desde, hasta, meses, label in cov_rows:
        end = month_end(hasta.year, hasta.month) if gran == "month" else date(hasta.year, 12, 31)
        item = coverage.setdefault(
            delito,
            {"label": label, "granularity": gran, "desde": desde.isoformat(), "hasta": end.isoformat(), "estados": {}},
        )
        item["desde"] = min(item["desde"], desde.isoformat())
        item["hasta"] = max(item["hasta"], end.isoformat())
        item["estados"].setdefault(estado, []).append(
            {"desde": desde.isoformat(), "hasta": end.isoformat(), "meses": meses}
        )
    for item in coverage.values():  # two sources' adjacent runs (incidents to 2024, the parquet from 2025) are one
        item["estados"] = {e: _joined(runs) for e, runs in item["estados"].items()}
    for delito, states in con.execute(ALWAYS_ZERO_SQL).fetchall():
        if delito in coverage:
            coverage[delito]["siempre_cero"] = list(states)
    monthly = [v for v in coverage.values() if v["granularity"] == "month"]
    # A municipality's own finer file (Irapuato's subtipos): its months, kept apart from the state's coverage and
    # from the version's dates (another municipality has no number there).
    by_place: dict = {}
    cells = place_cells_sql(con)
    months = month_bounds(con, "new_observations") or (0, 0)
    for lugar, delito, desde, hasta, meses in con.execute(
        f"""SELECT * FROM ({place_coverage_sql("new_observations", "new_entities", "new_obs_coverage", months)})
            {f"UNION ALL SELECT * FROM ({cells})" if cells else ""} ORDER BY 2, 1, 3"""
    ).fetchall():
        run = {"desde": desde.isoformat(), "hasta": month_end(hasta.year, hasta.month).isoformat(), "meses": meses}
        by_place.setdefault(delito, {}).setdefault(lugar, []).append(run)
    span = monthly or list(coverage.values())
    min_date = min((v["desde"] for v in span), default=None)
    max_date = max((v["hasta"] for v in span), default=None)
    annual = con.execute(
        "SELECT anio, any_value(metodologia), bool_or(parcial), min(meses) FROM new_annual GROUP BY anio ORDER BY anio"
    ).fetchall()
    sources_list = list(previous.get("sources", [])) if previous else []
    seen = {(s["archivo"], s["sha256"]) for s in sources_list}
    for r in reports:
        key = (r["archivo"], r["sha256"])
        if key in seen:
            continue
        seen.add(key)
        sources_list.append(
            {
                "archivo": r["archivo"],
                "sha256": r["sha256"],
                "bytes": r["bytes"],
                "formato": r["formato"],
                "codificacion": r["codificacion"],
                "contenedor": r["contenedor"],
                "procedencia": r["procedencia"],
                "cargado_en": loaded_at,
                "load_id": load_id,
                "filas": r.get("filas"),
                "cobertura": r.get("cobertura"),
            }
        )
    return {
        "schema_version": "1.0.0",
        "dataset_version": vid,
        "content_hash": digest,
        "formato_derivados": DERIVED_FORMAT,
        "min_date": min_date,
        "max_date": max_date,
        "data_available_until": max_date,
        "updated_at": loaded_at,
        "previous_version": previous["dataset_version"] if previous else None,
        "granularity": "month",
        "coverage": coverage,
        "coverage_municipal": by_place,
        "annual_series": {
            "total_delitos": {
                "granularity": "year",
                "years": {str(y): {"metodologia": m, "parcial": bool(p), "meses": int(n)} for y, m, p, n in annual},
                "nota": "Agregado anual de todos los delitos; nunca se suma a las series mensuales.",
            }
        }
        if annual
        else {},
        "row_counts": counts,
        "sources": sources_list,
        "geo": geo,
        "loads": ((previous or {}).get("loads", []) + [{"load_id": load_id, "at": loaded_at}])[-50:],
    }
