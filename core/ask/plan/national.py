"""The offline planner for questions over the national tables (issue 14): the states' ranking and a state's place
(tool 21 ``ranking_estados``), victims by sexo and edad (tool 22 ``victimas_sexo_edad``) and the federal
jurisdiction (tool 23 ``fuero_federal``). The understanding's ``national:*`` signals (core/ask/understand/national.py)
say which; the place is the state named, the country, or Guanajuato.

Without a period each tool takes its series' last 12 published months and says so; a window is passed whole and
the tool clips it to the months its series publishes (an unpublished month is never a zero).
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.ask.plan.assumptions import as_written
from core.ask.plan.granularity import ALSO, LEAD, named_methods, narrowing_words
from core.ask.plan.rules import STATE_DEFAULT, ToolPlan, _step
from core.ask.understand import Understanding
from core.ask.understand.national import RNID_YEAR
from core.ask.understand.placecues import introduction_chars
from core.ask.understand.tokens import key_of, tokenize
from core.text import normalize_text

HOME = STATE_DEFAULT  # Casandra's state: the place of a national question that names none


def _places(u: Understanding) -> list[str]:
    """The national places asked, Guanajuato first when it is named or implied."""
    named = [s.rsplit(":", 1)[1] for s in u.signals if s.startswith("national:place:")]
    if "national:which_state" in u.signals and not named:
        return ["MX"]  # «el estado con menos homicidios»: the list, whatever «el estado» looked like
    # a municipality's question the national tables answer by state (a subtipo only RNID has) is its state's
    home = [HOME] if (u.whole_state or any(p.nivel in ("estado", "municipio") for p in u.places)) else []
    places = list(dict.fromkeys(home + named))
    if not places and "national:rank" in u.signals:
        return ["MX"]  # «ranking de estados», «¿qué estado tuvo más…?»: the country's list, Guanajuato in it
    return places or [HOME]


def _window(u: Understanding) -> dict:
    if u.window is None:
        return {}
    return {"desde": u.window[0].isoformat(), "hasta": u.window[1].isoformat()}


def _crime(u: Understanding) -> dict:
    keys = [c.delito for c in u.crimes if c.delito != "total_delitos"]
    # the modalidades said («con arma de fuego») narrow the crime: the state files and the victims carry them
    how = list(dict.fromkeys(u.methods)) if keys else []
    return {"clave_delito": keys[0], **({"metodo": how[0] if len(how) == 1 else how} if how else {})} if keys else {}


def _rnid_only(u: Understanding) -> list[str]:
    """What a subtipo only the 2026 methodology has is, said before its number (its place, its months)."""
    if "crime:rnid_only" not in u.signals or not u.crimes:
        return []
    what = f"{u.crimes[0].label} solo se publica desde enero de 2026, con la metodología RNID y por estado"
    towns = [p.label for p in u.places if p.nivel == "municipio"]
    if towns:
        return [f"{LEAD}{what}: no hay cifra de {towns[0]}; esta es la del estado."]
    if u.window is not None and u.window[1].year < RNID_YEAR:
        return [f"{LEAD}{what}: no existe en la serie hasta 2025."]
    return [f"{LEAD}{what}."]


_VIOLENCE = re.compile(r"_(?:con|sin)_violencia$")


def narrowed(u: Understanding, catalog) -> Understanding:
    """A crime narrowed by the question's own words («robo de motocicleta», «robo de tractores»): to 2025 the
    modalidades whose names hold them, under the subtipo that publishes them; in 2026 (RNID) the subtipo whose name
    holds them («Robo de vehículo automotor - Motocicleta»). The words are understood, never «No tomé en cuenta»."""
    own = _rnid_named(u, catalog)
    if own is not None:  # «privación ilegal de la libertad» in 2026: its own subtipo, not the series' synonym
        return replace(u, crimes=[replace(u.crimes[0], delito=own["delito"], label=own["subtipo"])])
    terms = [t for t in u.unknown_terms if t.kind == "crime"]
    if len(u.crimes) != 1 or (not terms and not u.methods):
        return u
    rows = {c["delito"]: c for c in catalog.crimes}
    asked = rows.get(u.crimes[0].delito)
    if asked is None:
        return u
    words = [t.text for t in terms]
    rest = [t for t in u.unknown_terms if t not in terms]
    if "national:rnid" in u.signals:
        # a kind the series to 2025 names as a modalidad («robo de motos con violencia») is a subtipo in 2026
        kinds = words + [_VIOLENCE.sub("", m).removeprefix("robo_de_").replace("_", " ") for m in u.methods]
        sub = _rnid_subtipo(catalog, asked, [k for k in kinds if k not in ("con", "sin")])
        if sub is None:
            return u
        crime = replace(u.crimes[0], delito=sub["delito"], label=sub["subtipo"])
        how = [f"{u.violencia}_violencia"] if u.violencia else []
        return replace(u, crimes=[crime], methods=how, unknown_terms=rest)
    named = named_methods(asked, rows, words) if words else list(u.methods)
    if u.violencia:
        named = [m for m in named if m.endswith(f"_{u.violencia}_violencia")] or named
    if not named:
        return u
    owner = _owner(asked, rows, named)
    crime = replace(u.crimes[0], delito=owner["delito"], label=owner.get("subtipo") or u.crimes[0].label)
    return replace(u, crimes=[crime], methods=named, unknown_terms=rest)


def federal_narrowed(u: Understanding, store) -> Understanding:
    """A federal concept narrowed by a word its tipos start with («y de esos cuántos fueron por posesión» after
    «contra la salud»: the tipo POSESIÓN), from the federal file's own tipo names."""
    key = next((s.split(":", 2)[2] for s in u.signals if s.startswith("national:federal_key:")), None)
    terms = [t for t in u.unknown_terms if t.kind in ("crime", "other")]
    if key is None or not terms or store is None:
        return u
    kinds = store.memo(
        ("federal_kinds",),
        lambda: store.query(
            "SELECT DISTINCT tipo_key, delito, subtipo FROM crime_levels WHERE fuero = 'federal' AND subtipo IS NOT NULL"
        ),
    )
    for term in terms:
        said = [w.rstrip("s") for w in key_of(term.text).split() if len(w) > 3]
        found = [d for t, d, sub in kinds if t == key and said and all(w in key_of(sub) for w in said)]
        if len(found) == 1:
            signals = [s for s in u.signals if not s.startswith("national:federal_key:")]
            rest = [t for t in u.unknown_terms if t is not term]
            return replace(u, signals=[*signals, f"national:federal_key:{found[0]}"], unknown_terms=rest)
    return u


