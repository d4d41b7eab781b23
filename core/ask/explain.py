"""The plan of a turn in plain words: what was understood, what each step computed, with which data, over
which effective period, and the caveats — the «Plan de consulta» an analyst reads before the contracts.

Each step's sentence is its ToolSpec's ``explain`` template (catalogs/tools/*.json) filled from the step's
validated arguments: nothing here names a tool. A filter step's arguments carry on to the steps after it (a
filter narrows what the next tools read), and the period said is the one the step ran over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.ask.wording import between, crime_noun, join_y, methods_phrase, month_words, period_words
from core.engine.catalog import ToolSpec, load_tool_specs

# what a template may name besides the tool's own arguments
GENERIC = ("delito", "modalidad", "lugar", "lugar_nombre", "periodo", "base")
_SLOT = re.compile(r"\{(\w+)\}")
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_CRIME_ARGS = ("delito", "clave_delito")
_PLACE_ARGS = ("entidad_id", "lugar_id")
_WINDOWS = (("from", "to"), ("desde", "hasta"))
NATION = "MX"


@dataclass
class PlanWords:
    """The plain-words sections of a turn's plan (each a list of Spanish sentences)."""

    understood: list[str] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)
    data: list[str] = field(default_factory=list)
    period: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    access: str = ""


# -- names: crimes, methods, places ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _crime_labels() -> dict[str, str]:
    from core.dataset.taxonomy import load_crimes

    return {c.delito: c.subtipo for c in load_crimes()}


@lru_cache(maxsize=1)
def _method_labels() -> dict[str, str]:
    from core.dataset.taxonomy import load_methods

    return {m.metodo: m.modalidad.lower() for m in load_methods()}


@lru_cache(maxsize=1)
def _state_labels() -> dict[str, str]:
    from core.dataset.entities import load_states

    return {s.abreviatura: s.nombre for s in load_states()}


@lru_cache(maxsize=1)
def _municipality_labels() -> dict[str, str]:
    from core.dataset.entities import load_municipalities

    return {m.entidad_id: m.nombre for m in load_municipalities()}


def _as_list(value: Any) -> list:
    return [] if value in (None, "", []) else list(value) if isinstance(value, (list, tuple)) else [value]


def _key_words(key: str) -> str:
    return str(key).replace("_", " ")


def crime_words(keys: Any, methods: Any = None) -> str:
    """«homicidios dolosos con arma de fuego» from crime and method keys; «todos los delitos» with none."""
    labels = [_crime_labels().get(k) or _key_words(k) for k in _as_list(keys)]
    detail = methods_phrase([_method_labels().get(m) or _key_words(m) for m in _as_list(methods)])
    if not labels:
        return "todos los delitos" + (f" de la modalidad «{detail}»" if detail else "")
    return crime_noun(labels, 2, detail)


def place_name(place: str | None, catalog: Any = None) -> str:
    """«León», «Guanajuato», «Jalisco» or «el país» for an entity or state id."""
    if not place:
        return "Guanajuato"
    if place == NATION:
        return "el país"
    entity = (getattr(catalog, "entity_by_id", None) or {}).get(place)
    if entity:
        return entity["label"]
    for labels in (_state_labels(), _municipality_labels()):  # without a store's catalog: the bundled names
        if place in labels:
            return labels[place]
    return _key_words(str(place).split(".")[-1]).title()


def place_words(place: str | None, nivel: str | None, catalog: Any = None) -> str:
    """«en León», «en los municipios de Guanajuato» (a state read municipality by municipality), «en el país»."""
    name = place_name(place, catalog)
    is_state = not place or "." not in str(place)
    if nivel == "hijos" and is_state and place != NATION:
        return f"en los municipios de {name}"
    return f"en {name}"


# -- one step ----------------------------------------------------------------------------------------------------


def _window(args: dict) -> tuple[str, str] | None:
    for start, end in _WINDOWS:
        if args.get(start) and args.get(end):
            return args[start], args[end]
    return None


