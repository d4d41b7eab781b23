"""The hand-written DuckDB SQL of the municipal analysis tools' cases (split from ``bench.national_cases``).

Each builder returns a function of ``Paths`` (the version's Parquet files as table expressions)
giving one SQL statement and its parameters: what a DuckDB engineer would write for the same
result rows as the tool. ``Paths.incidents`` is every municipal cell of the común carpetas: the
curated ``incidents`` plus the standing municipal observations of the national parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb

from core.etl import query_db
from core.text import MONTHS, shift_months


@dataclass
class Paths:
    """The tables of the current version as Parquet files, as SQL table expressions of ``con`` (where the SQL runs).

    A version keeps ``observations`` only in its query database since docs/decisions/0015's session 20, and its
    curated ``incidents`` since session 24: given ``cache`` (a folder the bench owns), each is copied from that
    database once per version into ``cache/<version>/<table>.parquet``, outside any timing, so the hand SQL reads
    Parquet as it always did and its ratios stay comparable; without ``cache`` it reads the table in the database,
    attached read-only (``query_db.relation``)."""

    folder: Path
    con: duckdb.DuckDBPyConnection | None = None
    cache: Path | None = None

    def __getattr__(self, table: str) -> str:
        if table.startswith("_") or table in ("con", "cache"):
            raise AttributeError(table)
        path = self.folder / f"{table}.parquet"
        if path.is_file() or self.con is None:
            return "read_parquet('" + str(path).replace("'", "''") + "')"
        source = query_db.relation(self.con, self.folder, table)
        if source is None or self.cache is None:
            return source or f"read_parquet('{path}')"
        copy = Path(self.cache) / self.folder.name / f"{table}.parquet"
        if not copy.is_file():
            copy.parent.mkdir(parents=True, exist_ok=True)
            tmp = copy.with_suffix(".tmp")
            self.con.execute(f"COPY (SELECT * FROM {source}) TO '{tmp}' (FORMAT parquet, COMPRESSION zstd)")
            tmp.replace(copy)
        return "read_parquet('" + str(copy).replace("'", "''") + "')"

    @property
    def incidents(self) -> str:
        """The municipal cells: curated incidents and the standing municipal observations (one number per cell)."""
        return f"""(SELECT entidad_id, estado_id, delito, metodo, fecha, eventos FROM {self.__getattr__("incidents")}
                    UNION ALL
                    SELECT lugar_id, estado_id, delito, metodo, fecha, eventos FROM {self.observations}
                    WHERE nivel = 'municipio' AND vigente AND medida = 'carpetas' AND fuero = 'comun'
                      AND metodologia = 'IDFC')"""


def marks(values: list) -> str:
    """``?, ?, …``: one parameter mark per value."""
    return ", ".join("?" for _ in values)


def rank_sql(estado: str, delitos: list[str], w: dict, top_k: int, share: bool):
    """rank_por_delito / top_entidades_por_total, nivel hijos, by count."""
    crime = f"AND delito IN ({marks(delitos)})" if delitos else ""

    def build(p: Paths):
        share_col = ", CASE WHEN t.total > 0 THEN round(100 * conteo / t.total, 2) END AS porcentaje" if share else ""
        sql = f"""
        WITH e AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             c AS (SELECT entidad_id, sum(eventos) AS n FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? {crime} GROUP BY entidad_id),
             pop AS (SELECT entidad_id, poblacion FROM {p.population} WHERE fuente = 'CONAPO' AND anio = ?),
             r AS (SELECT e.entidad_id, e.label, coalesce(c.n, 0)::BIGINT AS conteo, pop.poblacion
                   FROM e LEFT JOIN c USING (entidad_id) LEFT JOIN pop USING (entidad_id)),
             t AS (SELECT sum(conteo) AS total FROM r)
        SELECT entidad_id, label, conteo,
               CASE WHEN poblacion > 0 THEN round(conteo::DOUBLE / poblacion * 100000, 2) END AS tasa_per_100k
               {share_col}
        FROM r, t ORDER BY conteo DESC, entidad_id LIMIT {int(top_k)}"""
        return sql, [estado, estado, w["from"], w["to"], *delitos, w["to"].year]

    return build


def rank_actual_sql(estado: str, delitos: list[str], w: dict):
    """rank_por_delito, nivel actual: the state as a whole, its count and rate."""

    def build(p: Paths):
        sql = f"""
        WITH n AS (SELECT coalesce(sum(eventos), 0)::BIGINT AS conteo FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN ({marks(delitos)})),
             pop AS (SELECT CASE WHEN count(*) > 0 THEN sum(poblacion) END AS poblacion FROM {p.population}
                     WHERE fuente = 'CONAPO' AND anio = ? AND estado_id = ?)
        SELECT e.entidad_id, e.label, n.conteo,
               CASE WHEN pop.poblacion > 0 THEN round(n.conteo::DOUBLE / pop.poblacion * 100000, 2) END
        FROM {p.entities} e, n, pop WHERE e.entidad_id = ?"""
        return sql, [estado, w["from"], w["to"], *delitos, w["to"].year, estado, estado]

    return build


def serie_sql(estado: str, keys: list[str], first: date, last: date):
    """serie_temporal: the state's monthly counts, a month not published left empty (never a zero)."""

    def build(p: Paths):
        sql = f"""
        WITH m AS (SELECT CAST(unnest(generate_series(CAST(? AS DATE), CAST(? AS DATE), INTERVAL 1 MONTH)) AS DATE)
                          AS fecha),
             s AS (SELECT fecha, sum(eventos) AS n FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN ({marks(keys)}) GROUP BY fecha),
             cov AS (SELECT desde, hasta FROM {p.coverage}
                     WHERE granularity = 'month' AND estado_id = ? AND delito IN ({marks(keys)})),
             x AS (SELECT m.fecha, s.n,
                          (EXISTS (SELECT 1 FROM cov WHERE m.fecha BETWEEN cov.desde AND cov.hasta)
                           OR s.fecha IS NOT NULL) AS publicado
                   FROM m LEFT JOIN s USING (fecha))
        SELECT fecha, CASE WHEN publicado THEN coalesce(n, 0)::BIGINT END AS conteo, publicado FROM x ORDER BY fecha"""
        return sql, [first, last.replace(day=1), estado, first, last, *keys, estado, *keys]

    return build