def _rnid_named(u: Understanding, catalog) -> dict | None:
    """The 2026 subtipo whose own name the question said, where the series to 2025 reads that name as a synonym of
    another crime («privación ilegal de la libertad»: «otros delitos que atentan contra la libertad personal»)."""
    if "national:rnid" not in u.signals or len(u.crimes) != 1:
        return None
    said = key_of(u.crimes[0].text or "")
    return next((r for r in getattr(catalog, "rnid_only", []) if said and key_of(r["subtipo"]) == said), None)


def _owner(asked: dict, rows: dict, methods: list[str]) -> dict:
    """The one subtipo of the crime that publishes every modalidad asked (robo de motocicleta: robo de vehículo
    automotor), else the crime itself (con violencia: many subtipos have it)."""
    subtipos = [k for k in (asked.get("incluye") or "").split("|") if k in rows]
    owners = [k for k in subtipos if set(methods) <= set(rows[k].get("metodos") or [])]
    return rows[owners[0]] if len(owners) == 1 else asked


def _rnid_subtipo(catalog, asked: dict, kinds: list[str]) -> dict | None:
    """The 2026 subtipo of the asked crime whose name holds every word of the kinds said, if exactly one."""
    said = [w.rstrip("s") for text in kinds for w in text.split() if len(w) > 3]
    if not said:
        return None
    tipo = asked.get("tipo_key") or asked["delito"]
    found = [
        r
        for r in getattr(catalog, "rnid_only", [])
        if r.get("tipo_key") in (tipo, asked["delito"])
        and all(any(p.startswith(w) for p in r["delito"].split("_")) for w in said)
    ]
    return found[0] if len(found) == 1 else None


# ages the victims file does not split: a range of years other than 0-17 / 18 and more, or a stage of life
_AGE = re.compile(
    r"\b(?:entre|de)\s+(\d{1,2})\s+(?:y|a)\s+(\d{1,3})\s+anos\b|\b(\d{1,2})\s*-\s*(\d{1,3})\s+anos\b"
    r"|\b(?:adolescentes?|jovenes|adultos?\s+mayores|tercera\s+edad|ancian[oa]s|bebes|infantes|primera\s+infancia)\b"
)


def unpublished_age(question: str) -> str | None:
    """The age a victims question names that the file does not publish («entre 12 y 15 años», «adolescentes»)."""
    said = normalize_text(question)
    text = tokenize(said[introduction_chars(said) :]).text  # «le escribo de la Procuraduría de… Adolescentes.»
    for m in _AGE.finditer(text):
        low, high = m.group(1) or m.group(3), m.group(2) or m.group(4)
        if low is not None and (int(low), int(high)) in ((0, 17), (0, 18), (18, 99), (18, 100)):
            continue  # «de 0 a 17 años»: the minors the file publishes
        return as_written(question, m.group(0))
    return None