def _arg_words(name: str, value: Any, values: dict[str, dict[str, str]], catalog: Any) -> str:
    """An argument's value in words: the template's own table first, then names of places, methods, crimes."""
    table = values.get(name) or {}
    words = []
    for v in _as_list(value):
        key = str(v).lower() if isinstance(v, bool) else str(v)
        if key in table:
            words.append(table[key])
        elif isinstance(v, str) and ("." in v or v in _state_labels() or v == NATION):
            words.append(place_name(v, catalog))
        elif isinstance(v, str) and v in _method_labels():
            words.append(_method_labels()[v])
        elif isinstance(v, str) and v in _crime_labels():
            words.append(_crime_labels()[v].lower())
        elif isinstance(v, float):
            words.append(f"{v:g}")
        else:
            words.append(_key_words(v) if isinstance(v, str) else str(v))
    return join_y([w for w in words if w])


def _defaults(spec: ToolSpec) -> dict:
    return {k: p["default"] for k, p in spec.args_schema.get("properties", {}).items() if "default" in p}


def _fill(template: str, slots: dict[str, str]) -> str:
    """The template with its slots filled; an optional ``[ … ]`` part goes when a slot in it is empty."""

    def optional(m: re.Match) -> str:
        names = _SLOT.findall(m[1])
        return "" if any(not slots.get(n) for n in names) else m[1]

    text = _OPTIONAL.sub(optional, template)
    text = _SLOT.sub(lambda m: slots.get(m[1], ""), text)
    return re.sub(r"\s+([,.:;)])", r"\1", re.sub(r" {2,}", " ", text)).strip()


def step_sentence(
    spec: ToolSpec, args: dict, context: dict | None = None, effective: dict | None = None, catalog: Any = None
) -> str:
    """The sentence a step says: its spec's template filled from its arguments (plus what earlier filters fixed).

    ``effective`` is the window the step ran over (its envelope's ``date_range_effective``), said instead of
    the one asked when known.
    """
    template = spec.explain.text if spec.explain else f"Ejecuté {spec.name}."
    values = spec.explain.values if spec.explain else {}
    merged = {**_defaults(spec), **(context or {}), **{k: v for k, v in args.items() if v not in (None, "", [])}}
    window = (effective["from"], effective["to"]) if effective and effective.get("from") else _window(merged)
    place = next((merged[k] for k in _PLACE_ARGS if merged.get(k)), None)
    nivel = merged.get("nivel") if "nivel" in spec.arg_names else None
    crimes = next((merged[k] for k in _CRIME_ARGS if merged.get(k)), None)
    methods = merged.get("metodo")
    modality = methods_phrase(
        [_method_labels().get(m) or _key_words(m) for m in _as_list(methods)]
        + ([f"{merged['violencia']} violencia"] if merged.get("violencia") else [])
    )
    slots = {name: _arg_words(name, merged.get(name), values, catalog) for name in spec.arg_names}
    lugar_id = merged.get("lugar_id")
    if lugar_id is not None and "lugar_id" in values and str(lugar_id) in values["lugar_id"]:
        named = values["lugar_id"][str(lugar_id)]  # the template says how it names this place (or that it says none)
    else:
        named = place_name(place, catalog)
    slots.update(
        delito=crime_words(crimes, methods),
        modalidad=modality,
        lugar=place_words(place, nivel, catalog),
        lugar_nombre=named,
        periodo=between(*window) if window else "en todo el periodo publicado",
        base=period_words(merged["base_from"], merged["base_to"])
        if merged.get("base_from") and merged.get("base_to")
        else "",
    )
    return _fill(template, slots)


def template_slots(spec: ToolSpec) -> set[str]:
    """The slot names a spec's template uses (tests check each is generic or an argument)."""
    return set(_SLOT.findall(spec.explain.text)) if spec.explain else set()


# -- the whole plan --------------------------------------------------------------------------------------------


def _spec(step: dict, catalog: Any) -> ToolSpec | None:
    if catalog is not None and hasattr(catalog, "spec_for"):
        return catalog.spec_for(step["tool_id"])
    return next((s for s in load_tool_specs() if s.tool_id == step["tool_id"]), None)


