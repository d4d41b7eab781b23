"""The lead sentences of an answer (docs/contracts/004_chatbot_graph.md §4): the first, numeric sentences that
say what the answering envelope found, one writer per answer shape. A tool with a shape of its own names its lead
in its spec; every number is read from the envelope.
"""

from __future__ import annotations

import re

from core.ask.charts import MEASURE_LABELS, declared_shape, ranking_measure
from core.ask.wording import (
    between,
    crime_labels,
    crime_noun,
    fmt_int,
    fmt_num,
    fmt_pct,
    join_y,
    month_words,
    place_label,
    state_name,
)
from core.engine.catalog import tool_spec
from core.engine.envelope import records, tool_name

# finding no anomaly or no pattern is a result, not an empty answer
_EMPTY = {
    "anomalies": "No se detectaron meses atípicos de",
    "patterns": "No se encontraron patrones que cumplan los criterios entre los",
}


def _lead_single(env, rows, noun, per) -> list[str]:
    r = rows[0]
    text = f"{r['label']} registró {fmt_int(r['conteo'])} {noun(r['conteo'])} {per}"
    rate, share = r.get("tasa_per_100k"), r.get("porcentaje")
    extras = ([f"{fmt_num(rate)} por cada 100 mil habitantes"] if rate is not None else []) + (
        [f"{fmt_pct(share)} del total"] if share is not None and share < 100 else []
    )
    return [text + (f" ({'; '.join(extras)})" if extras else "") + "."]


def _lead_ranking(env, rows, noun, per) -> list[str]:
    m, n, top = ranking_measure(env), len(rows), rows[0]
    kind = "municipios" if all(".MUN." in str(r["entidad_id"]) for r in rows) else "entidades"
    desc = (rows[0][m] or 0) >= (rows[-1][m] or 0) and (env.get("metrics") or {}).get("orden") != "asc"
    total = (env.get("metrics") or {}).get("total_conteo")
    parent, pl = state_name(top["entidad_id"]), noun()
    if m == "porcentaje":
        out = [
            f"{top['label']} concentró el {fmt_pct(top['porcentaje'])} de los {pl} de {parent} {per}"
            + (f" ({fmt_int(top['conteo'])} de {fmt_int(total)})" if total else "")
            + "."
        ]
        if n > 1:
            out.append("Le siguen " + join_y(f"{r['label']} ({fmt_pct(r['porcentaje'])})" for r in rows[1:]) + ".")
        return out
    if m == "tasa_per_100k":
        items = join_y(f"{r['label']} ({fmt_num(r['tasa_per_100k'])})" for r in rows)
        return [
            f"Los {n} {kind} con la tasa {'más alta' if desc else 'más baja'} de {pl} por cada 100 mil "
            f"habitantes {per}: {items}.",
            f"La tasa de {top['label']} corresponde a {fmt_int(top['conteo'])} {noun(top['conteo'])}"
            + (": con tan pocos eventos, una tasa cambia mucho." if top["conteo"] < 50 else "."),
        ]
    if m == "conteo":
        out = [
            f"Los {n} {kind} con {'más' if desc else 'menos'} {pl} {per}: "
            + join_y(f"{r['label']} ({fmt_int(r['conteo'])})" for r in rows)
            + "."
        ]
        out += ["Orden ascendente: de menos a más."] * (not desc)
        out += ["Todos los mostrados registraron 0."] * (not desc and not any(r["conteo"] for r in rows))
        return out + [f"En todo {parent} se registraron {fmt_int(total)}."] * bool(total and kind == "municipios")
    label = MEASURE_LABELS.get(m, m).lower()
    return [
        f"Los {n} {kind} con {'más' if desc else 'menos'} {label} de {pl} {per}: "
        + join_y(f"{r['label']} ({fmt_num(r[m], 2) if isinstance(r[m], float) else fmt_int(r[m])})" for r in rows)
        + "."
    ]


