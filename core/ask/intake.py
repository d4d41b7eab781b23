"""Intake (docs/contracts/004_chatbot_graph.md §2.1): rewrite follow-ups, classify, moderate, and key the
same-day cache.

Rules are keyword tables over accent-free text, so the stage is deterministic and fast.
The categories are social, support, definition, irrelevant and relevant (SQL-worthy).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.ask.contracts import Intake, Moderation
from core.ask.courtesy import SOCIAL, complains_only, courtesy_only, has_phrase, introduces_only, thanks_only
from core.ask.english import as_spanish
from core.ask.glossary import asks_definition
from core.ask.identity import asks_identity
from core.ask.scope import (
    answers_menu,
    asks_what_to_ask,
    below_municipality,
    is_vague,
    is_vague_crime_talk,
    off_topic,
)
from core.ask.wording import spelled_out
from core.text import normalize_text

if TYPE_CHECKING:  # the spine's types, without importing the pipeline at run time
    from core.ask.context import StageContext
    from core.ask.pipeline import Conversation, Turn

SUPPORT = (
    "que puedes hacer",
    "como te uso",
    "como funciona",
    "ayuda",
    "que sabes hacer",
    "que preguntas",
    "como pregunto",
    "que datos tienes",
    "que delitos tienes",
    "que informacion tienes",
    "quien eres",
)
DEFINITION = (
    "que es ",
    "que son ",
    "que significa",
    "que quiere decir",
    "definicion",
    "diferencia entre",
    "que diferencia",
    "diferencia hay",
    "en que se diferencia",
    "se distingue",
    "como se calcula",
    "como calculan",
    "como se mide",
    "de donde vienen",
    "de donde la sacan",
    "de donde lo sacan",
    "de donde los sacan",
    "de donde sacan",
    "de donde obtienen",
    "de donde salen",
    "que fuente",
    "que fuentes",
    "por que no hay",
    "que cubre",
    "metodologia",
    "que cuenta",
    "que es la tasa",
    "como se define",
    "que incluye",
)
OFF_TOPIC = (
    "receta",
    "futbol",
    "pelicula",
    "cancion",
    "chiste",
    "horoscopo",
    "bitcoin",
    "programa en",
    "codigo python",
    "traduce",
    "capital de francia",
    "quien gano",
    "poema",
)
OFFENSIVE = ("pendejo", "idiota", "estupido", "imbecil", "puta", "chinga", "cabron", "mierda", "maldito bot")
OVERRIDE = (
    "ignora las instrucciones",
    "ignora tus instrucciones",
    "olvida tus reglas",
    "olvida las reglas",
    "ignore previous",
    "ignore all previous",
    "system prompt",
    "actua como",
    "modo desarrollador",
    "jailbreak",
    "sin restricciones",
    "revela tu prompt",
    "muestra tu prompt",
)
DESTRUCTIVE = (
    "borra ",
    "borrar ",
    "elimina los datos",
    "eliminar los datos",
    "drop table",
    "delete from",
    "truncate",
    "modifica los datos",
    "cambia los datos",
    "alterar los datos",
    "update incidents",
    "rm -rf",
)
_WORD = re.compile(r"[a-z0-9ñ]+")
# "elimina la tabla de homicidios", "borra los registros": a destructive verb aimed at the data.
_DESTRUCTIVE_RE = re.compile(
    r"\b(borra\w*|elimin\w*|modific\w*|alter\w*|trunca\w*|destru\w*|sobrescrib\w*|reemplaza\w*|vacia\w*)\b"
    r".{0,40}\b(tabla|tablas|datos|registros|base|bases|informacion|archivo|archivos|cifras|bitacora|auditoria)\b"
)
# Methodology questions: a question word near a methodology noun.
_NOT_COMPARABLE = re.compile(
    r"\b(?:no\s+(?:es|son|sea|sean)\s+comparables?|no\s+se\s+(?:puede|pueden)\s+comparar|por\s*que\b.{0,60}\bcompar\w*)"
)
RNID_WHY = "¿Por qué las cifras de 2026 (metodología RNID) no son comparables con las de años anteriores?"
_FIGURE_ASKED = re.compile(
    r"\b(?:es[ea]|este|esta|aquel) (?:ano|mes|periodo)\b|\btasas? (?:nacional|estatal|municipal)\b"
)
_METHOD_RE = re.compile(
    r"\b(que|como|cual|cuales|por que|donde)\b.{0,40}\b(poblacion|tasa|tasas|fuente|fuentes|metodologia|cobertura|"
    r"significa|definicion|calcul\w*|vienen|provienen|publica\w*|cuenta|cuentan|carpetas?|cifra negra|rnid|sesnsp)\b"
)


def moderate(normalized: str, original: str = "") -> Moderation:
    """Identity requests, offensive text, instruction overrides and destructive requests."""
    return Moderation(
        pii_request=asks_identity(normalized, original),
        offensive=has_phrase(f" {normalized} ", [f" {w}" for w in OFFENSIVE]),
        instruction_override=has_phrase(normalized, OVERRIDE),
        destructive=has_phrase(normalized, DESTRUCTIVE) or bool(_DESTRUCTIVE_RE.search(normalized)),
    )


def classify(normalized: str, has_domain_signal: bool) -> str:
    """social | support | definition | irrelevant | relevant."""
    stripped = normalized.strip(" ¿?¡!.,")
    polite = spelled_out(stripped)  # «ola buenas», «grasias»: courtesy as people type it
    words = _WORD.findall(polite)
    if polite in SOCIAL or (len(words) <= 4 and has_phrase(polite, SOCIAL) and not has_domain_signal):
        return "social"
    if "gracias" in words and not has_domain_signal and len(words) <= 14:
        return "social"
    if courtesy_only(polite, words, has_domain_signal):
        return "social"  # «Buenos días. Agradezco de antemano su apoyo.»: courtesy only, however long
    if has_phrase(stripped, SUPPORT) and not has_domain_signal:
        return "support"
    numeric = re.search(r"\b(cuant[oa]s|20[12]\d|top|ranking|mas|menos|posicion|puesto|(que|en que) lugar)\b", stripped)
    # «¿cuál fue la tasa nacional de feminicidio ese año?»: a figure of a place or a period, not what a rate is
    figure = _FIGURE_ASKED.search(stripped)
    if (has_phrase(f"{stripped} ", DEFINITION) or (_METHOD_RE.search(stripped) and not figure)) and not numeric:
        return "definition"
    if has_phrase(stripped, OFF_TOPIC) or not has_domain_signal:
        return "irrelevant"
    return "relevant"


def on_topic_without_slots(category: str, normalized: str) -> bool:
    """A question the keyword rules left off topic or as help that is about crime here: a colonia («below the
    municipality»), a vague one («¿cómo está la violencia?») or «¿qué te puedo preguntar?» (both get a menu)."""
    if category == "irrelevant" and asks_what_to_ask(normalized):
        return True
    if has_phrase(normalized, OFF_TOPIC):
        return False
    if category == "irrelevant":
        return below_municipality(normalized) or is_vague(normalized)
    return category == "support" and (is_vague_crime_talk(normalized) or asks_what_to_ask(normalized))


def cache_key(day: str, dataset_version: str | None, question: str, planner: str, domain_hint: str) -> str:
    """Same-day cache key: normalized question + dataset_version (+ planner and hint)."""
    blob = "|".join([day, dataset_version or "", normalize_text(question).strip(" ¿?¡!."), planner, domain_hint])
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class SameDayCache:
    """A small per-process cache of composed turns, valid for one day and one dataset version."""

    max_items: int = 256

    def __post_init__(self) -> None:
        self._items: dict[str, dict] = {}

    def get(self, key: str) -> dict | None:
        """A cached turn, or None."""
        return self._items.get(key)

    def put(self, key: str, turn: dict) -> None:
        """Remember a turn (oldest evicted first)."""
        if len(self._items) >= self.max_items:
            self._items.pop(next(iter(self._items)))
        self._items[key] = turn


def build_intake(
    question: str, rewritten: str, is_follow_up: bool, category: str, moderation: Moderation, key: str, hit: bool
) -> Intake:
    """The Intake contract of one turn."""
    return Intake(
        original_question=question[:4000],
        rewritten_question=rewritten[:4000],
        is_follow_up=is_follow_up,
        category=category,
        moderation=moderation,
        cache_key=key,
        cache_hit=hit,
    )


# -- the stage --------------------------------------------------------------------------------


_AND_TERM = re.compile(r"^[¿¡\s]*(?:y|e|tambien|ahora|y\s+que\s+tal|y\s+que\s+es|y\s+que\s+significa)\s")


def continues_definition(conv: Conversation, normalized: str, u) -> bool:
    """«¿y culposo?» right after «¿qué significa homicidio doloso?»: the next term, defined too (no database)."""
    from core.ask.glossary import terms_in

    last = conv.turns[-1] if conv.turns else None
    if getattr(getattr(last, "intake", None), "category", None) != "definition":
        return False
    short = len(normalized.split()) <= 6 and bool(_AND_TERM.match(normalized))
    named = bool(terms_in(normalized)) or bool(u is not None and u.crimes)  # «¿y la simple?»: a crime to define
    return short and named and not (u is not None and (u.places or u.window))


# «sí», «sí, por favor», «dale»: a yes to a question back that offered one thing
_YES = re.compile(
    r"^(?:(?:si|claro|va|dale|ok|okay|sale|adelante|de acuerdo|esta bien|por favor|porfa|orale|andale|correcto|"
    r"exacto|eso|ese|esa|perfecto|bueno|gracias)[\s,.!¡]*)+$"
)


def accepted_option(conv: Conversation, normalized: str) -> str | None:
    """A yes to a question back with one option («¿Quieres la cifra de todo robo?»): that option, as if chosen."""
    last = conv.turns[-1] if conv.turns else None
    options = list(getattr(getattr(last, "answer", None), "clarifying_options", None) or [])
    if len(options) != 1 or getattr(last, "status", None) != "clarify":
        return None
    if len(getattr(last, "clarify", None) or []) > 1:
        return None  # it asked two things at once («no tengo Morelia…; ¿doloso o culposo?»): «ok» chooses neither
    words = set(re.findall(r"\w+", normalized))
    if "gracias" in words and words <= {"ok", "okay", "gracias", "muchas", "mil", "bueno", "va"}:
        return None  # «ok gracias» closes the talk; «sí, gracias» takes the offer
    return options[0] if _YES.match(normalized.strip()) else None


def _complete(u) -> bool:
    """Whether an understanding names its crime, its period and its place (a municipality, the state or a state of
    the national tables): an offered question accepted with a yes stands alone."""
    from core.ask.understand.national import is_national

    return bool(u is not None and u.crimes and u.window and (u.places or u.whole_state or is_national(u)))


def stage(turn: Turn, ctx: StageContext, conv: Conversation) -> None:
    """Rewrite follow-ups, classify, moderate, key the cache."""
    from core.ask.understand.anaphora import home_place
    from core.ask.understand.followup import describe, is_follow_up, merge_follow_up
    from core.ask.understand.national_carry import back_to_talk_state, capital_city
    from core.ask.understand.parse import understand
    from core.ask.understand.series_end import SeriesEnds, anchored_follow_up, home_past_state_file
    from core.ask.understand.shapes import yearly_series
    from core.ask.understand.talkedtime import answered_window, earlier_years
    from core.ask.understand.timerelative import months_of_that_year, that_period

    question = as_spanish((turn.question or "").strip()[:2000])  # «how many homicides…»: read as Spanish
    accepted = accepted_option(conv, normalize_text(question))
    question = accepted or question
    normalized = normalize_text(question)
    moderation = moderate(normalized, question)
    meta = ctx.metadata
    lex = ctx.lexicon if meta else None
    # relative periods count from the series' own last published month: the crime's, the municipality's own file's,
    # a national series'
    ends = SeriesEnds(
        (meta or {}).get("coverage"),
        (meta or {}).get("coverage_municipal"),
        ctx.catalog.series_ends if lex is not None else None,
    )
    u = understand(question, lex, ctx.anchor, ctx.min_date, ends) if lex is not None else None
    # a definition asks what words mean, so it is never a follow-up that inherits the last question's slots
    # «ok gracias!!» after a menu or an answer is courtesy, never a reply that inherits the last question's slots
    courtesy = u is not None and not (u.crimes or u.places or u.window) and classify(normalized, False) == "social"
    courtesy = courtesy or thanks_only(normalized, u) or introduces_only(normalized, u) or complains_only(normalized, u)
    leisure = off_topic(normalized, u)  # «¿y dónde como rico en León?»: no crime, never a follow-up
    follow = bool(
        u is not None
        and not courtesy
        and not leisure
        and conv.last_understanding is not None
        and is_follow_up(question, u, conv)
    )
    if accepted and _complete(u):
        follow = False  # «sí» to «¿Cuántos homicidios dolosos hubo en Jalisco en 2024?»: that question, not a merge
    # in a conversation a bare term («¿y la tasa?», «¿por modalidad?») continues it; only a framed question defines
    framed_only = follow or conv.last_understanding is not None
    definition = asks_definition(normalized, u, framed_only=framed_only) and not below_municipality(normalized)
    definition = definition or continues_definition(conv, normalized, u)
    # «¿por qué esa cifra no es comparable con la de años anteriores?» after a 2026 figure: the methodology's change
    rnid_why = bool(
        conv.last_understanding is not None
        and "national:rnid" in conv.last_understanding.signals
        and _NOT_COMPARABLE.search(normalized)
    )
    definition = definition or rnid_why
    follow = follow and not definition
    previous = conv.last_understanding
    if not follow and not definition and u is not None and previous is not None and previous.places:
        # a reply to the menu about a place («la tendencia anual de homicidios dolosos») keeps that place
        unplaced = not (u.places or u.whole_state or u.generic_place)
        follow = (
            unplaced and not courtesy and not leisure and answers_menu(conv.turns[-1] if conv.turns else None, question)
        )
    talked_about = (previous.window or answered_window(conv)) if previous is not None else None
    if (
        (not follow or months_of_that_year(normalized))  # «del 1 de marzo al 31 de mayo de ese año»: those months
        and u is not None
        and talked_about
        and ("time:previous_window" in u.signals or "time:month_of_that_year" in u.signals)
    ):
        # «otra cosa, violencia familiar en Uriangato ese año»: a new question whose period is the previous turn's
        # (the one it answered when it said none: «… tentativas de homicidio en todo el trimestre» is 2026's first)
        explicit = that_period(normalized, talked_about)
        u = understand(explicit, lex, ctx.anchor, ctx.min_date, ends) if explicit else u
    if not follow and u is not None and u.window is None and (years := earlier_years(question, conv)):
        # «y homicidios culposos en Pénjamo en esos mismos tres años»: a new question over the talk's years
        u = replace(u, window=years, kind="annual_series" if yearly_series(u.kind, years, normalized) else u.kind)
    u = home_place(u, conv) if u is not None else None  # «¿y en mi municipio…?»: the one the asker said was theirs
    u = capital_city(u, conv) if u is not None else None  # «la capital» in a talk about the Ciudad de México
    u = back_to_talk_state(u, conv) if u is not None else None  # «volviendo al estado» in a talk about Michoacán
    rewritten = RNID_WHY if rnid_why else question
    if follow:
        u = merge_follow_up(u, conv.last_understanding, lex, conv)
        u = anchored_follow_up(u, lex, ctx.anchor, ctx.min_date, ends)  # «¿y en lo que va del año?»: its series
        u = home_past_state_file(u, ends)  # «y los mismos tres meses de 2025 en Guanajuato» after the country
        rewritten = describe(u, lex)
    # Without data there is no lexicon to understand with: treat the question as on-topic so the
    # answer is "no hay datos publicados", not an off-topic refusal.
    has_signal = lex is None or bool(
        u
        and (
            u.crimes
            or u.places
            or u.window
            or u.generic_place
            or u.kind != "unknown"
            or any(s.startswith("national:") for s in u.signals)  # «portación de armas en el país»
        )
    )
    social = thanks_only(normalized, u) or introduces_only(normalized, u) or complains_only(normalized, u)
    category = "relevant" if follow else "social" if social else classify(normalized, has_signal)
    if category == "irrelevant" and u is not None and "delito" in normalized:
        category = "relevant"
    if category == "relevant" and leisure and not follow:
        category = "irrelevant"  # «el mejor lugar de tacos en León»: a place, but no crime asked
    if definition:
        category = "definition"
    elif on_topic_without_slots(category, normalized) and not leisure:
        category = "relevant"  # answered with where the data stop, or with a menu
    key = cache_key(
        ctx.clock.now().strftime("%Y-%m-%d"),
        meta["dataset_version"] if meta else None,
        rewritten,
        turn.planner_requested,
        turn.domain_hint,
    )
    hit = ctx.use_cache and ctx.cache.get(key) is not None
    turn.understanding = u
    turn.intake = build_intake(question, rewritten, follow, category, moderation, key, hit)