def plan_sentences(plan: dict | None, envelopes: list[dict] | None = None, catalog: Any = None) -> list[str]:
    """One sentence per step of a plan, in order; a filter's arguments carry on to the steps after it."""
    envelopes = envelopes or []
    context: dict = {}
    out = []
    for i, step in enumerate((plan or {}).get("plan") or []):
        spec = _spec(step, catalog)
        if spec is None:
            out.append(f"Paso {i + 1}: herramienta {step.get('tool_id')} (no está en el catálogo).")
            continue
        meta = (envelopes[i].get("meta") or {}) if i < len(envelopes) else {}
        out.append(step_sentence(spec, step.get("args") or {}, context, meta.get("date_range_effective"), catalog))
        if spec.kind == "filter":
            context.update({k: v for k, v in (step.get("args") or {}).items() if v not in (None, "", [])})
    return out


# -- the sections of a turn ------------------------------------------------------------------------------------


def _analysis_steps(d: dict, catalog: Any) -> list[tuple[dict, dict]]:
    """(arguments with the earlier filters' carried on, envelope meta) of every step that is no filter or evidence."""
    envelopes = d.get("envelopes") or []
    context: dict = {}
    out = []
    for i, step in enumerate(((d.get("plan") or {}).get("plan")) or []):
        spec, args = _spec(step, catalog), step.get("args") or {}
        meta = (envelopes[i].get("meta") or {}) if i < len(envelopes) else {}
        if spec is not None and spec.kind == "filter":
            context.update({k: v for k, v in args.items() if v not in (None, "", [])})
        elif spec is None or spec.kind != "evidence":
            out.append(({**context, **{k: v for k, v in args.items() if v not in (None, "", [])}}, meta))
    return out


def understood(d: dict, catalog: Any = None) -> list[str]:
    """What the question was taken to ask: crime, place and period, or why no data were read."""
    answer = d.get("answer") or {}
    intake = d.get("intake") or {}
    out = []
    if intake.get("is_follow_up") and d.get("rewritten_question") and d["rewritten_question"] != d.get("question"):
        out.append(f"La tomé como continuación de la anterior: «{d['rewritten_question']}».")
    steps = _analysis_steps(d, catalog)
    if not steps:
        moderation = (intake.get("moderation") or {}).values()
        declined = (d.get("planner_state") or {}).get("strategy") == "defer_or_refuse"
        if answer.get("blocked") or declined or any(moderation):
            out.append("La pregunta pide algo que no respondo, así que no consulté los datos.")
        elif answer.get("clarifying_options"):
            out.append("Faltaba un dato para consultar; te pedí que lo precises antes de leer los datos.")
        else:
            out.append("La pregunta no pide cifras de la base (una definición, la metodología o un saludo).")
        return out
    crimes, places, windows = [], [], []
    for merged, meta in steps:
        crimes.append(crime_words(next((merged[k] for k in _CRIME_ARGS if merged.get(k)), None), merged.get("metodo")))
        names = [place_name(p, catalog) for p in _as_list(merged.get("entidades"))]
        place = next((merged[k] for k in _PLACE_ARGS if merged.get(k)), None)
        places += names or [place_words(place, merged.get("nivel"), catalog).removeprefix("en ")]
        asked = meta.get("date_range_requested") or {}
        window = (asked["from"], asked["to"]) if asked.get("from") else _window(merged)
        windows.append(between(*window) if window else "en todo el periodo publicado")
    crimes, places, windows = (list(dict.fromkeys(x)) for x in (crimes, places, windows))
    out.append(f"Preguntas por {join_y(crimes)} en {join_y(places)}, {join_y(windows)}.")
    return out


def _files(envelopes: list[dict], files: list[str] | None) -> list[str]:
    named = [f for e in envelopes for f in _as_list((e.get("meta") or {}).get("fuente"))]  # a file or a list
    found = [f for text in named for f in re.split(r",\s*", str(text)) if f]
    for e in envelopes:  # a state ranking's municipal files built only the rows of the states named beside them
        own = (e.get("meta") or {}).get("fuente_municipal") or {}
        found += [f"{f} (solo {join_y(own.get('lugares') or [])})" for f in own.get("archivos") or []]
    return list(dict.fromkeys(found + list(files or [])))


