"""An independent oracle for the national tools (21-23): DuckDB and pyarrow reading data/raw/nacional/ directly.

Views, one per raw file, long by month, with the state as its INEGI number (``ent``):
``e`` (IDEFC state file), ``r`` (RNID 2026), ``f`` (fuero federal, ``ent`` NULL for «Extranjero»),
``v`` (victims, read from the .bz2 with pyarrow: DuckDB cannot read bzip2), ``pop`` (CONAPO states and the
country, ``ent`` 0). ``ids`` maps the INEGI number to the store's place ids. No code of core is used.
"""

from __future__ import annotations

import bz2

import duckdb
import pyarrow.csv as pacsv

from tests.conftest import RAW

NACIONAL = RAW / "nacional"
MONTHS = ["Enero", "Febrero", "Marzo", "Abril", "Mayo", "Junio", "Julio", "Agosto", "Septiembre", "Octubre",
          "Noviembre", "Diciembre"]  # fmt: skip
IDS = [
    "AGS",
    "BC",
    "BCS",
    "CAMP",
    "COAH",
    "COL",
    "CHIS",
    "CHIH",
    "CDMX",
    "DGO",
    "GTO",
    "GRO",
    "HGO",
    "JAL",
    "MEX",
    "MICH",
    "MOR",
    "NAY",
    "NL",
    "OAX",
    "PUE",
    "QRO",
    "QROO",
    "SLP",
    "SIN",
    "SON",
    "TAB",
    "TAMPS",
    "TLAX",
    "VER",
    "YUC",
    "ZAC",
]  # fmt: skip  (INEGI order: 01 Aguascalientes .. 32 Zacatecas)


def _wide(con, name: str, path, months: list[str], key_cols: str) -> None:
    cols = ", ".join(f'"{m}"' for m in months)
    con.execute(f"CREATE VIEW {name}_w AS SELECT * FROM read_csv('{path}', all_varchar = true, encoding = 'latin-1')")
    con.execute(
        f"""CREATE VIEW {name} AS SELECT {key_cols}, mes_n AS mes, CAST(n AS BIGINT) AS n
                    FROM (UNPIVOT {name}_w ON {cols} INTO NAME mes VALUE n)
                    JOIN (SELECT unnest(?::VARCHAR[]) AS mes, generate_subscripts(?::VARCHAR[], 1) AS mes_n) USING (mes)
                    WHERE n IS NOT NULL AND trim(n) <> ''""".replace("?::VARCHAR[]", _list(months))
    )


def _list(items: list[str]) -> str:
    return "[" + ", ".join(f"'{x}'" for x in items) + "]"


def connect(victims: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection with the views e, r, f, pop and ids (and v when ``victims``)."""
    con = duckdb.connect()
    common = """CAST("Año" AS INTEGER) AS anio, CAST(Clave_Ent AS INTEGER) AS ent, "Tipo de delito" AS tipo,
                "Subtipo de delito" AS subtipo, Modalidad AS modalidad"""
    _wide(con, "e", NACIONAL / "estatal_idefc_2015-01_2024-11.csv", MONTHS, common)
    _wide(con, "r", NACIONAL / "estatal_rnid_2026-01_2026-03.csv", MONTHS, common)
    federal = """CAST("AÑO" AS INTEGER) AS anio, TRY_CAST(INEGI AS INTEGER) AS ent, ENTIDAD AS entidad, LEY AS ley,
                 CONCEPTO AS concepto, TIPO AS tipo"""
    _wide(con, "f", NACIONAL / "fuero_federal_estatal_2012-01_2025-07.csv", [m.upper() for m in MONTHS], federal)
    con.execute(f"""CREATE VIEW pop AS SELECT CAST(n_year AS INTEGER) AS anio, CAST(cve_ent AS INTEGER) AS ent,
                    genero, CAST(pob_mid_year AS BIGINT) AS poblacion
                    FROM read_csv('{NACIONAL / "conapo_poblacion_estatal_sexo_1950-2070.csv"}', all_varchar = true)""")
    con.execute(
        f"CREATE TABLE ids AS SELECT unnest({_list(IDS)}) AS lugar_id, generate_subscripts({_list(IDS)}, 1) AS ent"
    )
    if victims:
        with bz2.open(NACIONAL / "victimas_estatal_2015-01_2025-06.csv.bz2", "rb") as fh:
            table = pacsv.read_csv(
                fh, convert_options=pacsv.ConvertOptions(column_types={"cve_ent": "string", "n_month": "string"})
            )
        con.register("v_raw", table)
        con.execute("""CREATE VIEW v AS SELECT CAST(n_year AS INTEGER) AS anio, CAST(n_month AS INTEGER) AS mes,
                       CAST(cve_ent AS INTEGER) AS ent, tipo_de_delito AS tipo, subtipo_de_delito AS subtipo,
                       modalidad, genero, rango_de_edad, CAST(n_victimas AS BIGINT) AS n FROM v_raw""")
    return con
