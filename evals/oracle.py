"""The oracle of the new evaluation set: a structured expectation → its own SQL over the raw views → the figures.

Independent of the ETL and the store: it reads only ``evals.raw_views.RawViews``. Months outside a crime's
published coverage are left out (never zeros); inside the coverage of the long files a missing cell is a zero.
"""

from __future__ import annotations

from typing import Any

import duckdb
from pydantic import BaseModel

from evals.expect import LONG, ExpectError
from evals.oracle_nacional import NationalOracle

_SETUP = """
CREATE OR REPLACE TEMP TABLE ev AS
  SELECT CASE delito WHEN 'robo_institucion_bancaria' THEN 'robo_a_institucion_bancaria' ELSE delito END AS delito,
         anio, mes, cve_municipio AS cve, modalidad, eventos FROM inc
  UNION ALL SELECT delito, anio, mes, cve_municipio, NULL, eventos FROM violacion_sub;
CREATE OR REPLACE TEMP TABLE cov AS
  SELECT delito, min(make_date(anio, mes, 1)) AS first, max(make_date(anio, mes, 1)) AS last FROM ev
  WHERE NOT list_contains($long, delito) GROUP BY delito
  UNION ALL SELECT l.delito, DATE '2015-01-01', coalesce(max(make_date(p.anio, p.mes, 1)), DATE '2024-12-01')
  FROM (SELECT unnest($long) AS delito) l LEFT JOIN parq_after p USING (delito) GROUP BY l.delito;
"""
# One zero-filled panel (month x municipality) of the asked crimes, over the months every one of them has published.
_WIN = """WITH win AS (SELECT fecha FROM meses(CAST($desde AS DATE), CAST($hasta AS DATE))
    WHERE fecha >= (SELECT max(first) FROM cov WHERE list_contains($delitos, delito))
      AND fecha <= (SELECT min(last) FROM cov WHERE list_contains($delitos, delito)))"""
_PANEL = (
    _WIN
    + """,
  places AS (SELECT cve_municipio AS cve FROM mun WHERE $place = '11' OR cve_municipio = $place),
  cells AS (SELECT make_date(anio, mes, 1) AS fecha, cve, sum(eventos) AS n FROM ev
    WHERE list_contains($delitos, delito) AND (CAST($modalidad AS VARCHAR) IS NULL OR modalidad = $modalidad)
    GROUP BY ALL),
  panel AS (SELECT w.fecha, p.cve, coalesce(c.n, 0) AS n FROM win w CROSS JOIN places p
    LEFT JOIN cells c ON c.fecha = w.fecha AND c.cve = p.cve)
"""
)
_POP = "SELECT sum(poblacion) FROM pob WHERE anio = $anio AND ($place = '11' OR cve_municipio = $place)"
YOY_TOL, SHARE_TOL, DEC_TOL = 0.5, 0.1, 0.06


