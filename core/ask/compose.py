"""Postfetch (docs/contracts/004_chatbot_graph.md §4): the Spanish answer from envelopes — numbers first, then
period, «datos hasta», version, warnings and sources — evaluated before it is shown. Every number is read from
an envelope (or a cited passage); an error envelope gives an explanation and never a number. The evaluation pass
blocks personal data and internal details and flags numbers it cannot trace.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from core.ask.charts import MEASURE_LABELS, chart_spec, declared_shape, ranking_measure, shape_of
from core.ask.contracts import Answer, SourceRef
from core.ask.glossary import define
from core.ask.methodology import cite
from core.ask.review import review
from core.ask.wording import (
    between,
    crime_labels,
    crime_noun,
    fmt_int,
    fmt_num,
    fmt_pct,
    humanize_dates,
    join_y,
    month_words,
    period_words,
    place_label,
    state_name,
)
from core.dataset.taxonomy import load_crimes, load_methods
from core.engine.catalog import tool_spec
from core.engine.envelope import records, tool_name

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn

DATA_SOURCE = "SESNSP — incidencia delictiva municipal del fuero común"
ANNUAL_SOURCE = "Total anual de delitos del fuero común (agregado de terceros sobre cifras del SESNSP)"
POPULATION_SOURCE = "CONAPO — población a mitad de año (tasas por 100 mil habitantes)"
NO_INFO = "No encontré información en la metodología para responder esa pregunta."
_NO_DATA = "No hay datos publicados para lo que pide, así que no doy una cifra."
ERROR_LEADS = {
    "INVALID_DATE_RANGE": _NO_DATA,
    "DATA_QUALITY_ISSUE": _NO_DATA,
    "EMPTY_RESULT": _NO_DATA,
    "COMPUTE_ERROR": "No pude calcular el resultado.",
    None: "No puedo dar una cifra para esta consulta.",
}
_SKIP = ("filter", "evidence")
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
    out = [f"{who} {fmt_int(now)} {noun(now)} {per}, frente a {fmt_int(before)} {per_base}: {change}."]
    if len(rows) == 1 and met.get("orden") in _CHANGE_ONE:  # the one municipality of a ranking by direction
        out.append(_CHANGE_ONE[met["orden"]])
    if len(rows) > 1:
        pcts = [f", {fmt_pct(r['cambio_pct'], signed=True)}" if r["cambio_pct"] is not None else "" for r in rows[:5]]
        # the tool orders rows by change, largest increase first: say so when only increases are shown
        lead = "Los mayores aumentos por municipio: " if all(r["cambio"] > 0 for r in rows[:5]) else "Por municipio: "
        lead = _CHANGE_LEADS.get(met.get("orden"), lead)  # a ranking by direction says which way it reads
        out.append(
            lead + join_y(f"{r['label']} ({r['cambio']:+,}{p})" for r, p in zip(rows[:5], pcts, strict=True)) + "."
        )
    return out


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


def _lead(env: dict, shape: str, detail: str = "") -> list[str]:
    rows, crimes = records(env), crime_labels(env)
    rng = env["meta"].get("date_range_effective") or {}
    per = between(rng["from"], rng["to"]) if rng else "en el periodo"
    noun = lambda count=2: crime_noun(crimes, count, detail)
    if shape in _LEADS:
        return _LEADS[shape](env, rows, noun, per)
    spec = tool_spec(tool_name(env))
    if spec and spec.lead and shape == spec.shape:  # a shape of its own: the tool's spec names its lead
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
    return [f"{empty or 'La consulta no devolvió resultados de'} {noun()} {per}."]


def _method_detail(envelopes: list[dict], index: int, metadata: dict) -> str:
    """'con arma de fuego' when the answering step filtered by method: the envelope itself does not say it."""
    if envelopes[index].get("meta", {}).get("retry"):
        return ""  # the filter was dropped to find rows; the warnings say so
    steps = (metadata.get("plan") or {}).get("plan") or []
    args = steps[index].get("args", {}) if index < len(steps) else {}
    keys = [args["metodo"]] if isinstance(args.get("metodo"), str) else list(args.get("metodo") or [])
    filters = [e for e in envelopes[:index] if declared_shape(e) == "filter"]
    keys += [
        r["metodo"] for e in filters for r in records(e) if "metodo" in r
    ]  # a method filter lists the methods kept
    names = {m.metodo: m.modalidad.lower() for m in load_methods()}
    words = [names.get(k, k.replace("_", " ")) for k in dict.fromkeys(keys)]
    return join_y(words + ([f"{args['violencia']} violencia"] if args.get("violencia") else []))


def _error_text(env: dict) -> str:
    """A Spanish explanation from error.details and hints: what failed and what the coverage is; no count."""
    err = env.get("error") or {}
    details = [err.get("details", "")] + [p["details"] for p in err.get("problems") or [] if p.get("details")]
    hints = list(err.get("hints") or []) + [h for p in err.get("problems") or [] for h in p.get("hints") or []]
    # command-line hints are for data stewards, not for the analyst reading the answer
    parts = list(dict.fromkeys(d for d in details if d))[:3] + [h for h in dict.fromkeys(hints) if "python -m" not in h]
    lead = ERROR_LEADS.get(err.get("code"), ERROR_LEADS[None])
    text = " ".join(([] if parts and parts[0].startswith(lead[:20]) else [lead]) + parts)  # never say it twice
    text = _ISO_BETWEEN.sub(lambda m: between(m[1], m[2]), text)
    return _KEY.sub(lambda m: _crime_names().get(m[0], m[0]), humanize_dates(text))


_ISO_BETWEEN, _KEY = re.compile(r"entre (\d{4}-\d{2}) y (\d{4}-\d{2})"), re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


@lru_cache(maxsize=1)
def _crime_names() -> dict[str, str]:
    """Crime keys → lowercase labels, so an error names 'robo de vehículo automotor', not its key."""
    return {c.delito: c.subtipo.lower() for c in load_crimes()}


def _warnings(env: dict, envelopes: list[dict], metadata: dict) -> list[str]:
    out, meta = [], env.get("meta") or {}
    if meta.get("range_adjusted") and meta.get("date_range_effective"):
        req, eff = meta.get("date_range_requested") or {}, meta["date_range_effective"]
        why = re.sub(r":\s*\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}", "", meta.get("range_adjusted_reason") or "")
        asked = f"se pidió {period_words(req['from'], req['to'])} y " if req.get("from") else ""
        out.append(
            f"Periodo ajustado: {asked}se usó {period_words(eff['from'], eff['to'])}"
            + (f" ({why})" if why else "")
            + "."
        )
    for e in envelopes:
        if e.get("status") == "ok":
            out += [humanize_dates(w) for w in e["meta"].get("warnings") or []]
    retry = meta.get("retry")
    if retry and not any("filtro de método" in w for w in out):
        out.append(
            "Sin resultados con el filtro pedido ("
            + ", ".join(retry.get("relaxed", []))
            + "); se muestra el resultado sin ese filtro."
        )
    out += [humanize_dates(n) for n in metadata.get("notes") or []]
    return list(dict.fromkeys(w for w in out if w))


def _pick(envelopes: list[dict], result_index: int | None) -> int:
    """The answering envelope: given, else the error, else a series (+anomalies as markers), else the last."""
    if result_index is not None:
        return result_index
    shapes = [shape_of(e) for e in envelopes]
    if "error" in shapes:
        return len(shapes) - 1 - shapes[::-1].index("error")
    if "series" in shapes and "anomalies" in shapes:
        return shapes.index("series")
    useful = [i for i, s in enumerate(shapes) if s not in _SKIP]
    return useful[-1] if useful else len(envelopes) - 1


def compose(
    question: str,
    envelopes: list[dict],
    *,
    result_index: int | None = None,
    metadata: dict,
    passages: list = (),
    clarifying: list = (),
    refusal: str | None = None,
    social: str | None = None,
) -> Answer:
    """The Answer of one turn: numbers first, then period, «datos hasta», version, warnings, sources."""
    passages, envelopes = list(passages), list(envelopes)
    version = metadata.get("dataset_version") or next(
        (e["meta"].get("dataset_version") for e in envelopes if e.get("meta", {}).get("dataset_version")), None
    )
    until = metadata.get("data_available_until") or metadata.get("max_date")
    provenance = {
        "dataset_version": version,
        "data_available_until": until,
        "query_hash": None,
        "catalog_version": metadata.get("catalog_version"),
    }
    doc_sources = [SourceRef(kind="doc", title=f"{p.title} — {p.section}", ref=cite(p)) for p in passages]
    if refusal or social:
        return review(Answer(text=refusal or social, provenance=provenance))
    if clarifying:
        items = [c if isinstance(c, (str, dict)) else c.model_dump() for c in clarifying]  # str, dict or model
        qs = [c if isinstance(c, str) else c["question"] for c in items]
        opts = [o for c in items if isinstance(c, dict) for o in c.get("options", [])]
        text = qs[0] if len(qs) == 1 else "Para responder necesito precisar:\n- " + "\n- ".join(qs)
        return review(Answer(text=text, clarifying_options=list(dict.fromkeys(opts)), provenance=provenance))
    if not envelopes:
        if not passages:
            return review(Answer(text=NO_INFO, provenance=provenance))
        text, cited = define(question, passages)  # every term asked, each from its section
        others = [cite(p) for p in passages if cite(p) not in {cite(c) for c in cited}][:2]
        source = "; ".join(cite(c) for c in cited)
        text = f"{text} (fuente: {source})" + (f"\n\nVer también: {'; '.join(others)}." if others else "")
        return review(Answer(text=text, sources=doc_sources, provenance=provenance), passages=passages)
    index = _pick(envelopes, result_index)
    env = envelopes[index]
    meta = env.get("meta") or {}
    provenance.update(
        query_hash=meta.get("query_hash"),
        catalog_version=meta.get("catalog_version") or provenance["catalog_version"],
        dataset_version=meta.get("dataset_version") or version,
        data_available_until=until or meta.get("anchor_date"),
    )
    version, until = provenance["dataset_version"], provenance["data_available_until"]
    tail = f"Datos hasta {month_words(until)}" + (f" (versión {version})." if version else ".") if until else ""
    sources = [SourceRef(kind="data", title=DATA_SOURCE, ref=version or "")] if version else []
    if env.get("status") != "ok":
        text = "\n\n".join(p for p in (_error_text(env), tail) if p)
        return review(
            Answer(text=text, sources=sources + doc_sources, provenance=provenance),
            envelopes=envelopes,
            passages=passages,
        )
    shape, shapes, detail = shape_of(env), [shape_of(e) for e in envelopes], _method_detail(envelopes, index, metadata)
    lead = " ".join(_lead(env, shape, detail))
    if shape == "series" and "anomalies" in shapes:  # a series pipeline with anomaly detection says both
        lead += " " + " ".join(_lead(envelopes[shapes.index("anomalies")], "anomalies", detail))
    rng = meta.get("date_range_effective") or {}
    if shape == "annual":
        years = sorted({r["anio"] for r in records(env)})
        period = f"Periodo: años {years[0]} a {years[-1]}." if len(years) > 1 else f"Periodo: {years[0]}."
        sources = [SourceRef(kind="data", title=ANNUAL_SOURCE, ref=version or "")]
    else:
        period = f"Periodo: {period_words(rng['from'], rng['to'])}." if rng else ""
    if "por cada 100 mil" in lead:
        sources.append(SourceRef(kind="data", title=POPULATION_SOURCE, ref=version or ""))
    warnings = _warnings(env, envelopes, metadata)
    parts = [lead, " ".join(p for p in (period, tail) if p)]
    if warnings:
        parts.append("Advertencias:\n" + "\n".join(f"- {w}" for w in warnings))
    if passages:
        parts.append("Metodología: " + "; ".join(cite(p) for p in passages[:3]) + ".")
    evidence = [i for ev in env.get("evidence") or [] for i in ev.get("ids", [])]
    answer = Answer(
        text="\n\n".join(p for p in parts if p),
        chart=chart_spec(env, envelopes),
        sources=sources + doc_sources,
        warnings=warnings,
        evidence_ids=list(dict.fromkeys(evidence)),
        provenance=provenance,
    )
    return review(answer, envelopes=envelopes, passages=passages)


# --- evaluation (docs/contracts/004_chatbot_graph.md §4.2): safe, no internals, numbers traceable --------------------


# -- the stage --------------------------------------------------------------------------------


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """The Spanish answer, checked by the review pass."""

    clarifying = [q.question for q in turn.clarify]
    notes = [n for n in turn.plan_notes if not n.startswith("focus:")]
    metadata = {**(ctx.metadata or {}), "notes": notes, "plan": turn.plan}
    strategy = turn.planner_state.strategy
    answer = compose(
        turn.intake.rewritten_question,
        turn.envelopes,
        result_index=None,
        metadata=metadata,
        passages=turn.passages,
        clarifying=clarifying,
        refusal=turn.reply if strategy == "defer_or_refuse" else None,
        social=turn.reply if strategy != "defer_or_refuse" and turn.reply else None,
    )
    options = turn.clarify[0].options if turn.clarify else []
    answer = answer.model_copy(
        update={
            "warnings": list(dict.fromkeys(notes + answer.warnings)),
            "clarifying_options": answer.clarifying_options or options,
        }
    )
    turn.answer = review(answer, turn.envelopes, turn.passages)
