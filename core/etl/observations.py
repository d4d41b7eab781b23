"""Observations: every number of the national files, each row saying what it is (docs/decisions/0011).

``incidents`` holds Guanajuato's municipal cells. The national files (the SESNSP state files,
old methodology and RNID, victims by sexo and edad, fuero federal) land in ``observations``:
one row per place × month × crime levels × measure (× sexo × rango de edad), with the place
level (país / estado / municipio), the crime levels its source carries (ley for federal crimes,
bien jurídico → tipo → subtipo → modalidad), the measure (carpetas or víctimas), the
jurisdiction (común or federal) and the methodology (IDFC to 2025, RNID from 2026). ``places``
is the national catalogue (país, estados, municipios) and ``place_population`` CONAPO's
population by place, year and sex. Neither touches ``entities`` or ``population``, so every
existing answer stays as it was.

One precedence rule decides which number stands when two sources hold the same cell: finer
level first, then the newer cut, then the later load. A state row whose (state, crime, month)
is covered by municipal cells in ``incidents`` is kept but marked ``vigente = false``,
``sustituida_por = 'municipal'``: the state figure is the sum of its municipalities there.
"""

from __future__ import annotations

import duckdb

from core.dataset import entities, taxonomy
from core.etl.curate import insert_rows
from core.etl.precedence import municipal as municipal_precedence
from core.etl.precedence import municipal_coverage

OBS_COLUMNS = """row_id BIGINT, fecha DATE, nivel VARCHAR, lugar_id VARCHAR, estado_id VARCHAR, medida VARCHAR,
    fuero VARCHAR, metodologia VARCHAR, tipo_key VARCHAR, delito VARCHAR, metodo VARCHAR, sexo VARCHAR,
    rango_edad VARCHAR, eventos BIGINT, corte DATE, vigente BOOLEAN, sustituida_por VARCHAR,
    source_file VARCHAR, source_row BIGINT"""
# The crime levels each source carries, once per key (observations carry keys only, like incidents).
LEVEL_COLUMNS = """fuero VARCHAR, metodologia VARCHAR, tipo_key VARCHAR, delito VARCHAR, metodo VARCHAR,
    ley VARCHAR, bien_juridico VARCHAR, tipo VARCHAR, subtipo VARCHAR, modalidad VARCHAR"""
PLACE_COLUMNS = """lugar_id VARCHAR, nivel VARCHAR, cve VARCHAR, cve_ent VARCHAR, estado_id VARCHAR,
    label VARCHAR, nombre_inegi VARCHAR, aliases VARCHAR, parent_id VARCHAR"""
PLACE_POP_COLUMNS = """lugar_id VARCHAR, nivel VARCHAR, cve VARCHAR, anio INTEGER, sexo VARCHAR,
    poblacion BIGINT, fuente VARCHAR, source_file VARCHAR, source_row BIGINT"""

# The store tables this module adds to a version (merge.EMPTY_DDL takes them in).
EMPTY_DDL = {
    "observations": OBS_COLUMNS,
    "crime_levels": LEVEL_COLUMNS,
    "places": PLACE_COLUMNS,
    "place_population": PLACE_POP_COLUMNS,
}

BATCH_DDL = (
    f"CREATE TABLE IF NOT EXISTS obs_batch (load_seq INTEGER, {OBS_COLUMNS})",
    f"CREATE TABLE IF NOT EXISTS level_batch (load_seq INTEGER, {LEVEL_COLUMNS})",
    """CREATE TABLE IF NOT EXISTS place_batch (load_seq INTEGER, cve VARCHAR, cve_ent VARCHAR, label VARCHAR,
       nombre_inegi VARCHAR, source_file VARCHAR)""",
    f"CREATE TABLE IF NOT EXISTS place_pop_batch (load_seq INTEGER, {PLACE_POP_COLUMNS})",
    # The views of loads whose rows are read from their file at assembly, not staged (core/etl/layouts/municipal.py),
    # of the places each one holds (``load_seq``, ``lugar_id`` as staged), read from its small key tables, and of its
    # rows at the places of ``obs_shared`` only (read from the file, the other places' rows skipped by their labels).
    "CREATE TABLE IF NOT EXISTS obs_views (load_seq INTEGER, view VARCHAR, places VARCHAR, shared VARCHAR)",
    # The places two loads hold (final ids and their staged codes): only their rows can share a row id.
    "CREATE TABLE IF NOT EXISTS obs_shared (lugar_id VARCHAR)",
)

