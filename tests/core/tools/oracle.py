"""An independent oracle for the everyday-shape tool tests: DuckDB reading the raw SESNSP files directly.

``h(cve, municipio, anio, mes, subtipo, modalidad, n)``: the wide homicide file unpivoted;
``s(cve, anio, mes, n)``: the long secuestro file. No code of core is used.
"""

from __future__ import annotations

import duckdb

from tests.conftest import RAW

MONTHS = ["Enero", "Febrero", "Marzo", "Abril", "Mayo", "Junio", "Julio", "Agosto", "Septiembre", "Octubre",
          "Noviembre", "Diciembre"]  # fmt: skip


def connect() -> duckdb.DuckDBPyConnection:
    """A connection with the views ``h`` (homicides) and ``s`` (secuestro)."""
    con = duckdb.connect()
    homicide = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
    cols = ", ".join(f'"{m}"' for m in MONTHS)
    con.execute(f"""CREATE VIEW hw AS SELECT * FROM read_csv('{homicide}', all_varchar = true)""")
    con.execute(f"""CREATE VIEW h AS SELECT "Cve. Municipio" AS cve, Municipio AS municipio,
                    CAST("Año" AS INTEGER) AS anio, mes, "Subtipo de delito" AS subtipo, Modalidad AS modalidad,
                    CAST(CAST(n AS DOUBLE) AS BIGINT) AS n
                    FROM (UNPIVOT hw ON {cols} INTO NAME mes VALUE n)""")
    con.execute(f"""CREATE VIEW s AS SELECT cve_municipio AS cve, CAST("Año" AS INTEGER) AS anio,
                    CAST(split_part(Mes, '-', 1) AS INTEGER) AS mes, CAST(Cantidad AS BIGINT) AS n
                    FROM read_csv('{RAW / "sesnsp" / "gto_secuestro_2015-2024.csv"}', all_varchar = true)""")
    con.execute(f"""CREATE VIEW mun AS SELECT cve_municipio AS cve, municipio
                    FROM read_csv('{RAW / "municipios_gto.csv"}', all_varchar = true)""")
    return con


def month_number(name: str) -> int:
    """1 for 'Enero'."""
    return MONTHS.index(name) + 1
