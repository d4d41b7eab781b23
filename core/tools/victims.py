"""Victims by sexo and rango de edad (tool 22): «¿cuántas de las víctimas de homicidio doloso fueron mujeres?».

The SESNSP victims file counts people, not carpetas: a carpeta can have several victims. The table gives each
sexo × rango de edad with its share; the metrics give the totals, the share of women and the victims per carpeta,
where the carpetas are the same place's común series (IDFC) of the same crime in the months both publish. The two
measures are divided, never added.
"""

from __future__ import annotations

from core.ask.wording import fmt_int, fmt_num, fmt_pct
from core.engine.envelope import records
from core.errors import FiltroInvalidoError
from core.tools import EVIDENCE_IDS, ResolvedStep, ToolContext, ToolOutput
from core.tools.evidence import victims as victims_evidence
from core.tools.national import COUNTRY, Series, crime, place, provenance, source_line
from core.tools.national import warnings as national_warnings
from core.tools.national import window as national_window
from core.tools.statecells import beyond_months, municipal_sums, state_cells, state_rows

COLUMNS = [("sexo", "string"), ("rango_edad", "string"), ("victimas", "int"), ("porcentaje", "float")]
VICTIMS = Series("victimas", "comun", "IDFC")
CARPETAS = Series("carpetas", "comun", "IDFC")
SEXES = ["Mujer", "Hombre", "No identificado"]
AGES = ["Menores de edad (0-17)", "Adultos (18 y más)", "No especificado", "No identificado"]


def victimas_sexo_edad(ctx: ToolContext, step: ResolvedStep) -> ToolOutput:
    """Victims of one place, crime and window by sexo and rango de edad; women's share; victims per carpeta."""
    args = step.args
    win = national_window(ctx, VICTIMS, args.get("desde"), args.get("hasta"))
    # The place's label and the crime's levels are facts of the version: looked up once, so a repeated question
    # reads observations in its one main query only (the months and the crimes with victims are memos too).
    asked = args.get("lugar_id", "GTO")
    lugar_id, label = ctx.memo(("victims_place", asked), lambda: place(ctx, asked))
    key, metodo = args.get("clave_delito"), args.get("metodo")
    how = tuple(metodo) if isinstance(metodo, list) else metodo
    # victims share the IDFC catalogue's keys
    try:
        crime_ = ctx.memo(("victims_crime", key, how), lambda: crime(ctx, CARPETAS, key, metodo))
    except FiltroInvalidoError:
        # «víctimas de violación»: a crime of the store the state files name otherwise (its two tipos) has no victims
        row = next((c for c in getattr(ctx.catalog, "crimes", None) or [] if c.get("delito") == key), None)
        if row is None:
            raise
        raise _not_published(str(row.get("subtipo") or row.get("tipo") or key)) from None
    crime_sql, crime_params = crime_.where()
    vcond, vparams = VICTIMS.where()
    at = "TRUE" if lugar_id == COUNTRY else "o.lugar_id = ?"
    at_params = [] if lugar_id == COUNTRY else [lugar_id]
    has = ctx.memo(
        ("victims_of", crime_.level, crime_.key),
        lambda: ctx.query(
            f"SELECT count(*) FROM observations o WHERE {vcond} AND {crime_sql} LIMIT 1", [*vparams, *crime_params]
        ),
    )
    if not has[0][0]:
        raise _not_published(crime_.label)
    # Carpetas of the same place and crime, month by month, beside the victims of the same months.
    # only the crimes with victims in this place and window (``v`` below): «all crimes» divides like by like
    covered = f"{at} AND o.delito IN (SELECT DISTINCT delito FROM v)"
    # a state's months only its municipalities publish join its own victims; the country's months stay whole
    beyond = lugar_id != COUNTRY
    months = beyond_months(ctx, crime_.key) if beyond and crime_.level == "delito" else None
    cells, cparams = state_cells(
        CARPETAS, crime_, win, covered, at_params, beyond=months, sums=municipal_sums(ctx), rows=state_rows(ctx)
    )
    # the victims folded to month × crime × sexo × edad first: the country's window is ~1 M rows, this a few thousand;
    # the same pass keeps each group's first row ids with events, so the evidence does not scan them again
    sql = f"""WITH v AS MATERIALIZED (
                  SELECT o.fecha, o.delito, o.sexo, o.rango_edad, sum(o.eventos) AS eventos,
                         list(DISTINCT o.source_file) AS files,
                         min(o.row_id, {EVIDENCE_IDS + 1}) FILTER (WHERE o.eventos > 0) AS ids,
                         count(*) FILTER (WHERE o.eventos > 0) AS nz
                  FROM observations o
                  WHERE o.nivel = 'estado' AND {vcond} AND o.vigente AND o.fecha BETWEEN ? AND ?
                    AND {crime_sql} AND {at} GROUP BY ALL),
              c AS (SELECT fecha, sum(eventos) AS n, list(DISTINCT source_file) AS files FROM ({cells}) GROUP BY 1),
              vm AS (SELECT fecha, sum(eventos) AS n FROM v GROUP BY 1),
              both_ AS (SELECT sum(vm.n) AS victimas, sum(c.n) AS carpetas, count(*) AS meses,
                               flatten(list(c.files)) AS files
                        FROM vm JOIN c USING (fecha)),
              g AS (SELECT sexo, rango_edad, sum(eventos) AS n FROM v GROUP BY ALL)
        SELECT sexo, rango_edad, n, round(100 * n / sum(n) OVER (), 2),
               (SELECT list_distinct(flatten(list(files))) FROM v), b.victimas, b.carpetas, b.meses, b.files,
               (SELECT list_slice(list_sort(flatten(list(ids) FILTER (WHERE ids IS NOT NULL))), 1, {EVIDENCE_IDS + 1})
                FROM v), (SELECT sum(nz) FROM v)
        FROM g, both_ b"""
    got = ctx.query(sql, [*vparams, win.start, win.end, *crime_params, *at_params, *cparams])
    order = {(s, a): i * 10 + j for i, s in enumerate(SEXES) for j, a in enumerate(AGES)}
    got = sorted(got, key=lambda r: (order.get((r[0], r[1]), 999), r[0], r[1]))
    rows = [[r[0], r[1], int(r[2]), r[3]] for r in got]
    total = sum(r[2] for r in rows)
    by_sex = {s: sum(r[2] for r in rows if r[0] == s) for s in SEXES}
    head = got[0] if got else None
    files = list(head[4] or []) if head else []
    common_victims, carpetas, months = (int(head[5] or 0), int(head[6] or 0), int(head[7] or 0)) if head else (0, 0, 0)
    prov = provenance(VICTIMS, files, win)
    metrics = {
        **prov,
        "lugar_id": lugar_id,
        "lugar": label,
        "delito": crime_.key,
        "delito_label": crime_.label,
        "total": total,
        "mujeres": by_sex["Mujer"],
        "hombres": by_sex["Hombre"],
        "no_identificado": by_sex["No identificado"],
        "menores": sum(r[2] for r in rows if r[1] == AGES[0]),
        "porcentaje_mujeres": round(100 * by_sex["Mujer"] / total, 2) if total else None,
        "carpetas": carpetas if months else None,
        "carpetas_serie": CARPETAS.label,
        # a state month summed from several municipal files names them «a, b» (statecells.state_cells): one file each
        "carpetas_fuente": sorted({f for s in (head[8] if head else None) or [] if s for f in s.split(", ")}),
        "victimas_meses_comunes": common_victims if months else None,
        "meses_comunes": months,
        "victimas_por_carpeta": round(common_victims / carpetas, 2) if months and carpetas else None,
    }
    warns = national_warnings(VICTIMS, crime_, win)
    if months and months < win.months:
        warns.append(
            f"Víctimas por carpeta calculadas en los {months} de {win.months} meses que ambas series publican: "
            f"{fmt_int(common_victims)} víctimas entre {fmt_int(carpetas)} carpetas."
        )
    evidence = victims_evidence(crime_, win, None if lugar_id == COUNTRY else lugar_id, beyond)
    evidence.ids = [int(x) for x in (head[9] or [])] if head else []
    evidence.total = int(head[10] or 0) if head else 0
    return ToolOutput(
        columns=list(COLUMNS),
        rows=rows,
        headline=f"Víctimas por sexo y edad — {crime_.label}, {label}, {win.label} ({source_line(VICTIMS, files)})",
        highlights=[f"Total {total:,} víctimas", f"Mujeres {by_sex['Mujer']:,} ({metrics['porcentaje_mujeres']} %)"]
        + (
            [f"{metrics['victimas_por_carpeta']} víctimas por carpeta ({carpetas:,} carpetas)"]
            if metrics["victimas_por_carpeta"] is not None
            else []
        ),
        metrics=metrics,
        warnings=warns,
        extra_meta={**win.meta(), **prov},
        empty=not total,
        evidence=evidence,
    )


