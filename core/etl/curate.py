"""Curador: turn staged cells into curated monthly rows, or quarantine them with a reason.

Labels and codes are resolved once per distinct value in Python (a few hundred at most)
and joined back in SQL, so the per-row work stays inside DuckDB. Every row problem
(unknown municipality, non-numeric or negative count, bad month…) becomes a quarantine
entry with its source file and line; structural problems were refused earlier.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import duckdb

from core.dataset import entities, taxonomy
from core.text import MONTHS, municipality_id, slug_key

QUARANTINE_DDL = """
CREATE TABLE IF NOT EXISTS quarantine_batch (
    load_seq INTEGER, source_file VARCHAR, source_row BIGINT, motivo VARCHAR, valores VARCHAR
)
"""

# Curated cells carry keys only: labels (state and municipality names, crime and method
# labels) live once per distinct value in ``ent_labels``/``crime_labels``, so a national
# load writes 29 M narrow rows instead of 29 M rows of repeated text.
CURATED_DDL = """
CREATE TABLE IF NOT EXISTS curated_batch (
    load_seq INTEGER, row_id BIGINT, fecha DATE, cve_municipio VARCHAR, estado_id VARCHAR,
    entidad_id VARCHAR, delito VARCHAR, metodo VARCHAR, eventos BIGINT, source_file VARCHAR,
    source_row BIGINT
)
"""

LABELS_DDL = """
CREATE TABLE IF NOT EXISTS ent_labels (
    cve_municipio VARCHAR, cve_ent VARCHAR, estado_id VARCHAR, estado VARCHAR, entidad_id VARCHAR,
    municipio VARCHAR);
CREATE TABLE IF NOT EXISTS crime_labels (
    delito VARCHAR, subtipo VARCHAR, tipo VARCHAR, tipo_key VARCHAR, bien_juridico VARCHAR,
    metodo VARCHAR, modalidad VARCHAR, violencia VARCHAR)
