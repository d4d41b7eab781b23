"""The 32 states ranked for one crime (tool 21): «¿en qué lugar está Guanajuato en homicidios dolosos?».

Carpetas of the fuero común from one methodology (IDFC, the series to 2025, or RNID 2026), by count or by rate per
100,000 inhabitants (CONAPO mid-year population of the year the window ends). Every state gets its position (ties
share it), its rate and whether it is above or below the national rate; the country's row closes the table. The
asked state's position and the states it is compared with go to the metrics.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_num, join_y
from core.engine.envelope import records
from core.tools import ResolvedStep, ToolContext, ToolOutput
from core.tools.evidence import national as national_evidence
from core.tools.national import COUNTRY, SPOKEN_NAMES, Series, crime, place, provenance, source_line
from core.tools.national import warnings as national_warnings
from core.tools.national import window as national_window
from core.tools.statecells import municipal_sums, state_cells, state_rows

COLUMNS = [
    ("posicion", "int"),
    ("lugar_id", "string"),
    ("label", "string"),
    ("conteo", "int"),
    ("poblacion", "int"),
    ("tasa_per_100k", "float"),
    ("frente_al_pais", "string"),
]
_VERDICT = "CASE WHEN t IS NULL OR tn IS NULL THEN NULL WHEN t > tn THEN 'por encima' WHEN t < tn THEN 'por debajo' ELSE 'igual' END"


def ranking_estados(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Every state's count, rate and position for one crime and window, the country last."""
    args = step.args
    series = Series("carpetas", "comun", args.get("metodologia", "IDFC"))
    win = national_window(ctx, series, args.get("desde"), args.get("hasta"))
    asked, asked_label = place(ctx, args.get("lugar_id", "GTO"))
    others = [place(ctx, x)[0] for x in args.get("comparar_con", []) if x != asked]
    crime_ = crime(ctx, series, args.get("clave_delito"), args.get("metodo"))
    by_rate = args.get("ordenar_por", "conteo") == "tasa_per_100k"
    year = win.end.year
    cells, params = state_cells(
        series, crime_, win, "o.nivel = 'estado'", sums=municipal_sums(ctx), rows=state_rows(ctx)
    )
    order = "t DESC NULLS LAST, n DESC" if by_rate else "n DESC, t DESC NULLS LAST"
    sql = f"""WITH c AS MATERIALIZED ({cells}),
        s AS (SELECT p.lugar_id, p.label, coalesce(sum(c.eventos), 0) AS n, bool_or(c.municipal) AS mun,
                     list(DISTINCT c.source_file) AS files
              FROM places p LEFT JOIN c USING (lugar_id) WHERE p.nivel = 'estado' GROUP BY ALL),
        pop AS (SELECT lugar_id, any_value(poblacion) AS poblacion FROM place_population
                WHERE anio = ? AND sexo = 'total' AND nivel IN ('pais', 'estado') GROUP BY 1),
        k AS (SELECT s.*, pop.poblacion,
                     CASE WHEN pop.poblacion > 0 THEN round(s.n / pop.poblacion * 100000, 2) END AS t
              FROM s LEFT JOIN pop USING (lugar_id)),
        nat AS (SELECT sum(n) AS nn, (SELECT poblacion FROM pop WHERE lugar_id = ?) AS pn FROM k),
        r AS (SELECT k.*, CASE WHEN nat.pn > 0 THEN round(nat.nn / nat.pn * 100000, 2) END AS tn,
                     rank() OVER (ORDER BY {order}) AS pos
              FROM k, nat)
        SELECT pos, lugar_id, label, n, poblacion, t, {_VERDICT}, mun, files, tn, (SELECT pn FROM nat)
        FROM r ORDER BY pos, label"""
    got = ctx.query(sql, [*params, year, COUNTRY])
    n_country = sum(int(r[3]) for r in got)
    pop_country, rate_country = (got[0][10], got[0][9]) if got else (None, None)
    rows = [[int(r[0]), r[1], r[2], int(r[3]), r[4], r[5], r[6]] for r in got]
    rows.append([None, COUNTRY, "México (nacional)", n_country, pop_country, rate_country, None])
    files = [f for r in got for f in (r[8] or []) if f]
    # a state built from its municipalities (Guanajuato) names its own files: the others' rows never read them
    state_files = {f for r in got if not r[7] for f in _split_files(r[8])}
    municipal_files = sorted({f for r in got if r[7] for f in _split_files(r[8])} - state_files)
    by_id = {r[1]: r for r in rows}
    asked_row = by_id.get(asked)
    compared = [
        {"lugar_id": x, "label": by_id[x][2], "posicion": by_id[x][0], "conteo": by_id[x][3], "tasa": by_id[x][5]}
        for x in others
        if x in by_id
    ]
    # the ranking's source is the state file; the municipal files built Guanajuato's row only, and say so
    prov = provenance(series, sorted(state_files) or files, win, municipal=bool(municipal_files))
    if municipal_files:
        prov["fuente_municipal"] = {"lugares": [r[2] for r in got if r[7]], "archivos": municipal_files}
    metrics = {
        **prov,
        "delito": crime_.key,
        "delito_label": crime_.label,
        "ordenado_por": "tasa_per_100k" if by_rate else "conteo",
        "orden": args.get("orden", "desc"),
        "lugar_id": asked,
        "lugar": asked_label,
        "posicion": asked_row[0] if asked_row else None,
        "de": len(got),
        "conteo": asked_row[3] if asked_row else n_country,
        "tasa": asked_row[5] if asked_row else rate_country,
        "frente_al_pais": asked_row[6] if asked_row else None,
        "conteo_nacional": n_country,
        "tasa_nacional": rate_country,
        "anio_poblacion": year,
        "comparados": compared,
        "primero": rows[0][2] if rows and got else None,
        "fuente_municipal": prov.get("fuente_municipal"),
    }
    unit = "por 100 mil" if by_rate else ""
    highlights = [
        f"{r['label']}: lugar {r['posicion']} de {len(got)} ({r['conteo']:,}"
        + (f"; {r['tasa']} {unit or 'por 100 mil'}" if r["tasa"] is not None else "")
        + ")"
        for r in [
            {
                "label": asked_label,
                "posicion": metrics["posicion"],
                "conteo": metrics["conteo"],
                "tasa": metrics["tasa"],
            }
        ]
        + compared
        if r["posicion"] is not None
    ] + [f"Nacional: {n_country:,}" + (f" ({rate_country} por 100 mil)" if rate_country is not None else "")]
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Ranking de estados — {crime_.label}, {win.label} ({source_line(series, prov['fuente'])}"
        + (f"; {_municipal_rows(prov['fuente_municipal'])}" if municipal_files else "")
        + ")",
        highlights=highlights,
        metrics=metrics,
        warnings=national_warnings(series, crime_, win),
        extra_meta={**win.meta(), **prov},
        empty=not files,
        evidence=national_evidence(series, crime_, win, states_only=True),
    )