def lead(env: dict, rows: list[dict], noun, per: str) -> list[str]:
    """Victims and women's share, then victims per carpeta (never a sum of the two)."""
    met = env.get("metrics") or {}
    crime_ = met.get("delito_label", "delitos").lower()
    out = [
        f"{met.get('lugar')} registró {fmt_int(met.get('total'))} víctimas de {crime_} {per}: "
        f"{fmt_int(met.get('mujeres'))} mujeres ({fmt_pct(met.get('porcentaje_mujeres') or 0)}), "
        f"{fmt_int(met.get('hombres'))} hombres y {fmt_int(met.get('no_identificado'))} sin sexo identificado; "
        f"{fmt_int(met.get('menores'))} eran menores de edad."
    ]
    if met.get("victimas_por_carpeta") is not None:
        out.append(
            f"Son {fmt_num(met['victimas_por_carpeta'], 2)} víctimas por carpeta de investigación "
            f"({fmt_int(met['victimas_meses_comunes'])} víctimas y {fmt_int(met['carpetas'])} carpetas en "
            f"{met['meses_comunes']} meses): una carpeta puede tener varias víctimas."
        )
    out.append(f"Cifras: {met.get('serie', '')}; fuente: {', '.join(met.get('fuente') or [])}.")
    return out


def chart(env: dict, pipeline: list[dict] | None = None) -> dict:
    """Bars of victims by sexo (each rango de edad stacked inside its sexo)."""
    met = env.get("metrics") or {}
    return {
        "type": "bar",
        "x": "sexo",
        "y": "victimas",
        "title": f"Víctimas por sexo y edad: {met.get('delito_label', '')} — {met.get('lugar', '')}",
        "y_label": "Víctimas",
        "data": records(env),
    }


def _not_published(label: str) -> FiltroInvalidoError:
    """The error of a crime the SESNSP victims file does not cover, with the crimes it does."""
    return FiltroInvalidoError(
        f"El SESNSP no publica víctimas de {label.lower()}: su archivo de víctimas cubre homicidio, "
        "feminicidio, lesiones, secuestro, extorsión, trata, tráfico y corrupción de menores, rapto, aborto y otros.",
        ["Pregunte por carpetas de investigación de ese delito."],
        "args.clave_delito",
    )
