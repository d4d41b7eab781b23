"""Monthly crime layouts: how each is recognized and reshaped into the staged ``cells`` table.

The original IDM_NM wide file, the reduced wide file (leading pandas index, missing
descriptive columns), the long non-zero-only file (``Mes`` = ``N-Mes``, ``Cantidad``) and
our canonical long layout (seed data README). Wide files are unpivoted, long files are
renamed; empty wide cells are dropped by UNPIVOT: an empty cell is a month not yet
published, never a zero. No Python loop ever touches a data row.
"""

from __future__ import annotations

from typing import ClassVar

import duckdb

from core.errors import ValidacionError
from core.etl import direct, load
from core.etl.layouts.base import Header, Layout, ReadContext, Staged, register_layout
from core.etl.load import LoadedFile, quote_ident
from core.etl.sources import SourceFile
from core.text import MONTHS

WIDE_KEYS = {"anio", "cve_municipio", "tipo"}  # with the 12 months, what makes a file wide
WIDE_LABELS = {"clave_ent", "entidad", "municipio", "bien_juridico", "subtipo", "modalidad"}

_MONTH_CASE = "CASE columna " + " ".join(f"WHEN '{m}' THEN '{i}'" for i, m in enumerate(MONTHS, start=1)) + " END"

# The reduced violación file lost the column that told Violación simple from equiparada, but
# its leftover pandas index is the row's position in the national file (98 rows per
# municipality and year): index % 98 = 35 is simple, 36 equiparada (data/raw/README.md).
_VIOLACION_BY_INDEX = """CASE WHEN lower(strip_accents(trim(tipo))) = 'violacion'
    THEN CASE TRY_CAST(trim(_index) AS BIGINT) % 98 WHEN 35 THEN 'Violación simple'
                                                  WHEN 36 THEN 'Violación equiparada' END END"""


class MonthlyLayout(Layout):
    """A file of crime counts per municipality and month: its cells are curated into incidents."""

    monthly = True
    hint = (
        "Formatos admitidos: IDM_NM de SESNSP (ancho, Enero…Diciembre), ancho reducido, "
        "largo con Mes/Cantidad, o largo canónico fecha, entidad_id|cve_municipio, delito, [metodo], eventos."
    )
    owns_observed_cells: ClassVar[bool] = False  # owns exactly its cells (wide) or its whole coverage (long)
    whole_years: ClassVar[bool] = False  # an undeclared coverage runs from January to December
    sums_repeated_keys: ClassVar[bool] = False  # repeated keys are summed, not refused (see curate)

    def read(self, source: SourceFile, seq: int, ctx: ReadContext) -> Staged:
        """Read the file as text and reshape it into ``cells`` (the general path)."""
        loaded = load.read_raw(ctx.con, source, self, seq, ctx.limits)
        load.stage_rejects(ctx.con, loaded, seq)
        cells = self.stage_cells(ctx.con, loaded, seq)
        return Staged({"filas": loaded.rows + loaded.rejected_rows, "celdas": cells})

    def stage_cells(self, con: duckdb.DuckDBPyConnection, loaded: LoadedFile, seq: int) -> int:
        """Reshape ``raw_<seq>`` into rows of the ``cells`` table; returns the cells added."""
        con.execute(load.CELLS_DDL)
        before = con.execute("SELECT count(*) FROM cells").fetchone()[0]
        con.execute(self.cells_sql(self.common_sql(loaded, seq), loaded.table), [loaded.source.name])
        return con.execute("SELECT count(*) FROM cells").fetchone()[0] - before

    def cells_sql(self, common: str, table: str) -> str:
        """The ``INSERT INTO cells`` of this layout; ``common`` selects the label columns of a raw row."""
        raise NotImplementedError

    def col(self, name: str) -> str:
        """The column if the file has it, else NULL (reduced files lack some)."""
        return quote_ident(name) if self.has(name) else "NULL"

    def subtipo_sql(self) -> str:
        """SQL for a raw row's subtype."""
        return self.col("subtipo")

    def common_sql(self, loaded: LoadedFile, seq: int) -> str:
        """The columns every cell of a raw row shares: load, line, place, crime labels and year."""
        c = self.col
        # rowid follows insertion order, which DuckDB keeps equal to file order;
        # +2 turns it into the file's line number (line 1 is the header).
        return f"""
        {seq} AS load_seq, ? AS source_file, {load.line_expr(loaded, seq)} AS source_row,
        {c("clave_ent")} AS clave_ent, {c("entidad")} AS entidad,
        {c("cve_municipio")} AS cve_municipio, {c("municipio")} AS municipio,
        {c("entidad_id")} AS entidad_id,
        {c("bien_juridico")} AS bien, {c("tipo")} AS tipo,
        {self.subtipo_sql()} AS subtipo, {c("modalidad")} AS modalidad,
        {c("delito")} AS delito, {c("metodo")} AS metodo,
        {c("anio")} AS anio
    """