def _lead_series(env, rows, noun, per) -> list[str]:
    met, who = env.get("metrics") or {}, place_label(env)
    total = met.get("total", 0)
    if not total:
        out = [
            f"{who + ' no registró' if who else 'No se registró'} ningún {noun(1)} {per} "
            f"({met.get('meses_publicados', 0)} meses publicados, todos en cero)."
        ]
    else:
        peak = next((r for r in rows if str(r["fecha"]).startswith(str(met.get("mes_maximo")))), None)
        out = [
            f"{who + ' registró' if who else 'Se registraron'} {fmt_int(total)} {noun(total)} {per}: un "
            f"promedio de {fmt_num(met.get('promedio_mensual') or 0)} al mes"
            + (f"; el mes más alto fue {month_words(peak['fecha'])}, con {fmt_int(peak['conteo'])}." if peak else ".")
        ]
    if met.get("meses_no_publicados"):
        out.append(
            f"{met['meses_no_publicados']} meses del periodo no están publicados: no tienen dato y no se "
            "cuentan como cero."
        )
    return out


def _lead_comparison(env, rows, noun, per) -> list[str]:
    base = env["meta"].get("date_range_base_effective") or {}
    per_base = between(base["from"], base["to"]) if base else "en el periodo base"
    met = env.get("metrics") or {}
    one = rows[0] if len(rows) == 1 else {**met, "label": None}
    now, before, cambio, pct = one["conteo"], one["conteo_base"], one["cambio"], one.get("cambio_pct")
    parent = state_name(rows[0]["entidad_id"])
    who = f"{one['label']} registró" if one["label"] else f"En los municipios de {parent} se registraron"
    tail = f" ({fmt_pct(pct, signed=True)})" if pct is not None else " (sin variación porcentual: la base fue cero)"
    change = (
        f"la cifra {'aumentó' if cambio > 0 else 'disminuyó'} en {fmt_int(abs(cambio))}{tail}"
        if cambio
        else "la cifra se mantuvo igual"
    )
    rated = met.get("medida") == "tasa_per_100k"
    if rated and met.get("tasa_per_100k") is not None and met.get("tasa_per_100k_base") is not None:
        place = one["label"] or parent
        out = [_rate_change(met, place, noun, per, per_base), f"En número: {fmt_int(now)} frente a {fmt_int(before)}."]
    else:
        out = [f"{who} {fmt_int(now)} {noun(now)} {per}, frente a {fmt_int(before)} {per_base}: {change}."]
        if rated:  # asked in rates, with no population for a window: the counts, and why no rate
            out.append("No hay población CONAPO de ambos años para dar la tasa por 100 mil habitantes.")
    if len(rows) == 1 and met.get("orden") in _CHANGE_ONE:  # the one municipality of a ranking by direction
        out.append(_CHANGE_ONE[met["orden"]])
    if len(rows) > 1:
        pcts = [f", {fmt_pct(r['cambio_pct'], signed=True)}" if r["cambio_pct"] is not None else "" for r in rows[:5]]
        # the tool orders rows by change, largest increase first: say so when only increases are shown
        lead = "Los mayores aumentos por municipio: " if all(r["cambio"] > 0 for r in rows[:5]) else "Por municipio: "
        lead = _CHANGE_LEADS.get(met.get("orden"), lead)  # a ranking by direction says which way it reads
        items = (
            (f"{r['label']} ({_rate_pair(r)})" for r in rows[:5])
            if rated
            else (f"{r['label']} ({r['cambio']:+,}{p})" for r, p in zip(rows[:5], pcts, strict=True))
        )
        out.append(lead + join_y(items) + ".")
    return out


def _rate_change(met, place, noun, per, per_base) -> str:
    """«Celaya tuvo una tasa de 80.3 … por cada 100 mil habitantes …, frente a 67.8 …: la tasa aumentó 12.5 puntos
    (+18.4 %).» Every figure is the tool's (rates with each window's population year)."""
    d, pct = met.get("cambio_tasa") or 0, met.get("cambio_tasa_pct")
    rounded = round(abs(d), 1)
    if not rounded:
        change = "la tasa se mantuvo igual"
    else:
        tail = f" ({fmt_pct(pct, signed=True)})" if pct is not None else ""
        change = f"la tasa {'aumentó' if d > 0 else 'disminuyó'} {fmt_num(rounded)} puntos{tail}"
    return (
        f"{place} tuvo una tasa de {fmt_num(met['tasa_per_100k'])} {noun()} por cada 100 mil habitantes {per}, "
        f"frente a {fmt_num(met['tasa_per_100k_base'])} {per_base}: {change}."
    )


