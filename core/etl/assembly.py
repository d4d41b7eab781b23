"""The next version's tables (``new_<table>``), assembled from the current version and the curated load.

The newest owner of a cell wins (docs/decisions/0002-upload-ownership.md): a cell survives when no newer
file carries the same key and no newer long file owns its (state, crime, month) slice. Owned months collapse
into coverage runs; yearly totals, population, entities, crimes and methods are assembled beside them.
"""

from __future__ import annotations

import duckdb

from core.dataset import entities, taxonomy
from core.etl import coverage, observations
from core.etl.merge import INCIDENT_COLUMNS, SUMMARY_COLUMNS, current_cells


def assemble(
    con: duckdb.DuckDBPyConnection,
    load_id: str,
    loaded_at: str,
    monthly_files: int | None = None,
    obs_table: str = "new_observations",
) -> None:
    """Build the ``new_<table>`` tables of the next version.

    ``obs_table`` is where the observations are written (the next version's query database, when attached)."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE cur_slices AS
           SELECT 0 AS load_seq, estado_id, delito, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS fecha
           FROM cur_coverage WHERE granularity = 'month'"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE owner AS
           SELECT estado_id, delito, fecha,
                  coalesce(max(load_seq) FILTER (WHERE kind = 'slice'), 0) AS slice_owner
           FROM (SELECT *, 'cur' AS kind FROM cur_slices UNION ALL SELECT * FROM owned) GROUP BY ALL"""
    )
    if monthly_files is None:
        monthly_files = con.execute("SELECT count(DISTINCT load_seq) FROM curated_all").fetchone()[0]
    cols = INCIDENT_COLUMNS
    if monthly_files <= 1 and current_cells(con) == 0:
        # A first load of one file: nothing to merge with, the curated cells are the version (a directly loaded
        # file's are already in the next version's query database when core.etl.pipeline sent them there).
        con.execute(f"CREATE OR REPLACE VIEW new_incidents AS SELECT {cols} FROM curated_all")
        con.execute("CREATE OR REPLACE VIEW new_incidents_summary AS SELECT * FROM cell_summary")
    else:
        # A cell survives when no newer file carries the same key and no newer long file owns
        # its (state, crime, month) slice. Only keys seen twice need a decision: a narrow
        # aggregation finds them, instead of a window over every row.
        con.execute(
            """CREATE OR REPLACE TEMP TABLE key_owner AS
               SELECT row_id, max(load_seq) AS owner
               FROM (SELECT row_id, 0 AS load_seq FROM cur_incidents UNION ALL SELECT row_id, load_seq FROM curated_all)
               GROUP BY row_id HAVING count(*) > 1"""
        )
        con.execute(
            f"""CREATE OR REPLACE TABLE new_incidents AS
                SELECT {cols} FROM (
                    SELECT 0 AS load_seq, {cols} FROM cur_incidents
                    UNION ALL SELECT load_seq, {cols} FROM curated_all
                ) i LEFT JOIN key_owner k USING (row_id) LEFT JOIN owner o USING (estado_id, delito, fecha)
                WHERE (k.owner IS NULL OR i.load_seq = k.owner) AND i.load_seq >= coalesce(o.slice_owner, 0)"""
        )
        con.execute(f"""CREATE OR REPLACE VIEW new_incidents_summary AS
                        SELECT {SUMMARY_COLUMNS} FROM (SELECT 0 AS load_seq, * FROM new_incidents) GROUP BY ALL""")
    # Consecutive owned months collapse into coverage runs (usually one per crime); a month a load leaves
    # incomplete for the state stays out (core.etl.coverage.mark_partial_months).
    coverage.mark_partial_months(con)
    con.execute(
        """CREATE OR REPLACE TABLE new_coverage_month AS
           SELECT estado_id, delito, 'month' AS granularity, min(fecha) AS desde, max(fecha) AS hasta,
                  count(*)::INTEGER AS meses
           FROM (SELECT *, (year(fecha) * 12 + month(fecha))
                        - row_number() OVER (PARTITION BY estado_id, delito ORDER BY fecha) AS grp
                 FROM owner ANTI JOIN partial_months USING (estado_id, delito, fecha))
           GROUP BY estado_id, delito, grp"""
    )
    _newest_per_key(
        con,
        "annual",
        "row_id, anio, cve_municipio, cve_ent, estado_id, entidad_id, municipio, delito, eventos, metodologia, parcial, meses, source_file, source_row",
        key="cve_municipio, anio, delito",
        order="delito, anio, cve_municipio",
    )
    _newest_per_key(
        con,
        "population",
        "cve_municipio, entidad_id, estado_id, anio, poblacion, fuente, source_file, source_row",
        key="cve_municipio, anio, fuente",
        order="fuente, cve_municipio, anio",
    )
    con.execute(
        """CREATE OR REPLACE TABLE new_coverage AS
           SELECT * FROM new_coverage_month
           UNION ALL
           SELECT estado_id, delito, 'year', make_date(min(anio), 1, 1), make_date(max(anio), 1, 1),
                  (max(anio) - min(anio) + 1)::INTEGER
           FROM new_annual GROUP BY estado_id, delito
           ORDER BY delito, estado_id, desde"""
    )
    _assemble_entities(con)
    observations.assemble(con, obs_table)  # after new_coverage_month: finer level first (docs/decisions/0011)
    _assemble_taxonomy(con)
    con.execute(
        """CREATE OR REPLACE TABLE new_quarantine AS
           SELECT * FROM cur_quarantine
           UNION ALL SELECT ?, source_file, source_row, motivo, valores, ? FROM quarantine_batch
           ORDER BY loaded_at, source_file, source_row""",
        [load_id, loaded_at],
    )


