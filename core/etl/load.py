"""Cargador: read one recognized CSV into the staging database as raw long cells.

DuckDB parses the file (all columns as text, so nothing is coerced silently) and
reshapes it: wide files are unpivoted, long files are renamed. Empty wide cells are
dropped by UNPIVOT: an empty cell is a month not yet published, never a zero. No
Python loop ever touches a data row.
"""
from __future__ import annotations

from dataclasses import dataclass

import duckdb

from core.config import Limits
from core.errors import DatosFaltantesError, LimiteRecursosError, ValidacionError
from core.etl.layouts import MONTHS, Layout, detect_layout
from core.etl.sources import SourceFile

# Columns of the staged cell table every layout is reshaped into (all text).
CELL_COLUMNS = (
    "load_seq", "source_file", "source_row", "columna", "anio", "mes", "fecha",
    "clave_ent", "entidad", "cve_municipio", "municipio", "entidad_id",
    "bien", "tipo", "subtipo", "modalidad", "delito", "metodo", "valor",
)

_MONTH_CASE = "CASE columna " + " ".join(
    f"WHEN '{m}' THEN '{i}'" for i, m in enumerate(MONTHS, start=1)
) + " END"

CELLS_DDL = """
CREATE TABLE IF NOT EXISTS cells (
    load_seq INTEGER, source_file VARCHAR, source_row BIGINT, columna VARCHAR,
    anio VARCHAR, mes VARCHAR, fecha VARCHAR, clave_ent VARCHAR, entidad VARCHAR,
    cve_municipio VARCHAR, municipio VARCHAR, entidad_id VARCHAR, bien VARCHAR,
    tipo VARCHAR, subtipo VARCHAR, modalidad VARCHAR, delito VARCHAR, metodo VARCHAR,
    valor VARCHAR
)
"""


@dataclass
class LoadedFile:
    """What the Cargador read from one file."""

    source: SourceFile
    layout: Layout
    table: str  # staging table with the raw rows
    rows: int  # data rows read
    rejected_rows: int  # rows DuckDB could not split into the header's columns


