"""Honest granularity (issue 14 item 5): a question at a crime level the municipal data do not publish gets
what exists, and the answer says so before any number.

Guanajuato's municipal files carry some crimes only at tipo level (the tipo × modalidad parquet: robo as con/sin
violencia plus vehicles and machinery, lesiones and, before 2020, homicidio with doloso and culposo summed); the
state file carries every subtipo. So, for one crime asked:

- ``subtipo``: a subtipo no municipality publishes (robo a transportista in Silao) → the state's figure of that
  subtipo (``ranking_estados``) and, for a municipality, its tipo by modalidad (``desglose_modalidad``);
- ``antes``: a subtipo whose municipal months start after the window (homicidio doloso in Salamanca in 2016) → the
  municipality's tipo total, doloso and culposo summed and said so, and the state's figure of the subtipo;
- ``tipo``: a bare tipo whose subtipos the municipal data never separate in the window (lesiones in Salamanca) → the
  tipo total, said to sum them: there is no split to ask about (docs/decisions/0010 asks only where one exists).

Which case holds is read from the catalog (``tipo_key``, ``incluye``) and the published coverage, never from names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date

from core.ask.plan.assumptions import as_written
from core.ask.plan.rules import STATE_DEFAULT, ToolPlan, _step
from core.ask.understand import CrimeMatch, Understanding
from core.ask.understand.national import is_national
from core.ask.understand.tokens import tokenize
from core.ask.wording import join_y, methods_phrase, shares_state_name
from core.dataset.taxonomy import load_methods
from core.text import month_words

# the state file's series (``Catalog.series_ends`` key): a window after its end has no state figure
STATE_SERIES = "carpetas/comun/IDFC"

# The planner's pseudo-notes the composer reads (never shown): a sentence that goes before the numbers, and the
# index of a step whose lead follows the answering step's.
LEAD, ALSO, SPLIT = "lead:", "also:", "split:"


@dataclass(frozen=True)
class Fallback:
    """What the data hold for the crime asked: the case, the crime and its tipo (catalog rows)."""

    case: str  # municipio | subtipo | modalidad | antes | tipo | acotado | victimas
    asked: dict
    tipo: dict
    members: tuple[str, ...] = ()  # the labels of the subtipos the tipo sums (acotado: the narrowing words)

    @property
    def sums(self) -> str:
        """«homicidio doloso y homicidio culposo»: what a tipo total adds up."""
        names = [m.lower() for m in self.members]
        return " y ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


def _runs(metadata: dict, key: str, estado: str, place: str | None = None) -> list[tuple[date, date]]:
    """A crime's published runs for a state, and for one municipality's own finer file (Irapuato) when given."""
    info = (metadata.get("coverage") or {}).get(key) or {}
    runs = [] if info.get("granularity", "month") != "month" else list((info.get("estados") or {}).get(estado, []))
    runs += ((metadata.get("coverage_municipal") or {}).get(key) or {}).get(place or "", [])
    return [(date.fromisoformat(r["desde"]), date.fromisoformat(r["hasta"])) for r in runs]


def covers(metadata: dict, key: str, estado: str, window: tuple[date, date] | None, place: str | None = None) -> bool:
    """Whether a crime is published for the state (or the municipality's own finer file) in some month of ``window``."""
    runs = _runs(metadata, key, estado, place)
    if window is None:
        return bool(runs)
    return any(a <= window[1] and b >= window[0] for a, b in runs)


def _elsewhere(u: Understanding) -> bool:
    """A place the store does not hold was named (Guadalajara, a colonia): never answered with Guanajuato's figure."""
    outside = ("place:not_in_store", "place:other_state")
    return any(t.kind.startswith("place") for t in u.unknown_terms) or any(s.startswith(outside) for s in u.signals)


def _municipality(u: Understanding):
    return next((p for p in u.places if p.nivel == "municipio"), None)


def find(u: Understanding | None, catalog, metadata: dict | None) -> Fallback | None:
    """The case of a question about one crime at a level the municipal data lack, or None (the usual plan)."""
    if u is None or not metadata or len(u.crimes) != 1 or u.crimes[0].note or is_national(u):
        return None
    if any(p.nivel == "estado" and p.entidad_id != STATE_DEFAULT for p in u.places) or _elsewhere(u):
        return None
    rows = {c["delito"]: c for c in catalog.crimes}
    asked = rows.get(u.crimes[0].delito)
    if asked is not None and "victims:municipal" in u.signals:  # victims are counted by state only
        return Fallback("victimas", asked, asked)
    narrowed = [t.text for t in _narrowing(u)]
    named = named_methods(asked, rows, narrowed) if asked is not None and narrowed else []
    if named:  # «robo de motocicleta», «¿y de motos?» after «robo de carros»: modalidades named by their own words
        owner = _modalities_owner(u, asked, rows, named, metadata)
        return Fallback("modalidad", {**owner, "metodos": named}, owner, (owner["subtipo"],))
    if asked is not None and narrowed and u.crimes[0].in_data:  # «robo de celulares»: a kind SESNSP does not publish
        kinds = [w for w in narrowed if _narrows(u.question, u.crimes[0].text, w)]  # «robo de celular», not «ubo»
        if kinds:
            return Fallback("acotado", asked, rows.get(asked.get("tipo_key") or "") or asked, tuple(kinds))
    tipo = rows.get((asked or {}).get("tipo_key") or "")
    if asked is None or tipo is None or tipo.get("nivel") != "tipo":
        return None
    place = _municipality(u)
    estado = place.entidad_id.split(".")[0] if place else STATE_DEFAULT
    window = u.window
    keys = [k for k in (tipo.get("incluye") or "").split("|") if k]
    members = tuple((rows.get(k) or {}).get("subtipo") or k for k in keys)
    if asked is tipo:  # a municipality's own finer file (Irapuato's) separates the subtipos the tipo rows sum
        split = any(covers(metadata, k, estado, window, place.entidad_id if place else None) for k in keys)
        whole = covers(metadata, tipo["delito"], estado, window)
        return Fallback("tipo", asked, tipo, members) if place and whole and not split else None
    # a named sum («robo a transeúnte») is published where every subtipo it adds is
    own = [k for k in (asked.get("incluye") or "").split("|") if k] if asked.get("nivel") == "grupo" else []
    own = own or [asked["delito"]]
    if all(covers(metadata, k, estado, window) for k in own):
        return None  # the subtipo itself is published for the window
    if place is not None and all(covers(metadata, k, estado, window, place.entidad_id) for k in own):
        return Fallback("municipio", asked, tipo, members)  # that municipality's own file has it (Irapuato)
    if _runs(metadata, own[0], estado):
        # published later (homicidio doloso from 2020): the tipo of those months, only for a municipality
        ok = place is not None and window is not None and covers(metadata, tipo["delito"], estado, window)
        state = place is None and window is not None and window[0] < min(a for a, _ in _runs(metadata, own[0], estado))
        return Fallback("antes", asked, tipo, members) if ok or state else None
    if place is not None and _as_modalities(asked, tipo, rows):
        return Fallback("modalidad", asked, tipo, members)  # vehicles, machinery: the tipo rows carry them whole
    return Fallback("subtipo", asked, tipo, members)  # the state file has every subtipo; the municipality its tipo


def _modalities_owner(u: Understanding, asked: dict, rows: dict, named: list[str], metadata: dict) -> dict:
    """Where the modalidades named are read: the subtipo that publishes them where the municipality has its own file
    of it (Irapuato's robo de vehículo automotor), else the tipo whose municipal rows carry them (robo)."""
    tipo = asked if asked.get("nivel") == "tipo" else rows.get(asked.get("tipo_key") or "") or asked
    place = _municipality(u)
    subtipos = [k for k in (tipo.get("incluye") or "").split("|") if k in rows]
    owners = [rows[k] for k in subtipos if set(named) <= set(rows[k].get("metodos") or [])]
    estado = place.entidad_id.split(".")[0] if place else STATE_DEFAULT
    if place and len(owners) == 1 and covers(metadata, owners[0]["delito"], estado, u.window, place.entidad_id):
        return owners[0]
    return tipo


def _narrowing(u: Understanding) -> list:
    """Words left unread that may name a kind of the crime: those read as a crime's, and in a follow-up also a bare
    word («¿y motocicletas?» after «robo de coche» has no «de» to mark it)."""
    kinds = ("crime", "other") if "followup:merged" in u.signals else ("crime",)
    return [t for t in u.unknown_terms if t.kind in kinds]


def _narrows(question: str, crime_text: str, word: str) -> bool:
    """Whether a word the lexicon does not know names a kind of the crime («robo de celular», «robos a taxis»): it
    follows the crime's own words and «de» or «a», not a typo, a verb or a follow-up's request («ubo», «tuvimos»,
    «favor de expresarlo»)."""
    said, crime = re.escape(tokenize(word).text), re.escape(tokenize(crime_text).text)
    article = r"(?:(?:el|la|los|las|un|una|unos|unas|su|sus|mi|mis)\s+)?"
    text = tokenize(question).text
    if crime and re.search(rf"\b{crime}\s+(?:de|del|a|al)\s+{article}{said}\b", text):
        return True
    # «fraude telefónico», «fraude cibernético», «robo bancario»: an adjective of kind right after the crime
    return bool(crime) and bool(_KIND_ADJECTIVE.search(word)) and bool(re.search(rf"\b{crime}\s+{said}\b", text))


_KIND_ADJECTIVE = re.compile(r"^\w+(?:ic[oa]s?|al|ales|iv[oa]s?|ari[oa]s?)$")


def narrowing_words(u: Understanding) -> list[str]:
    """The words after the one crime asked that name a kind of it the SESNSP does not publish («fraude telefónico»,
    «robo de celular»): said in the answer, never dropped silently."""
    if len(u.crimes) != 1:
        return []
    return [t.text for t in _narrowing(u) if _narrows(u.question, u.crimes[0].text or "", t.text)]


def named_methods(asked: dict, rows: dict, words: list[str]) -> list[str]:
    """The crime's modalidades whose names hold every narrowing word («motocicleta», «tractores»)."""
    said = [w.rstrip("s") for text in words for w in text.split() if len(w) > 3]
    keys = [asked["delito"], *[k for k in (asked.get("incluye") or "").split("|") if k]]
    methods = {m for k in keys for m in (rows.get(k) or {}).get("metodos") or []}
    return sorted(m for m in methods if said and all(any(p.startswith(w) for p in m.split("_")) for w in said))


def understood(u: Understanding, catalog) -> Understanding:
    """The understanding without the words a modalidad of its one crime is named by («robo de motocicleta»): the
    plan uses them (``find``'s «modalidad» case), so the answer never lists them as ignored."""
    terms = _narrowing(u)
    if len(u.crimes) != 1 or not terms:
        return u
    rows = {c["delito"]: c for c in catalog.crimes}
    asked = rows.get(u.crimes[0].delito)
    if asked is None or not named_methods(asked, rows, [t.text for t in terms]):
        return u
    return replace(u, unknown_terms=[t for t in u.unknown_terms if t not in terms])


def _as_modalities(asked: dict, tipo: dict, rows: dict) -> bool:
    """Whether the tipo rows carry the subtipo whole as modalidades only it has (robo de vehículo automotor: coche,
    motocicleta, embarcaciones), so the municipal figure is exact, not an estimate."""
    own = set(asked.get("metodos") or [])
    others = {
        m
        for k in (tipo.get("incluye") or "").split("|")
        if k and k != asked["delito"]
        for m in (rows.get(k) or {}).get("metodos") or []
    }
    return bool(own) and own <= set(tipo.get("metodos") or []) and not own & others


def _said(place) -> str:
    """A municipality as a sentence names it: «el municipio de Guanajuato» when it shares its state's name."""
    return f"el municipio de {place.label}" if shares_state_name(place.entidad_id) else place.label


def _method_label(metodo: str) -> str:
    names = {m.metodo: m.modalidad.lower() for m in load_methods()}  # «pequeñas», with its accents
    return names.get(metodo, metodo.replace("_", " ")).removeprefix("robo de ")


def window_args(u: Understanding) -> tuple[dict, dict]:
    """(national args, municipal args) of the question's window (the tools clip it to what they publish)."""
    if u.window is None:
        return {}, {}
    a, b = u.window[0].isoformat(), u.window[1].isoformat()
    return {"desde": a, "hasta": b}, {"from": a, "to": b}


def build(u: Understanding, fb: Fallback, metadata: dict, municipal_plan, state_end: date | None = None) -> ToolPlan:
    """The plan of a fallback: the state's figure of the subtipo and/or the municipality's tipo, said first.

    ``municipal_plan(u)`` is the usual offline plan (core/ask/plan/rules.build) of an understanding; ``state_end``
    the state file's last published day (a window after it has no state figure, only the municipality's tipo)."""
    place = _municipality(u)
    asked, tipo = fb.asked["subtipo"], fb.tipo["subtipo"]
    national_win, municipal_win = window_args(u)
    # «lesiones dolosas con arma blanca»: the state file has the subtipo by modalidad, so its figure keeps it
    methods = [m for m in u.methods if m in (fb.asked.get("metodos") or [])] if u.methods else []
    state = _step(
        "ranking_estados",
        {
            "lugar_id": STATE_DEFAULT,
            "clave_delito": fb.asked["delito"],
            "ordenar_por": "conteo",
            **({"metodo": methods} if methods and len(methods) == len(u.methods) else {}),
            **national_win,
        },
    )
    as_tipo = replace(
        u,
        crimes=[CrimeMatch(fb.tipo["delito"], tipo, tipo.lower(), 100.0, True)],
        signals=[s for s in u.signals if not s.startswith("crime:unqualified:")] + ["crime:tipo_fallback"],
    )
    if fb.case == "victimas":
        built = municipal_plan(u)
        note = (
            f"El SESNSP publica las víctimas (por sexo y edad) solo por estado, no por municipio: para "
            f"{_said(place) if place else 'cada municipio'} doy las carpetas de investigación de {asked.lower()}; "
            "por estado sí se publican, para los delitos que el SESNSP cuenta por víctima."
        )
        return ToolPlan(built.plan, [LEAD + note, *built.notes], built.kind)
    if fb.case == "municipio":
        return municipal_plan(replace(u, crimes=[replace(u.crimes[0], in_data=True)]))
    if fb.case == "acotado":
        built = municipal_plan(u)
        words = "», «".join(as_written(u.question, w) for w in fb.members)
        note = (
            f"El SESNSP no publica {asked.lower()} desglosado por «{words}»: la cifra es la de todo "
            f"{asked.lower()}, sin ese detalle."
        )
        return ToolPlan(built.plan, [LEAD + note, *built.notes], built.kind)
    if fb.case == "tipo":
        built = municipal_plan(as_tipo)
        later = any(_runs(metadata, k, STATE_DEFAULT) for k in (fb.tipo.get("incluye") or "").split("|") if k)
        when = "En ese periodo los datos por municipio no separan" if later else "Por municipio, el SESNSP no separa"
        note = f"{when} {fb.sums}: la cifra de {tipo.lower()} los suma."
        return ToolPlan(built.plan, [LEAD + note, *built.notes], built.kind)
    if fb.case == "modalidad":
        own = sorted(fb.asked.get("metodos") or [])
        picked = [m for m in u.methods if m in own] or own  # «robo de coche con violencia»: the modalidad asked
        if u.violencia:  # these modalidades say the violence in their own names
            picked = [m for m in picked if m.endswith(f"_{u.violencia}_violencia")] or picked
        built = municipal_plan(replace(as_tipo, methods=picked, violencia=None))
        which = "sus modalidades" if picked == own else methods_phrase(_method_label(m) for m in picked)
        note = (
            f"Por municipio, el SESNSP publica {asked.lower()} dentro de {tipo.lower()}, como modalidades que solo "
            f"él tiene; la cifra suma {which}."
            if fb.asked["delito"] != fb.tipo["delito"]
            else f"La cifra es de {tipo.lower()} en sus modalidades {methods_phrase(_method_label(m) for m in picked)}."
        )
        return ToolPlan(built.plan, [LEAD + note, *built.notes], built.kind)
    if fb.case == "antes" and place is None:  # the state asked: its own file has the subtipo in those years
        start = min(a for a, _ in _runs(metadata, fb.asked["delito"], STATE_DEFAULT))
        note = (
            f"Antes de {start:%Y} los datos por municipio no separan {asked.lower()} del resto de {tipo.lower()}: "
            "la cifra del estado es la de su archivo estatal del SESNSP."
        )
        return ToolPlan({"plan": [state]}, [LEAD + note], "national")
    if fb.case == "antes":
        start = min(a for a, _ in _runs(metadata, fb.asked["delito"], STATE_DEFAULT))
        built = municipal_plan(as_tipo)
        steps = list(built.plan["plan"]) if built.plan else []
        note = (
            f"Antes de {start:%Y} los datos por municipio no separan {asked.lower()} del resto de {tipo.lower()} "
            f"(no hay desglose por subtipo: {fb.sums} suman una sola cifra): para {_said(place)} doy ese total de "
            f"{tipo.lower()}; la cifra de {asked.lower()} de esos años solo se publica por estado."
        )
        return ToolPlan(
            {"plan": [*steps, state]}, [LEAD + note, f"{ALSO}{len(steps) - 1}", *built.notes], "single_value"
        )
    if place is None:  # the state asked: the state file answers exactly
        note = f"{asked} no se publica por municipio (sin desglose por subtipo); la cifra es la del archivo estatal."
        if u.window is not None and u.compare_window is not None:
            # «¿cuántos robos a negocio hubo en el estado en 2022 y cuántos en 2023?»: each period, the earlier first
            a, b = sorted([u.window, u.compare_window])
            steps = [
                _step("ranking_estados", {**state["args"], "desde": w[0].isoformat(), "hasta": w[1].isoformat()})
                for w in (a, b)
            ]
            return ToolPlan({"plan": steps}, [LEAD + note, f"{ALSO}0"], "national")
        return ToolPlan({"plan": [state]}, [LEAD + note], "national")
    municipal_win, defaulted = municipal_window(as_tipo, municipal_win, municipal_plan)
    breakdown = _step(
        "desglose_modalidad", {"entidad_id": place.entidad_id, "delito": fb.tipo["delito"], **municipal_win}
    )
    note = subtipo_note([fb.asked], fb, [place], metadata)
    if state_end is not None and u.window is not None and u.window[0] > state_end:
        # «robo a casa habitación en León, enero a marzo de 2025»: the state file ends before; León's robo stands
        note = subtipo_note([fb.asked], fb, [place], metadata, state_end=state_end)
        return ToolPlan({"plan": [breakdown]}, [LEAD + note, *defaulted], "breakdown")
    return ToolPlan({"plan": [breakdown, state]}, [LEAD + note, f"{ALSO}0", *defaulted], "national")


def municipal_window(as_tipo: Understanding, asked: dict, municipal_plan) -> tuple[dict, list[str]]:
    """The window of a municipal tipo step: the one asked, or with no period the tipo's own last published months
    (as its plain question takes them, with the note that says so) — never a step without from/to."""
    if asked:
        return asked, []
    usual = municipal_plan(as_tipo)
    first = (((usual.plan or {}).get("plan") or [{}])[0]).get("args", {})
    return {k: first[k] for k in ("from", "to") if k in first}, [n for n in usual.notes if n.startswith("Sin periodo")]


def subtipo_note(asked: list[dict], fb: Fallback, places: list, metadata: dict, state_end: date | None = None) -> str:
    """«Robo a negocio no se publica por municipio…»: what the municipal file holds instead of the subtipos asked
    (catalog rows of the fallback's tipo), and what the answer gives: each one's state figure and the places' tipo
    by modalidad."""
    tipo = fb.tipo
    labels = [a["subtipo"] for a in asked]
    named = join_y([labels[0], *[x.lower() for x in labels[1:]]])
    kinds = " (con y sin violencia, vehículos y maquinaria)" if tipo["delito"] == "robo" else ""
    by_place = metadata.get("coverage_municipal") or {}
    own = sorted({p for a in asked for p in by_place.get(a["delito"]) or {}})
    if own:  # «solo Irapuato lo desglosa»: the municipalities whose own file has it
        names = " y ".join(p.rsplit(".", 1)[-1].replace("_", " ").title() for p in own)
        kinds += f"; solo {names} " + ("lo desglosa" if len(labels) == 1 else "los desglosa")
    mixed = f" ({fb.sums} suman una sola cifra)" if 2 <= len(fb.members) <= 3 else ""  # «lesiones dolosas y culposas»
    one = len(labels) == 1
    verb, each = ("no se publica", "la cifra estatal") if one else ("no se publican", "la cifra estatal de cada uno")
    head = (
        f"{named} {verb} por municipio en los datos cargados: el archivo municipal del SESNSP trae "
        f"{tipo['subtipo'].lower()} sin desglose por subtipo{mixed}, solo por modalidad{kinds}."
    )
    where = f"{join_y(_said(p) for p in places)}, {tipo['subtipo'].lower()} por modalidad"
    if state_end is not None:
        return (
            f"{head} El archivo estatal llega a {month_words(state_end)}: para ese periodo no hay cifra estatal; "
            f"doy, para {where}."
        )
    return f"{head} Doy {each} y, para {where}."
