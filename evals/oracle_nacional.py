"""The oracle's kinds over the dimensions of issue 14: its own SQL over ``evals.raw_views_nacional``'s views.

Only published months count (an empty month cell is absent, never a zero); a window with no published month, or a
crime label that matches no row of the file, is an error of the expectation, not a zero.
"""

from __future__ import annotations

from typing import Any

from evals.expect import ExpectError
from evals.raw_views_nacional import NationalViews

# a crime given by its SESNSP labels; subtipo / modalidad are lists of labels summed, NULL meaning «all of them»
_CRIME = """tipo = $tipo AND (CAST($subtipo AS VARCHAR[]) IS NULL OR list_contains(CAST($subtipo AS VARCHAR[]), subtipo))
    AND (CAST($modalidad AS VARCHAR[]) IS NULL OR list_contains(CAST($modalidad AS VARCHAR[]), modalidad))"""
_IN_WINDOW = "make_date(anio, mes, 1) BETWEEN CAST($desde AS DATE) AND CAST($hasta AS DATE)"
_POP = "SELECT pob FROM pob_est WHERE anio = $anio AND cve_ent = $place AND genero = 'Total'"
HOMICIDE_LIKE = ("Homicidio", "Lesiones")  # at tipo level of the municipal parquet: doloso + culposo summed


