"""What the published store holds, as a matrix: crime (tipo → subtipo) × level × period, each cell at its granularity.

The Datos page shows it so nobody has to guess which question has data (issue 14, item 7). Rows are the crimes
of the Guanajuato taxonomy (``crimes``) and of the national catalogues (``crime_levels``), keyed by
(fuero, tipo_key, delito) as the ETL resolved them, so a state row and a municipal row of one crime meet in one
row. Columns are levels: Guanajuato's municipalities, other states' municipalities, the states (and the
country), victims, the federal jurisdiction and the RNID methodology of 2026 (docs/decisions/
0011-observations-and-precedence.md). A cell reads «subtipo × modalidad, 46 municipios, 2020-01..2025-11»;
places with different periods make separate parts of one cell («45 municipios, …; 1 municipio (Irapuato), …»).

Two set queries build it, one per fact table: the municipal cells from ``coverage`` (what ``incidents``
answers for, absent cells being zeros) and everything else from ``observations``, grouped by its own
columns, so a source added to ``observations`` shows up with no change here. State rows set aside by the
precedence rule in favour of the municipal sum still count as published by the state file.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from core.text import fold

LEVELS = {  # level key → column title, in display order
    "municipio_gto": "Municipios de Guanajuato",
    "municipio_otros": "Municipios de otros estados",
    "estado": "Estados y país",
    "victimas": "Víctimas (estatal)",
    "federal": "Fuero federal (estatal)",
    "rnid": "RNID 2026",
}
ALWAYS = ("municipio_gto", "estado", "victimas", "federal", "rnid")  # shown even when empty: an honest «—»
ABSENT, STATE_ONLY, WHOLE_TIPO = "—", "solo estatal", "(todo el tipo)"
FUERO_LABELS = {"comun": "común", "federal": "federal"}
KEY = ["fuero", "tipo_key", "delito"]

# The place counts and the period of one part, shared by both queries (columns n_mun, n_est, pais, extranjero,
# un_lugar, grano, modalidades, sexos, desde, hasta, anual).
_PART_TEXT = """
    concat_ws(', ',
        grano || CASE WHEN modalidades THEN ' × modalidad' ELSE '' END
              || CASE WHEN sexos THEN ' × sexo × edad' ELSE '' END,
        concat_ws(' + ',
            CASE WHEN n_mun = 1 THEN '1 municipio (' || un_lugar || ')' WHEN n_mun > 1 THEN n_mun || ' municipios' END,
            CASE WHEN n_est = 1 THEN '1 estado (' || un_lugar || ')' WHEN n_est > 1 THEN n_est || ' estados' END,
            CASE WHEN pais THEN 'país' END,
            CASE WHEN extranjero THEN 'extranjero' END),
        CASE WHEN anual THEN strftime(desde, '%Y') || '..' || strftime(hasta, '%Y')
             ELSE strftime(desde, '%Y-%m') || '..' || strftime(hasta, '%Y-%m') END)"""

MUNICIPAL_SQL = f"""
WITH methods AS (SELECT estado_id, delito, max(metodo) > min(metodo) AS modalidades FROM incidents
                 WHERE origen = 'incidents' GROUP BY ALL),
     towns AS (SELECT estado_id, count(*) AS n_mun FROM entities WHERE nivel = 'municipio' GROUP BY ALL),
     parts AS (
        SELECT 'comun' AS fuero, c.tipo_key, v.delito, c.tipo, c.subtipo,
               CASE WHEN v.estado_id = 'GTO' THEN 'municipio_gto' ELSE 'municipio_otros' END AS nivel_clave,
               CASE WHEN v.granularity = 'year' THEN 'total anual' ELSE coalesce(c.nivel, 'subtipo') END AS grano,
               coalesce(m.modalidades, false) AS modalidades, false AS sexos, coalesce(t.n_mun, 0) AS n_mun, 0 AS n_est,
               false AS pais, false AS extranjero, NULL AS un_lugar, v.desde, v.hasta, v.granularity = 'year' AS anual
        FROM coverage v
        LEFT JOIN crimes c USING (delito)
        -- the curated runs only: the observations' own runs are the OBSERVATIONS_SQL part (docs/decisions/0012)
        LEFT JOIN methods m USING (estado_id, delito)
        LEFT JOIN towns t USING (estado_id)
        WHERE v.origen = 'incidents')
SELECT fuero, tipo_key, delito, tipo, CASE WHEN grano = 'tipo' THEN NULL ELSE subtipo END AS subtipo, nivel_clave,
       string_agg({_PART_TEXT}, '; ' ORDER BY desde, hasta) AS celda
