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
from core.etl.merge import sql_literal

ENTITIES_DIR = CATALOGS_DIR / "entities"
# SESNSP's codes for the rows that are no municipality (README «Notes on joining»).
NON_MUNICIPAL = {"no_especificado": ("998", "No especificado"), "otros_municipios": ("999", "Otros municipios")}
# One number per distinct place label of a row: the rows join their place on it, not on four texts.
PLACE_HASH = "hash({0}clave, {0}entidad, {0}cve_mun, {0}municipio)"
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
    # Rows read again from the file when the version is assembled, never written into ``obs_batch`` (a Parquet
    # file's 20 M rows are cheaper to read twice than to write and read back).
    staged_as_view: ClassVar[bool] = False

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
    """Quarantine the rows that cannot be placed or counted, stage the rest; returns the numbers staged.

    Every label is resolved once, in small tables (places × crime rows × methodologies); the data
    rows are then read twice (a narrow summary that also finds the rows to quarantine, and the one
    write into ``obs_batch``) and never copied anywhere else, so a 20 M-row load writes its rows once.
    A layout ``staged_as_view`` writes none: its rows are a view (``obs_views``) the assembly reads from the
    file, so they are written only into the version's ``observations``."""
    con = ctx.con
    observations.ensure_batches(con)
    long, keys = f"mun_long_{seq}", f"mun_keys_{seq}"
    con.execute(f"CREATE OR REPLACE TEMP VIEW {long} AS {long_sql}")
    observations.state_table(con)
    municipality_names(con, seq)
    observations.crime_map(con, long)
    _fill_catalogue_subtipo(con)
    observations.year_methodology(con, long)
    _resolve_places(con, long, seq)
    _resolve_keys(con, layout, seq)
    num = "l.valor::DOUBLE" if layout.typed_values else number_sql("l.valor")
    year, month = "TRY_CAST(l.anio AS INTEGER)", "TRY_CAST(l.mes AS INTEGER)"
    checks = f"""coalesce(k.motivo, CASE
                 WHEN {year} IS NULL OR {year} NOT BETWEEN 1990 AND 2100 THEN 'año inválido'
                 WHEN {month} IS NULL OR {month} NOT BETWEEN 1 AND 12 THEN 'mes inválido'
                 WHEN k.metodologia IS NULL THEN 'año sin metodología conocida'
                 WHEN {num} IS NULL THEN 'conteo no numérico'
                 WHEN {num} < 0 THEN 'conteo negativo (anomalía de origen)'
                 WHEN {num} <> floor({num}) THEN 'conteo no entero' END)"""
    # Each data row finds its place × crime row × methodology in one join on three integers.
    rows = f"""FROM {long} l LEFT JOIN obs_method_key_{seq} y ON y.anio = {year}
               LEFT JOIN {keys} k ON k.ph = {PLACE_HASH.format("l.")} AND k.ch = {observations.LABEL_HASH.format("l.")}
                    AND k.mh = coalesce(y.mh, 0)"""
    # One narrow pass: per crime key and reason, the last month and the rows (× month) to quarantine (few).
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE mun_used_{seq} AS
            SELECT k.idx, {checks} AS motivo, max(make_date({year}, {month}, 1)) AS last, count(*) AS n,
                   list({{r: l.source_row, a: l.anio, m: l.mes}}) FILTER (WHERE {checks} IS NOT NULL) AS bad {rows} GROUP BY ALL"""
    )
    bad = f"SELECT unnest(bad, recursive := true), motivo FROM mun_used_{seq} WHERE motivo IS NOT NULL"
    if con.execute(f"SELECT count(*) FROM ({bad})").fetchone()[0]:  # their text, read only when there are some
        raw = "concat_ws(',', l.anio, l.mes, l.entidad, l.municipio, l.tipo, l.subtipo, l.modalidad, l.valor)"
        con.execute(
            f"""INSERT INTO quarantine_batch
                SELECT {seq}, ?, l.source_row, b.motivo, left({raw}, 200) FROM {long} l
                JOIN ({bad}) b ON b.r = l.source_row AND b.a IS NOT DISTINCT FROM l.anio AND b.m IS NOT DISTINCT FROM l.mes""",
            [name],
        )
    # «No especificado» / «Otros municipios» become places of their own.
    labels = " ".join(f"WHEN '{v[0]}' THEN '{v[1]}'" for v in NON_MUNICIPAL.values())
    con.execute(
        f"""INSERT INTO place_batch SELECT DISTINCT {seq}, cve, cve_ent, CASE right(cve, 3) {labels} END, NULL, ?
            FROM mun_place_{seq} WHERE k IN {tuple(NON_MUNICIPAL)} AND cve IS NOT NULL""",
        [name],
    )
    cut, accepted = con.execute(
        f"SELECT max(last), coalesce(sum(n), 0) FROM mun_used_{seq} WHERE motivo IS NULL"
    ).fetchone()
    # The row id folds the month (bits 40 and up) into the hash of the key's other columns.
    staged = f"""SELECT {seq} AS load_seq, make_date({year}, {month}, 1) AS fecha, 'municipio' AS nivel,
                   k.cve AS lugar_id, k.estado_id, '{layout.medida}' AS medida, '{layout.fuero}' AS fuero,
                   k.metodologia, k.tipo_key, k.delito, k.metodo, NULL::VARCHAR AS sexo, NULL::VARCHAR AS rango_edad,
                   ({num})::BIGINT AS eventos, {sql_date(cut)} AS corte, TRUE AS vigente,
                   NULL::VARCHAR AS sustituida_por, {sql_literal(name)} AS source_file, l.source_row,
                   (xor(k.kh, ({year} * 12 + {month})::UBIGINT << 40) & 9223372036854775807::UBIGINT)::BIGINT AS row_id
            {rows} WHERE {checks} IS NULL"""
    if layout.staged_as_view:
        con.execute(f"CREATE OR REPLACE TEMP VIEW obs_staged_{seq} AS {staged}")
        con.execute(
            f"""CREATE OR REPLACE TEMP VIEW obs_staged_places_{seq} AS SELECT DISTINCT {seq} AS load_seq, k.cve AS lugar_id
                FROM {keys} k WHERE k.idx IN (SELECT idx FROM mun_used_{seq} WHERE motivo IS NULL)"""
        )
        # The same rows at the places of ``obs_shared`` (filled at assembly): the labels of those places pick them
        # from the file before any join, so the parts' other 20 M rows are skipped where only those count.
        con.execute(
            f"""CREATE OR REPLACE TEMP VIEW obs_staged_shared_{seq} AS {staged}
                AND {PLACE_HASH.format("l.")} IN (SELECT ph FROM mun_place_{seq} WHERE cve IN (SELECT lugar_id FROM obs_shared))"""
        )
        con.execute(
            "INSERT INTO obs_views VALUES (?, ?, ?, ?)",
            [seq, f"obs_staged_{seq}", f"obs_staged_places_{seq}", f"obs_staged_shared_{seq}"],
        )
    else:
        con.execute(f"INSERT INTO obs_batch BY NAME {staged}")
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW mun_res_{seq} AS
            SELECT NULL::VARCHAR AS motivo, k.* FROM {keys} k WHERE k.idx IN (SELECT idx FROM mun_used_{seq} WHERE motivo IS NULL)"""
    )
    observations.insert_levels(con, seq, layout.fuero, f"mun_res_{seq}")
    return accepted


