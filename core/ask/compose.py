"""Postfetch (docs/contracts/004_chatbot_graph.md §4): the Spanish answer from envelopes — numbers first, then
period, «datos hasta», version, warnings and sources — evaluated before it is shown. Every number is read from
an envelope (or a cited passage); an error envelope gives an explanation and never a number. The evaluation pass
blocks personal data and internal details and flags numbers it cannot trace.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from core.ask import leads
from core.ask.charts import chart_spec, declared_shape, shape_of
from core.ask.contracts import Answer, SourceRef
from core.ask.glossary import define
from core.ask.methodology import cite
from core.ask.plan.granularity import ALSO, LEAD, SPLIT
from core.ask.review import review
from core.ask.wording import (
    between,
    fmt_int,
    humanize_dates,
    join_y,
    methods_phrase,
    month_words,
    period_words,
    shares_state_name,
    state_name,
)
from core.dataset.taxonomy import load_crimes, load_methods
from core.engine.envelope import records

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
    keys = list(dict.fromkeys(keys))
    for v in ("con", "sin"):  # every robo kind «… con violencia»: said once, not listed
        if len(keys) > 2 and all(k.endswith(f"{v}_violencia") for k in keys) and f"{v}_violencia" in keys:
            return f"{v} violencia (todas sus modalidades, vehículos incluidos)"
    words = [names.get(k, k.replace("_", " ")) for k in keys]
    return methods_phrase(words + ([f"{args['violencia']} violencia"] if args.get("violencia") else []))


def _split(envelopes: list[dict], suffix: str | None) -> str:
    """« De ellos: con violencia 438 y robo de coche de 4 ruedas con violencia 83.»: the kinds a violence sums,
    read from the plan's first step (the tipo by modalidad, plan/splits.violence_split)."""
    if not suffix or not envelopes or envelopes[0].get("status") != "ok":
        return ""
    rows = [r for r in records(envelopes[0]) if str(r.get("metodo", "")).endswith(suffix) and r.get("conteo")]
    if len(rows) < 2:
        return ""
    parts = [f"{r['modalidad'].lower()} {fmt_int(r['conteo'])}" for r in rows]
    row = suffix.replace("_", " ").capitalize()
    return f" De ellos: {join_y(parts)} («{row}» es la fila del SESNSP que agrupa los subtipos sin modalidad propia)."


def _namesake(metadata: dict) -> str | None:
    """The state's name when the plan asks about a municipality that shares it (the capital, Guanajuato)."""
    for step in (metadata.get("plan") or {}).get("plan") or []:
        place = (step.get("args") or {}).get("entidad_id")
        if isinstance(place, str) and shares_state_name(place):
            return state_name(place)
    return None


def _level(lead: str, env: dict, namesake: str | None) -> str:
    """«El municipio de Guanajuato registró…», «El estado de Guanajuato ocupa…»: where the capital and its state
    share a name, a sentence that starts with it says which one, so no figure is read as the other's."""
    if namesake is None or not lead.startswith(f"{namesake} "):
        return lead
    place = (env.get("meta") or {}).get("filters_applied", {}).get("entidad_id") or (env.get("metrics") or {}).get(
        "lugar_id"
    )
    municipal = (isinstance(place, str) and ".MUN." in place) or (env.get("metrics") or {}).get("es_estado") is False
    return f"{'El municipio' if municipal else 'El estado'} de {lead}"


def _relaxed_words(relaxed: list[str]) -> str:
    """«robo de motocicleta con violencia y robo de motocicleta sin violencia» from ``metodo=…`` / ``violencia=…``."""
    names = {m.metodo: m.modalidad.lower() for m in load_methods()}
    words: list[str] = []
    for item in relaxed:
        key, _, value = item.partition("=")
        words += (
            [names.get(v, v.replace("_", " ")) for v in value.split(",")] if key == "metodo" else [f"{value} violencia"]
        )
    return join_y(list(dict.fromkeys(words)))


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
    out += _always_zero(metadata)
    return list(dict.fromkeys(w for w in out if w))