def build(u: Understanding) -> ToolPlan:
    """The tool plan of a national question."""
    places, signals = _places(u), set(u.signals)
    lugar, others = places[0], places[1:]
    if lugar != "MX":  # the country carried from a national turn: its rate is in every state's answer already
        others = [p for p in others if p != "MX"]
    notes: list[str] = []
    if len(u.crimes) > 1:
        notes.append(f"Las tablas nacionales se consultan un delito a la vez: se usó {u.crimes[0].label.lower()}.")
    notes += _rnid_only(u)
    if "national:rnid" in signals and u.group_by_municipio:  # «favor de desagregar ese dato de 2026 por municipio»
        notes.append(
            f"{LEAD}Las cifras de 2026 (metodología RNID) se publican solo por estado: no hay desglose por "
            "municipio; esta es la cifra estatal."
        )
    if u.kind == "composition":  # the tipo breakdown reads the municipal cells: Guanajuato's only
        notes.append(
            f"{LEAD}El desglose de todos los delitos por tipo (y la parte de un delito en ese total) lo calculo solo "
            "para Guanajuato y sus municipios; de otros estados doy la cifra estatal del SESNSP."
        )
    kinds = narrowing_words(u) if "national:federal" not in signals else []
    if kinds:  # «fraude telefónico en Jalisco»: the state file has no such kind; its total, said so
        what = (u.crimes[0].label or "").lower()
        words = "», «".join(as_written(u.question, w) for w in kinds)
        notes.append(f"{LEAD}El SESNSP no publica {what} desglosado por «{words}»: la cifra es la de todo {what}.")
    if "federal:municipal" in signals:
        towns = [p.label for p in u.places if p.nivel == "municipio"]
        notes.append(
            f"{LEAD}Los delitos del fuero federal no se publican por municipio, solo por estado: no hay cifra de "
            f"{towns[0] if towns else 'ese municipio'}; esta es la del estado."
        )
    if "national:federal" in signals:
        key = next((s.split(":", 2)[2] for s in u.signals if s.startswith("national:federal_key:")), None)
        args = {"lugar_id": lugar, **({"clave_delito": key} if key else {}), "desglose": "concepto", **_window(u)}
        return ToolPlan({"plan": [_step("fuero_federal", args)]}, notes, "national")
    if "national:victims" in signals:
        towns = [p.label for p in u.places if p.nivel == "municipio"]
        if towns:  # «¿cuántos de esos muertos eran mujeres?» after a municipality: its state's victims, said so
            notes.append(
                f"{LEAD}Las víctimas (por sexo y edad) no se publican por municipio, solo por estado: no hay cifra de "
                f"{towns[0]}; esta es la del estado."
            )
        if age := unpublished_age(u.question or ""):  # «¿cuántas tenían entre 12 y 15 años?», «adolescentes»
            notes.append(
                f"{LEAD}El SESNSP no publica las víctimas por la edad «{age}»: su archivo de víctimas solo distingue "
                "menores de edad (0-17), adultos (18 y más) y edad no especificada; no doy una cifra para esa edad."
            )
        args = {"lugar_id": lugar, **_crime(u), **_window(u)}
        if others and u.compare_window is None:  # «¿cuántas mujeres en Jalisco? ¿y cuántas en Guanajuato?»: each
            steps = [_step("victimas_sexo_edad", {**args, "lugar_id": p}) for p in [*others[:3], lugar]]
            return ToolPlan({"plan": steps}, [*notes, *(f"{ALSO}{k}" for k in range(len(steps) - 1))], "national")
        if u.window is not None and u.compare_window is not None:  # «¿y en el mismo periodo de 2024?»: both periods
            periods = sorted([u.window, u.compare_window])
            steps = [
                _step("victimas_sexo_edad", {**args, "desde": a.isoformat(), "hasta": b.isoformat()})
                for a, b in periods
            ]
            return ToolPlan({"plan": steps}, [*notes, f"{ALSO}0"], "national")
        return ToolPlan({"plan": [_step("victimas_sexo_edad", args)]}, notes, "national")
    by_rate = u.medida == "tasa_per_100k" or "national:vs_country" in signals
    args = {"lugar_id": lugar, **_crime(u), "ordenar_por": "tasa_per_100k" if by_rate else "conteo", **_window(u)}
    if lugar == "MX" and u.order == "asc":
        args["orden"] = "asc"  # «¿qué estado tuvo menos…?»: the end of the ranking
    only_2026 = "crime:rnid_only" in signals  # a subtipo only the 2026 methodology has, whatever the window
    if "national:rnid" in signals and (u.window is None or u.window[0].year >= RNID_YEAR or only_2026):
        args["metodologia"] = "RNID"  # 2026: the new methodology, never summed with the series to 2025
    if others:
        args["comparar_con"] = others[:10]
    if u.window is not None and u.compare_window is not None:  # «Michoacán en 2020 con 2021»: both periods said
        a, b = sorted([u.window, u.compare_window])
        periods = [{**args, "desde": w[0].isoformat(), "hasta": w[1].isoformat()} for w in (a, b)]
        for w, period in zip((a, b), periods, strict=True):  # each period in the methodology that publishes it
            period.pop("metodologia", None)
            if "national:rnid" in signals and (w[0].year >= RNID_YEAR or only_2026):
                period["metodologia"] = "RNID"
        if len({p.get("metodologia") for p in periods}) > 1:
            notes.append(
                "Los dos periodos vienen de metodologías distintas (la serie hasta 2025 y la de 2026, RNID): "
                "las cifras se dicen lado a lado, pero no son estrictamente comparables."
            )
        steps = [_step("ranking_estados", p) for p in periods]
        return ToolPlan({"plan": steps}, [*notes, f"{ALSO}0"], "national")
    return ToolPlan({"plan": [_step("ranking_estados", args)]}, notes, "national")