def sql_date(value) -> str:
    """A date (or None) as a SQL DATE literal."""
    return "NULL::DATE" if value is None else f"DATE '{value.isoformat()}'"


def _resolve_places(con, long: str, seq: int) -> None:
    """``mun_place_<seq>``: each distinct place label of the file, its state and its municipality code."""
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE mun_place_{seq} AS
            SELECT d.*, {PLACE_HASH.format("d.")} AS ph, s.abbr, s.cve_ent, coalesce(
                     CASE WHEN d.cve_mun IS NOT NULL THEN (SELECT c.cve FROM mun_codes c
                                                           WHERE c.cve = lpad(trim(d.cve_mun), 5, '0')) END,
                     CASE WHEN d.k IN {tuple(NON_MUNICIPAL)} THEN s.cve_ent || CASE d.k {
            " ".join(f"WHEN '{k}' THEN '{v[0]}'" for k, v in NON_MUNICIPAL.items())
        } END END,
                     n.cve) AS cve
            FROM (SELECT *, {NAME_KEY.format("municipio")} AS k
                  FROM (SELECT DISTINCT clave, entidad, cve_mun, municipio FROM {long})) d
            LEFT JOIN obs_states s ON s.num = TRY_CAST(trim(d.clave) AS INTEGER)
                 OR (d.clave IS NULL AND {NAME_KEY.format("s.nombre")} = {NAME_KEY.format("d.entidad")})
            LEFT JOIN mun_names n ON d.cve_mun IS NULL AND n.cve_ent = s.cve_ent AND n.k = d.k"""
    )


def _resolve_keys(con, layout: MunicipalLayout, seq: int) -> None:
    """``mun_keys_<seq>``: every place label × crime row × methodology, with its keys, the reason a row of it is
    quarantined (place or crime) and the hash its row ids start from: a few hundred thousand rows, not millions."""
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE obs_method_key_{seq} AS
            SELECT anio, metodologia, dense_rank() OVER (ORDER BY metodologia) AS mh FROM obs_method"""
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE mun_keys_{seq} AS
            SELECT row_number() OVER () AS idx, p.ph, c.h AS ch, coalesce(m.mh, 0) AS mh, p.cve, p.abbr AS estado_id,
                   m.metodologia, c.combo, c.tipo_key, c.delito, c.metodo,
                   CASE WHEN p.abbr IS NULL THEN 'entidad desconocida'
                        WHEN p.cve IS NULL OR left(p.cve, 2) <> p.cve_ent THEN 'municipio desconocido en el catálogo INEGI'
                        WHEN c.delito IS NULL THEN 'tipo de delito vacío' END AS motivo,
                   md5_number_lower(concat_ws('|', p.cve, '{layout.medida}', '{layout.fuero}', m.metodologia,
                                              c.tipo_key, c.delito, c.metodo)) AS kh
            FROM mun_place_{seq} p CROSS JOIN obs_crimes c
            CROSS JOIN (SELECT DISTINCT metodologia, mh FROM obs_method_key_{seq} UNION ALL SELECT NULL, 0) m"""
    )