class WideLayout(MonthlyLayout):
    """One row per municipality, year and crime, one column per month."""

    owns_observed_cells = True

    def cells_sql(self, common: str, table: str) -> str:
        """Unpivot the twelve month columns; empty cells are dropped."""
        months = ", ".join(quote_ident(m) for m in MONTHS)
        return f"""
            INSERT INTO cells BY NAME
            SELECT load_seq, source_file, source_row, columna, anio,
                   {_MONTH_CASE} AS mes, NULL AS fecha, clave_ent, entidad, cve_municipio,
                   municipio, entidad_id, bien, tipo, subtipo, modalidad, delito, metodo, valor
            FROM (
                UNPIVOT (SELECT {common}, {months} FROM {table})
                ON {months} INTO NAME columna VALUE valor
            )
            WHERE trim(valor) <> ''
            """


@register_layout
class IdmNm(WideLayout):
    """The original SESNSP IDM_NM file: every label column, twelve months."""

    name = "idm_nm"
    label = "IDM_NM original (ancho, 12 meses)"
    priority = 10

    @classmethod
    def detect(cls, header: Header) -> bool:
        """The twelve months, the keys and every label column, without a leading index."""
        present = header.present
        return set(MONTHS) | WIDE_KEYS | WIDE_LABELS <= present and "_index" not in present

    def direct_ready(self) -> bool:
        """Whether the direct path may read it: every column named, nothing extra."""
        return all(not c.startswith("_") for c in self.columns)

    def read(self, source: SourceFile, seq: int, ctx: ReadContext) -> Staged:
        """The direct path when the file is clean, else the general one (same outcome, slower)."""
        if ctx.direct and self.direct_ready():
            fast = direct.load_direct(
                ctx.con, source, self, seq, ctx.limits, ctx.known, ctx.crimes, ctx.methods, ctx.work, ctx.cells_into
            )
            if fast is not None:
                return Staged({"filas": fast.rows, "celdas": fast.cells}, direct=fast)
        return super().read(source, seq, ctx)


@register_layout
class Reducido(WideLayout):
    """A wide file with label columns missing, often with a leftover pandas index."""

    name = "reducido"
    label = "Ancho reducido (columnas faltantes)"
    priority = 20
    sums_repeated_keys = True  # the lost columns told apart rows that now share a key

    @classmethod
    def detect(cls, header: Header) -> bool:
        """The twelve months and the keys; a file with only some months is refused here."""
        present = header.present
        months = set(MONTHS)
        if months | WIDE_KEYS <= present:
            return True
        if present & months:
            missing = sorted(months - present)
            raise ValidacionError(
                f"El archivo {header.file_name} parece ancho (columnas de meses) pero le faltan columnas: "
                f"{', '.join(missing + sorted(WIDE_KEYS - present))}.",
                ["Se esperan Año, Cve. Municipio, Tipo de delito y las 12 columnas Enero…Diciembre."],
            )
        return False

    def subtipo_sql(self) -> str:
        """The violación subtype from the leftover index when the subtype column is gone."""
        if self.has("_index") and not self.has("subtipo"):
            return _VIOLACION_BY_INDEX
        return super().subtipo_sql()


class LongLayout(MonthlyLayout):
    """One row per municipality, month and crime; subclasses name the columns of a cell."""

    # SQL literal stored as the cell's column name: 'eventos' tells curation the cell is dated
    # by ``fecha`` ('2023-01-01'), any other by ``anio`` and ``mes`` (see curate.CHECK_SQL).
    cell_column: ClassVar[str]
    month_sql: ClassVar[str] = "NULL"  # SQL for the month text ('3-Marzo'), or NULL
    date_sql: ClassVar[str] = "NULL"  # SQL for the date text ('2023-01-01'), or NULL
    value_sql: ClassVar[str]  # SQL for the count text

    def cells_sql(self, common: str, table: str) -> str:
        """Rename: one cell per raw row."""
        return f"""
            INSERT INTO cells BY NAME
            SELECT {common}, {self.cell_column} AS columna, {self.month_sql} AS mes, {self.date_sql} AS fecha,
                   {self.value_sql} AS valor
            FROM {table}
            """


@register_layout
class LargoNoCero(LongLayout):
    """SESNSP long export: only non-zero cells, ``Mes`` = ``N-Mes``, ``Cantidad``."""

    name = "largo_no_cero"
    label = "Largo, solo celdas distintas de cero (Mes/Cantidad)"
    priority = 30
    whole_years = True  # these files hold whole years
    cell_column = "'cantidad'"
    month_sql = '"mes"'
    value_sql = '"cantidad"'

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Month, count, year, municipality code and crime type columns."""
        return {"mes", "cantidad", "anio", "cve_municipio", "tipo"} <= header.present


@register_layout
class Canonico(LongLayout):
    """Our canonical long layout: keys, not labels."""

    name = "canonico"
    label = "Largo canónico (fecha, entidad, delito, eventos)"
    priority = 40
    cell_column = "'eventos'"
    date_sql = '"fecha"'
    value_sql = '"eventos"'

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Date, crime key and events, with a municipality id or code."""
        present = header.present
        return {"fecha", "delito", "eventos"} <= present and bool({"entidad_id", "cve_municipio"} & present)
