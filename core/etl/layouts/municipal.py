"""Municipal national layouts: counts per municipality and month staged into ``observations`` (docs/decisions/0011).

The Guanajuato tipo × modalidad parquet (and the 36 national parts it was cut from) names its
municipalities without codes; the Irapuato IDM_NM JSON carries them. Either way each row is
placed here: its state by code or SESNSP name, its municipality by code or by name, resolved
through the INEGI catalogue (``catalogs/entities/municipios_mx.csv``), Guanajuato's own
(``municipios.csv``), the CONAPO names a load stages beside it and the SESNSP spellings of
``municipios_variantes_sesnsp.csv``, compared without accents or case. A name two
municipalities of a state share is never guessed. «No especificado» and «Otros municipios»
are places of their own (SESNSP's codes ``xx998`` / ``xx999``), with no population. What does
not resolve goes to quarantine with the reason, as does a negative count (an upstream anomaly).

Rows are staged with the municipality's five-digit code standing in for its place id, which
is settled when the places are assembled (as for the municipal population).
"""

from __future__ import annotations

from typing import ClassVar

from core.config import CATALOGS_DIR
from core.dataset import entities, taxonomy
from core.etl import observations
from core.etl.curate import insert_rows, number_sql
from core.etl.layouts.base import Layout, ReadContext, Staged

ENTITIES_DIR = CATALOGS_DIR / "entities"
# SESNSP's codes for the rows that are no municipality (README «Notes on joining»).
NON_MUNICIPAL = {"no_especificado": ("998", "No especificado"), "otros_municipios": ("999", "Otros municipios")}
NAME_KEY = "trim(regexp_replace(lower(strip_accents(trim({0}))), '[^0-9a-z]+', '_', 'g'), '_')"
# The columns every municipal layout's long select gives, in this order.
LONG_COLUMNS = (
    "source_row",
    "anio",
    "mes",
    "clave",  # state code as text, or NULL (then the state name decides)
    "entidad",
    "cve_mun",  # five-digit municipality code as text, or NULL (then the name decides)
    "municipio",
    "ley",
    "bien",
    "tipo",
    "subtipo",
    "modalidad",
    "valor",
)


def municipality_names(con, seq: int) -> None:
    """``mun_names``: (cve_ent, name key) → the one code it names, from every catalogue the load knows."""
    gto = [(m.cve_ent, m.cve_municipio, n) for m in entities.load_municipalities() for n in (m.nombre, m.nombre_corto)]
    con.execute("CREATE OR REPLACE TEMP TABLE mun_gto (cve_ent VARCHAR, cve VARCHAR, nombre VARCHAR)")
    insert_rows(con, "mun_gto", gto)
    inegi, variants = str(ENTITIES_DIR / "municipios_mx.csv"), str(ENTITIES_DIR / "municipios_variantes_sesnsp.csv")
    # place_batch holds the CONAPO and INEGI names of the files loaded before this one in the same load.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE mun_names AS
            WITH n AS (
              SELECT cve_ent, cve, nombre FROM mun_gto
              UNION ALL SELECT cve_ent, cve_geo, nombre FROM read_csv(?, all_varchar = true)
              UNION ALL SELECT cve_ent, cve, label FROM place_batch WHERE load_seq < {seq} AND label IS NOT NULL
              UNION ALL SELECT cve_ent, cve, nombre_inegi FROM place_batch
                        WHERE load_seq < {seq} AND nombre_inegi IS NOT NULL),
            keyed AS (SELECT DISTINCT cve_ent, {NAME_KEY.format("nombre")} AS k, cve FROM n),
            plain AS (SELECT cve_ent, k, any_value(cve) AS cve FROM keyed GROUP BY ALL HAVING count(*) = 1),
            -- SESNSP spellings are explicit: they win over a plain name
            variant AS (SELECT left(cve_geo, 2) AS cve_ent, {NAME_KEY.format("nombre_sesnsp")} AS k, cve_geo AS cve
                        FROM read_csv(?, all_varchar = true))
            SELECT cve_ent, k, arg_min(cve, prio) AS cve
            FROM (SELECT *, 1 AS prio FROM plain UNION ALL SELECT *, 0 FROM variant) GROUP BY cve_ent, k""",
        [inegi, variants],
    )
    con.execute("CREATE OR REPLACE TEMP TABLE mun_codes AS SELECT DISTINCT cve FROM mun_names")


class MunicipalLayout(Layout):
    """A file of counts per municipality and month, staged into observations (never into incidents)."""

    hint = "También: archivos municipales del SESNSP en Parquet (tipo × modalidad) o JSON (IDM_NM)."
    medida: ClassVar[str] = "carpetas"
    fuero: ClassVar[str] = "comun"
    typed_values: ClassVar[bool] = False  # counts already numbers (Parquet): no text check needed

    def open_sql(self, source) -> str:
        """A SELECT over the raw rows of ``source`` (a SourceFile) with the layout's column names."""
        raise NotImplementedError

    def long_sql(self, table: str) -> str:
        """A SELECT of ``LONG_COLUMNS`` over the raw view: one row per municipality, month and crime row."""
        raise NotImplementedError

    def read(self, source, seq: int, ctx: ReadContext) -> Staged:
        """Let DuckDB read the file set-wise, reshape it long and stage its valid rows into ``obs_batch``."""
        raw = f"mun_raw_{seq}"
        ctx.con.execute(f"CREATE OR REPLACE TEMP VIEW {raw} AS {self.open_sql(source)}")
        rows = ctx.con.execute(f"SELECT count(*) FROM {raw}").fetchone()[0]
        accepted = stage_municipal(ctx, self, self.long_sql(raw), source.name, seq)
        return Staged({"filas": rows, "filas_aceptadas": accepted})