def _always_zero(metadata: dict) -> list[str]:
    """A crime whose state's municipalities report 0 in every published month: that zero is structural."""
    coverage = metadata.get("coverage") or {}
    asked: list[str] = []
    for step in (metadata.get("plan") or {}).get("plan") or []:
        value = (step.get("args") or {}).get("delito")
        asked += [value] if isinstance(value, str) else list(value or [])
    out = []
    for key in dict.fromkeys(asked):
        states = (coverage.get(key) or {}).get("siempre_cero") or []
        if states:
            label = coverage[key].get("label") or key
            out.append(
                f"{', '.join(state_name(s) for s in states)} registra 0 casos de {label.lower()} en todos los meses "
                "publicados: es probable que esos hechos se registren bajo otro delito; un 0 aquí no prueba que no "
                "ocurran."
            )
    return out


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
    series_end = meta.get("serie_hasta")  # a series ends on its own month (RNID 2026-03, IDFC 2024-11, Irapuato)
    if tail and series_end and str(series_end)[:7] > str(until)[:7]:
        # a figure past the store's month (RNID 2026, Irapuato's December): its own end first, never «Datos hasta
        # noviembre de 2025» on it
        stamp = f" (versión {version})" if version else ""
        tail = f"Datos de esta serie hasta {month_words(series_end)}; los demás datos cargados, hasta {month_words(until)}{stamp}."
    elif tail and series_end and month_words(series_end) != month_words(until):
        tail = f"{tail[:-1]}; esta serie, hasta {month_words(series_end)}."
    titles = [DATA_SOURCE]
    if meta.get("serie"):  # a national series (a state file, victims, federal): its own name, not the municipal data
        titles = [f"SESNSP — {meta['serie']}"] + ([DATA_SOURCE] if meta.get("fuente_municipal") else [])
    sources = [SourceRef(kind="data", title=t, ref=version or "") for t in titles] if version else []
    if env.get("status") != "ok":
        text = "\n\n".join(p for p in (_error_text(env), tail) if p)
        return review(
            Answer(text=text, sources=sources + doc_sources, provenance=provenance),
            envelopes=envelopes,
            passages=passages,
        )
    shape, shapes, detail = shape_of(env), [shape_of(e) for e in envelopes], _method_detail(envelopes, index, metadata)
    namesake = _namesake(metadata or {})
    lead = _level(" ".join(leads.lead(env, shape, detail, focus=(metadata or {}).get("focus"))), env, namesake)
    for also in (metadata or {}).get("also") or []:  # a context step the planner asked to say too (its lead)
        if 0 <= also < len(envelopes) and also != index and envelopes[also].get("status") == "ok":
            own = _method_detail(envelopes, also, metadata)  # its own filter: the state's modalidad is not its
            lead += " " + _level(" ".join(leads.lead(envelopes[also], shapes[also], own)), envelopes[also], namesake)
    lead += _split(envelopes, (metadata or {}).get("split"))
    relaxed = (meta.get("retry") or {}).get("relaxed")
    if relaxed:  # the contract's relaxed fallback: the figure is without the filter asked, said before it
        what = _relaxed_words(relaxed)
        crimes = [_crime_names().get(d, d) for d in (meta.get("filters_applied") or {}).get("delito") or []]
        if crimes and not any(c.split()[0] in what for c in crimes):  # «con arma de fuego» alone names no crime
            what = f"{join_y(crimes)} {what}"
        lead = f"No hay casos registrados de {what} (0 en ese periodo); sin ese filtro: {lead}"  # the 0 said, a figure
    elif (metadata or {}).get("lead_note"):  # what the data publish, said before the numbers (issue 14 §5)
        lead = f"{metadata['lead_note']} {lead}"
    zeros = _always_zero(metadata or {})
    if zeros and re.search(r"\bregistró 0\b", lead):  # a structural zero is said before the 0, not after it
        lead = f"{zeros[0]} {lead}"
    if shape == "series" and "anomalies" in shapes:  # a series pipeline with anomaly detection says both
        lead += " " + " ".join(leads.lead(envelopes[shapes.index("anomalies")], "anomalies", detail))
    rng = meta.get("date_range_effective") or {}
    if shape == "annual":
        years = sorted({r["anio"] for r in records(env)})
        period = f"Periodo: años {years[0]} a {years[-1]}." if len(years) > 1 else f"Periodo: {years[0]}."
        sources = [SourceRef(kind="data", title=ANNUAL_SOURCE, ref=version or "")]
    else:
        period = f"Periodo: {period_words(rng['from'], rng['to'])}." if rng else ""
    if "por cada 100 mil" in lead:
        sources.append(SourceRef(kind="data", title=POPULATION_SOURCE, ref=version or ""))
    warnings = [w for w in _warnings(env, envelopes, metadata) if w not in lead]
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
    notes = [n for n in turn.plan_notes if not n.startswith(("focus:", LEAD, ALSO, SPLIT))]
    # «¿qué porcentaje … ocurrió en Celaya?»: the plan ranks every municipality; the answer leads with the one asked
    focus = next((n.split(":", 1)[1] for n in turn.plan_notes if n.startswith("focus:")), None)
    lead_note = " ".join(n[len(LEAD) :] for n in turn.plan_notes if n.startswith(LEAD))
    also = [int(n[len(ALSO) :]) for n in turn.plan_notes if n.startswith(ALSO)]
    metadata = {
        **(ctx.metadata or {}),
        "notes": notes,
        "plan": turn.plan,
        "focus": focus,
        "lead_note": lead_note,
        "also": also,
        "split": next((n[len(SPLIT) :] for n in turn.plan_notes if n.startswith(SPLIT)), None),
    }
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