"""

# Row id: a stable 63-bit integer built from the cell's key (it is the evidence id):
# 34 bits of md5("delito|metodo") (computed once per distinct pair, see key_hash), then
# the municipality code (5 digits < 2^17) and the month index since 1900 (< 2^12).
# Integer arithmetic per cell instead of an md5 per cell: the hash dominated the load.
KEY_SHIFT = 1 << 29
MONTH_BITS = 1 << 12


def row_id_expr(kh: str, cve: str, year: str, month: str) -> str:
    """SQL for the row id from integer expressions: key hash, municipality code, year and month (1-12)."""
    return f"({kh} * {KEY_SHIFT} + {cve} * {MONTH_BITS} + ({year} - 1900) * 12 + {month} - 1)"


def row_id_sql(kh: str, cve: str, fecha: str) -> str:
    """SQL for the row id from a key-hash column, a 5-digit code and a month date."""
    return row_id_expr(kh, f"TRY_CAST({cve} AS BIGINT)", f"year({fecha})", f"month({fecha})")


def number_sql(text: str) -> str:
    """SQL for a text cell as a DOUBLE, NULL when it is not a plain number.

    DuckDB's casts take digit separators ('1_000' reads as 1000); no count is written that way
    on purpose, so such a cell goes to quarantine as non-numeric instead of being guessed."""
    return f"CASE WHEN contains({text}, '_') THEN NULL ELSE TRY_CAST(trim({text}) AS DOUBLE) END"


def key_hash(delito: str, metodo: str) -> int:
    """34-bit hash of a (delito, metodo) pair, the high part of its cells' row ids."""
    digest = hashlib.md5(f"{delito}|{metodo}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 30


@dataclass
class KnownEntities:
    """Municipalities known before this load: the catalog plus the current store."""

    by_code: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (entidad_id, label)
    by_id: dict[str, tuple[str, str]] = field(default_factory=dict)  # entidad_id -> (code, label)

    def add(self, code: str, entidad_id: str, label: str) -> None:
        """Remember one municipality."""
        self.by_code.setdefault(code, (entidad_id, label))
        self.by_id.setdefault(entidad_id, (code, label))


def known_entities(extra: list[tuple[str, str, str]] = ()) -> KnownEntities:
    """Catalog municipalities plus ``extra`` (code, entidad_id, label) from the store."""
    known = KnownEntities()
    for m in entities.load_municipalities():
        known.add(m.cve_municipio, m.entidad_id, m.nombre)
    for code, eid, label in extra:
        known.add(code, eid, label)
    return known


def resolve_entity(raw: tuple, known: KnownEntities) -> tuple:
    """Resolve one distinct (clave_ent, entidad, cve_municipio, municipio, entidad_id)."""
    clave_ent, _entidad, cve, mun, eid = raw
    if eid:
        hit = known.by_id.get(eid.strip())
        if not hit:
            return raw + (None,) * 6 + (f"entidad_id desconocido ({eid.strip()[:60]})",)
        code = hit[0]
        label = hit[1]
    else:
        code = entities.pad_municipality_code(cve) if cve is not None else None
        if code is None:
            return raw + (None,) * 6 + (f"clave de municipio inválida ({str(cve)[:30]})",)
        label = None
    state = entities.state_by_code(entities.state_of_municipality_code(code))
    if state is None:
        return raw + (None,) * 6 + (f"clave de municipio desconocida ({code}, estado inexistente)",)
    if clave_ent and not eid:
        try:
            if int(float(clave_ent)) != int(state.cve_ent):
                return (
                    raw
                    + (None,) * 6
                    + (f"clave de municipio de otra entidad ({code} no pertenece a {clave_ent[:10]})",)
                )
        except ValueError:
            return raw + (None,) * 6 + (f"clave de entidad inválida ({clave_ent[:30]})",)
    if label is None:
        hit = known.by_code.get(code)
        if hit:
            eid_out, label = hit
        elif mun and mun.strip():
            label = mun.strip()
            if not slug_key(label):  # the id would end in '.MUN.': no municipality could be told apart
                return raw + (None,) * 6 + (f"nombre de municipio sin letras ni números ({label[:60]})",)
            eid_out = municipality_id(state.abreviatura, label)
        else:
            return raw + (None,) * 6 + (f"clave de municipio desconocida ({code})",)
    else:
        eid_out = eid.strip()
    return raw + (code, state.cve_ent, state.abreviatura, state.nombre, eid_out, label, None)


def resolve_crime(raw: tuple, known_crimes: dict, known_methods: dict) -> tuple:
    """Resolve one distinct (bien, tipo, subtipo, modalidad, delito, metodo)."""
    bien, tipo, subtipo, modalidad, delito, metodo = raw
    none = (None,) * 10
    if delito:  # canonical layout: keys, not labels
        crime = known_crimes.get(delito.strip())
        if crime is None:
            return raw + none + (f"delito desconocido ({delito.strip()[:60]})",)
        if metodo and metodo.strip():
            method = known_methods.get(metodo.strip())
            if method is None:
                return raw + none + (f"método desconocido ({metodo.strip()[:60]})",)
        else:
            method = taxonomy.method_for_label(None, crime.subtipo)
    else:
        if not tipo or not tipo.strip():
            return raw + none + ("tipo de delito vacío",)
        crime = taxonomy.crime_for_labels(bien, tipo.strip(), subtipo.strip() if subtipo else None)
        method = taxonomy.method_for_label(modalidad.strip() if modalidad else None, crime.subtipo)
        # A label with no letter or digit ('<<<>>>') slugs to an empty key, which any query could reach.
        empty = _empty_key(crime, method, tipo, subtipo, modalidad)
        if empty:
            return raw + none + (empty,)
    return raw + (
        crime.bien_juridico or (bien or None),
        crime.tipo,
        crime.tipo_key,
        crime.subtipo,
        crime.delito,
        method.modalidad,
        method.metodo,
        method.violencia,
        key_hash(crime.delito, method.metodo),
        None,
        None,
    )


def _empty_key(crime, method, tipo: str, subtipo: str | None, modalidad: str | None) -> str | None:
    """The quarantine reason when a label read from a file gives an empty crime, type or method key."""
    sub = (subtipo or "").strip()
    if not crime.delito:
        column, label = ("subtipo de delito", sub) if sub else ("tipo de delito", tipo.strip())
        return f"{column} sin letras ni números ({label[:60]})"
    if not crime.tipo_key:
        return f"tipo de delito sin letras ni números ({tipo.strip()[:60]})"
    if not method.metodo:
        label = (modalidad or "").strip() or sub
        return f"modalidad sin letras ni números ({label[:60]})"
    return None


# The maps from raw values to resolved ones: raw keys (k_*), then what resolve_entity /
# resolve_crime return, in their order, ending with the quarantine reason.
ENT_MAP_COLUMNS = """k_clave_ent VARCHAR, k_entidad VARCHAR, k_cve VARCHAR, k_mun VARCHAR, k_eid VARCHAR,
    cve_municipio VARCHAR, cve_ent VARCHAR, estado_id VARCHAR, estado VARCHAR, entidad_id VARCHAR,
    municipio VARCHAR, motivo VARCHAR"""
CRIME_MAP_COLUMNS = """k_bien VARCHAR, k_tipo VARCHAR, k_subtipo VARCHAR, k_modalidad VARCHAR, k_delito VARCHAR,
    k_metodo VARCHAR, bien_juridico VARCHAR, tipo VARCHAR, tipo_key VARCHAR, subtipo VARCHAR, delito VARCHAR,
    modalidad VARCHAR, metodo VARCHAR, violencia VARCHAR, kh VARCHAR, _unused VARCHAR, motivo VARCHAR"""


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
    """Bulk-insert text rows as one list parameter per column (``executemany`` pays a round trip per row)."""
    if not rows:
        return
    width = len(rows[0])
    columns = [[None if r[i] is None else str(r[i]) for r in rows] for i in range(width)]
    # unnest of several lists in one SELECT zips them row by row.
    select = ", ".join("unnest(?::VARCHAR[])" for _ in range(width))
    con.execute(f"INSERT INTO {table} SELECT {select}", columns)


def build_maps(con: duckdb.DuckDBPyConnection, known: KnownEntities, known_crimes: dict, known_methods: dict) -> None:
    """Create ``ent_map`` and ``crime_map`` for the distinct raw values of ``cells``."""
    ent_raw = con.execute(
        "SELECT DISTINCT clave_ent, entidad, cve_municipio, municipio, entidad_id FROM cells"
    ).fetchall()
    con.execute(f"CREATE OR REPLACE TABLE ent_map ({ENT_MAP_COLUMNS})")
    insert_rows(con, "ent_map", [resolve_entity(r, known) for r in ent_raw])
    crime_raw = con.execute("SELECT DISTINCT bien, tipo, subtipo, modalidad, delito, metodo FROM cells").fetchall()
    con.execute(f"CREATE OR REPLACE TABLE crime_map ({CRIME_MAP_COLUMNS})")
    insert_rows(con, "crime_map", [resolve_crime(r, known_crimes, known_methods) for r in crime_raw])
    save_labels(con, "ent_map", "crime_map")


def save_labels(con: duckdb.DuckDBPyConnection, ent_map: str, crime_map: str) -> None:
    """Keep the resolved labels of two maps in ``ent_labels`` and ``crime_labels``."""
    con.execute(LABELS_DDL)
    con.execute(f"""INSERT INTO ent_labels SELECT DISTINCT cve_municipio, cve_ent, estado_id, estado, entidad_id,
                    municipio FROM {ent_map} WHERE motivo IS NULL""")
    con.execute(f"""INSERT INTO crime_labels SELECT DISTINCT delito, subtipo, tipo, tipo_key, bien_juridico, metodo,
                    modalidad, violencia FROM {crime_map} WHERE motivo IS NULL""")


_MONTH_NAMES = "[" + ", ".join(f"'{m}'" for m in MONTHS) + "]"

PARSE_SQL = f"""
CREATE OR REPLACE TABLE parsed AS
SELECT c.load_seq, c.source_file, c.source_row, c.columna, c.valor,
       e.cve_municipio, e.cve_ent, e.estado_id, e.estado, e.entidad_id, e.municipio,
       m.delito, m.metodo, m.kh::BIGINT AS kh,
       coalesce(e.motivo, m.motivo) AS ref_motivo,
       {number_sql("c.anio")} AS anio_d,
       coalesce(TRY_CAST(split_part(trim(c.mes), '-', 1) AS INTEGER),
                list_position({_MONTH_NAMES}, lower(strip_accents(trim(split_part(c.mes, '-', -1)))))
       ) AS mes_i,
       date_trunc('month', TRY_CAST(trim(c.fecha) AS DATE))::DATE AS fecha_d,
       TRY_CAST(trim(c.fecha) AS DATE) AS fecha_raw,
       {number_sql("c.valor")} AS v
FROM cells c
LEFT JOIN ent_map e
  ON c.clave_ent IS NOT DISTINCT FROM e.k_clave_ent AND c.entidad IS NOT DISTINCT FROM e.k_entidad
 AND c.cve_municipio IS NOT DISTINCT FROM e.k_cve AND c.municipio IS NOT DISTINCT FROM e.k_mun
 AND c.entidad_id IS NOT DISTINCT FROM e.k_eid
LEFT JOIN crime_map m
  ON c.bien IS NOT DISTINCT FROM m.k_bien AND c.tipo IS NOT DISTINCT FROM m.k_tipo
 AND c.subtipo IS NOT DISTINCT FROM m.k_subtipo AND c.modalidad IS NOT DISTINCT FROM m.k_modalidad
 AND c.delito IS NOT DISTINCT FROM m.k_delito AND c.metodo IS NOT DISTINCT FROM m.k_metodo
"""

CHECK_SQL = """
CREATE OR REPLACE TABLE checked AS
SELECT *,
  CASE
    WHEN ref_motivo IS NOT NULL THEN ref_motivo
    WHEN fecha IS NULL AND columna = 'eventos' THEN 'fecha inválida'
    WHEN fecha IS NULL AND (anio_d IS NULL OR anio_d <> floor(anio_d) OR anio_d < 1990 OR anio_d > 2100)
      THEN 'año inválido'
    WHEN fecha IS NULL THEN 'mes inválido'
    WHEN v IS NULL THEN 'conteo no numérico'
    WHEN v < 0 THEN 'conteo negativo'
    WHEN v <> floor(v) THEN 'conteo no entero'
    WHEN v > 1e9 THEN 'conteo fuera de rango'
    ELSE NULL
  END AS motivo
FROM (
  SELECT *,
    CASE
      WHEN columna = 'eventos' THEN fecha_d
      WHEN anio_d IS NOT NULL AND anio_d = floor(anio_d) AND anio_d BETWEEN 1990 AND 2100
           AND mes_i BETWEEN 1 AND 12
        THEN make_date(anio_d::INTEGER, mes_i, 1)
    END AS fecha
  FROM parsed
)
"""


def curate(con: duckdb.DuckDBPyConnection, reduced_seqs: set[int]) -> dict[int, dict]:
    """Split ``cells`` into ``curated_batch`` and ``quarantine_batch``; per-file counts."""
    con.execute(QUARANTINE_DDL)
    con.execute(CURATED_DDL)
    con.execute(PARSE_SQL)
    con.execute(CHECK_SQL)
    con.execute(
        """INSERT INTO quarantine_batch
           SELECT load_seq, source_file, source_row,
                  motivo || CASE WHEN columna NOT IN ('cantidad', 'eventos') THEN ' (' || columna || ')' ELSE '' END,
                  left(coalesce(valor, ''), 200)
           FROM checked WHERE motivo IS NOT NULL"""
    )
    reduced = sorted(reduced_seqs) or [-1]
    in_reduced = f"load_seq IN ({', '.join(map(str, reduced))})"
    key = "load_seq, cve_municipio, fecha, delito, metodo"
    # Repeated keys are rare: find them with a narrow aggregation instead of windows over wide rows.
    con.execute(
        f"""CREATE OR REPLACE TABLE dups AS
            SELECT {key}, count(*) AS n_key, min(source_row) AS first_row
            FROM checked WHERE motivo IS NULL GROUP BY ALL HAVING count(*) > 1"""
    )
    labels = ("estado_id", "entidad_id")
    # Reduced layouts lost a distinguishing column upstream, so their repeated keys are summed
    # (with a warning); anywhere else a repeat is a duplicate row and goes to quarantine.
    con.execute(
        f"""INSERT INTO quarantine_batch
            SELECT c.load_seq, c.source_file, c.source_row,
                   'fila duplicada (misma clave que la línea ' || d.first_row::VARCHAR || ')',
                   left(coalesce(c.valor, ''), 200)
            FROM checked c JOIN dups d USING ({key})
            WHERE c.motivo IS NULL AND NOT c.{in_reduced} AND c.source_row <> d.first_row"""
    )
    con.execute(  # the usual case: a key seen once, copied as it is
        f"""INSERT INTO curated_batch
            SELECT load_seq, {row_id_sql("kh", "cve_municipio", "fecha")}, fecha, cve_municipio, {", ".join(labels)},
                   delito, metodo, v::BIGINT, source_file, source_row
            FROM checked c ANTI JOIN dups d USING ({key})
            WHERE c.motivo IS NULL"""
    )
    con.execute(  # repeated keys: summed in reduced files, first row elsewhere
        f"""INSERT INTO curated_batch
            SELECT c.load_seq, any_value({row_id_sql("c.kh", "c.cve_municipio", "c.fecha")}), c.fecha, c.cve_municipio,
                   {", ".join(f"any_value(c.{x})" for x in labels)}, c.delito, c.metodo,
                   sum(c.v)::BIGINT, any_value(c.source_file), min(c.source_row)
            FROM checked c JOIN dups d USING ({key})
            WHERE c.motivo IS NULL AND (c.{in_reduced} OR c.source_row = d.first_row)
            GROUP BY c.load_seq, c.cve_municipio, c.fecha, c.delito, c.metodo"""
    )
    stats: dict[int, dict] = {}
    for seq, cells in con.execute("SELECT load_seq, count(*) FROM curated_batch GROUP BY load_seq").fetchall():
        stats.setdefault(seq, {})["celdas_validas"] = cells
    for seq, summed in con.execute(
        f"SELECT load_seq, count(*) FROM dups WHERE {in_reduced} GROUP BY load_seq"
    ).fetchall():
        stats.setdefault(seq, {})["claves_repetidas"] = summed
    for seq, n_rows, n_cells in con.execute(
        "SELECT load_seq, count(DISTINCT source_row), count(*) FROM quarantine_batch GROUP BY load_seq"
    ).fetchall():
        stats.setdefault(seq, {})["filas_en_cuarentena"] = n_rows
        stats[seq]["celdas_en_cuarentena"] = n_cells
    return stats


def quarantine_reasons(con: duckdb.DuckDBPyConnection, seq: int) -> dict[str, int]:
    """Quarantined cells of one file, counted by reason (without the month detail)."""
    rows = con.execute(
        """SELECT split_part(motivo, ' (', 1) AS m, count(*) FROM quarantine_batch
           WHERE load_seq = ? GROUP BY m ORDER BY count(*) DESC""",
        [seq],
    ).fetchall()
    return dict(rows)


def keys_of(items) -> dict:
    """Index crimes or methods by their key attribute."""
    out = {}
    for item in items:
        key = getattr(item, "delito", None) or getattr(item, "metodo", None)
        out[key] = item
    return out


__all__ = ["build_maps", "curate", "keys_of", "known_entities", "quarantine_reasons", "slug_key"]