def _fill_catalogue_subtipo(con) -> None:
    """A file without subtipo names a crime whose tipo is its only subtipo: that subtipo is the level it carries."""
    rows = con.execute("SELECT combo, k_bien, k_tipo FROM obs_crimes WHERE k_subtipo IS NULL AND k_tipo IS NOT NULL")
    fills = []
    for combo, bien, tipo in rows.fetchall():  # one per catalogue row, not per data row
        crime = taxonomy.crime_for_labels(bien, tipo, None)
        if crime.nivel == "subtipo":
            fills.append((combo, crime.subtipo))
    con.execute("CREATE OR REPLACE TEMP TABLE obs_fill (combo INTEGER, subtipo VARCHAR)")
    insert_rows(con, "obs_fill", fills)
    con.execute("UPDATE obs_crimes SET k_subtipo = f.subtipo FROM obs_fill f WHERE obs_crimes.combo = f.combo")


def stage_municipal(ctx: ReadContext, layout: MunicipalLayout, long_sql: str, name: str, seq: int) -> int:
    """Quarantine the rows that cannot be placed or counted, stage the rest; returns the numbers staged."""
    con = ctx.con
    observations.ensure_batches(con)
    long, res = f"mun_long_{seq}", f"mun_res_{seq}"
    con.execute(f"CREATE OR REPLACE TEMP VIEW {long} AS {long_sql}")
    observations.state_table(con)
    municipality_names(con, seq)
    observations.crime_map(con, long)
    _fill_catalogue_subtipo(con)
    observations.year_methodology(con, long)
    # The labels are few: the places and crime keys are found once per distinct label, then joined back.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE mun_place_{seq} AS
            SELECT d.*, s.abbr, s.cve_ent, coalesce(
                     CASE WHEN d.cve_mun IS NOT NULL THEN (SELECT c.cve FROM mun_codes c
                                                           WHERE c.cve = lpad(trim(d.cve_mun), 5, '0')) END,
                     CASE WHEN d.k IN {tuple(NON_MUNICIPAL)} THEN s.cve_ent || CASE d.k {
            " ".join(f"WHEN '{k}' THEN '{v[0]}'" for k, v in NON_MUNICIPAL.items())
        } END END,
                     n.cve) AS cve
            FROM (SELECT DISTINCT clave, entidad, cve_mun, municipio, {NAME_KEY.format("municipio")} AS k
                  FROM {long}) d
            LEFT JOIN obs_states s ON s.num = TRY_CAST(trim(d.clave) AS INTEGER)
                 OR (d.clave IS NULL AND {NAME_KEY.format("s.nombre")} = {NAME_KEY.format("d.entidad")})
            LEFT JOIN mun_names n ON d.cve_mun IS NULL AND n.cve_ent = s.cve_ent AND n.k = d.k"""
    )
    num = "l.valor::DOUBLE" if layout.typed_values else number_sql("l.valor")
    year, month = "TRY_CAST(l.anio AS INTEGER)", "TRY_CAST(l.mes AS INTEGER)"
    checks = f"""CASE WHEN p.abbr IS NULL THEN 'entidad desconocida'
                 WHEN p.cve IS NULL OR left(p.cve, 2) <> p.cve_ent THEN 'municipio desconocido en el catálogo INEGI'
                 WHEN k.delito IS NULL THEN 'tipo de delito vacío'
                 WHEN {year} IS NULL OR {year} NOT BETWEEN 1990 AND 2100 THEN 'año inválido'
                 WHEN {month} IS NULL OR {month} NOT BETWEEN 1 AND 12 THEN 'mes inválido'
                 WHEN y.metodologia IS NULL THEN 'año sin metodología conocida'
                 WHEN {num} IS NULL THEN 'conteo no numérico'
                 WHEN {num} < 0 THEN 'conteo negativo (anomalía de origen)'
                 WHEN {num} <> floor({num}) THEN 'conteo no entero' END"""
    raw = "concat_ws(',', l.anio, l.mes, l.entidad, l.municipio, l.tipo, l.subtipo, l.modalidad, l.valor)"
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {res} AS
            SELECT l.source_row, {checks} AS motivo, p.cve, p.abbr AS estado_id, y.metodologia,
                   make_date({year}, {month}, 1) AS fecha_ok, ({num})::BIGINT AS eventos, k.combo,
                   k.tipo_key, k.delito, k.metodo,
                   CASE WHEN ({checks}) IS NOT NULL THEN left({raw}, 200) END AS valores  -- only a quarantined row's text
                  FROM {long} l
                  LEFT JOIN mun_place_{seq} p ON p.clave IS NOT DISTINCT FROM l.clave
                       AND p.entidad IS NOT DISTINCT FROM l.entidad AND p.cve_mun IS NOT DISTINCT FROM l.cve_mun
                       AND p.municipio IS NOT DISTINCT FROM l.municipio
                  LEFT JOIN obs_crimes k ON k.h = {observations.LABEL_HASH.format("l.")}
                  LEFT JOIN obs_method y ON y.anio = {year}"""
    )
    con.execute(
        f"INSERT INTO quarantine_batch SELECT {seq}, ?, source_row, motivo, valores FROM {res} WHERE motivo IS NOT NULL",
        [name],
    )
    # «No especificado» / «Otros municipios» become places of their own.
    labels = " ".join(f"WHEN '{v[0]}' THEN '{v[1]}'" for v in NON_MUNICIPAL.values())
    con.execute(
        f"""INSERT INTO place_batch SELECT DISTINCT {seq}, cve, cve_ent, CASE right(cve, 3) {labels} END, NULL, ?
            FROM mun_place_{seq} WHERE k IN {tuple(NON_MUNICIPAL)} AND cve IS NOT NULL""",
        [name],
    )
    cut = con.execute(f"SELECT max(fecha_ok) FROM {res} WHERE motivo IS NULL").fetchone()[0]
    # The row id hashes the key once per place × crime row (md5 per data row would dominate a 20 M-row load);
    # the month is folded in by xor on bits 40 and up.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE mun_kh_{seq} AS
            SELECT cve, combo, metodologia, md5_number_lower(concat_ws('|', cve, '{layout.medida}', '{layout.fuero}',
                   metodologia, tipo_key, delito, metodo)) AS h
            FROM (SELECT DISTINCT cve, combo, metodologia, tipo_key, delito, metodo FROM {res} WHERE motivo IS NULL)"""
    )
    con.execute(
        f"""INSERT INTO obs_batch BY NAME
            SELECT {seq} AS load_seq, r.fecha_ok AS fecha, 'municipio' AS nivel, r.cve AS lugar_id, r.estado_id,
                   '{layout.medida}' AS medida, '{layout.fuero}' AS fuero, r.metodologia, r.tipo_key, r.delito, r.metodo,
                   NULL AS sexo, NULL AS rango_edad, r.eventos, ?::DATE AS corte, TRUE AS vigente,
                   NULL AS sustituida_por, ? AS source_file, r.source_row,
                   (xor(kh.h, (year(r.fecha_ok) * 12 + month(r.fecha_ok))::UBIGINT << 40)
                    & 9223372036854775807::UBIGINT)::BIGINT AS row_id
            FROM {res} r JOIN mun_kh_{seq} kh USING (cve, combo, metodologia) WHERE r.motivo IS NULL""",
        [cut, name],
    )
    return observations.insert_levels(con, seq, layout.fuero, res)