COUNTRY_ID = "MX"
ABROAD_ID = "MX.EXTRANJERO"  # the federal file's «Extranjero»: its own place, never a state

# The key of one observation: what makes two rows the same number.
KEY_COLUMNS = "lugar_id, medida, fuero, metodologia, tipo_key, delito, metodo, sexo, rango_edad, fecha"
ROW_ID_SQL = f"(md5_number_lower(concat_ws('|', {KEY_COLUMNS})) & 9223372036854775807::UBIGINT)::BIGINT"

# An identifier slug in SQL, equal to core.text.slug_id for the names of the catalogues.
_SLUG_ID = "trim(regexp_replace(upper(strip_accents({0})), '[^0-9A-Z]+', '_', 'g'), '_')"


def ensure_batches(con: duckdb.DuckDBPyConnection) -> None:
    """Create the batch tables of the national layouts (empty when a load brings none)."""
    for ddl in BATCH_DDL:
        con.execute(ddl)


def state_table(con: duckdb.DuckDBPyConnection) -> None:
    """``obs_states``: the 32 states of the catalogue by numeric INEGI code."""
    con.execute("CREATE OR REPLACE TEMP TABLE obs_states (num INTEGER, cve_ent VARCHAR, abbr VARCHAR, nombre VARCHAR)")
    insert_rows(
        con, "obs_states", [(int(s.cve_ent), s.cve_ent, s.abreviatura, s.nombre) for s in entities.load_states()]
    )


# One number per combination of a row's labels: the rows join their combination on it, not on five texts.
LABEL_HASH = "hash({0}ley, {0}bien, {0}tipo, {0}subtipo, {0}modalidad)"


