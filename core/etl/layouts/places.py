"""National place layouts: CONAPO population by state and sex, CONAPO municipal population, the INEGI catalogue.

They stage into ``place_batch`` and ``place_pop_batch`` (``core.etl.observations``), which
become the version's ``places`` and ``place_population``; Guanajuato's own ``population`` and
``entities`` stay as they were. Codes are joined as zero-padded text (``01``, ``01001``): the
files write them that way and a number would lose the leading zero.
"""

from __future__ import annotations

import re

from core.etl import load, observations
from core.etl.curate import number_sql
from core.etl.layouts.base import Header, Layout, ReadContext, Staged, canonical_columns, register_layout
from core.etl.load import LoadedFile, line_expr, quote_ident
from core.etl.sources import SourceFile

POPULATION_SOURCE = "CONAPO"
_YEAR_KEY = re.compile(r"^(19|20)\d\d$")


class PlaceLayout(Layout):
    """A national reference file of places or population, staged beside (never into) Guanajuato's tables."""

    hint = "También: población CONAPO nacional (estatal por sexo, municipal ancha) y catálogo INEGI de municipios."

    def read(self, source: SourceFile, seq: int, ctx: ReadContext) -> Staged:
        """Read the file as text and stage its valid rows."""
        loaded = load.read_raw(ctx.con, source, self, seq, ctx.limits)
        load.stage_rejects(ctx.con, loaded, seq)
        observations.ensure_batches(ctx.con)
        accepted = self.stage(ctx, loaded, seq, line_expr(loaded, seq))
        return Staged({"filas": loaded.rows + loaded.rejected_rows, "filas_aceptadas": accepted})

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, line: str) -> int:
        """Quarantine the bad rows, stage the rest; returns the rows staged."""
        raise NotImplementedError


def _stage_population(ctx: ReadContext, loaded: LoadedFile, seq: int, long_sql: str) -> int:
    """Check a long population select (source_row, cve, nivel, anio, sexo, valor) and stage it."""
    con, name = ctx.con, loaded.source.name
    long = f"pop_long_{seq}"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {long} AS {long_sql}")
    observations.state_table(con)
    num, year = number_sql("l.valor"), "TRY_CAST(l.anio AS INTEGER)"
    place = f"CASE WHEN l.cve = '00' THEN '{observations.COUNTRY_ID}' WHEN l.nivel = 'estado' THEN s.abbr END"
    checks = f"""CASE WHEN l.nivel = 'estado' AND ({place}) IS NULL THEN 'entidad desconocida'
                 WHEN l.nivel = 'municipio' AND NOT regexp_full_match(coalesce(l.cve, ''), '\\d{{5}}')
                      THEN 'clave de municipio inválida'
                 WHEN {year} IS NULL OR {year} NOT BETWEEN 1900 AND 2100 THEN 'año inválido'
                 WHEN {num} IS NULL THEN 'población no numérica'
                 WHEN {num} <= 0 OR {num} <> floor({num}) THEN 'población inválida' END"""
    joined = f"FROM {long} l LEFT JOIN obs_states s ON s.cve_ent = l.cve"
    con.execute(
        f"""INSERT INTO quarantine_batch SELECT {seq}, ?, l.source_row, {checks},
            left(concat_ws(',', l.cve, l.anio, l.sexo, l.valor), 200) {joined} WHERE ({checks}) IS NOT NULL""",
        [name],
    )
    # A municipality's id is settled when the places are assembled; its code stands in until then.
    con.execute(
        f"""INSERT INTO place_pop_batch
            SELECT {seq}, coalesce({place}, l.cve), CASE WHEN l.cve = '00' THEN 'pais' ELSE l.nivel END, l.cve,
                   {year}, l.sexo, ({num})::BIGINT, '{POPULATION_SOURCE}', ?, l.source_row
            {joined} WHERE ({checks}) IS NULL""",
        [name],
    )
    return con.execute("SELECT count(*) FROM place_pop_batch WHERE load_seq = ?", [seq]).fetchone()[0]


STATE_POP_ALIASES = {
    "n_year": "anio",
    "nombre_estado": "entidad",
    "cve_ent": "clave_ent",
    "genero": "sexo",
    "pob_start_year": "pob_inicio",
    "pob_mid_year": "pob_mitad",
}