def comparar_sql(estado: str, delitos: list[str], w: dict, top_k: int):
    """comparar_periodos, nivel hijos: each municipality's count in the window and the base, largest change first."""

    def build(p: Paths):
        sql = f"""
        WITH e AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             c AS (SELECT entidad_id,
                          sum(eventos) FILTER (WHERE fecha BETWEEN ? AND ?) AS n,
                          sum(eventos) FILTER (WHERE fecha BETWEEN ? AND ?) AS nb
                   FROM {p.incidents} WHERE estado_id = ? AND delito IN ({marks(delitos)})
                     AND (fecha BETWEEN ? AND ? OR fecha BETWEEN ? AND ?) GROUP BY entidad_id),
             r AS (SELECT e.entidad_id, e.label, coalesce(c.n, 0)::BIGINT AS conteo,
                          coalesce(c.nb, 0)::BIGINT AS conteo_base FROM e LEFT JOIN c USING (entidad_id))
        SELECT entidad_id, label, conteo, conteo_base, conteo - conteo_base AS cambio,
               CASE WHEN conteo_base <> 0 THEN round(100 * (conteo - conteo_base) / conteo_base, 2) END AS cambio_pct
        FROM r ORDER BY abs(cambio) DESC, cambio DESC, entidad_id LIMIT {int(top_k)}"""
        a, b, ba, bb = w["from"], w["to"], w["base_from"], w["base_to"]
        return sql, [estado, a, b, ba, bb, estado, *delitos, a, b, ba, bb]

    return build


def agrupar_sql(estado: str, delitos: list[str], w: dict, top_k: int):
    """agrupar_por_entidad by share: each municipality's count, rate and percentage of the state."""

    def build(p: Paths):
        sql = f"""
        WITH e AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             c AS (SELECT entidad_id, sum(eventos) AS n FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN ({marks(delitos)})
                   GROUP BY entidad_id),
             pop AS (SELECT entidad_id, poblacion FROM {p.population} WHERE fuente = 'CONAPO' AND anio = ?),
             r AS (SELECT e.entidad_id, e.label, coalesce(c.n, 0)::BIGINT AS conteo, pop.poblacion
                   FROM e LEFT JOIN c USING (entidad_id) LEFT JOIN pop USING (entidad_id)),
             t AS (SELECT sum(conteo) AS total FROM r),
             g AS (SELECT entidad_id, label, conteo,
                          CASE WHEN poblacion > 0 THEN round(conteo::DOUBLE / poblacion * 100000, 2) END AS tasa,
                          CASE WHEN t.total > 0 THEN round(100 * conteo / t.total, 2) END AS porcentaje
                   FROM r, t)
        SELECT * FROM g ORDER BY porcentaje IS NULL, porcentaje DESC, entidad_id LIMIT {int(top_k)}"""
        return sql, [estado, estado, w["from"], w["to"], *delitos, w["to"].year]

    return build