def _newest_per_key(con: duckdb.DuckDBPyConnection, table: str, cols: str, key: str, order: str) -> None:
    """``new_<table>``: the rows of ``cur_<table>`` and ``<table>_batch``, the newest load's row of each key."""
    con.execute(
        f"""CREATE OR REPLACE TABLE new_{table} AS
            SELECT {cols} FROM (
              SELECT *, max(load_seq) OVER (PARTITION BY {key}) AS owner FROM (
                SELECT 0 AS load_seq, {cols} FROM cur_{table}
                UNION ALL SELECT load_seq, {cols} FROM {table}_batch))
            WHERE load_seq = owner ORDER BY {order}"""
    )


def _assemble_entities(con: duckdb.DuckDBPyConnection) -> None:
    """Municipalities seen anywhere in the data, their states, and catalog names/aliases."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE seen_mun AS
           SELECT cve_municipio, any_value(cve_ent) AS cve_ent, any_value(estado_id) AS estado_id,
                  any_value(entidad_id) AS entidad_id, any_value(municipio) AS label
           FROM (SELECT cve, cve_ent, estado_id, entidad_id, label FROM cur_entities WHERE nivel = 'municipio'
                 UNION ALL SELECT cve_municipio, cve_ent, estado_id, entidad_id, municipio FROM entity_batch
                 UNION ALL SELECT cve_municipio, cve_ent, estado_id, entidad_id, municipio FROM ent_labels
                           WHERE entidad_id IN (SELECT DISTINCT entidad_id FROM curated_all)
                 UNION ALL SELECT DISTINCT cve_municipio, cve_ent, estado_id, entidad_id, municipio FROM annual_batch
                 UNION ALL SELECT DISTINCT cve_municipio, left(cve_municipio, 2), estado_id, entidad_id, NULL FROM population_batch
                ) t(cve_municipio, cve_ent, estado_id, entidad_id, municipio)
           GROUP BY cve_municipio"""
    )
    cat = [(m.cve_municipio, m.nombre, m.nombre_corto, "|".join(m.aliases)) for m in entities.load_municipalities()]
    con.execute("CREATE OR REPLACE TEMP TABLE cat_mun (cve VARCHAR, nombre VARCHAR, corto VARCHAR, aliases VARCHAR)")
    if cat:
        con.executemany("INSERT INTO cat_mun VALUES (?,?,?,?)", cat)
    states = [(s.cve_ent, s.abreviatura, s.nombre, "|".join(s.aliases)) for s in entities.load_states()]
    con.execute("CREATE OR REPLACE TEMP TABLE cat_est (cve_ent VARCHAR, abbr VARCHAR, nombre VARCHAR, aliases VARCHAR)")
    con.executemany("INSERT INTO cat_est VALUES (?,?,?,?)", states)
    con.execute(
        """CREATE OR REPLACE TABLE new_entities AS
           SELECT e.abbr AS entidad_id, 'estado' AS nivel, e.cve_ent AS cve, e.cve_ent, e.abbr AS estado_id,
                  e.nombre AS label, e.nombre AS nombre_corto, e.aliases, NULL AS parent_id
           FROM cat_est e WHERE e.abbr IN (SELECT estado_id FROM seen_mun)
           UNION ALL
           SELECT s.entidad_id, 'municipio', s.cve_municipio, s.cve_ent, s.estado_id,
                  coalesce(c.nombre, s.label, s.entidad_id), coalesce(c.corto, c.nombre, s.label),
                  coalesce(c.aliases, ''), s.estado_id
           FROM seen_mun s LEFT JOIN cat_mun c ON c.cve = s.cve_municipio
           ORDER BY nivel DESC, cve"""
    )