@register_layout
class PoblacionEstatalSexo(PlaceLayout):
    """CONAPO population of the country and the 32 states, by year and sex (mid-year is the one staged)."""

    name = "poblacion_estatal_sexo"
    label = "Población CONAPO nacional y estatal por sexo"
    priority = 82

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Year, state code, sex and the mid-year population."""
        return set(STATE_POP_ALIASES) <= set(header.keys)

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """Its own names."""
        return canonical_columns(header.cells, STATE_POP_ALIASES)

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, line: str) -> int:
        """Mid-year population (the one rates use), sexo as hombres / mujeres / total."""
        return _stage_population(
            ctx,
            loaded,
            seq,
            f"""SELECT {line} AS source_row, lpad(trim("clave_ent"), 2, '0') AS cve, 'estado' AS nivel,
                       trim("anio") AS anio, lower(trim("sexo")) AS sexo, "pob_mitad" AS valor
                FROM {loaded.table}""",
        )


def _year_columns(header: Header) -> list[str]:
    return [k for k in header.keys if _YEAR_KEY.match(k)]


@register_layout
class PoblacionMunicipalAncha(PlaceLayout):
    """CONAPO mid-year population of every municipality, one column per year."""

    name = "poblacion_municipal_ancha"
    label = "Población CONAPO municipal (ancha, una columna por año)"
    priority = 83

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Code, state, municipality and at least one year column."""
        return {"cve", "entidad", "municipio"} <= set(header.keys) and bool(_year_columns(header))

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """The code as ``cve_municipio``; years keep their number."""
        aliases = {"cve": "cve_municipio", "entidad": "entidad", "municipio": "municipio"}
        aliases.update({k: f"y{k}" for k in _year_columns(header)})
        return canonical_columns(header.cells, aliases)

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, line: str) -> int:
        """Unpivot the years; the names go to the places (the CONAPO / SESNSP spelling is the label)."""
        table = loaded.table
        years = ", ".join(quote_ident(c) for c in self.columns if c.startswith("y"))
        ctx.con.execute(
            f"""INSERT INTO place_batch SELECT DISTINCT {seq}, lpad(trim("cve_municipio"), 5, '0'),
                       left(lpad(trim("cve_municipio"), 5, '0'), 2), trim("municipio"), NULL, ?
                FROM {table} WHERE regexp_full_match(lpad(trim("cve_municipio"), 5, '0'), '\\d{{5}}')""",
            [loaded.source.name],
        )
        return _stage_population(
            ctx,
            loaded,
            seq,
            f"""SELECT source_row, cve, 'municipio' AS nivel, substr(anio_col, 2) AS anio, 'total' AS sexo, valor
                FROM (UNPIVOT (SELECT {line} AS source_row, lpad(trim("cve_municipio"), 5, '0') AS cve, {years}
                               FROM {table}) ON {years} INTO NAME anio_col VALUE valor)
                WHERE trim(valor) <> ''""",
        )


INEGI_ALIASES = {
    "cve_geo": "cve_municipio",
    "nombre_estado": "entidad",
    "cve_ent": "clave_ent",
    "nombre_municipio": "municipio",
    "cve_mun": "cve_mun",
}


@register_layout
class CatalogoInegi(PlaceLayout):
    """The INEGI catalogue of municipalities (Marco Geoestadístico): codes and names."""

    name = "catalogo_inegi"
    label = "Catálogo INEGI de municipios (Marco Geoestadístico)"
    priority = 84

    @classmethod
    def detect(cls, header: Header) -> bool:
        """The five INEGI columns."""
        return set(INEGI_ALIASES) <= set(header.keys)

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """Its own names."""
        return canonical_columns(header.cells, INEGI_ALIASES)

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int, line: str) -> int:
        """The INEGI name of each code; a code that is not five digits goes to quarantine."""
        con, table, name = ctx.con, loaded.table, loaded.source.name
        cve = "lpad(trim(\"cve_municipio\"), 5, '0')"
        bad = f"NOT regexp_full_match(coalesce({cve}, ''), '\\d{{5}}') OR trim(coalesce(\"municipio\", '')) = ''"
        con.execute(
            f"""INSERT INTO quarantine_batch SELECT {seq}, ?, {line}, 'clave de municipio inválida',
                left(concat_ws(',', "cve_municipio", "municipio"), 200) FROM {table} WHERE {bad}""",
            [name],
        )
        con.execute(
            f"""INSERT INTO place_batch SELECT {seq}, {cve}, left({cve}, 2), NULL, trim("municipio"), ?
                FROM {table} WHERE NOT ({bad})""",
            [name],
        )
        return con.execute("SELECT count(*) FROM place_batch WHERE load_seq = ?", [seq]).fetchone()[0]