def anomalias_sql(estado: str, delitos: list[str], w: dict, window: int, thr: float, top_k: int):
    """detectar_anomalias: robust z of each municipality-month against its previous ``window`` months."""
    first = w["from"].replace(day=1)
    last = w["to"].replace(day=1)
    start = shift_months(first, -window)

    def build(p: Paths):
        sql = f"""
        WITH ents AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             cov AS (SELECT delito, desde, hasta FROM {p.coverage}
                     WHERE granularity = 'month' AND estado_id = ? AND delito IN ({marks(delitos)})),
             months AS (SELECT CAST(unnest(generate_series(CAST(? AS DATE), CAST(? AS DATE), INTERVAL 1 MONTH)) AS DATE)
                               AS fecha),
             covered AS (SELECT DISTINCT months.fecha FROM months JOIN cov ON months.fecha BETWEEN cov.desde AND cov.hasta),
             sums AS (SELECT i.entidad_id, i.fecha, sum(i.eventos) AS n FROM {p.incidents} i
                      WHERE i.estado_id = ? AND i.delito IN ({marks(delitos)}) AND i.fecha BETWEEN ? AND ?
                        AND EXISTS (SELECT 1 FROM cov WHERE cov.delito = i.delito AND i.fecha BETWEEN cov.desde AND cov.hasta)
                      GROUP BY 1, 2),
             series AS (SELECT e.entidad_id, c.fecha, coalesce(s.n, 0)::DOUBLE AS x
                        FROM ents e CROSS JOIN covered c LEFT JOIN sums s USING (entidad_id, fecha)),
             base AS (SELECT t.entidad_id, t.fecha, t.x, b.x AS v FROM series t JOIN series b
                        ON b.entidad_id = t.entidad_id AND b.fecha < t.fecha
                       AND b.fecha >= t.fecha - INTERVAL ({int(window)}) MONTH
                      WHERE t.fecha BETWEEN ? AND ?),
             med AS (SELECT entidad_id, fecha, any_value(x) AS x, median(v) AS med, count(v) AS nb
                     FROM base GROUP BY 1, 2),
             dev AS (SELECT b.entidad_id, b.fecha, median(abs(b.v - m.med)) AS mad, avg(abs(b.v - m.med)) AS meanad
                     FROM base b JOIN med m USING (entidad_id, fecha) GROUP BY 1, 2),
             z AS (SELECT m.entidad_id, m.fecha, m.x, m.med,
                          CASE WHEN d.mad > 0 THEN 0.6745 * (m.x - m.med) / d.mad
                               WHEN d.meanad > 0 THEN (m.x - m.med) / (1.2533 * d.meanad)
                               WHEN m.x > m.med THEN 'inf'::DOUBLE
                               WHEN m.x < m.med THEN '-inf'::DOUBLE END AS z
                   FROM med m JOIN dev d USING (entidad_id, fecha) WHERE m.nb >= {max(1, window // 2)}),
             a AS (SELECT *, greatest(-99.0, least(99.0, z)) AS zc, abs(z) > 99 AS capped
                   FROM z WHERE z IS NOT NULL AND abs(greatest(-99.0, least(99.0, z))) >= ?)
        SELECT a.entidad_id, e.label, a.fecha, a.x::BIGINT AS conteo, a.med AS mediana, round(a.zc, 2) AS z_score,
               round(1 - ? / abs(a.zc), 3) AS severity, CASE WHEN a.zc > 0 THEN 'alza' ELSE 'baja' END AS direccion,
               a.capped AS z_acotado
        FROM a JOIN ents e USING (entidad_id)
        ORDER BY severity DESC, a.fecha, a.entidad_id LIMIT {int(top_k)}"""
        return sql, [estado, estado, *delitos, start, last, estado, *delitos, start, last, first, last, thr, thr]

    return build


def covered_months(p: Paths) -> str:
    """``cov`` and ``im``: each crime's published months of a state inside [?, ?] (parameters: from, to, state)."""
    return f"""cov AS (SELECT delito AS item, greatest(desde, CAST(? AS DATE)) AS d1, least(hasta, CAST(? AS DATE)) AS d2
                     FROM {p.coverage} WHERE granularity = 'month' AND estado_id = ?),
             im AS (SELECT item, CAST(unnest(generate_series(d1, d2, INTERVAL 1 MONTH)) AS DATE) AS fecha
                    FROM cov WHERE d1 <= d2)"""


