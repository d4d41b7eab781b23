"""Independent DuckDB views over the national and tipo-level raw files of ``data/raw`` (issue 14), not the ETL's SQL.

Built lazily, once per connection, the first time a national expectation is checked (the victims file takes ~10 s to
inflate). Every view keeps only published months: an empty month cell is dropped, never read as zero.
"""

from __future__ import annotations

import bz2
import os
import shutil
import tempfile
from pathlib import Path

import duckdb

from core.text import MONTHS_TITLE

_MONTHS_UPPER = [m.upper() for m in MONTHS_TITLE]  # the federal file writes ENERO .. DICIEMBRE
# every key of the Irapuato JSON is a string (numbers included): read them all as text
_IRAPUATO_KEYS = ["Año", "Clave_Ent", "Entidad", "Cve. Municipio", "Municipio", "Bien jurídico afectado"]
_IRAPUATO_KEYS += ["Tipo de delito", "Subtipo de delito", "Modalidad", *MONTHS_TITLE]
_IRAPUATO_COLUMNS = "{" + ", ".join(f"'{k}': 'VARCHAR'" for k in _IRAPUATO_KEYS) + "}"


def _lit(path: Path) -> str:
    return path.as_posix().replace("'", "''")


def _unpivot(src: str, months: list[str], keep: str, year: str) -> str:
    """One row per published month of a wide SESNSP layout (twelve month columns; empty cells dropped)."""
    cols, names = ", ".join(f'"{m}"' for m in months), "[" + ", ".join(f"'{m}'" for m in months) + "]"
    return f"""SELECT CAST("{year}" AS INTEGER) AS anio, list_position({names}, mes_nombre) AS mes, {keep},
        CAST(valor AS BIGINT) AS n FROM (UNPIVOT (SELECT * FROM {src}) ON {cols} INTO NAME mes_nombre VALUE valor)
        WHERE trim(coalesce(valor, '')) <> ''"""


def _state_file(path: Path) -> str:
    """The IDEFC / RNID state files: latin-1, every column as text, codes unpadded (IDEFC) or padded (RNID)."""
    src = f"read_csv('{_lit(path)}', header = true, all_varchar = true, encoding = 'latin-1')"
    keep = """lpad(trim("Clave_Ent"), 2, '0') AS cve_ent, "Entidad" AS entidad, "Tipo de delito" AS tipo,
        "Subtipo de delito" AS subtipo, "Modalidad" AS modalidad"""
    return _unpivot(src, list(MONTHS_TITLE), keep, "Año")


def _inflate(path: Path) -> Path:
    """The .bz2 file inflated once to a temp file (DuckDB 2.0 refuses bzip2); reused by later connections."""
    out = Path(tempfile.gettempdir()) / f"casandra_eval_{path.stat().st_size}_{path.name.removesuffix('.bz2')}"
    if not out.exists():
        part = out.with_suffix(f".{os.getpid()}.part")  # two processes may inflate at once
        with bz2.open(path) as src, open(part, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        part.replace(out)
    return out


class NationalViews:
    """Views est (IDEFC), rnid, fed, pob_est, mun_tipo; vic on demand (the victims file is large)."""

    @staticmethod
    def raw_dir(con: duckdb.DuckDBPyConnection) -> Path:
        """The raw folder RawViews.create recorded on the connection."""
        return Path(con.execute("SELECT getvariable('casandra_raw_dir')").fetchone()[0])

    @staticmethod
    def ensure(con: duckdb.DuckDBPyConnection) -> None:
        """Create the national views once on this connection."""
        if con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'mun_tipo'").fetchone()[0]:
            return
        raw = NationalViews.raw_dir(con)
        nac = raw / "nacional"
        con.execute(f"CREATE OR REPLACE TEMP TABLE est AS {_state_file(nac / 'estatal_idefc_2015-01_2024-11.csv')}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE rnid AS {_state_file(nac / 'estatal_rnid_2026-01_2026-03.csv')}")
        fed = f"read_csv('{_lit(nac / 'fuero_federal_estatal_2012-01_2025-07.csv')}', header = true, all_varchar = true, encoding = 'latin-1')"
        keep = """CASE WHEN trim(coalesce("INEGI", '')) = '' THEN 'EX' ELSE lpad(trim("INEGI"), 2, '0') END
            AS cve_ent, "ENTIDAD" AS entidad, "LEY" AS ley, "CONCEPTO" AS concepto, "TIPO" AS tipo"""
        con.execute(f"CREATE OR REPLACE TEMP TABLE fed AS {_unpivot(fed, _MONTHS_UPPER, keep, 'AÑO')}")
        con.execute(f"""CREATE OR REPLACE TEMP TABLE pob_est AS SELECT CAST(n_year AS INTEGER) AS anio,
            CASE cve_ent WHEN '00' THEN 'MX' ELSE cve_ent END AS cve_ent, genero, CAST(pob_mid_year AS BIGINT) AS pob
            FROM read_csv('{_lit(nac / "conapo_poblacion_estatal_sexo_1950-2070.csv")}', header = true,
            all_varchar = true)""")
        # the tipo x modalidad parquet has names only: its codes come from municipios_gto.csv (same 46 names)
        con.execute(f"""CREATE OR REPLACE TEMP TABLE mun_tipo AS SELECT year("Fecha") AS anio, month("Fecha") AS mes,
            m.cve_municipio AS cve, CAST("Tipo de delito" AS VARCHAR) AS tipo, CAST("Modalidad" AS VARCHAR) AS modalidad,
            CAST("Incidentes" AS BIGINT) AS n
            FROM read_parquet('{_lit(raw / "sesnsp" / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet")}') p
            JOIN mun m ON m.municipio = CAST(p."Municipio" AS VARCHAR)""")

    @staticmethod
    def ensure_victims(con: duckdb.DuckDBPyConnection) -> None:
        """Create the victims view once (inflating the .bz2 the first time)."""
        if con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'vic'").fetchone()[0]:
            return
        plain = _inflate(NationalViews.raw_dir(con) / "nacional" / "victimas_estatal_2015-01_2025-06.csv.bz2")
        con.execute(f"""CREATE OR REPLACE TEMP TABLE vic AS SELECT CAST(n_year AS INTEGER) AS anio,
            CAST(n_month AS INTEGER) AS mes, cve_ent, tipo_de_delito AS tipo, subtipo_de_delito AS subtipo,
            modalidad, genero, sum(CAST(n_victimas AS BIGINT)) AS n
            FROM read_csv('{_lit(plain)}', header = true, all_varchar = true) GROUP BY ALL""")

    @staticmethod
    def ensure_irapuato(con: duckdb.DuckDBPyConnection) -> None:
        """Create the Irapuato view once: every subtipo x modalidad of 11017, the JSON's strings cast, empty months dropped."""
        if con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'ira'").fetchone()[0]:
            return
        path = NationalViews.raw_dir(con) / "sesnsp" / "irapuato_idm_nm_2015-2025.json"
        src = f"read_json('{_lit(path)}', format = 'array', columns = {_IRAPUATO_COLUMNS})"
        keep = """"Tipo de delito" AS tipo, "Subtipo de delito" AS subtipo, "Modalidad" AS modalidad"""
        con.execute(f"CREATE OR REPLACE TEMP TABLE ira AS {_unpivot(src, list(MONTHS_TITLE), keep, 'Año')}")
