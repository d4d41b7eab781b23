"""State-level national layouts: the SESNSP state files (old methodology and RNID), victims, fuero federal.

Each is read as text by DuckDB, reshaped to one long row per state × month × crime row
(wide month columns go through UNPIVOT, whose dropped empty cells are the months not yet
published, never zeros) and staged into ``obs_batch`` (``core.etl.observations``) with what
every number is: place level, the crime levels the file carries, measure, jurisdiction and
methodology. A row whose state is unknown, whose count is not a whole number or is negative
(an upstream anomaly) goes to quarantine with the reason; nothing is guessed.
"""

from __future__ import annotations

from typing import ClassVar

from core.etl import load, observations
from core.etl.curate import number_sql
from core.etl.layouts.base import Header, Layout, ReadContext, Staged, canonical_columns, register_layout
from core.etl.load import LoadedFile, line_expr, quote_ident
from core.etl.sources import SourceFile
from core.text import MONTHS

_MONTH_NUMBER = "CASE mes_nombre " + " ".join(f"WHEN '{m}' THEN {i}" for i, m in enumerate(MONTHS, start=1)) + " END"
_SLUG_KEY = "trim(regexp_replace(lower(strip_accents({0})), '[^0-9a-z]+', '_', 'g'), '_')"
# The columns every layout's long select gives, in this order.
LONG_COLUMNS = (
    "source_row",
    "anio",
    "mes",
    "clave",
    "entidad",
    "ley",
    "bien",
    "tipo",
    "subtipo",
    "modalidad",
    "sexo",
    "rango_edad",
    "valor",
)