class Oracle(NationalOracle):
    """Computes the expected figures of every kind of ``evals/v2`` expectation from the raw views."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        con.execute(_SETUP, {"long": list(LONG)})

    def _q(self, sql: str, params: dict) -> list[tuple]:
        return self.con.execute(sql, params).fetchall()

    def _params(self, e: Any, place: str, desde: str, hasta: str) -> dict:
        return {
            "delitos": e.delitos,
            "modalidad": e.modalidad,
            "place": place,
            "desde": f"{desde}-01",
            "hasta": f"{hasta}-01",
        }

    def monthly(self, e: Any, place: str, desde: str, hasta: str) -> list[tuple[str, int]]:
        """(YYYY-MM, count) for every published month of the window; an error when there is none."""
        rows = self._q(
            _PANEL + "SELECT strftime(fecha, '%Y-%m'), sum(n) FROM panel GROUP BY fecha ORDER BY fecha",
            self._params(e, place, desde, hasta),
        )
        if not rows:
            raise ExpectError(f"{e.delitos} {place} {desde}..{hasta}: ningún mes publicado en la ventana")
        return [(m, int(n)) for m, n in rows]

    def by_place(self, e: Any, desde: str, hasta: str) -> dict[str, int]:
        """Count per municipality (all 46, zeros included) over the window."""
        self.monthly(e, "11", desde, hasta)  # the same error for an empty window
        rows = self._q(_PANEL + "SELECT cve, sum(n) FROM panel GROUP BY cve", self._params(e, "11", desde, hasta))
        return {c: int(n) for c, n in rows}

    def measure(self, e: Any, place: str, desde: str, hasta: str, medida: str = "conteo") -> float:
        """The count, rate per 100k (population of the year of ``hasta``), or monthly / daily average."""
        months = self.monthly(e, place, desde, hasta)
        total = sum(n for _, n in months)
        if medida == "conteo":
            return total
        if medida == "tasa":
            pop = self._q(_POP, {"anio": int(hasta[:4]), "place": place})[0][0]
            return total / pop * 100000
        if medida == "promedio_mensual":
            return total / len(months)
        days = self._q(
            "SELECT sum(day(last_day(CAST(m || '-01' AS DATE)))) FROM unnest($m) t(m)", {"m": [m for m, _ in months]}
        )
        return total / days[0][0]

    # ------------------------------------------------------------------ one method per kind

    def number(self, e) -> float:
        """The figure."""
        return self.measure(e, e.place, e.desde, e.hasta, e.medida)

    def extreme(self, e) -> dict:
        """The extreme value and every month (``YYYY-MM``) or year that reaches it."""
        months = self.monthly(e, e.place, e.desde, e.hasta)
        if e.unit == "month":
            pairs = months
        else:
            years = sorted({m[:4] for m, _ in months})
            full = [y for y in years if sum(m[:4] == y for m, _ in months) == 12]
            if not full:
                raise ExpectError(f"extreme por año sin ningún año completo en {e.desde}..{e.hasta}")
            pairs = [(y, sum(n for m, n in months if m[:4] == y)) for y in full]
        best = (max if e.which == "max" else min)(n for _, n in pairs)
        return {"value": best, "at": [k for k, n in pairs if n == best], "multi_year": e.desde[:4] != e.hasta[:4]}

    def places_zero(self, e) -> dict:
        """The municipalities with zero (or at least one) event, and how many."""
        per = self.by_place(e, e.desde, e.hasta)
        hit = sorted(c for c, n in per.items() if (n == 0) == (e.which == "zero"))
        return {"count": len(hit), "places": hit}

    def breakdown(self, e) -> dict:
        """Count and share (%) per modalidad inside the place, largest first."""
        self.monthly(e, e.place, e.desde, e.hasta)
        p = {k: v for k, v in self._params(e, e.place, e.desde, e.hasta).items() if k != "modalidad"}
        rows = self._q(
            _WIN
            + """ SELECT modalidad, sum(eventos) AS n FROM ev JOIN win ON make_date(anio, mes, 1) = win.fecha
            WHERE list_contains($delitos, delito) AND ($place = '11' OR cve = $place) AND modalidad IS NOT NULL
            GROUP BY modalidad HAVING sum(eventos) > 0 ORDER BY n DESC, modalidad""",
            p,
        )
        total = sum(n for _, n in rows)
        if not rows or total == 0:
            raise ExpectError(f"breakdown de {e.delitos} sin modalidades con casos")
        shares = [[m, int(n), 100 * n / total] for m, n in rows]
        return {"rows": shares, "largest": [r for r in shares if r[1] == shares[0][1]], "total": total}

    def annual_series(self, e) -> dict:
        """Each complete year's total and the last year-over-year change in %."""
        months = self.monthly(e, e.place, f"{e.desde_anio}-01", f"{e.hasta_anio}-12")
        years = []
        for y in range(e.desde_anio, e.hasta_anio + 1):
            got = [n for m, n in months if m[:4] == str(y)]
            if len(got) != 12:
                raise ExpectError(f"annual_series: {y} no está completo para {e.delitos} ({len(got)} meses)")
            years.append([y, sum(got)])
        prev, last = years[-2][1], years[-1][1]
        return {"years": years, "yoy": None if prev == 0 else 100 * (last - prev) / prev}

    def side_by_side(self, e) -> dict:
        """Each place's figure."""
        return {p: self.measure(e, p, e.desde, e.hasta, e.medida) for p in e.places}

    def vs_state(self, e) -> dict:
        """The place's rate, the state's, and the verdict."""
        mine, state = (self.measure(e, p, e.desde, e.hasta, "tasa") for p in (e.place, "11"))
        return {"place": mine, "state": state, "verdict": "por encima" if mine > state else "por debajo"}

    def change_rank(self, e) -> dict:
        """Municipalities ranked by absolute change (current − base) in the asked direction; ties kept."""
        cur, base = self.by_place(e, e.desde, e.hasta), self.by_place(e, e.base_desde, e.base_hasta)
        sign = -1 if e.direction == "up" else 1
        ranked = sorted(([c, cur[c] - base[c], cur[c], base[c]] for c in cur), key=lambda r: (sign * r[1], r[0]))
        if sign * ranked[0][1] >= 0:
            raise ExpectError(f"change_rank {e.direction}: ningún municipio cambió en esa dirección")
        return {"ranking": ranked[: e.k], "first": [r[0] for r in ranked if r[1] == ranked[0][1]]}

    def same_period(self, e) -> dict:
        """The sums of January..M of ``year`` and of the year before, M the last published month of ``year``."""
        months = self.monthly(e, e.place, f"{e.year}-01", f"{e.year}-12")
        last = months[-1][0][5:]
        prev = self.monthly(e, e.place, f"{e.year - 1}-01", f"{e.year - 1}-{last}")
        if len(prev) != int(last) or len(months) != int(last):
            raise ExpectError(f"same_period {e.year}: meses incompletos")
        return {"year": sum(n for _, n in months), "prev": sum(n for _, n in prev), "months": int(last)}

    def series(self, e) -> list[tuple[str, int]]:
        """Every published month's count."""
        return self.monthly(e, e.place, e.desde, e.hasta)

    def comparison(self, e) -> dict:
        """Both windows' counts."""
        return {
            "current": self.measure(e, e.place, e.desde, e.hasta),
            "base": self.measure(e, e.place, e.base_desde, e.base_hasta),
        }

    def top(self, e) -> list[list]:
        """The first k municipalities by count or rate, with any place tied with the k-th."""
        per = self.by_place(e, e.desde, e.hasta)
        if e.medida == "tasa":
            pop = dict(self._q("SELECT cve_municipio, poblacion FROM pob WHERE anio = $a", {"a": int(e.hasta[:4])}))
            per = {c: n / pop[c] * 100000 for c, n in per.items()}
        ranked = sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))
        cut = ranked[e.k - 1][1]
        return [[c, v] for c, v in ranked if v >= cut - 1e-9]

    def share(self, e) -> float:
        """The place's share (%) of the state's count."""
        state = self.measure(e, "11", e.desde, e.hasta)
        if not state:
            raise ExpectError("share: el estado no tiene casos en la ventana")
        return 100 * self.measure(e, e.place, e.desde, e.hasta) / state

    def split_or_ask(self, e) -> dict:
        """Each crime's count and their sum."""
        parts = {}
        for d in e.delitos:
            one = type("One", (), {"delitos": [d], "modalidad": None})()
            parts[d] = self.measure(one, e.place, e.desde, e.hasta)
        return {"parts": parts, "sum": sum(parts.values())}

    def expected(self, e: BaseModel) -> Any:
        """The expected figures of any expectation (None for the kinds that promise no figure)."""
        fn = getattr(self, e.kind, None)
        return fn(e) if fn else None
