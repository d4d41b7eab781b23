"""The hand-written DuckDB SQL of the national tools' cases: ranking_estados, victimas_sexo_edad, fuero_federal.

Each builder returns a function of ``Paths`` (the version's Parquet files) giving one statement
and its parameters with the tool's result rows: the 32 states ranked with the country's row, the
victims by sexo × rango de edad with their shares, the federal carpetas by state. A state row set
aside for its municipalities (``vigente = false``, ``sustituida_por = 'municipal'``) counts as the
sum of its municipal cells, as the precedence rule says (docs/decisions/0011).
"""

from __future__ import annotations

from datetime import date

from bench.national_sql import Paths

COUNTRY = "MX"
SEXES = ("Mujer", "Hombre", "No identificado")
AGES = ("Menores de edad (0-17)", "Adultos (18 y más)", "No especificado", "No identificado")


def _state_cells(p: Paths, medida: str, fuero: str, metodologia: str) -> str:
    """``c``: one series' standing state cells of a crime in [?, ?] (parameters: from, to, from, to, crime)."""
    return f"""c AS (SELECT o.lugar_id, CASE WHEN o.vigente THEN o.eventos ELSE coalesce(m.n, 0) END AS eventos
                  FROM {p.observations} o
                  LEFT JOIN (SELECT estado_id, fecha, delito, metodo, sum(eventos) AS n
                             FROM {p.__getattr__("incidents")} WHERE fecha BETWEEN ? AND ? GROUP BY ALL) m
                    ON NOT o.vigente AND m.estado_id = o.lugar_id AND m.fecha = o.fecha AND m.delito = o.delito
                   AND m.metodo = o.metodo
                  WHERE o.nivel IN ('estado', 'extranjero') AND o.medida = '{medida}' AND o.fuero = '{fuero}'
                    AND o.metodologia = '{metodologia}' AND o.fecha BETWEEN ? AND ? AND o.delito = ?
                    AND (o.vigente OR o.sustituida_por = 'municipal'))"""


def ranking_sql(delito: str, start: date, end: date, by_rate: bool = False):
    """ranking_estados: position, state, count, population, rate and the verdict against the country, then MX."""
    order = "t DESC NULLS LAST, n DESC" if by_rate else "n DESC, t DESC NULLS LAST"

    def build(p: Paths):
        sql = f"""
        WITH {_state_cells(p, "carpetas", "comun", "IDFC")},
             s AS (SELECT p.lugar_id, p.label, coalesce(sum(c.eventos), 0) AS n
                   FROM {p.places} p LEFT JOIN c USING (lugar_id) WHERE p.nivel = 'estado' GROUP BY ALL),
             pop AS (SELECT lugar_id, any_value(poblacion) AS poblacion FROM {p.place_population}
                     WHERE anio = ? AND sexo = 'total' AND nivel IN ('pais', 'estado') GROUP BY 1),
             k AS (SELECT s.*, pop.poblacion, CASE WHEN pop.poblacion > 0 THEN round(s.n / pop.poblacion * 100000, 2) END AS t
                   FROM s LEFT JOIN pop USING (lugar_id)),
             nat AS (SELECT sum(n) AS nn, (SELECT poblacion FROM pop WHERE lugar_id = '{COUNTRY}') AS pn FROM k),
             r AS (SELECT k.*, CASE WHEN nat.pn > 0 THEN round(nat.nn / nat.pn * 100000, 2) END AS tn,
                          rank() OVER (ORDER BY {order}) AS pos, nat.nn, nat.pn FROM k, nat)
        SELECT * EXCLUDE (last) FROM (
          SELECT pos, lugar_id, label, n, poblacion, t,
                 CASE WHEN t IS NULL OR tn IS NULL THEN NULL WHEN t > tn THEN 'por encima'
                      WHEN t < tn THEN 'por debajo' ELSE 'igual' END, 0 AS last
          FROM r
          UNION ALL
          SELECT DISTINCT NULL, '{COUNTRY}', 'México (nacional)', nn, pn, tn, NULL, 1 FROM r)
        ORDER BY last, pos, label"""
        return sql, [start, end, start, end, delito, end.year]

    return build


def victims_sql(lugar_id: str, delito: str, start: date, end: date):
    """victimas_sexo_edad: victims by sexo × rango de edad with their share, in the tool's order."""
    at = "TRUE" if lugar_id == COUNTRY else "lugar_id = ?"
    order = " ".join(f"WHEN '{s}' THEN {i}" for i, s in enumerate(SEXES))
    ages = " ".join(f"WHEN '{a}' THEN {j}" for j, a in enumerate(AGES))

    def build(p: Paths):
        sql = f"""
        WITH g AS (SELECT sexo, rango_edad, sum(eventos) AS n FROM {p.observations}
                   WHERE nivel = 'estado' AND medida = 'victimas' AND fuero = 'comun' AND metodologia = 'IDFC'
                     AND vigente AND fecha BETWEEN ? AND ? AND delito = ? AND {at} GROUP BY ALL)
        SELECT sexo, rango_edad, n, round(100 * n / sum(n) OVER (), 2) FROM g
        ORDER BY coalesce(CASE sexo {order} END * 10 + CASE rango_edad {ages} END, 999), sexo, rango_edad"""
        return sql, [start, end, delito] + ([] if lugar_id == COUNTRY else [lugar_id])

    return build


def federal_by_state_sql(start: date, end: date):
    """fuero_federal, the country by state: every state's and «Extranjero»'s federal carpetas, largest first."""

    def build(p: Paths):
        sql = f"""
        WITH g AS (SELECT o.lugar_id AS clave, any_value(coalesce(p.label, 'Extranjero (no es un estado)')) AS label,
                          sum(o.eventos) AS n
                   FROM {p.observations} o LEFT JOIN {p.places} p ON p.lugar_id = o.lugar_id
                   WHERE o.nivel IN ('estado', 'extranjero') AND o.medida = 'carpetas' AND o.fuero = 'federal'
                     AND o.metodologia = 'IDEFF' AND o.vigente AND o.fecha BETWEEN ? AND ? GROUP BY 1)
        SELECT clave, label, NULL, n, CASE WHEN sum(n) OVER () > 0 THEN round(100 * n / sum(n) OVER (), 2) END
        FROM g ORDER BY n DESC, clave"""
        return sql, [start, end]

    return build