def _split_files(files: list[str] | None) -> set[str]:
    """Each file once: a municipal cell's source is «a.csv, b.csv» (every file its municipalities came from)."""
    return {f for item in files or [] if item for f in item.split(", ")}


def _municipal_rows(municipal: dict) -> str:
    """«la fila de Guanajuato es la suma de sus municipios: IDM_NM_….csv»: the only rows the municipal files built."""
    places = municipal.get("lugares") or []
    rows = f"la fila de {join_y(places)} es" if len(places) == 1 else f"las filas de {join_y(places)} son"
    return f"{rows} la suma de sus municipios: {', '.join(sorted(municipal.get('archivos') or []))}"


def _source_line(met: dict) -> str:
    """«Cifras: serie; fuente: state file; la fila de Guanajuato es la suma de sus municipios: its files.»"""
    municipal = met.get("fuente_municipal") or {}
    own = set(municipal.get("archivos") or [])
    main = sorted({f for item in met.get("fuente") or [] for f in item.split(", ")} - own)
    line = f"Cifras: {met.get('serie', '')}; fuente: {', '.join(main)}"
    if own:
        line += f"; {_municipal_rows(municipal)}"
    return line + "."


def _position(n: int | None) -> str:
    return f"{n}.º" if n is not None else "sin posición"


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """The asked state's place and rate against the country's, the states compared, and the series."""
    met = env.get("metrics") or {}
    crime_ = met.get("delito_label", "delitos").lower()
    by_rate = met.get("ordenado_por") == "tasa_per_100k"
    out = []
    if met.get("posicion") is not None:
        out.append(
            f"{met['lugar']} ocupa el lugar {_position(met['posicion'])} de {met['de']} estados en {crime_} {per}"
            + (" por tasa" if by_rate else "")
            + f": {fmt_int(met['conteo'])} carpetas"
            + (f", {fmt_num(met['tasa'], 1)} por cada 100 mil habitantes" if met.get("tasa") is not None else "")
            + "."
        )
        if met.get("frente_al_pais") and met.get("tasa_nacional") is not None:
            word = {"igual": "igual a"}.get(met["frente_al_pais"], f"{met['frente_al_pais']} de")
            out.append(
                f"Está {word} la tasa nacional ({fmt_num(met['tasa_nacional'], 1)}; "
                f"{fmt_int(met['conteo_nacional'])} carpetas en el país)."
            )
    else:
        ranked = [r for r in rows if r.get("posicion") is not None]
        fewest = met.get("orden") == "asc"
        top = ranked[::-1][:5] if fewest else ranked[:5]  # «el estado con menos»: the end of the ranking first
        value = (
            (lambda r: f"{fmt_num(r['tasa_per_100k'], 1)} por 100 mil") if by_rate else (lambda r: fmt_int(r["conteo"]))
        )
        out.append(
            f"Estados con {'menos' if fewest else 'más'} {crime_} {per}{' por tasa' if by_rate else ''}: "
            + join_y(
                f"{_spoken(r)} (lugar {r['posicion']}, {value(r)})" if fewest else f"{_spoken(r)} ({value(r)})"
                for r in top
            )
            + f"; nacional {fmt_int(met.get('conteo_nacional'))}"
            # the country's rate is asked as often as its count («¿y la del país?»)
            + (
                f" ({fmt_num(met['tasa_nacional'], 1)} por cada 100 mil habitantes)."
                if met.get("tasa_nacional")
                else "."
            )
        )
    if met.get("comparados"):
        out.append(
            "Frente a "
            + join_y(
                f"{c['label']}: lugar {_position(c['posicion'])}, {fmt_int(c['conteo'])}"
                + (f" ({fmt_num(c['tasa'], 1)} por cada 100 mil)" if c.get("tasa") is not None else "")
                for c in met["comparados"]
            )
            + "."
        )
    out.append(_source_line(met))
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Bars of the 32 states by the ranking's measure (the country's row left out)."""
    met = env.get("metrics") or {}
    by_rate = met.get("ordenado_por") == "tasa_per_100k"
    y = "tasa_per_100k" if by_rate else "conteo"
    data = [r for r in records(env) if r.get("posicion") is not None]
    return {
        "type": "bar",
        "x": "label",
        "y": y,
        "title": f"Estados: {met.get('delito_label', 'delitos')}",
        "y_label": "Tasa por cada 100 mil habitantes" if by_rate else "Carpetas de investigación",
        "data": data,
    }


def _spoken(row: dict) -> str:
    """A state's name as a sentence says it («Estado de México»; the table keeps INEGI's «México»)."""
    return SPOKEN_NAMES.get(row.get("lugar_id") or "", row.get("label") or "")