class StateLayout(Layout):
    """A national file of counts per state and month, staged into observations (never into incidents)."""

    hint = "También: archivos estatales del SESNSP (delitos, víctimas, fuero federal)."
    medida: ClassVar[str]  # 'carpetas' or 'victimas'
    fuero: ClassVar[str]  # 'comun' or 'federal'
    methodology: ClassVar[str | None] = None  # one for the whole file, or SESNSP's of each year

    def long_sql(self, table: str, line: str) -> str:
        """A SELECT of ``LONG_COLUMNS`` over the raw table: one row per state, month and crime row."""
        raise NotImplementedError

    def crime_keys_sql(self) -> tuple[str, str, str]:
        """SQL for (tipo_key, delito, metodo) of a long row ``l`` joined to ``obs_crimes`` as ``k``."""
        return "k.tipo_key", "k.delito", "k.metodo"

    def read(self, source: SourceFile, seq: int, ctx: ReadContext) -> Staged:
        """Read the file as text, reshape it long and stage its valid rows into ``obs_batch``."""
        loaded = load.read_raw(ctx.con, source, self, seq, ctx.limits)
        load.stage_rejects(ctx.con, loaded, seq)
        accepted = self.stage(ctx, loaded, seq)
        return Staged({"filas": loaded.rows + loaded.rejected_rows, "filas_aceptadas": accepted})

    def stage(self, ctx: ReadContext, loaded: LoadedFile, seq: int) -> int:
        """Quarantine the rows that cannot be placed or counted, stage the rest; returns the numbers staged."""
        con, name = ctx.con, loaded.source.name
        observations.ensure_batches(con)
        long, res = f"obs_long_{seq}", f"obs_res_{seq}"
        con.execute(f"CREATE OR REPLACE TEMP VIEW {long} AS {self.long_sql(loaded.table, line_expr(loaded, seq))}")
        observations.state_table(con)
        observations.crime_map(con, long)
        observations.year_methodology(con, long, self.methodology)
        num = number_sql("l.valor")
        year, month = "TRY_CAST(l.anio AS INTEGER)", "TRY_CAST(l.mes AS INTEGER)"
        abroad = "l.clave IS NULL AND upper(strip_accents(trim(l.entidad))) = 'EXTRANJERO'"
        place = f"CASE WHEN s.abbr IS NOT NULL THEN s.abbr WHEN {abroad} THEN '{observations.ABROAD_ID}' END"
        tipo_key, delito, metodo = self.crime_keys_sql()
        checks = f"""CASE WHEN ({place}) IS NULL THEN 'entidad desconocida'
                     WHEN ({delito}) IS NULL THEN 'tipo de delito vacío'
                     WHEN {year} IS NULL OR {year} NOT BETWEEN 1990 AND 2100 THEN 'año inválido'
                     WHEN {month} IS NULL OR {month} NOT BETWEEN 1 AND 12 THEN 'mes inválido'
                     WHEN y.metodologia IS NULL THEN 'año sin metodología conocida'
                     WHEN {num} IS NULL THEN 'conteo no numérico'
                     WHEN {num} < 0 THEN 'conteo negativo (anomalía de origen)'
                     WHEN {num} <> floor({num}) THEN 'conteo no entero' END"""
        # Only what the batch needs is kept (the labels live once per combination, in obs_crimes);
        # the raw text of a row is kept only when it goes to quarantine.
        raw = "concat_ws(',', l.anio, l.mes, l.clave, l.entidad, l.tipo, l.subtipo, l.modalidad, l.valor)"
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE {res} AS
                SELECT source_row, motivo, lugar_id, estado_id, metodologia, fecha_ok, eventos, combo,
                       tipo_key, delito, metodo, sexo, rango_edad, CASE WHEN motivo IS NOT NULL THEN valores END AS valores
                FROM (SELECT l.source_row, {checks} AS motivo, {place} AS lugar_id, s.abbr AS estado_id,
                             y.metodologia, make_date({year}, {month}, 1) AS fecha_ok, ({num})::BIGINT AS eventos,
                             k.combo, {tipo_key} AS tipo_key, {delito} AS delito, {metodo} AS metodo,
                             l.sexo, l.rango_edad, left({raw}, 200) AS valores
                      FROM {long} l
                      LEFT JOIN obs_states s ON s.num = TRY_CAST(trim(l.clave) AS INTEGER)
                      LEFT JOIN obs_crimes k ON k.h = {observations.LABEL_HASH.format("l.")}
                      LEFT JOIN obs_method y ON y.anio = {year})"""
        )
        con.execute(
            f"""INSERT INTO quarantine_batch SELECT {seq}, ?, source_row, motivo, valores
                FROM {res} WHERE motivo IS NOT NULL""",
            [name],
        )
        # The cut of the file: its last month with a number (what «newer cut first» compares).
        cut = con.execute(f"SELECT max(fecha_ok) FROM {res} WHERE motivo IS NULL").fetchone()[0]
        con.execute(
            f"""INSERT INTO obs_batch BY NAME SELECT *, {observations.ROW_ID_SQL} AS row_id FROM (
                SELECT {seq} AS load_seq, fecha_ok AS fecha,
                       CASE WHEN estado_id IS NULL THEN 'extranjero' ELSE 'estado' END AS nivel,
                       lugar_id, estado_id, '{self.medida}' AS medida, '{self.fuero}' AS fuero, metodologia,
                       tipo_key, delito, metodo, sexo, rango_edad, eventos, ?::DATE AS corte,
                       TRUE AS vigente, NULL AS sustituida_por, ? AS source_file, source_row
                FROM {res} WHERE motivo IS NULL)""",
            [cut, name],
        )
        return observations.insert_levels(con, seq, self.fuero, res)


class StateWideLayout(StateLayout):
    """One row per state, year and crime row, twelve month columns (the original SESNSP layout)."""

    def label_sql(self) -> dict[str, str]:
        """SQL for the label columns of a raw row (ley, bien, tipo, subtipo, modalidad); NULL when absent."""
        raise NotImplementedError

    def long_sql(self, table: str, line: str) -> str:
        """Unpivot the months; UNPIVOT drops the empty (unpublished) cells, the WHERE drops blank ones."""
        months = ", ".join(quote_ident(m) for m in MONTHS)
        labels = self.label_sql()
        label_cols = ", ".join(f"{labels[k]} AS {k}" for k in ("ley", "bien", "tipo", "subtipo", "modalidad"))
        return f"""
            SELECT source_row, anio, ({_MONTH_NUMBER})::VARCHAR AS mes, clave, entidad, ley, bien, tipo, subtipo,
                   modalidad, NULL::VARCHAR AS sexo, NULL::VARCHAR AS rango_edad, valor
            FROM (UNPIVOT (SELECT {line} AS source_row, trim("anio") AS anio, nullif(trim("clave_ent"), '') AS clave,
                                  trim("entidad") AS entidad, {label_cols}, {months} FROM {table})
                  ON {months} INTO NAME mes_nombre VALUE valor)
            WHERE trim(valor) <> ''"""


@register_layout
class EstatalSesnsp(StateWideLayout):
    """The SESNSP state file of fuero común carpetas (IDEFC to 2025, RNID from 2026; same header)."""

    name = "estatal_sesnsp"
    label = "SESNSP estatal, fuero común (ancho, 12 meses, subtipo × modalidad)"
    priority = 12  # before the reduced layout, which refuses a wide file without municipality columns
    medida = "carpetas"
    fuero = "comun"

    @classmethod
    def detect(cls, header: Header) -> bool:
        """The months, year, state code and every crime level, without municipality columns."""
        present = header.present
        needed = set(MONTHS) | {"anio", "clave_ent", "entidad", "bien_juridico", "tipo", "subtipo", "modalidad"}
        return needed <= present and not present & {"cve_municipio", "municipio"}

    def label_sql(self) -> dict[str, str]:
        """Every level but the federal law."""
        return {
            "ley": "NULL::VARCHAR",
            "bien": 'trim("bien_juridico")',
            "tipo": 'trim("tipo")',
            "subtipo": 'trim("subtipo")',
            "modalidad": 'trim("modalidad")',
        }


FEDERAL_ALIASES = {"ano": "anio", "inegi": "clave_ent", "entidad": "entidad", "ley": "ley"}
FEDERAL_ALIASES.update({"concepto": "concepto", "tipo": "tipo_federal", **{m: m for m in MONTHS}})


@register_layout
class FueroFederal(StateWideLayout):
    """The SESNSP file of federal-jurisdiction carpetas (IDEFF): ley → concepto → tipo, by state."""

    name = "fuero_federal"
    label = "SESNSP fuero federal por entidad (ancho, 12 meses, ley × concepto × tipo)"
    priority = 13
    medida = "carpetas"
    fuero = "federal"
    methodology = "IDEFF"  # the federal statistics have their own series, untouched by RNID

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Year, INEGI code, law, concept, type and the twelve months."""
        return set(FEDERAL_ALIASES) <= set(header.keys)

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """Its own names: TIPO here is a federal crime, not a SESNSP fuero común tipo."""
        return canonical_columns(header.cells, FEDERAL_ALIASES)

    def label_sql(self) -> dict[str, str]:
        """The law, then concepto as the tipo level and the federal tipo as the subtipo level."""
        return {
            "ley": 'trim("ley")',
            "bien": "NULL::VARCHAR",
            "tipo": 'trim("concepto")',
            "subtipo": 'trim("tipo_federal")',
            "modalidad": "NULL::VARCHAR",
        }

    def crime_keys_sql(self) -> tuple[str, str, str]:
        """Federal keys carry their jurisdiction, so no federal crime ever shares a key with a común one."""
        tipo = "'federal_' || " + _SLUG_KEY.format("k.k_tipo")
        delito = "'federal_' || " + _SLUG_KEY.format("concat_ws(' ', k.k_tipo, k.k_subtipo)")
        return tipo, delito, "NULL"