def data_used(d: dict, files: list[str] | None = None, with_version: bool = True) -> list[str]:
    """The data version (unless the answer beside already says it), the sources and the files the rows came from."""
    answer = d.get("answer") or {}
    prov = answer.get("provenance") or {}
    if not (d.get("plan") or {}).get("plan"):
        return ["Ninguno: la respuesta no leyó la base de datos."]
    out = []
    if with_version and prov.get("dataset_version"):
        until = (
            f" (datos hasta {month_words(prov['data_available_until'])})" if prov.get("data_available_until") else ""
        )
        out.append(f"Versión de los datos {prov['dataset_version']}{until}.")
    titles = [s.get("title") for s in answer.get("sources") or [] if s.get("title")]
    if titles:
        out.append("Fuentes: " + "; ".join(dict.fromkeys(titles)) + ".")
    names = _files(d.get("envelopes") or [], files)
    if names:
        out.append("Archivos de origen: " + ", ".join(names) + ".")
    return out


def effective_period(d: dict, catalog: Any = None) -> list[str]:
    """The period each step ran over, and what was asked when the data clamped it."""
    out = []
    for _merged, meta in _analysis_steps(d, catalog):
        eff, asked = meta.get("date_range_effective") or {}, meta.get("date_range_requested") or {}
        if not eff.get("from"):
            continue
        line = period_words(eff["from"], eff["to"]).capitalize()
        if meta.get("range_adjusted") and asked.get("from"):
            why = re.sub(r":\s*\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}", "", meta.get("range_adjusted_reason") or "")
            line += f" (se pidió {period_words(asked['from'], asked['to'])}" + (f"; {why}" if why else "") + ")"
        out.append(line + ".")
    return list(dict.fromkeys(out)) or ["Sin periodo: no se leyeron datos por fecha."]


def caveats(d: dict) -> list[str]:
    """The answer's warnings and the validation's, each once."""
    from core.ask.wording import humanize_dates

    answer, validation = d.get("answer") or {}, d.get("validation") or {}
    found = [humanize_dates(str(w)) for w in (answer.get("warnings") or []) + (validation.get("warnings") or [])]
    return list(dict.fromkeys(w for w in found if w)) or ["Ninguna."]


def lab_access(d: dict) -> str:
    """The lab decision as an access decision, not an error: whether experimental tools were used, and why."""
    qp = d.get("query_plan") or {}
    lab, flags = qp.get("lab_policy") or {}, qp.get("flags") or []
    name = "Laboratorio (herramientas experimentales)"
    if lab.get("allow_lab") or lab.get("status") == "approved":
        return f"{name}: disponible — un supervisor lo aprobó."
    if "lab-access-requested" in flags:
        return f"{name}: no usado — lo pediste, pero un supervisor no lo ha aprobado; respondí con las herramientas estables."
    return f"{name}: no usado — no hacía falta y está apagado mientras un supervisor no lo apruebe."


def explain_turn(d: dict, catalog: Any = None, files: list[str] | None = None, with_version: bool = True) -> PlanWords:
    """Every plain-words section of a turn (its ``as_dict()``); ``files``: source files found for its rows."""
    return PlanWords(
        understood=understood(d, catalog),
        computed=plan_sentences(d.get("plan"), d.get("envelopes"), catalog)
        or ["Nada: la respuesta no necesitó consultar la base de datos."],
        data=data_used(d, files, with_version),
        period=effective_period(d, catalog),
        warnings=caveats(d),
        access=lab_access(d),
    )


def source_files(store: Any, envelopes: list[dict]) -> list[str]:
    """The distinct source files of the rows an answer's envelopes cite as evidence (one query per table)."""
    tables = {"incidents", "observations"}  # the tables whose rows carry source_file (core/tools/evidence.py)
    ids: dict[str, list] = {}
    for env in envelopes or []:
        for ev in env.get("evidence") or []:
            if isinstance(ev, dict) and ev.get("table") in tables:
                ids.setdefault(ev["table"], []).extend(ev.get("ids") or [])
    out: list[str] = []
    for table, rows in sorted(ids.items()):
        found = store.query(
            f"SELECT DISTINCT source_file FROM {table} WHERE row_id IN (SELECT UNNEST(?)) ORDER BY 1",  # the table is one of the fixed set above
            [rows],
        )
        out += [r[0] for r in found if r[0]]
    return list(dict.fromkeys(out))
