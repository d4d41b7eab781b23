"""Reference layouts: yearly all-crime totals, population and the municipality catalogue.

They go through the same staging connection and quarantine as the monthly files, but
land in their own tables: the yearly totals are an annual series (``total_delitos``)
that is never mixed into monthly sums; population feeds ``tasa_per_100k``.
"""
from __future__ import annotations

import duckdb

from core.dataset import taxonomy
from core.etl.curate import KnownEntities, resolve_entity, insert_rows
from core.etl.load import LoadedFile, line_expr

ANNUAL_DDL = """
CREATE TABLE IF NOT EXISTS annual_batch (
    load_seq INTEGER, row_id BIGINT, anio INTEGER, cve_municipio VARCHAR, cve_ent VARCHAR,
    estado_id VARCHAR, entidad_id VARCHAR, municipio VARCHAR, delito VARCHAR, eventos BIGINT,
    metodologia VARCHAR, parcial BOOLEAN, meses INTEGER, source_file VARCHAR, source_row BIGINT
)
"""
POPULATION_DDL = """
CREATE TABLE IF NOT EXISTS population_batch (
    load_seq INTEGER, cve_municipio VARCHAR, entidad_id VARCHAR, estado_id VARCHAR, anio INTEGER,
    poblacion BIGINT, fuente VARCHAR, source_file VARCHAR, source_row BIGINT
)
"""
ENTITY_DDL = """
CREATE TABLE IF NOT EXISTS entity_batch (
    load_seq INTEGER, cve_municipio VARCHAR, cve_ent VARCHAR, estado_id VARCHAR, estado VARCHAR,
    entidad_id VARCHAR, municipio VARCHAR
)
"""

ANNUAL_SERIES = "total_delitos"


def _resolve_codes(con: duckdb.DuckDBPyConnection, table: str, has_name: bool, known: KnownEntities) -> None:
    """Build ``ref_map`` from the distinct municipality codes (and names) of a raw table."""
    name_col = '"municipio"' if has_name else "NULL"
    raw = con.execute(f'SELECT DISTINCT "cve_municipio", {name_col} FROM {table}').fetchall()
    con.execute(
        """CREATE OR REPLACE TABLE ref_map (k_cve VARCHAR, k_mun VARCHAR, cve_municipio VARCHAR,
           cve_ent VARCHAR, estado_id VARCHAR, estado VARCHAR, entidad_id VARCHAR, municipio VARCHAR,
           motivo VARCHAR)"""
    )
    rows = []
    for cve, mun in raw:
        res = resolve_entity((None, None, cve, mun, None), known)
        rows.append((cve, mun) + res[5:])
    insert_rows(con, "ref_map", rows)


def _join(table: str, has_name: bool, line: str = "(rowid + 2)") -> str:
    name_cond = 'r."municipio" IS NOT DISTINCT FROM m.k_mun' if has_name else "TRUE"
    return f"""FROM (SELECT {line} AS source_row, * FROM {table}) r
               LEFT JOIN ref_map m ON r."cve_municipio" IS NOT DISTINCT FROM m.k_cve AND {name_cond}"""


def _quarantine(con, seq: int, name: str, table: str, has_name: bool, checks: str, raw_expr: str,
                line: str) -> None:
    con.execute(
        f"""INSERT INTO quarantine_batch
            SELECT {seq}, ?, source_row, motivo, valores FROM (
              SELECT r.source_row, coalesce(m.motivo, {checks}) AS motivo, left({raw_expr}, 200) AS valores
              {_join(table, has_name, line)}) WHERE motivo IS NOT NULL""",
        [name],
    )