FROM parts GROUP BY ALL"""

OBSERVATIONS_SQL = f"""
WITH o AS (
        SELECT fuero, tipo_key, delito, nivel, lugar_id, metodo, sexo, fecha,
               CASE WHEN fuero = 'federal' THEN 'federal' WHEN metodologia = 'RNID' THEN 'rnid'
                    WHEN medida = 'victimas' THEN 'victimas'
                    WHEN nivel = 'municipio' AND estado_id = 'GTO' THEN 'municipio_gto'
                    WHEN nivel = 'municipio' THEN 'municipio_otros' ELSE 'estado' END AS nivel_clave
        FROM observations WHERE vigente OR sustituida_por = 'municipal'),
     per_place AS (  -- each place's own period, so places published over different spans are told apart
        SELECT fuero, tipo_key, delito, nivel_clave, nivel, lugar_id, min(fecha) AS desde, max(fecha) AS hasta,
               max(metodo) > min(metodo) AS modalidades, bool_or(sexo IS NOT NULL) AS sexos  -- cheaper than DISTINCT
        FROM o GROUP BY ALL),
     parts AS (
        SELECT fuero, tipo_key, delito, nivel_clave, desde, hasta, false AS anual,
               bool_or(modalidades) AS modalidades, bool_or(sexos) AS sexos,
               count(*) FILTER (WHERE nivel = 'municipio') AS n_mun,
               count(*) FILTER (WHERE nivel = 'estado') AS n_est,
               bool_or(nivel = 'pais') AS pais, bool_or(nivel = 'extranjero') AS extranjero,
               min(lugar_id) FILTER (WHERE nivel IN ('municipio', 'estado')) AS lugar
        FROM per_place GROUP BY ALL),
     labels AS (  -- the source's own labels, the series to 2025 first
        SELECT fuero, tipo_key, delito, arg_min(tipo, metodologia <> 'IDFC') AS tipo,
               arg_min(subtipo, metodologia <> 'IDFC') AS subtipo
        FROM crime_levels GROUP BY ALL),
     named AS (
        SELECT p.*, coalesce(c.tipo, l.tipo) AS tipo, coalesce(c.subtipo, l.subtipo) AS subtipo_label,
               CASE WHEN p.fuero = 'federal' THEN 'tipo federal'
                    WHEN c.nivel = 'tipo' OR (c.nivel IS NULL AND l.subtipo IS NULL) THEN 'tipo'
                    ELSE 'subtipo' END AS grano,
               pl.label AS un_lugar
        FROM parts p
        LEFT JOIN labels l USING (fuero, tipo_key, delito)
        LEFT JOIN crimes c ON p.fuero = 'comun' AND c.delito = p.delito
        LEFT JOIN places pl ON pl.lugar_id = p.lugar)
SELECT fuero, tipo_key, delito, tipo, CASE WHEN grano = 'tipo' THEN NULL ELSE subtipo_label END AS subtipo,
       nivel_clave, string_agg({_PART_TEXT}, '; ' ORDER BY n_mun + n_est DESC, desde, hasta) AS celda
FROM named GROUP BY ALL"""

COLUMNS = [*KEY, "tipo", "subtipo", "nivel_clave", "celda"]


@dataclass(frozen=True)
class Availability:
    """The long cells (one per crime × level) and the matrix built from them."""

    cells: pd.DataFrame  # COLUMNS: fuero, tipo_key, delito, tipo, subtipo, nivel_clave, celda

    @property
    def levels(self) -> list[str]:
        """The level column titles shown: the main ones always, the others when they hold a cell."""
        present = set(self.cells["nivel_clave"])
        return [title for key, title in LEVELS.items() if key in ALWAYS or key in present]

    def matrix(self, text: str = "", level: str | None = None) -> pd.DataFrame:
        """Crime rows × level columns; ``text`` keeps crimes whose tipo or subtipo holds it (accents and case
        ignored), ``level`` (a column title) keeps the crimes with a cell at that level."""
        cells = self.cells
        # Both queries may fill one cell (incidents and a municipal file of observations): its parts are joined.
        wide = cells.groupby([*KEY, "nivel_clave"])["celda"].agg("; ".join).unstack("nivel_clave")
        wide = wide.reindex(columns=list(LEVELS)).rename(columns=LEVELS)
        names = cells.groupby(KEY, dropna=False)[["tipo", "subtipo"]].first()
        frame = names.join(wide, how="right").reset_index()
        frame["tipo"] = frame["tipo"].fillna(frame["tipo_key"])
        frame["subtipo"] = frame["subtipo"].fillna(WHOLE_TIPO)
        frame["fuero"] = frame["fuero"].map(FUERO_LABELS).fillna(frame["fuero"])
        municipal, state = LEVELS["municipio_gto"], LEVELS["estado"]
        only_state = frame[municipal].isna() & frame[state].notna() & frame["fuero"].eq("común")
        frame.loc[only_state, municipal] = STATE_ONLY
        frame = frame.sort_values(["fuero", "tipo", "subtipo"], key=lambda s: s.map(fold), ignore_index=True)
        if text.strip():
            needle = fold(text.strip())
            hit = (frame["tipo"] + " " + frame["subtipo"]).map(fold).str.contains(needle, regex=False)
            frame = frame[hit]
        if level:
            frame = frame[frame[level].notna() & frame[level].ne(STATE_ONLY)]
        frame = frame[["fuero", "tipo", "subtipo", *self.levels]].astype(object)
        return frame.fillna(ABSENT).reset_index(drop=True)


def availability(store) -> Availability:
    """The availability cells of a store (anything with ``query(sql)``, e.g. ``core.dataset.store.Store``)."""
    tables = {row[0] for row in store.query("SELECT table_name FROM information_schema.tables")}
    frames = []
    if {"coverage", "incidents", "crimes", "entities"} <= tables:
        frames.append(_frame(store.query(MUNICIPAL_SQL)))
    if {"observations", "crime_levels", "places", "crimes"} <= tables:
        frames.append(_frame(store.query(OBSERVATIONS_SQL)))
    cells = pd.concat(frames, ignore_index=True) if frames else _frame([])
    return Availability(cells)


def _frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)