def _rate_pair(r) -> str:
    """A municipality's two rates, base first: «tasa 67.8 → 80.3» (sin dato without population)."""
    return f"tasa {fmt_num(r.get('tasa_per_100k_base'))} → {fmt_num(r.get('tasa_per_100k'))}"


_CHANGE_ONE = {
    "asc": "Es el municipio donde más bajaron (cambios ordenados de la mayor baja a la menor).",
    "desc": "Es el municipio donde más aumentaron (cambios ordenados del mayor aumento al menor).",
}
_CHANGE_LEADS = {
    "asc": "De la mayor baja a la menor (orden ascendente del cambio), por municipio: ",
    "desc": "Del mayor aumento al menor (orden descendente del cambio), por municipio: ",
}


def _lead_anomalies(env, rows, noun, per) -> list[str]:
    met = env.get("metrics") or {}
    total, n_ent, thr = met.get("total_anomalias", len(rows)), met.get("entidades_con_anomalias", 0), met["z_threshold"]
    top, umbral = rows[0], f" (umbral |z| ≥ {thr:g})"
    found = "detectó 1 mes atípico" if total == 1 else f"detectaron {fmt_int(total)} meses atípicos"
    where = top["label"] if n_ent == 1 else f"{n_ent} municipios"
    out = [
        f"Se {found} de {noun()} en {where} {per}{umbral}.",
        f"El más marcado: {'' if n_ent == 1 else top['label'] + ', '}{month_words(top['fecha'])}, con "
        f"{fmt_int(top['conteo'])} frente a una mediana de {fmt_num(top['mediana'])} "
        f"(z = {fmt_num(top['z_score'])}, {'al alza' if top['direccion'] == 'alza' else 'a la baja'}).",
    ]
    if top.get("z_acotado"):
        out.append(
            "El z se acotó porque la base de ese municipio no tenía variación: con cifras tan pequeñas, "
            "un solo caso basta para marcar un mes."
        )
    return out


def _lead_patterns(env, rows, noun, per) -> list[str]:
    top = rows[0]
    if "lift" in top:
        return [
            f"El par de delitos que más coincide en un mismo municipio y mes {per} es {top['patron'].lower()}: "
            f"aparecen juntos en el {fmt_pct(top['support'] * 100)} de los {fmt_int(top['transacciones'])} "
            f"municipio-mes evaluados ({fmt_int(top['n'])} coincidencias; lift {top['lift']:.2f}).",
            "Un lift mayor que 1 indica que coinciden más de lo esperado por azar; no indica causalidad.",
        ]
    return [
        f"El patrón estacional más marcado {per} es {top['patron']}: ese mes promedia {top['indice']:.2f} veces "
        f"el promedio mensual del delito ({fmt_num(top['promedio'])} al mes)."
    ]


def _lead_annual(env, rows, noun, per) -> list[str]:
    entities = list(dict.fromkeys(r["entidad_id"] for r in rows))
    out = []
    if len(entities) == 1:
        # Sums only comparable years: a partial RNID year is reported on its own below.
        comparable = [r for r in rows if not r.get("parcial") and r.get("metodologia") != "RNID"] or rows
        first, last, total = comparable[0], comparable[-1], sum(r["conteo"] for r in comparable)
        per_year = ", ".join(f"{r['anio']}: {fmt_int(r['conteo'])}" for r in comparable) if len(comparable) <= 6 else ""
        out.append(
            f"{rows[0]['label']} registró {fmt_int(total)} delitos del fuero común "
            + (
                f"en {first['anio']}."
                if first is last
                else f"entre {first['anio']} y {last['anio']}" + (f" ({per_year})." if per_year else ".")
            )
        )
    else:  # one row per municipality: the sum of every year of the window, labelled with the last one
        years = sorted({int(env["meta"]["date_range_effective"][k][:4]) for k in ("from", "to")})
        span = f"en {years[0]}" if len(years) == 1 else f"entre {years[0]} y {years[-1]}"
        top = [r for r in rows if r["anio"] == max(r["anio"] for r in rows)]
        out.append(
            f"Los {len(top)} municipios con más delitos del fuero común {span}: "
            + join_y(f"{r['label']} ({fmt_int(r['conteo'])})" for r in top)
            + "."
        )
    for r in rows if len(entities) == 1 else []:
        why = [
            w
            for w, on in (("año parcial", r.get("parcial")), ("nueva metodología RNID", r.get("metodologia") == "RNID"))
            if on
        ]
        if why:
            out.append(
                f"{r['anio']} suma {fmt_int(r['conteo'])} ({', '.join(why)}): no es comparable con los años anteriores."
            )
    out.append("Es un total anual de terceros, sin desglose por delito ni por mes.")
    return out