def stage_reference(con: duckdb.DuckDBPyConnection, loaded: LoadedFile, seq: int,
                    known: KnownEntities, annual_cut: tuple[int, int] | None) -> int:
    """Stage one reference file into its batch table; returns the rows accepted."""
    lay = loaded.layout
    table = loaded.table
    name = loaded.source.name
    has_name = lay.has("municipio")
    _resolve_codes(con, table, has_name, known)
    line = line_expr(loaded, seq)
    year = 'TRY_CAST(trim(r."anio") AS DOUBLE)'
    if lay.name == "totales_anuales":
        con.execute(ANNUAL_DDL)
        checks = f"""CASE WHEN {year} IS NULL OR {year} <> floor({year}) OR {year} NOT BETWEEN 1990 AND 2100 THEN 'año inválido'
                     WHEN TRY_CAST(trim(r."total_delitos") AS DOUBLE) IS NULL THEN 'conteo no numérico'
                     WHEN TRY_CAST(trim(r."total_delitos") AS DOUBLE) < 0 THEN 'conteo negativo'
                     WHEN TRY_CAST(trim(r."total_delitos") AS DOUBLE) <> floor(TRY_CAST(trim(r."total_delitos") AS DOUBLE)) THEN 'conteo no entero' END"""
        _quarantine(con, seq, name, table, has_name, checks, 'r."total_delitos"', line)
        rows = con.execute(
            f"""SELECT DISTINCT {year}::INTEGER {_join(table, has_name, line)}
                WHERE m.motivo IS NULL AND ({checks}) IS NULL"""
        ).fetchall()
        methodology = {y: taxonomy.methodology_for_year(ANNUAL_SERIES, y) for (y,) in rows}
        con.execute("CREATE OR REPLACE TEMP TABLE year_meta (anio INTEGER, metodologia VARCHAR, parcial BOOLEAN, meses INTEGER)")
        meta_rows = []
        for y, method in methodology.items():
            months = annual_cut[1] if annual_cut and annual_cut[0] == y else 12
            if annual_cut and y > annual_cut[0]:
                months = 0
            meta_rows.append((y, method, months < 12, months))
        if meta_rows:
            con.executemany("INSERT INTO year_meta VALUES (?,?,?,?)", meta_rows)
        con.execute(
            f"""INSERT INTO annual_batch
                SELECT {seq}, (md5_number_lower(concat_ws('|', m.cve_municipio, {year}::INTEGER, '{ANNUAL_SERIES}'))
                               & 9223372036854775807::UBIGINT)::BIGINT,
                       {year}::INTEGER, m.cve_municipio, m.cve_ent, m.estado_id, m.entidad_id, m.municipio,
                       '{ANNUAL_SERIES}', TRY_CAST(trim(r."total_delitos") AS DOUBLE)::BIGINT,
                       y.metodologia, y.parcial, y.meses, ?, r.source_row
                {_join(table, has_name, line)} JOIN year_meta y ON y.anio = {year}::INTEGER
                WHERE m.motivo IS NULL AND ({checks}) IS NULL""",
            [name],
        )
        return con.execute("SELECT count(*) FROM annual_batch WHERE load_seq = ?", [seq]).fetchone()[0]
    if lay.name in ("poblacion", "poblacion_censo"):
        con.execute(POPULATION_DDL)
        value = '"poblacion"' if lay.name == "poblacion" else '"poblacion_censo2020"'
        yexpr = year if lay.name == "poblacion" else "2020"
        fuente = "CONAPO" if lay.name == "poblacion" else "INEGI Censo 2020"
        num = f"TRY_CAST(trim(r.{value}) AS DOUBLE)"
        checks = f"""CASE WHEN {yexpr} IS NULL OR {yexpr} <> floor({yexpr}) OR {yexpr} NOT BETWEEN 1900 AND 2100 THEN 'año inválido'
                     WHEN {num} IS NULL THEN 'población no numérica'
                     WHEN {num} <= 0 OR {num} <> floor({num}) THEN 'población inválida' END"""
        _quarantine(con, seq, name, table, has_name, checks, f"r.{value}", line)
        con.execute(
            f"""INSERT INTO population_batch
                SELECT {seq}, m.cve_municipio, m.entidad_id, m.estado_id, ({yexpr})::INTEGER,
                       {num}::BIGINT, '{fuente}', ?, r.source_row
                {_join(table, has_name, line)} WHERE m.motivo IS NULL AND ({checks}) IS NULL""",
            [name],
        )
        return con.execute("SELECT count(*) FROM population_batch WHERE load_seq = ?", [seq]).fetchone()[0]
    if lay.name == "catalogo_municipios":
        con.execute(ENTITY_DDL)
        _quarantine(con, seq, name, table, has_name, "NULL", 'r."municipio"', line)
        con.execute(
            f"""INSERT INTO entity_batch
                SELECT DISTINCT {seq}, m.cve_municipio, m.cve_ent, m.estado_id, m.estado, m.entidad_id,
                       coalesce(m.municipio, trim(r."municipio"))
                {_join(table, has_name, line)} WHERE m.motivo IS NULL"""
        )
        return con.execute("SELECT count(*) FROM entity_batch WHERE load_seq = ?", [seq]).fetchone()[0]
    raise AssertionError(f"not a reference layout: {lay.name}")
