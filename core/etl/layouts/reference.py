"""Reference layouts: yearly all-crime totals, population, the municipality catalogue and maps.

The tables go through the same staging connection and quarantine as the monthly files,
but land in their own tables: the yearly totals are an annual series (``total_delitos``)
that is never mixed into monthly sums; population feeds ``tasa_per_100k``. A GeoJSON map
is not staged at all: it is copied into the version as it is.
"""

from __future__ import annotations

from typing import ClassVar

import duckdb

from core.dataset import taxonomy
from core.etl import load
from core.etl.curate import KnownEntities, insert_rows, number_sql, resolve_entity
from core.etl.layouts.base import Header, Layout, ReadContext, Staged, register_layout
from core.etl.load import LoadedFile, line_expr
from core.etl.sources import SourceFile

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
_YEAR = number_sql('r."anio"')


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


def _join(table: str, has_name: bool, line: str) -> str:
    name_cond = 'r."municipio" IS NOT DISTINCT FROM m.k_mun' if has_name else "TRUE"
    return f"""FROM (SELECT {line} AS source_row, * FROM {table}) r
               LEFT JOIN ref_map m ON r."cve_municipio" IS NOT DISTINCT FROM m.k_cve AND {name_cond}"""


def _quarantine(con, seq: int, name: str, table: str, has_name: bool, checks: str, raw_expr: str, line: str) -> None:
    con.execute(
        f"""INSERT INTO quarantine_batch
            SELECT {seq}, ?, source_row, motivo, valores FROM (
              SELECT r.source_row, coalesce(m.motivo, {checks}) AS motivo, left({raw_expr}, 200) AS valores
              {_join(table, has_name, line)}) WHERE motivo IS NOT NULL""",
        [name],
    )


class ReferenceLayout(Layout):
    """A table keyed by municipality code: resolved against the known municipalities, then staged."""

    hint = "También: totales anuales, población CONAPO, población del censo y catálogo de municipios."

    def read(self, source: SourceFile, seq: int, ctx: ReadContext) -> Staged:
        """Read the file as text and stage its valid rows into the layout's batch table."""
        loaded = load.read_raw(ctx.con, source, self, seq, ctx.limits)
        load.stage_rejects(ctx.con, loaded, seq)
        has_name = self.has("municipio")
        _resolve_codes(ctx.con, loaded.table, has_name, ctx.known)
        accepted = self.stage(ctx, loaded, seq, has_name, line_expr(loaded, seq))
        staged = Staged({"filas": loaded.rows + loaded.rejected_rows, "filas_aceptadas": accepted})
        staged.warnings.extend(self.warnings(ctx))
        return staged

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, has_name: bool, line: str) -> int:
        """Quarantine the bad rows, stage the rest; returns the rows accepted."""
        raise NotImplementedError

    def warnings(self, ctx: ReadContext) -> list[str]:
        """Warnings for the file's report."""
        return []


@register_layout
class TotalesAnuales(ReferenceLayout):
    """Yearly totals of all crimes per municipality (an annual series, never summed into months)."""

    name = "totales_anuales"
    label = "Totales anuales de todos los delitos"
    priority = 50

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Municipality code, year and total."""
        return {"cve_municipio", "anio", "total_delitos"} <= header.present

    def warnings(self, ctx: ReadContext) -> list[str]:
        """Without a declared cut the last year is taken as complete."""
        if ctx.annual_cut:
            return []
        return ["No se declaró el corte del último año: todos los años se toman como completos."]

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, has_name: bool, line: str) -> int:
        """Stage into ``annual_batch`` with each year's methodology and completeness."""
        con, table, name, year, cut = ctx.con, loaded.table, loaded.source.name, _YEAR, ctx.annual_cut
        con.execute(ANNUAL_DDL)
        total = number_sql('r."total_delitos"')
        checks = f"""CASE WHEN {year} IS NULL OR {year} <> floor({year}) OR {year} NOT BETWEEN 1990 AND 2100 THEN 'año inválido'
                     WHEN {total} IS NULL THEN 'conteo no numérico'
                     WHEN {total} < 0 THEN 'conteo negativo'
                     WHEN {total} <> floor({total}) THEN 'conteo no entero' END"""
        _quarantine(con, seq, name, table, has_name, checks, 'r."total_delitos"', line)
        rows = con.execute(
            f"""SELECT DISTINCT {year}::INTEGER {_join(table, has_name, line)}
                WHERE m.motivo IS NULL AND ({checks}) IS NULL"""
        ).fetchall()
        methodology = {y: taxonomy.methodology_for_year(ANNUAL_SERIES, y) for (y,) in rows}
        con.execute(
            "CREATE OR REPLACE TEMP TABLE year_meta (anio INTEGER, metodologia VARCHAR, parcial BOOLEAN, meses INTEGER)"
        )
        meta_rows = []
        for y, method in methodology.items():
            months = cut[1] if cut and cut[0] == y else 12
            if cut and y > cut[0]:
                months = 0
            meta_rows.append((y, method, months < 12, months))
        if meta_rows:
            con.executemany("INSERT INTO year_meta VALUES (?,?,?,?)", meta_rows)
        con.execute(
            f"""INSERT INTO annual_batch
                SELECT {seq}, (md5_number_lower(concat_ws('|', m.cve_municipio, {year}::INTEGER, '{ANNUAL_SERIES}'))
                               & 9223372036854775807::UBIGINT)::BIGINT,
                       {year}::INTEGER, m.cve_municipio, m.cve_ent, m.estado_id, m.entidad_id, m.municipio,
                       '{ANNUAL_SERIES}', ({total})::BIGINT,
                       y.metodologia, y.parcial, y.meses, ?, r.source_row
                {_join(table, has_name, line)} JOIN year_meta y ON y.anio = {year}::INTEGER
                WHERE m.motivo IS NULL AND ({checks}) IS NULL""",
            [name],
        )
        return con.execute("SELECT count(*) FROM annual_batch WHERE load_seq = ?", [seq]).fetchone()[0]