class NationalOracle:
    """Mixin of ``evals.oracle.Oracle``: one method per kind of ``evals.expect_nacional``."""

    con: Any

    def _nq(self, sql: str, params: dict) -> list[tuple]:
        NationalViews.ensure(self.con)
        return self.con.execute(sql, params).fetchall()

    @staticmethod
    def _crime(e: Any) -> dict:
        as_list = lambda v: [v] if isinstance(v, str) else (list(v) if v is not None else None)
        return {
            "tipo": e.tipo,
            "subtipo": as_list(getattr(e, "subtipo", None)),
            "modalidad": as_list(e.modalidad),
            "desde": f"{e.desde}-01",
            "hasta": f"{e.hasta}-01",
        }

    def _known(self, table: str, e: Any) -> None:
        """An error when a label matches no row of the file at all (a typo, not a zero); each listed label alone."""
        p = {k: v for k, v in self._crime(e).items() if k not in ("desde", "hasta")}
        for field in ("subtipo", "modalidad"):
            for label in p[field] or [None]:
                one = {**p, field: None if label is None else [label]}
                if not self._nq(f"SELECT count(*) FROM {table} WHERE {_CRIME}", one)[0][0]:
                    raise ExpectError(
                        f"{table}: ninguna fila con tipo={e.tipo!r} subtipo={one['subtipo']!r} "
                        f"modalidad={one['modalidad']!r}"
                    )

    def per_state(self, e: Any, table: str = "est") -> dict[str, int]:
        """Count per state (the 32) over the window's published months; an error when none is published."""
        self._known(table, e)
        rows = self._nq(
            f"SELECT cve_ent, sum(n), count(DISTINCT make_date(anio, mes, 1)) FROM {table} "
            f"WHERE {_CRIME} AND {_IN_WINDOW} GROUP BY cve_ent",
            self._crime(e),
        )
        if not rows:
            raise ExpectError(f"{table} {e.tipo} {e.desde}..{e.hasta}: ningún mes publicado en la ventana")
        return {c: int(n) for c, n, _ in rows}

    def _rate(self, n: float, place: str, year: int) -> float:
        pop = self._nq(_POP, {"anio": year, "place": place})
        if not pop:
            raise ExpectError(f"sin población CONAPO de {place} en {year}")
        return n / pop[0][0] * 100000

    def state_number(self, e) -> float:
        """The state's (or the country's) count, or its rate per 100k with CONAPO population of the year of hasta."""
        per = self.per_state(e, "rnid" if e.serie == "rnid" else "est")
        n = sum(per.values()) if e.place == "MX" else per.get(e.place, 0)
        return n if e.medida == "conteo" else self._rate(n, e.place, int(e.hasta[:4]))

    def state_rank(self, e) -> dict:
        """The position of ``which`` among the 32 (1 = most; ties share the better position), its figure, the ranking."""
        per = self.per_state(e)
        if e.medida == "tasa":
            per = {c: self._rate(n, c, int(e.hasta[:4])) for c, n in per.items()}
        mine = per[e.which]
        ranking = sorted(([c, v] for c, v in per.items()), key=lambda r: (-r[1], r[0]))
        return {"position": 1 + sum(v > mine + 1e-9 for v in per.values()), "value": mine, "ranking": ranking}

    def victims_share(self, e) -> dict:
        """Victims by sexo in the state (or country) and window; the share (%) of ``sexo`` among all victims."""
        NationalViews.ensure_victims(self.con)
        self._known("vic", e)
        rows = self._nq(
            f"SELECT genero, sum(n) FROM vic WHERE {_CRIME} AND {_IN_WINDOW} AND ($place = 'MX' OR cve_ent = $place) "
            "GROUP BY genero",
            {**self._crime(e), "place": e.place},
        )
        by = {g: int(n) for g, n in rows}
        total = sum(by.values())
        if not rows or total == 0:
            raise ExpectError(f"victims_share {e.tipo} {e.place} {e.desde}..{e.hasta}: sin víctimas publicadas")
        return {"by_sexo": by, "total": total, "count": by.get(e.sexo, 0), "share": 100 * by.get(e.sexo, 0) / total}

    def federal_number(self, e) -> int:
        """Fuero federal carpetas of the state (the country: the 32 states and «Extranjero»), all or a concepto/tipo."""
        crime = "(CAST($c AS VARCHAR) IS NULL OR concepto = $c) AND (CAST($t AS VARCHAR) IS NULL OR tipo = $t)"
        c = {"c": e.concepto, "t": e.tipo}
        if (e.concepto or e.tipo) and not self._nq(f"SELECT count(*) FROM fed WHERE {crime}", c)[0][0]:
            raise ExpectError(f"fuero federal: ninguna fila con concepto={e.concepto!r} tipo={e.tipo!r}")
        n, months = self._nq(
            f"SELECT sum(n), count(DISTINCT make_date(anio, mes, 1)) FROM fed WHERE {crime} AND {_IN_WINDOW} "
            "AND ($place = 'MX' OR cve_ent = $place)",
            {**c, "place": e.place, "desde": f"{e.desde}-01", "hasta": f"{e.hasta}-01"},
        )[0]
        if not months:
            raise ExpectError(f"fuero federal {e.desde}..{e.hasta}: ningún mes publicado en la ventana")
        return int(n)

    def municipal_tipo_number(self, e) -> int:
        """A municipality's (or the state's) count of a tipo (optionally modalidades) from the tipo x modalidad file;
        with a subtipo, Irapuato's count from its every-subtipo JSON (to 2025-12)."""
        if e.subtipo is not None:
            return self._irapuato_subtipo(e)
        p = {**self._crime(e), "subtipo": None}
        src = "mun_tipo, (SELECT NULL AS subtipo) s"
        self._known(f"(SELECT * FROM {src})", e)
        n, months = self._nq(
            f"SELECT sum(n), count(DISTINCT make_date(anio, mes, 1)) FROM {src} "
            f"WHERE {_CRIME} AND {_IN_WINDOW} AND ($place = '11' OR cve = $place)",
            {**p, "place": e.place},
        )[0]
        if not months:
            raise ExpectError(f"mun_tipo {e.tipo} {e.desde}..{e.hasta}: ningún mes publicado en la ventana")
        return int(n)

    def _irapuato_subtipo(self, e) -> int:
        """Irapuato's count of a tipo and subtipo(s) (optionally modalidades) over the JSON's published months."""
        NationalViews.ensure_irapuato(self.con)
        self._known("ira", e)
        n, months = self._nq(
            f"SELECT sum(n), count(DISTINCT make_date(anio, mes, 1)) FROM ira WHERE {_CRIME} AND {_IN_WINDOW}",
            self._crime(e),
        )[0]
        if not months:
            raise ExpectError(f"Irapuato {e.tipo} {e.desde}..{e.hasta}: ningún mes publicado en la ventana")
        return int(n)