def crime_map(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """``obs_crimes``: crime and method keys for the distinct labels of ``table`` (ley, bien, tipo, subtipo, modalidad).

    The labels resolve through the taxonomy like the municipal files do, so a state row of
    «Homicidio doloso / Con arma de fuego» gets the keys of the same municipal cells."""
    combos = con.execute(
        f"""SELECT {LABEL_HASH.format("")}::VARCHAR, ley, bien, tipo, subtipo, modalidad
            FROM (SELECT DISTINCT ley, bien, tipo, subtipo, modalidad FROM {table})"""  # labels first: few to hash
    ).fetchall()
    rows = []
    for combo, (h, ley, bien, tipo, subtipo, modalidad) in enumerate(combos):  # one per catalogue row, not per data row
        keys = (None, None, None)
        if tipo:
            crime = taxonomy.crime_for_labels(bien, tipo, subtipo)
            keys = (crime.tipo_key, crime.delito, taxonomy.method_for_label(modalidad, crime.subtipo).metodo)
        rows.append((h, combo, ley, bien, tipo, subtipo, modalidad, *keys))
    con.execute(
        """CREATE OR REPLACE TEMP TABLE obs_crimes (h UBIGINT, combo INTEGER, k_ley VARCHAR, k_bien VARCHAR,
           k_tipo VARCHAR, k_subtipo VARCHAR, k_modalidad VARCHAR, tipo_key VARCHAR, delito VARCHAR, metodo VARCHAR)"""
    )
    insert_rows(con, "obs_crimes", rows)


def insert_levels(con: duckdb.DuckDBPyConnection, seq: int, fuero: str, resolved: str) -> int:
    """Record the crime levels of a load's accepted rows (``resolved`` has ``combo`` and the keys) and return how
    many observations that load staged; every observation layout ends its load with this."""
    con.execute(
        f"""INSERT INTO level_batch
            SELECT {seq}, '{fuero}', r.metodologia, r.tipo_key, r.delito, r.metodo, any_value(k.k_ley),
                   any_value(k.k_bien), any_value(k.k_tipo), any_value(k.k_subtipo), any_value(k.k_modalidad)
            FROM (SELECT DISTINCT metodologia, tipo_key, delito, metodo, combo FROM {resolved} WHERE motivo IS NULL) r
            JOIN obs_crimes k USING (combo) GROUP BY ALL"""
    )
    return con.execute("SELECT count(*) FROM obs_batch WHERE load_seq = ?", [seq]).fetchone()[0]


def year_methodology(con: duckdb.DuckDBPyConnection, table: str, fixed: str | None = None) -> None:
    """``obs_method``: the methodology of every year of ``table``, ``fixed`` or SESNSP's for the year
    (IDFC to 2025, RNID from 2026); a year no methodology covers is left out, and its rows quarantined."""
    years = con.execute(
        f"SELECT DISTINCT TRY_CAST(anio AS INTEGER) AS y FROM (SELECT DISTINCT anio FROM {table}) WHERE y IS NOT NULL"
    ).fetchall()
    con.execute("CREATE OR REPLACE TEMP TABLE obs_method (anio INTEGER, metodologia VARCHAR)")
    rows = []
    for (year,) in years:  # one per year of the file
        try:
            rows.append((year, fixed or taxonomy.methodology_for_year("total_delitos", year)))
        except ValueError:
            continue
    insert_rows(con, "obs_method", rows)


def assemble(con: duckdb.DuckDBPyConnection, table: str = "new_observations") -> None:
    """Build the ``new_`` observations, crime levels, places and place population from the current version and the batch.

    ``table`` is where the observations are written: the next version's query database when the load attached
    it (``core.etl.query_db.attach_new``), so its rows are written once; ``new_observations`` reads them."""
    cols = ", ".join(c.split()[0] for c in OBS_COLUMNS.replace("\n", " ").split(","))
    _assemble_places(con)
    # A municipal row was staged under its municipality's code: its place id is known only now.
    staged = ", ".join(
        "coalesce(p.lugar_id, b.lugar_id) AS lugar_id" if c == "lugar_id" else f"b.{c}" for c in cols.split(", ")
    )
    views = con.execute("SELECT view, places, shared FROM obs_views ORDER BY load_seq").fetchall()
    to_place = "LEFT JOIN new_places p ON b.nivel = 'municipio' AND p.nivel = 'municipio' AND p.cve = b.lugar_id"

    def union(view_rows: list[str]) -> str:
        batches = " ".join(
            f"UNION ALL SELECT b.load_seq, {staged} FROM {batch} b {to_place}" for batch in ["obs_batch", *view_rows]
        )
        return f"SELECT 0 AS load_seq, {cols} FROM cur_observations {batches}"

    con.execute(f"CREATE OR REPLACE TEMP VIEW obs_all AS {union([v for v, _, _ in views])}")
    # The places each load holds, without reading a view's rows: its key tables name them.
    held = " ".join(
        f"""UNION ALL SELECT DISTINCT b.load_seq, coalesce(p.lugar_id, b.lugar_id) FROM
            (SELECT load_seq, lugar_id, 'municipio' AS nivel FROM {places}) b {to_place}"""
        for _, places, _ in views
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW obs_held AS
            SELECT DISTINCT load_seq, lugar_id FROM (SELECT 0 AS load_seq, lugar_id FROM cur_observations
                                                     UNION ALL SELECT b.load_seq, coalesce(p.lugar_id, b.lugar_id)
                                                               FROM obs_batch b {to_place})
            {held}"""
    )
    # Same key in two files: the newer cut wins, then the later load (the current version is load 0).
    # Only keys seen twice need a decision: a narrow aggregation finds them, not a window over every row.
    # A row id hashes its place, so only places two loads hold can repeat one: of the national parts only
    # the rows of places another file holds (Guanajuato's) are read, picked by their labels before any join.
    con.execute("DELETE FROM obs_shared")
    con.execute(
        """INSERT INTO obs_shared
           WITH shared AS (SELECT lugar_id FROM obs_held GROUP BY lugar_id HAVING count(*) > 1)
           SELECT lugar_id FROM shared
           UNION SELECT cve FROM new_places WHERE nivel = 'municipio' AND lugar_id IN (SELECT lugar_id FROM shared)"""
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_owner AS
            SELECT row_id, arg_max(load_seq, (year(corte) * 12 + month(corte)) * 100000 + load_seq) AS owner
            FROM ({union([shared for _, _, shared in views])})
            WHERE lugar_id IN (SELECT lugar_id FROM obs_held GROUP BY lugar_id HAVING count(*) > 1)
            GROUP BY row_id HAVING count(*) > 1"""
    )
    precedence = "m.mes IS NULL AS vigente, CASE WHEN m.mes IS NOT NULL THEN 'municipal' END AS sustituida_por"
    # Finer level first: a state's carpetas of the común series are replaced wherever its
    # municipalities' cells cover the same crime and month (the state figure is their sum).
    con.execute(
        f"""CREATE OR REPLACE TABLE {table} AS
            SELECT {cols.replace("vigente, sustituida_por", precedence)}
            FROM obs_all o LEFT JOIN obs_owner w USING (row_id) LEFT JOIN (
                SELECT estado_id AS m_estado, delito AS m_delito,
                       unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS mes
                FROM new_coverage_month) m
              ON o.nivel = 'estado' AND o.medida = 'carpetas' AND o.fuero = 'comun' AND o.metodologia = 'IDFC'
             AND m.m_estado = o.estado_id AND m.m_delito = o.delito AND m.mes = o.fecha
            WHERE w.owner IS NULL OR o.load_seq = w.owner"""
    )
    if table != "new_observations":
        con.execute(f"CREATE OR REPLACE TEMP VIEW new_observations AS SELECT * FROM {table}")
    municipal_precedence(con, table)
    municipal_coverage(con)
    levels = ", ".join(c.split()[0] for c in LEVEL_COLUMNS.replace("\n", " ").split(","))
    con.execute(
        f"""CREATE OR REPLACE TABLE new_crime_levels AS
            SELECT {levels} FROM (SELECT 0 AS load_seq, {levels} FROM cur_crime_levels
                                  UNION ALL SELECT load_seq, {levels} FROM level_batch)
            QUALIFY row_number() OVER (PARTITION BY fuero, metodologia, delito, metodo ORDER BY load_seq DESC) = 1
            ORDER BY fuero, metodologia, tipo_key, delito, metodo"""
    )
    # A municipality's population was staged under its code: its place id is known only now.
    pop = "lugar_id, nivel, cve, anio, sexo, poblacion, fuente, source_file, source_row"
    con.execute(
        f"""CREATE OR REPLACE TABLE new_place_population AS
            SELECT {pop} FROM (
              SELECT 0 AS load_seq, {pop} FROM cur_place_population
              UNION ALL SELECT b.load_seq, coalesce(p.lugar_id, b.lugar_id), b.nivel, b.cve, b.anio, b.sexo,
                               b.poblacion, b.fuente, b.source_file, b.source_row
                        FROM place_pop_batch b LEFT JOIN new_places p ON b.nivel = 'municipio'
                             AND p.nivel = 'municipio' AND p.cve = b.cve)
            QUALIFY row_number() OVER (PARTITION BY lugar_id, anio, sexo, fuente ORDER BY load_seq DESC) = 1
            ORDER BY nivel, lugar_id, anio, sexo"""
    )


def _assemble_places(con: duckdb.DuckDBPyConnection) -> None:
    """País, the 32 states and every municipality a catalogue or population file named."""
    state_table(con)
    # The catalogues' aliases («Edomex», «CDMX», «Dolores») come along for the understanding to use.
    cat = [(m.cve_municipio, m.entidad_id, "|".join(m.aliases)) for m in entities.load_municipalities()]
    con.execute("CREATE OR REPLACE TEMP TABLE obs_cat_mun (cve VARCHAR, entidad_id VARCHAR, aliases VARCHAR)")
    states = {s.cve_ent: "|".join(s.aliases) for s in entities.load_states()}
    con.execute("CREATE OR REPLACE TEMP TABLE obs_state_alias (cve_ent VARCHAR, aliases VARCHAR)")
    insert_rows(con, "obs_state_alias", list(states.items()))
    insert_rows(con, "obs_cat_mun", cat)
    slug = _SLUG_ID.format("b.label")
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_mun AS
            WITH b AS (
              SELECT cve, any_value(cve_ent) AS cve_ent, coalesce(max(label), max(nombre_inegi)) AS label,
                     max(nombre_inegi) AS nombre_inegi
              FROM (SELECT cve, cve_ent, label, nombre_inegi FROM place_batch
                    UNION ALL SELECT cve, cve_ent, label, nombre_inegi FROM cur_places WHERE nivel = 'municipio')
              GROUP BY cve)
            SELECT b.*, s.abbr, s.abbr || '.MUN.' || {slug} AS slug_id FROM b JOIN obs_states s ON s.cve_ent = b.cve_ent"""
    )
    # Two municipalities of a state may share a name (Oaxaca's San Juan Mixtepec): their code tells them apart.
    # Guanajuato keeps the ids of its catalogue, so nothing already answered changes name.
    con.execute(
        """CREATE OR REPLACE TABLE new_places AS
           SELECT 'MX' AS lugar_id, 'pais' AS nivel, '00' AS cve, '00' AS cve_ent, NULL AS estado_id,
                  'México' AS label, NULL AS nombre_inegi, '' AS aliases, NULL AS parent_id
           UNION ALL
           SELECT abbr, 'estado', cve_ent, cve_ent, abbr, nombre, NULL, coalesce(a.aliases, ''), 'MX'
           FROM obs_states LEFT JOIN obs_state_alias a USING (cve_ent)
           UNION ALL
           SELECT coalesce(c.entidad_id, CASE WHEN count(*) OVER (PARTITION BY m.slug_id) > 1
                                              THEN m.slug_id || '_' || m.cve ELSE m.slug_id END),
                  'municipio', m.cve, m.cve_ent, m.abbr, m.label, m.nombre_inegi, coalesce(c.aliases, ''), m.abbr
           FROM obs_mun m LEFT JOIN obs_cat_mun c ON c.cve = m.cve
           ORDER BY nivel DESC, cve"""
    )


DIGEST_SQL = {
    "crime_levels": """SELECT count(*), 0, coalesce(bit_xor(md5_number_lower(concat_ws('|', fuero, metodologia,
                       delito, metodo, ley, bien_juridico, tipo, subtipo, modalidad))), 0) FROM new_crime_levels""",
    # Integer sums instead of an md5 per row (as for incidents): row ids are already hashes of the keys.
    "observations": """SELECT count(*), coalesce(sum(eventos), 0), coalesce(bit_xor(row_id), 0),
                       coalesce(sum((row_id % 1000000007) * eventos), 0),
                       coalesce(bit_xor(row_id) FILTER (WHERE vigente), 0) FROM new_observations""",
    "places": """SELECT count(*), 0, coalesce(bit_xor(md5_number_lower(concat_ws('|', lugar_id, label, cve))), 0)
                 FROM new_places""",
    "place_population": """SELECT count(*), coalesce(sum(poblacion), 0),
                           coalesce(bit_xor(md5_number_lower(concat_ws('|', lugar_id, anio, sexo, poblacion))), 0)
                           FROM new_place_population""",
}
