"""Cargador: read one recognized CSV into the staging database as text, lines kept.

DuckDB parses the file (all columns as text, so nothing is coerced silently) under the
column names its layout gives; each layout (``core.etl.layouts``) then reshapes the raw
table into the staged ``cells`` or its reference table. Malformed lines are kept aside
and become quarantined rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from core.config import Limits
from core.errors import CasandraError, DatosFaltantesError, LimiteRecursosError, ValidacionError
from core.etl import encoding
from core.etl.sources import SourceFile

if TYPE_CHECKING:
    from core.etl.layouts import Layout

# The staged cell table every monthly layout is reshaped into (all text).
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


def read_raw(
    con: duckdb.DuckDBPyConnection, source: SourceFile, layout: Layout, seq: int, limits: Limits
) -> LoadedFile:
    """Read a CSV as text columns named by its layout into ``raw_<seq>``."""
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
            [str(source.path), names, source.delimiter, source.duckdb_encoding, limits.max_line_bytes],
        )
    except duckdb.Error as exc:
        raise csv_refusal(source, limits) from exc
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


def line_expr(loaded: LoadedFile, seq: int) -> str:
    """SQL for the file line number of a raw row (line 1 is the header)."""
    if not loaded.rejected_rows:
        return "(rowid + 2)"
    return f"(rowid + 2 + (SELECT count(*) FROM shift_{seq} s WHERE s.t <= rowid))"


def csv_refusal(source: SourceFile, limits: Limits) -> CasandraError:
    """Why DuckDB could not read a CSV, in Spanish, at the file's own line number.

    DuckDB's text is English, names the absolute path and may count lines from its own
    buffer (a 70 KB line 6 was "line 1"), so the file itself is read again to find the line."""
    name, limit = source.name, limits.max_line_bytes
    for number, line in enumerate(encoding.lines(source.path), start=1):
        size = len(line.rstrip(b"\r\n"))
        if size > limit:
            return LimiteRecursosError(
                f"La línea {number} de {name} mide {size} bytes; el límite es {limit} bytes.",
                ["Revise el separador y las comillas de esa línea: una fila del SESNSP mide unos cientos de bytes."],
            )
    opened = _unclosed_quote(source.path)
    if opened:
        return ValidacionError(
            f"No se pudo leer {name} como CSV: la línea {opened} abre comillas que nunca se cierran.",
            ["Cierre las comillas de ese campo (o quítelas) y vuelva a subir el archivo."],
        )
    return ValidacionError(
        f"No se pudo leer {name} como CSV: no se reconoce su estructura.",
        ["Revise que sea un CSV de texto con un encabezado y el mismo número de columnas en cada fila."],
    )


def _unclosed_quote(path) -> int | None:
    """The line that opens a quoted field no later quote closes, or None."""
    inside, opened = False, None
    for number, line in enumerate(encoding.lines(path), start=1):
        if line.count(b'"') % 2:  # an escaped quote ("") counts twice and changes nothing
            inside = not inside
            opened = number if inside else opened
    return opened if inside else None


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
