"""Independent DuckDB views over the raw CSV files of ``data/raw`` (the evaluation's own SQL, not the ETL's)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from core.text import MONTHS_TITLE

_CVE = 'CAST(CAST("{}" AS INTEGER) AS VARCHAR) AS cve_municipio'  # '11020' from an int or zero-padded text


def _load(con: duckdb.DuckDBPyConnection, name: str, path: Path, **opts: bool) -> str:
    """Read a CSV once, as text, into a temp table that the views parse (keeps the checks fast)."""
    extra, literal = "".join(f", {k} = {str(v).lower()}" for k, v in opts.items()), path.as_posix().replace("'", "''")
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE csv_{name} AS SELECT * FROM read_csv('{literal}', header = true, "
        f"all_varchar = true{extra})"
    )
    return f"csv_{name}"


def _wide(table: str, extra: str = "") -> str:
    """SELECT of a wide SESNSP file unpivoted to one row per published month (empty cells dropped)."""
    months, names = ", ".join(f'"{m}"' for m in MONTHS_TITLE), "[" + ", ".join(f"'{m}'" for m in MONTHS_TITLE) + "]"
    return f"""SELECT CAST("Año" AS INTEGER) AS anio, list_position({names}, mes_nombre) AS mes,
        {_CVE.format("Cve. Municipio")}, "Municipio" AS municipio, {extra} CAST(round(CAST(valor AS DOUBLE)) AS BIGINT) AS eventos
        FROM (UNPIVOT {table} ON {months} INTO NAME mes_nombre VALUE valor) WHERE trim(valor) <> ''"""


class RawViews:
    """Independent DuckDB views over the raw CSV files (its own SQL, not the ETL's)."""

    @staticmethod
    def create(con: duckdb.DuckDBPyConnection, raw_dir: str | Path) -> duckdb.DuckDBPyConnection:
        """Views hom, vf, abuso, violacion(_sub), largo, anual, pob, mun and inc (all crimes), macros tasa and meses."""
        raw, s = Path(raw_dir), Path(raw_dir) / "sesnsp"
        # the national views (evals.raw_views_nacional) are built lazily from the same folder
        con.execute(f"SET VARIABLE casandra_raw_dir = '{raw.resolve().as_posix().replace(chr(39), chr(39) * 2)}'")
        hom, keep = (
            _load(con, "hom", s / "IDM_NM_gto_homicidio_2020-2025.csv"),
            '"Subtipo de delito" AS subtipo, "Modalidad" AS modalidad,',
        )
        con.execute(f"CREATE OR REPLACE VIEW hom AS {_wide(hom, keep)}")
        con.execute(
            f"CREATE OR REPLACE VIEW vf AS {_wide(_load(con, 'vf', s / 'gto_violencia_familiar_2015-2022.csv'))}"
        )
        con.execute(
            f"CREATE OR REPLACE VIEW abuso AS {_wide(_load(con, 'abuso', s / 'gto_abuso_sexual_2015-2022.csv'))}"
        )
        vio = _load(con, "violacion", s / "gto_violacion_2015-2022.csv")  # simple + equiparada rows, summed
        con.execute(f"""CREATE OR REPLACE VIEW violacion AS SELECT anio, mes, cve_municipio, municipio, sum(eventos)
            AS eventos FROM ({_wide(vio)}) GROUP BY ALL; CREATE OR REPLACE VIEW violacion_sub_curated AS SELECT CASE CAST(idx
            AS BIGINT) % 98 WHEN 35 THEN 'violacion_simple' WHEN 36 THEN 'violacion_equiparada' END AS delito, anio, mes,
            cve_municipio, municipio, eventos FROM ({_wide(vio, '"column00" AS idx,')})""")  # subtipos: 98-row block
        largo = _load(con, "largo", s / "gto_*_2015-2024.csv", filename=True, union_by_name=True)
        con.execute(f"""CREATE OR REPLACE VIEW largo AS SELECT CAST("Año" AS INTEGER) AS anio,
            CAST(split_part("Mes", '-', 1) AS INTEGER) AS mes, {_CVE.format("cve_municipio")}, "Municipio" AS municipio,
            regexp_extract(filename, 'gto_(.+)_2015-2024\\.csv$', 1) AS delito, "Modalidad" AS modalidad,
            CAST("Cantidad" AS BIGINT) AS eventos FROM {largo}""")
        con.execute(f"""CREATE OR REPLACE VIEW anual AS SELECT {_CVE.format("cve_municipio")}, municipio_fuente AS municipio,
            CAST(anio AS INTEGER) AS anio, CAST(total_delitos AS BIGINT) AS total_delitos
            FROM {_load(con, "anual", s / "gto_total_delitos_anual_2015-2026.csv")}""")
        con.execute(f"""CREATE OR REPLACE VIEW pob AS SELECT {_CVE.format("cve_municipio")}, municipio,
            CAST(anio AS INTEGER) AS anio, CAST(poblacion AS BIGINT) AS poblacion
            FROM {_load(con, "pob", raw / "poblacion_gto.csv")}""")
        con.execute(f"""CREATE OR REPLACE VIEW mun AS SELECT {_CVE.format("cve_municipio")}, municipio
            FROM {_load(con, "mun", raw / "municipios_gto.csv")}""")
        # the municipal tipo x modalidad parquet (to May 2025) continues each curated file after its last month:
        # violencia familiar, abuso sexual and violación after 2022, the long files after 2024 (shared data README)
        parq = (s / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet").as_posix().replace("'", "''")
        con.execute(f"""CREATE OR REPLACE VIEW parq AS SELECT
                regexp_replace(lower(strip_accents(p."Tipo de delito")), '[^a-z0-9]+', '_', 'g') AS delito,
                year(p."Fecha") AS anio, month(p."Fecha") AS mes, m.cve_municipio, p."Municipio" AS municipio,
                CASE WHEN p."Modalidad" = p."Tipo de delito" THEN NULL ELSE p."Modalidad" END AS modalidad,
                p."Incidentes" AS eventos
            FROM read_parquet('{parq}') p JOIN mun m ON m.municipio = p."Municipio";
            CREATE OR REPLACE VIEW parq_after AS SELECT p.* FROM parq p JOIN (
                SELECT 'violencia_familiar' AS delito, max(make_date(anio, mes, 1)) AS last FROM vf
                UNION ALL SELECT 'abuso_sexual', max(make_date(anio, mes, 1)) FROM abuso
                UNION ALL SELECT unnest(['violacion_simple', 'violacion_equiparada']), max(make_date(anio, mes, 1))
                    FROM violacion
                UNION ALL SELECT delito, max(make_date(anio, mes, 1)) FROM largo GROUP BY delito) l
              ON l.delito = p.delito WHERE make_date(p.anio, p.mes, 1) > l.last""")
        con.execute("""CREATE OR REPLACE VIEW violacion_sub AS SELECT * FROM violacion_sub_curated
            UNION ALL SELECT delito, anio, mes, cve_municipio, municipio, eventos FROM parq_after
            WHERE delito LIKE 'violacion_%'""")
        con.execute("""CREATE OR REPLACE VIEW inc AS SELECT lower(replace(subtipo, ' ', '_')) AS delito, anio, mes,
                cve_municipio, municipio, modalidad, eventos FROM hom
            UNION ALL SELECT 'violencia_familiar', anio, mes, cve_municipio, municipio, NULL, eventos FROM vf
            UNION ALL SELECT 'abuso_sexual', anio, mes, cve_municipio, municipio, NULL, eventos FROM abuso
            UNION ALL SELECT 'violacion', anio, mes, cve_municipio, municipio, NULL, eventos FROM violacion
            UNION ALL SELECT delito, anio, mes, cve_municipio, municipio, modalidad, eventos FROM largo
            UNION ALL SELECT CASE WHEN delito LIKE 'violacion_%' THEN 'violacion' ELSE delito END, anio, mes,
                cve_municipio, municipio, modalidad, eventos FROM parq_after""")
        con.execute("CREATE OR REPLACE MACRO tasa(n, p) AS round(CAST(n AS DOUBLE) / p * 100000, 2)")
        con.execute("""CREATE OR REPLACE MACRO meses(a, b) AS TABLE SELECT CAST(unnest(generate_series(
            CAST(a AS DATE), CAST(b AS DATE), INTERVAL 1 MONTH)) AS DATE) AS fecha""")
        return con