def quote_ident(name: str) -> str:
    """A column name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def read_raw(con: duckdb.DuckDBPyConnection, source: SourceFile, seq: int, limits: Limits) -> LoadedFile:
    """Read a CSV as text columns into ``raw_<seq>``, line numbers kept as ``_line``."""
    layout = detect_layout(source.header, source.name)
    table = f"raw_{seq}"
    names = list(layout.columns)
    # Malformed lines (wrong column count, broken quotes) are kept aside by DuckDB's
    # rejects tables instead of aborting the load, and become quarantined rows.
    try:
        con.execute(
            f"""
            CREATE OR REPLACE TABLE {table} AS
            SELECT * FROM read_csv(?, header = true, all_varchar = true, names = ?,
                                   delim = ?, quote = '"', encoding = ?,
                                   max_line_size = ?, ignore_errors = true,
                                   store_rejects = true, rejects_table = 'rej_{seq}',
                                   rejects_scan = 'rejscan_{seq}', null_padding = false,
                                   parallel = true)
            """,
            [str(source.path), names, source.delimiter, source.duckdb_encoding,
             limits.max_line_bytes],
        )
    except duckdb.Error as exc:
        raise ValidacionError(
            f"No se pudo leer {source.name} como CSV: {_short(exc)}",
            ["Revise que sea un CSV de texto con un encabezado y el mismo número de columnas en cada fila."],
        ) from exc
    rows = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    rejected = con.execute(f"SELECT count(*) FROM rej_{seq}").fetchone()[0]
    if rows == 0 and rejected == 0:
        raise DatosFaltantesError(
            f"El archivo {source.name} solo tiene encabezado: no contiene filas de datos.",
            ["Exporte de nuevo el archivo con sus filas."],
        )
    too_long = " OR ".join(f"length({quote_ident(c)}) > {int(limits.max_field_chars)}" for c in names)
    first_long = con.execute(f"SELECT min(rowid) FROM {table} WHERE {too_long}").fetchone()[0]
    if first_long is not None:
        raise LimiteRecursosError(
            f"El archivo {source.name} tiene un campo de más de {limits.max_field_chars} caracteres "
            f"(fila de datos {first_long + 1}).",
            ["Revise que el separador y las comillas del CSV sean correctos."],
        )
    if rejected:
        # Rejected lines shift rowid against the file's line numbers; thresholds restore them.
        con.execute(
            f"""CREATE OR REPLACE TABLE shift_{seq} AS
                SELECT line - 2 - (row_number() OVER (ORDER BY line) - 1) AS t
                FROM (SELECT DISTINCT line FROM rej_{seq})"""
        )
    return LoadedFile(source, layout, table, rows, rejected)


def line_expr(loaded: LoadedFile, seq: int, alias: str = "") -> str:
    """SQL for the file line number of a raw row (line 1 is the header)."""
    rid = f"{alias}rowid" if alias else "rowid"
    if not loaded.rejected_rows:
        return f"({rid} + 2)"
    return f"({rid} + 2 + (SELECT count(*) FROM shift_{seq} s WHERE s.t <= {rid}))"


# The reduced violación file lost the column that told Violación simple from equiparada, but
# its leftover pandas index is the row's position in the national file (98 rows per
# municipality and year): index % 98 = 35 is simple, 36 equiparada (data/raw/README.md).
_VIOLACION_BY_INDEX = """CASE WHEN lower(strip_accents(trim(tipo))) = 'violacion'
    THEN CASE TRY_CAST(trim(_index) AS BIGINT) % 98 WHEN 35 THEN 'Violación simple'
                                                  WHEN 36 THEN 'Violación equiparada' END END"""


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:300]


def _col(layout: Layout, name: str) -> str:
    """The column if the file has it, else NULL (reduced files lack some)."""
    return quote_ident(name) if layout.has(name) else "NULL"


def stage_cells(con: duckdb.DuckDBPyConnection, loaded: LoadedFile, seq: int) -> int:
    """Reshape ``raw_<seq>`` into rows of the ``cells`` table; returns the cells added."""
    con.execute(CELLS_DDL)
    lay = loaded.layout
    name = loaded.source.name
    subtipo = _col(lay, "subtipo")
    if lay.name == "reducido" and lay.has("_index") and not lay.has("subtipo"):
        subtipo = _VIOLACION_BY_INDEX
    # rowid follows insertion order, which DuckDB keeps equal to file order;
    # +2 turns it into the file's line number (line 1 is the header).
    common = f"""
        {seq} AS load_seq, ? AS source_file, {line_expr(loaded, seq)} AS source_row,
        {_col(lay, 'clave_ent')} AS clave_ent, {_col(lay, 'entidad')} AS entidad,
        {_col(lay, 'cve_municipio')} AS cve_municipio, {_col(lay, 'municipio')} AS municipio,
        {_col(lay, 'entidad_id')} AS entidad_id,
        {_col(lay, 'bien_juridico')} AS bien, {_col(lay, 'tipo')} AS tipo,
        {subtipo} AS subtipo, {_col(lay, 'modalidad')} AS modalidad,
        {_col(lay, 'delito')} AS delito, {_col(lay, 'metodo')} AS metodo,
        {_col(lay, 'anio')} AS anio
    """
    before = con.execute("SELECT count(*) FROM cells").fetchone()[0]
    if lay.name in ("idm_nm", "reducido"):
        months = ", ".join(quote_ident(m) for m in MONTHS)
        con.execute(
            f"""
            INSERT INTO cells BY NAME
            SELECT load_seq, source_file, source_row, columna, anio,
                   {_MONTH_CASE} AS mes, NULL AS fecha, clave_ent, entidad, cve_municipio,
                   municipio, entidad_id, bien, tipo, subtipo, modalidad, delito, metodo, valor
            FROM (
                UNPIVOT (SELECT {common}, {months} FROM {loaded.table})
                ON {months} INTO NAME columna VALUE valor
            )
            WHERE trim(valor) <> ''
            """,
            [name],
        )
    elif lay.name == "largo_no_cero":
        con.execute(
            f"""
            INSERT INTO cells BY NAME
            SELECT {common}, 'cantidad' AS columna, "mes" AS mes, NULL AS fecha,
                   "cantidad" AS valor
            FROM {loaded.table}
            """,
            [name],
        )
    elif lay.name == "canonico":
        con.execute(
            f"""
            INSERT INTO cells BY NAME
            SELECT {common}, 'eventos' AS columna, NULL AS mes, "fecha" AS fecha,
                   "eventos" AS valor
            FROM {loaded.table}
            """,
            [name],
        )
    else:  # reference layouts are read by core.etl.reference
        return 0
    return con.execute("SELECT count(*) FROM cells").fetchone()[0] - before


def stage_rejects(con: duckdb.DuckDBPyConnection, loaded: LoadedFile, seq: int) -> None:
    """Copy lines DuckDB could not parse into the batch quarantine."""
    if not loaded.rejected_rows:
        return
    con.execute(
        f"""
        INSERT INTO quarantine_batch
        SELECT {seq}, ?, line, 'fila mal formada: ' || error_type, left(csv_line, 500)
        FROM rej_{seq}
        """,
        [loaded.source.name],
    )
