"""The cases of item 3: their plans, scopes and the hand-written DuckDB SQL of each.

Each ``Case`` pairs a Casandra plan with one SQL statement a DuckDB engineer would write for
the same result rows, straight over the version's Parquet files (``Paths``). Split from
``bench.national``, which builds the store and times the cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from bench import synth
from core.text import MONTHS, shift_months

TOOL_P95_MS = 300.0
TOOL_RATIO = 1.3


@dataclass
class NationalConfig:
    """What to generate and how often to run each case."""

    per_state: dict[str, int] = field(default_factory=lambda: dict(synth.MUNICIPALITIES_PER_STATE))
    years: list[int] = field(default_factory=lambda: list(range(2015, 2025)))
    crimes: str | list[str] = "carried"
    estado: str = "MEX"  # the state the analyses look at (Estado de México, code 15)
    estado_grande: str | None = "OAX"  # the state with most municipalities (570)
    crime_a: str = "homicidio_doloso"
    crime_b: str = "violencia_familiar"
    serie_crime: str = "homicidio"  # tipo-level key: expands to doloso + culposo
    runs: int = 40  # p95 of 20 samples is the 19th value: one burst of a neighbour decides it
    warmup: int = 2
    seed: int = 20260115


# -- the cases ---------------------------------------------------------------------------------


@dataclass
class Case:
    """One plan and the SQL that must give the same rows."""

    name: str
    tool: str
    plan: dict
    sql: Callable[[Paths], tuple[str, list]]
    note: str = ""


@dataclass
class Paths:
    """The Parquet files of the current version, as SQL table expressions."""

    folder: Path

    def __getattr__(self, table: str) -> str:
        if table.startswith("_"):
            raise AttributeError(table)
        return "read_parquet('" + str(self.folder / f"{table}.parquet").replace("'", "''") + "')"


def _marks(values: list) -> str:
    return ", ".join("?" for _ in values)


def _windows(years: list[int]) -> dict:
    y = years[-1]
    if len(years) >= 2:
        return {
            "from": date(y, 1, 1),
            "to": date(y, 12, 31),
            "base_from": date(y - 1, 1, 1),
            "base_to": date(y - 1, 12, 31),
            "anom_window": 12,
        }
    return {
        "from": date(y, 7, 1),
        "to": date(y, 12, 31),
        "base_from": date(y, 1, 1),
        "base_to": date(y, 6, 30),
        "anom_window": 6,
    }


def _plan(tool_id: int, **args) -> dict:
    return {
        "plan": [
            {"tool_id": tool_id, "args": {k: (v.isoformat() if isinstance(v, date) else v) for k, v in args.items()}}
        ]
    }


def _rank_sql(estado: str, delitos: list[str], w: dict, top_k: int, share: bool):
    """rank_por_delito / top_entidades_por_total, nivel hijos, by count."""
    crime = f"AND delito IN ({_marks(delitos)})" if delitos else ""

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


def _rank_actual_sql(estado: str, delitos: list[str], w: dict):
    def build(p: Paths):
        sql = f"""
        WITH n AS (SELECT coalesce(sum(eventos), 0)::BIGINT AS conteo FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN ({_marks(delitos)})),
             pop AS (SELECT CASE WHEN count(*) > 0 THEN sum(poblacion) END AS poblacion FROM {p.population}
                     WHERE fuente = 'CONAPO' AND anio = ? AND estado_id = ?)
        SELECT e.entidad_id, e.label, n.conteo,
               CASE WHEN pop.poblacion > 0 THEN round(n.conteo::DOUBLE / pop.poblacion * 100000, 2) END
        FROM {p.entities} e, n, pop WHERE e.entidad_id = ?"""
        return sql, [estado, w["from"], w["to"], *delitos, w["to"].year, estado, estado]

    return build


def _serie_sql(estado: str, keys: list[str], first: date, last: date):
    def build(p: Paths):
        sql = f"""
        WITH m AS (SELECT CAST(unnest(generate_series(CAST(? AS DATE), CAST(? AS DATE), INTERVAL 1 MONTH)) AS DATE)
                          AS fecha),
             s AS (SELECT fecha, sum(eventos) AS n FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN ({_marks(keys)}) GROUP BY fecha),
             cov AS (SELECT desde, hasta FROM {p.coverage}
                     WHERE granularity = 'month' AND estado_id = ? AND delito IN ({_marks(keys)})),
             x AS (SELECT m.fecha, s.n,
                          (EXISTS (SELECT 1 FROM cov WHERE m.fecha BETWEEN cov.desde AND cov.hasta)
                           OR s.fecha IS NOT NULL) AS publicado
                   FROM m LEFT JOIN s USING (fecha))
        SELECT fecha, CASE WHEN publicado THEN coalesce(n, 0)::BIGINT END AS conteo, publicado FROM x ORDER BY fecha"""
        return sql, [first, last.replace(day=1), estado, first, last, *keys, estado, *keys]

    return build


def _comparar_sql(estado: str, delitos: list[str], w: dict, top_k: int):
    def build(p: Paths):
        sql = f"""
        WITH e AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             c AS (SELECT entidad_id,
                          sum(eventos) FILTER (WHERE fecha BETWEEN ? AND ?) AS n,
                          sum(eventos) FILTER (WHERE fecha BETWEEN ? AND ?) AS nb
                   FROM {p.incidents} WHERE estado_id = ? AND delito IN ({_marks(delitos)})
                     AND (fecha BETWEEN ? AND ? OR fecha BETWEEN ? AND ?) GROUP BY entidad_id),
             r AS (SELECT e.entidad_id, e.label, coalesce(c.n, 0)::BIGINT AS conteo,
                          coalesce(c.nb, 0)::BIGINT AS conteo_base FROM e LEFT JOIN c USING (entidad_id))
        SELECT entidad_id, label, conteo, conteo_base, conteo - conteo_base AS cambio,
               CASE WHEN conteo_base <> 0 THEN round(100 * (conteo - conteo_base) / conteo_base, 2) END AS cambio_pct
        FROM r ORDER BY abs(cambio) DESC, cambio DESC, entidad_id LIMIT {int(top_k)}"""
        a, b, ba, bb = w["from"], w["to"], w["base_from"], w["base_to"]
        return sql, [estado, a, b, ba, bb, estado, *delitos, a, b, ba, bb]

    return build


def _agrupar_sql(estado: str, delitos: list[str], w: dict, top_k: int):
    def build(p: Paths):
        sql = f"""
        WITH e AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             c AS (SELECT entidad_id, sum(eventos) AS n FROM {p.incidents}
                   WHERE estado_id = ? AND fecha BETWEEN ? AND ? AND delito IN ({_marks(delitos)})
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


def _anomalias_sql(estado: str, delitos: list[str], w: dict, window: int, thr: float, top_k: int):
    first = w["from"].replace(day=1)
    last = w["to"].replace(day=1)
    start = shift_months(first, -window)

    def build(p: Paths):
        sql = f"""
        WITH ents AS (SELECT entidad_id, label FROM {p.entities} WHERE nivel = 'municipio' AND estado_id = ?),
             cov AS (SELECT delito, desde, hasta FROM {p.coverage}
                     WHERE granularity = 'month' AND estado_id = ? AND delito IN ({_marks(delitos)})),
             months AS (SELECT CAST(unnest(generate_series(CAST(? AS DATE), CAST(? AS DATE), INTERVAL 1 MONTH)) AS DATE)
                               AS fecha),
             covered AS (SELECT DISTINCT months.fecha FROM months JOIN cov ON months.fecha BETWEEN cov.desde AND cov.hasta),
             sums AS (SELECT i.entidad_id, i.fecha, sum(i.eventos) AS n FROM {p.incidents} i
                      WHERE i.estado_id = ? AND i.delito IN ({_marks(delitos)}) AND i.fecha BETWEEN ? AND ?
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


def _covered_months(p: Paths) -> str:
    """``cov`` and ``im``: each crime's published months of a state inside [?, ?] (parameters: from, to, state)."""
    return f"""cov AS (SELECT delito AS item, greatest(desde, CAST(? AS DATE)) AS d1, least(hasta, CAST(? AS DATE)) AS d2
                     FROM {p.coverage} WHERE granularity = 'month' AND estado_id = ?),
             im AS (SELECT item, CAST(unnest(generate_series(d1, d2, INTERVAL 1 MONTH)) AS DATE) AS fecha
                    FROM cov WHERE d1 <= d2)"""


def _cooc_sql(estado: str, w: dict, min_support: float, top_k: int):
    def build(p: Paths):
        sql = f"""
        WITH {_covered_months(p)},
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


def _season_sql(estado: str, first: date, last: date, top_k: int):
    names = "[" + ", ".join(f"'{m}'" for m in MONTHS) + "]"

    def build(p: Paths):
        sql = f"""
        WITH {_covered_months(p)},
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


def cases(cfg: NationalConfig) -> list[Case]:
    """The benchmark cases for one configuration."""
    w = _windows(cfg.years)
    e, a, b = cfg.estado, cfg.crime_a, cfg.crime_b
    first, last = date(cfg.years[0], 1, 1), date(cfg.years[-1], 12, 31)
    serie_keys = sorted(
        {cfg.serie_crime, *(["homicidio_doloso", "homicidio_culposo"] if cfg.serie_crime == "homicidio" else [])}
    )
    win = {"from": w["from"], "to": w["to"]}
    out = [
        Case(
            "rank_por_delito (hijos)",
            "rank_por_delito",
            _plan(6, entidad_id=e, delito=a, nivel="hijos", top_k=10, **win),
            _rank_sql(e, [a], w, 10, False),
            f"municipios de {e}, {a}, último año",
        ),
        Case(
            "rank_por_delito (actual)",
            "rank_por_delito",
            _plan(6, entidad_id=e, delito=a, nivel="actual", **win),
            _rank_actual_sql(e, [a], w),
            f"el estado {e} como un todo",
        ),
    ]
    if cfg.estado_grande:
        g = cfg.estado_grande
        out.append(
            Case(
                f"rank_por_delito (hijos, {g})",
                "rank_por_delito",
                _plan(6, entidad_id=g, delito=a, nivel="hijos", top_k=10, **win),
                _rank_sql(g, [a], w, 10, False),
                f"los municipios de {g} (el estado con más municipios)",
            )
        )
    out += [
        Case(
            "top_entidades_por_total",
            "top_entidades_por_total",
            _plan(7, entidad_id=e, nivel="hijos", top_k=10, **win),
            _rank_sql(e, [], w, 10, True),
            f"municipios de {e}, todos los delitos",
        ),
        Case(
            "serie_temporal",
            "serie_temporal",
            _plan(12, entidad_id=e, delito=cfg.serie_crime, **{"from": first, "to": last}),
            _serie_sql(e, serie_keys, first, last),
            f"{e}, {cfg.serie_crime}, todos los meses",
        ),
        Case(
            "comparar_periodos",
            "comparar_periodos",
            _plan(
                13,
                entidad_id=e,
                delito=b,
                nivel="hijos",
                top_k=10,
                base_from=w["base_from"],
                base_to=w["base_to"],
                **win,
            ),
            _comparar_sql(e, [b], w, 10),
            f"municipios de {e}, {b}",
        ),
        Case(
            "agrupar_por_entidad (porcentaje)",
            "agrupar_por_entidad",
            _plan(11, entidad_id=e, delito=a, nivel="hijos", aggregate_by="porcentaje", top_k=10, **win),
            _agrupar_sql(e, [a], w, 10),
            f"municipios de {e}, {a}",
        ),
        Case(
            "detectar_anomalias",
            "detectar_anomalias",
            _plan(10, entidad_id=e, delito=a, nivel="hijos", window=w["anom_window"], z_threshold=3.0, top_k=10, **win),
            _anomalias_sql(e, [a], w, w["anom_window"], 3.0, 10),
            f"municipios de {e}, {a}, base {w['anom_window']} meses",
        ),
        Case(
            "detectar_patrones (coocurrencia)",
            "detectar_patrones",
            _plan(8, entidad_id=e, tipo="coocurrencia", min_support=0.01, top_k=10, **win),
            _cooc_sql(e, w, 0.01, 10),
            f"municipio-mes de {e}, todos los delitos",
        ),
        Case(
            "detectar_patrones (estacionalidad)",
            "detectar_patrones",
            _plan(8, entidad_id=e, tipo="estacionalidad", top_k=10, **{"from": first, "to": last}),
            _season_sql(e, first, last, 10),
            f"{e}, todos los delitos, todos los meses",
        ),
    ]
    return out