VICTIM_ALIASES = {
    "n_year": "anio",
    "n_month": "mes",
    "cve_ent": "clave_ent",
    "nombre_estado": "entidad",
    "bien_juridico_afectado": "bien_juridico",
    "tipo_de_delito": "tipo",
    "subtipo_de_delito": "subtipo",
    "modalidad": "modalidad",
    "genero": "sexo",
    "rango_de_edad": "rango_edad",
    "n_victimas": "victimas",
}


@register_layout
class VictimasEstatal(StateLayout):
    """The SESNSP victims file by state, long: one row per month, crime row, sexo and rango de edad."""

    name = "victimas_estatal"
    label = "SESNSP víctimas por entidad (largo, sexo × rango de edad)"
    priority = 14
    medida = "victimas"
    fuero = "comun"

    @classmethod
    def detect(cls, header: Header) -> bool:
        """Year, month, state code, the crime levels, sexo, rango de edad and the victims count."""
        return set(VICTIM_ALIASES) <= set(header.keys)

    @classmethod
    def column_names(cls, header: Header) -> tuple[str, ...]:
        """Its own names (``genero`` is the sexo of the victims)."""
        return canonical_columns(header.cells, VICTIM_ALIASES)

    def long_sql(self, table: str, line: str) -> str:
        """Already long: rename."""
        return f"""
            SELECT {line} AS source_row, trim("anio") AS anio, trim("mes") AS mes,
                   nullif(trim("clave_ent"), '') AS clave, trim("entidad") AS entidad, NULL::VARCHAR AS ley,
                   trim("bien_juridico") AS bien, trim("tipo") AS tipo, trim("subtipo") AS subtipo,
                   trim("modalidad") AS modalidad, trim("sexo") AS sexo, trim("rango_edad") AS rango_edad,
                   "victimas" AS valor
            FROM {table} WHERE trim(coalesce("victimas", '')) <> ''"""