class PopulationLayout(ReferenceLayout):
    """Population per municipality and year; subclasses say which column, year and source."""

    value_column: ClassVar[str]  # quoted raw column with the population
    year_sql: ClassVar[str]  # SQL for the row's year
    source_label: ClassVar[str]  # the ``fuente`` stored with every row

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, has_name: bool, line: str) -> int:
        """Stage into ``population_batch``."""
        con, table, name = ctx.con, loaded.table, loaded.source.name
        value, yexpr = self.value_column, self.year_sql
        con.execute(POPULATION_DDL)
        num = number_sql(f"r.{value}")
        checks = f"""CASE WHEN {yexpr} IS NULL OR {yexpr} <> floor({yexpr}) OR {yexpr} NOT BETWEEN 1900 AND 2100 THEN 'año inválido'
                     WHEN {num} IS NULL THEN 'población no numérica'
                     WHEN {num} <= 0 OR {num} <> floor({num}) THEN 'población inválida' END"""
        _quarantine(con, seq, name, table, has_name, checks, f"r.{value}", line)
        con.execute(
            f"""INSERT INTO population_batch
                SELECT {seq}, m.cve_municipio, m.entidad_id, m.estado_id, ({yexpr})::INTEGER,
                       {num}::BIGINT, '{self.source_label}', ?, r.source_row
                {_join(table, has_name, line)} WHERE m.motivo IS NULL AND ({checks}) IS NULL""",
            [name],
        )
        return con.execute("SELECT count(*) FROM population_batch WHERE load_seq = ?", [seq]).fetchone()[0]


@register_layout
class Poblacion(PopulationLayout):
    """CONAPO projections: one row per municipality and year."""

    name = "poblacion"
    label = "Población CONAPO por municipio y año"
    priority = 60
    value_column = '"poblacion"'
    year_sql = _YEAR
    source_label = "CONAPO"

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Municipality code, year and population."""
        return {"cve_municipio", "anio", "poblacion"} <= header.present


@register_layout
class PoblacionCenso(PopulationLayout):
    """The 2020 census count: one row per municipality."""

    name = "poblacion_censo"
    label = "Población del Censo 2020"
    priority = 70
    value_column = '"poblacion_censo2020"'
    year_sql = "2020"
    source_label = "INEGI Censo 2020"

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Municipality code and the census population."""
        return {"cve_municipio", "poblacion_censo2020"} <= header.present


@register_layout
class CatalogoMunicipios(ReferenceLayout):
    """Municipality codes and names, nothing else."""

    name = "catalogo_municipios"
    label = "Catálogo de municipios"
    priority = 80

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Code and name, plus at most the state code and the short municipality code."""
        present = header.present
        return {"cve_municipio", "municipio"} <= present and len(present - {"clave_ent", "cve_mun"}) == 2

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, has_name: bool, line: str) -> int:
        """Stage into ``entity_batch``."""
        con, table, name = ctx.con, loaded.table, loaded.source.name
        con.execute(ENTITY_DDL)
        _quarantine(con, seq, name, table, has_name, "NULL", 'r."municipio"', line)
        con.execute(
            f"""INSERT INTO entity_batch
                SELECT DISTINCT {seq}, m.cve_municipio, m.cve_ent, m.estado_id, m.estado, m.entidad_id,
                       coalesce(m.municipio, trim(r."municipio"))
                {_join(table, has_name, line)} WHERE m.motivo IS NULL"""
        )
        return con.execute("SELECT count(*) FROM entity_batch WHERE load_seq = ?", [seq]).fetchone()[0]


@register_layout
class MapaGeoJson(Layout):
    """A GeoJSON map of municipalities: copied into the version, never staged."""

    name = "geojson"
    label = "Mapa GeoJSON de municipios"
    priority = 10
    kind = "geojson"
    map = True

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Any GeoJSON file (the front door already checked it is one)."""
        return True