def cooc_sql(estado: str, w: dict, min_support: float, top_k: int):
    """detectar_patrones, coocurrencia: pairs of crimes present in the same municipality-month, by lift."""

    def build(p: Paths):
        sql = f"""
        WITH {covered_months(p)},
             munis AS (SELECT entidad_id FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             pres AS (SELECT i.delito AS item, i.entidad_id, i.fecha FROM {p.incidents} i
                      JOIN im ON im.item = i.delito AND im.fecha = i.fecha
                      WHERE i.estado_id = ? AND i.fecha BETWEEN ? AND ?
                        AND i.entidad_id IN (SELECT entidad_id FROM munis)
                      GROUP BY ALL HAVING sum(i.eventos) > 0),
             pm AS (SELECT a.item AS ia, b.item AS ib, a.fecha FROM im a JOIN im b ON a.fecha = b.fecha AND a.item < b.item),
             tm AS (SELECT ia, ib, count(*) * (SELECT count(*) FROM munis) AS n_tx FROM pm GROUP BY ALL),
             na AS (SELECT pm.ia, pm.ib, count(*) AS n FROM pm JOIN pres ON pres.item = pm.ia AND pres.fecha = pm.fecha
                    GROUP BY ALL),
             nb AS (SELECT pm.ia, pm.ib, count(*) AS n FROM pm JOIN pres ON pres.item = pm.ib AND pres.fecha = pm.fecha
                    GROUP BY ALL),
             nab AS (SELECT a.item AS ia, b.item AS ib, count(*) AS n FROM pres a JOIN pres b
                       ON a.entidad_id = b.entidad_id AND a.fecha = b.fecha AND a.item < b.item GROUP BY ALL),
             m AS (SELECT tm.ia, tm.ib, tm.n_tx, coalesce(na.n, 0) AS n_a, coalesce(nb.n, 0) AS n_b,
                          coalesce(nab.n, 0) AS n_ab
                   FROM tm LEFT JOIN na USING (ia, ib) LEFT JOIN nb USING (ia, ib) LEFT JOIN nab USING (ia, ib)),
             r AS (SELECT *, n_ab / n_tx AS support, (n_ab / n_tx) / ((n_a / n_tx) * (n_b / n_tx)) AS lift
                   FROM m WHERE n_tx > 0 AND n_a > 0 AND n_b > 0),
             lab AS (SELECT delito, subtipo FROM {p.crimes})
        SELECT la.subtipo || ' + ' || lb.subtipo AS patron, r.ia AS delito_a, r.ib AS delito_b,
               round(support, 4) AS support, round(n_ab / n_a, 4) AS confidence, round(lift, 4) AS lift,
               round(support * lift, 4) AS score, n_ab AS n, n_tx AS transacciones
        FROM r JOIN lab la ON la.delito = r.ia JOIN lab lb ON lb.delito = r.ib
        WHERE support >= ? AND lift > 1
        ORDER BY score DESC, round(support, 4) DESC, patron LIMIT {int(top_k)}"""
        return sql, [w["from"], w["to"].replace(day=1), estado, estado, estado, w["from"], w["to"], min_support]

    return build


def season_sql(estado: str, first: date, last: date, top_k: int):
    """detectar_patrones, estacionalidad: each crime's month index against its own mean."""
    names = "[" + ", ".join(f"'{m}'" for m in MONTHS) + "]"

    def build(p: Paths):
        sql = f"""
        WITH {covered_months(p)},
             ok AS (SELECT item FROM im GROUP BY item HAVING count(*) >= 24),
             counts AS (SELECT delito AS item, fecha, sum(eventos) AS n FROM {p.incidents}
                        WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN (SELECT item FROM ok) GROUP BY ALL),
             series AS (SELECT im.item, im.fecha, coalesce(c.n, 0) AS n FROM im JOIN ok USING (item)
                        LEFT JOIN counts c USING (item, fecha)),
             tot AS (SELECT item, avg(n) AS media, sum(n) AS total FROM series GROUP BY item),
             per AS (SELECT s.item, month(s.fecha) AS mes, avg(s.n) AS promedio, sum(s.n) AS eventos
                     FROM series s GROUP BY ALL),
             lab AS (SELECT delito, subtipo FROM {p.crimes})
        SELECT lab.subtipo || ' — ' || {names}[per.mes] AS patron, per.item AS delito_a, per.mes,
               round(promedio / media, 3) AS indice, round(promedio, 3) AS promedio, round(promedio / media, 3) AS score,
               round(eventos / total, 4) AS support
        FROM per JOIN tot USING (item) JOIN lab ON lab.delito = per.item
        WHERE tot.total > 0
        ORDER BY indice DESC, delito_a, per.mes LIMIT {int(top_k)}"""
        return sql, [first, last.replace(day=1), estado, estado, first, last]

    return build