def _assemble_taxonomy(con: duckdb.DuckDBPyConnection) -> None:
    """Catalog crimes and methods, extended by what the data carries, flagged ``en_datos``."""
    con.execute("""CREATE OR REPLACE TEMP TABLE cat_crimes (delito VARCHAR, subtipo VARCHAR, tipo VARCHAR,
                   tipo_key VARCHAR, bien_juridico VARCHAR, sinonimos VARCHAR, descripcion VARCHAR,
                   granularity VARCHAR, nivel VARCHAR, incluye VARCHAR)""")
    rows = [
        (
            c.delito,
            c.subtipo,
            c.tipo,
            c.tipo_key,
            c.bien_juridico,
            "|".join(c.sinonimos),
            c.descripcion,
            "month",
            c.nivel,
            "|".join(c.incluye),
        )
        for c in taxonomy.load_crimes()
    ]
    rows += [
        (s.delito, s.label, s.label, s.delito, None, "|".join(s.sinonimos), s.descripcion, s.granularity, "serie", "")
        for s in taxonomy.load_series()
    ]
    con.executemany("INSERT INTO cat_crimes VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    con.execute(
        """CREATE OR REPLACE TABLE new_crimes AS
           WITH data AS (
             SELECT delito, any_value(subtipo) AS subtipo, any_value(tipo) AS tipo, any_value(tipo_key) AS tipo_key,
                    any_value(bien_juridico) AS bien_juridico
             FROM (SELECT delito, subtipo, tipo, tipo_key, bien_juridico FROM crime_labels
                   WHERE delito IN (SELECT DISTINCT delito FROM cell_summary)  -- the crimes of curated_all
                   UNION ALL SELECT delito, subtipo, tipo, tipo_key, bien_juridico FROM cur_crimes)
             GROUP BY delito)
           SELECT coalesce(c.delito, d.delito) AS delito, coalesce(c.subtipo, d.subtipo) AS subtipo,
                  coalesce(c.tipo, d.tipo) AS tipo, coalesce(c.tipo_key, d.tipo_key) AS tipo_key,
                  coalesce(c.bien_juridico, d.bien_juridico) AS bien_juridico,
                  coalesce(c.sinonimos, '') AS sinonimos, coalesce(c.descripcion, '') AS descripcion,
                  coalesce(c.granularity, 'month') AS granularity,
                  coalesce(c.nivel, 'subtipo') AS nivel, coalesce(c.incluye, '') AS incluye,
                  coalesce(c.delito, d.delito) IN (SELECT delito FROM new_coverage
                                                   UNION ALL SELECT delito FROM new_obs_coverage) AS en_datos
           FROM cat_crimes c FULL OUTER JOIN data d ON c.delito = d.delito
           ORDER BY delito"""
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE cat_methods (metodo VARCHAR, modalidad VARCHAR, violencia VARCHAR, sinonimos VARCHAR)"
    )
    con.executemany(
        "INSERT INTO cat_methods VALUES (?,?,?,?)",
        [(m.metodo, m.modalidad, m.violencia, "|".join(m.sinonimos)) for m in taxonomy.load_methods()],
    )
    con.execute(
        """CREATE OR REPLACE TABLE new_methods AS
           WITH used AS (SELECT metodo::VARCHAR AS metodo FROM (SELECT DISTINCT metodo FROM new_incidents)
                         UNION SELECT metodo FROM new_observations
                         WHERE nivel = 'municipio' AND vigente AND medida = 'carpetas' AND fuero = 'comun'),
                labels AS (SELECT metodo, any_value(modalidad) AS modalidad
                           FROM (SELECT metodo, modalidad FROM crime_labels UNION ALL SELECT metodo, modalidad FROM cur_methods)
                           GROUP BY metodo),
                d AS (SELECT u.metodo, l.modalidad FROM used u LEFT JOIN labels l USING (metodo))
           SELECT coalesce(c.metodo, d.metodo) AS metodo, coalesce(c.modalidad, d.modalidad) AS modalidad,
                  -- the parquet's robo kinds say the violence in their names («… con violencia»): a robbery
                  -- «con violencia» is every one of them, vehicles included (shared data README, robo columns)
                  coalesce(c.violencia, CASE WHEN ends_with(coalesce(c.metodo, d.metodo), '_con_violencia') THEN 'con'
                                             WHEN ends_with(coalesce(c.metodo, d.metodo), '_sin_violencia') THEN 'sin'
                                        END) AS violencia,
                  coalesce(c.sinonimos, '') AS sinonimos, d.metodo IS NOT NULL AS en_datos
           FROM cat_methods c FULL OUTER JOIN d ON c.metodo = d.metodo
           ORDER BY 1"""
    )