_LEADS = {
    "single": _lead_single,
    "ranking": _lead_ranking,
    "series": _lead_series,
    "comparison": _lead_comparison,
    "anomalies": _lead_anomalies,
    "patterns": _lead_patterns,
    "annual": _lead_annual,
}


def _lead_share_of(env, rows, noun, per, focus) -> list[str] | None:
    """The share of the place asked for, its position, and the first place when it is another."""
    at = next((i for i, r in enumerate(rows) if r["entidad_id"] == focus), None)
    if at is None or ranking_measure(env) != "porcentaje":
        return None
    r, top, total = rows[at], rows[0], (env.get("metrics") or {}).get("total_conteo")
    out = [
        f"{r['label']} concentró el {fmt_pct(r['porcentaje'])} de los {noun()} de {state_name(r['entidad_id'])} {per}"
        + (f" ({fmt_int(r['conteo'])} de {fmt_int(total)})" if total else "")
        + "."
    ]
    if at:
        out.append(
            f"Ocupa el lugar {at + 1} de {len(rows)} municipios; el primero es {top['label']} "
            f"({fmt_pct(top['porcentaje'])})."
        )
    else:
        out.append(f"Es el municipio con la mayor parte de los {len(rows)}.")
    return out


def lead(env: dict, shape: str, detail: str = "", focus: str | None = None) -> list[str]:
    """The lead sentences of one envelope of the given shape; detail names a method filter («con arma de fuego»);
    focus is the place the question asked about inside a ranking of shares."""
    rows, crimes = records(env), crime_labels(env)
    rng = env["meta"].get("date_range_effective") or {}
    per = between(rng["from"], rng["to"]) if rng else "en el periodo"
    noun = lambda count=2: crime_noun(crimes, count, detail)
    if focus and shape == "ranking" and rows and (focused := _lead_share_of(env, rows, noun, per, focus)):
        return focused
    if shape in _LEADS:
        return _LEADS[shape](env, rows, noun, per)
    spec = tool_spec(tool_name(env))
    if spec and spec.lead and shape == spec.shape:  # a shape of its own: the tool's spec names its lead
        return spec.hook("lead")(env, rows, noun, per)
    if spec and spec.lead and shape == "empty" and spec.shape == "presence" and (env.get("metrics") or {}).get("total"):
        # «¿hay algún municipio sin violencia familiar?» — none: an empty list is the answer, said with its counts
        return spec.hook("lead")(env, rows, noun, per)
    if shape == "evidence":
        met = env.get("metrics") or {}
        return [
            f"La evidencia reúne {fmt_int(met.get('filas', len(rows)))} registros del almacén con "
            f"{fmt_int(met.get('eventos', 0))} delitos; cada uno indica su archivo y línea de origen."
        ]
    empty = _EMPTY.get(declared_shape(env))
    met, who = env.get("metrics") or {}, re.sub(r" \([A-Z0-9_.]+\)$", "", place_label(env))
    if shape == "empty" and not empty and met.get("total_conteo") == 0 and met.get("entidades") == 1 and who:
        # one place, a crime with published months in the window (else the tool answers a coverage error):
        # no row is a true zero, and the person asked for a number
        return [f"{who} registró 0 {noun()} {per}: hay datos publicados de esos meses y ningún caso registrado."]
    if shape == "empty" and spec and spec.lead and met.get("total") == 0 and met.get("lugar"):
        # a national table's place and crime with published months and no case (federal electoral crimes in 2024)
        return [
            *spec.hook("lead")(env, rows, noun, per),
            "Hay datos publicados de esos meses y ningún caso registrado.",
        ]
    return [f"{empty or 'La consulta no devolvió resultados de'} {noun()} {per}."]
