"""Whether a question continues the conversation (docs/contracts/004_chatbot_graph.md §2.1): the cue words of a
follow-up («¿y en Celaya?», «lo mismo para…», «mismo dato para Jalisco»), a correction («no, me refiero a dolosos»),
a reply to the assistant's own question, and the cues the merge reads again (``followup.merge_follow_up``).
"""

from __future__ import annotations

import re

from core.ask.understand import Understanding
from core.ask.understand.anaphora import ANY_METHOD, THOSE_N, TOGETHER, picked_option
from core.ask.understand.tokens import tokenize

# «ok, ¿y homicidios dolosos?», «bueno, y en Celaya»: an acknowledgement before the follow-up's own lead word
_ACK = (
    r"^(?:(?:ok|okay|oki|va|vale|bueno|sale|ya|oye|ah|aja|perfecto|gracias|excelente|muy\s+bien|de\s+acuerdo)\s*,?\s*)*"
)
_LEADS = re.compile(_ACK + r"(?:y|e|ahora|tambien|pero|solo|nomas|nada\s+mas|mejor|entonces)\b")
# «ok, narco en 2024?», «bueno, feminicidios 2022»: an acknowledgement, then the talk's next short question
_ACKNOWLEDGED = re.compile(r"^(?:ok|okay|oki|va|vale|bueno|sale|oye|perfecto|muy\s+bien|de\s+acuerdo)\s*,")
# A memo's follow-up: «Asimismo, …», «Favor de indicar ahora …», «Solicito también …»
_FORMAL_LEAD = re.compile(
    _ACK + r"(?:asimismo|igualmente|de\s+igual\s+(?:forma|manera)|adicionalmente|ademas|favor\s+de\s+\w+"
    r"|(?:le\s+)?solicito(?:\s+(?:tambien|ademas|ahora))?|se\s+solicita|podria\s+(?:indicar|proporcionar))\b"
)
# Words that point back at the previous answer: «el mismo indicador», «la misma serie», «cuántos de ellos»
_ANAPHORA = re.compile(
    r"\b(?:(?:el|ese|este)\s+mismo\s+(?:indicador|dato|calculo|ejercicio|analisis|reporte|desglose|numero|conteo)"
    r"|(?:la|esa|esta)\s+misma\s+(?:serie|consulta|cifra|tabla|grafica|informacion|tasa|comparacion|pregunta)"
    r"|el\s+(?:dato|valor|indicador|numero)\s+equivalente|el\s+equivalente"
    r"|(?:de|entre)\s+(?:tod[oa]s\s+)?(?:ellos|ellas|esos|esas|estos|estas)|(?:ese|este)\s+mismo\s+(?:periodo|ano|mes|semestre|trimestre)"
    r"|(?:en|de|con|sobre|para)\s+eso|(?:ese|este)\s+(?:mismo\s+)?delito)\b"  # «¿en qué lugar quedó … en eso?»
)
_MAX_FORMAL_TOKENS = 16
_MAX_LONG_TOKENS = 30  # a question with no crime named, in a talk about one
SAME_THING = re.compile(
    r"\b(?:el\s+mismo\s+(?:indicador|dato|calculo|ejercicio|analisis|reporte|desglose)|(?:la\s+)?misma\s+(?:serie|consulta|tabla"
    r"|grafica|comparacion)|el\s+(?:dato|valor|indicador)\s+equivalente"
    # «lo mismo para León» (not «… contra lo mismo de 2024»: the same period, a comparison's base)
    r"|(?<!contra\s)(?<!vs\s)(?<!que\s)lo\s+mismo(?!\s+(?:de|del)\s+(?:\d|ano)))\b"
)  # a memo's follow-up is wordier than a chat one, never a whole new question
_ALWAYS = re.compile(
    r"^(?:y\s+)?(?:lo\s+mismo|igual\s+(?:pero|para|en|con)|que\s+tal|y\s+si|que\s+hay\s+de|y\s+que\s+hay"
    r"|(?:el\s+|la\s+)?mism[oa]\s+(?:dato|cifra|indicador|consulta|numero|calculo|pregunta|tabla)"  # «mismo dato para X»
    r"|cambia(?:lo|la|los|las)?\s+(?:a|por|para)"  # «cámbialo a extorsión, estado, mismo periodo»
    r"|(?:ahora\s+)?compar[ae](?:lo|la|los|las)\b"  # «compáralo con el total del país: ¿qué porcentaje…?»
    r"|(?:regresa|regresate|vuelve|volvamos|regresemos)\s+a"  # «regresa a León, mismo periodo»
    r"|(?:me\s+|nos\s+)?(?:lo|la|los|las)\s+(?:puedes|podrias|puede|podria)\s+(?:dar|pasar|poner|desglosar|separar|mostrar)"
    r"|\w+(?:a|e)(?:me|nos)(?:lo|la|los|las)\b"  # «¿me lo puedes dar por municipio?», «dámelo por mes», «pásamela»
    r"|repit\w*|(?:dame|dime|pasame)\s+(?:nada\s+mas|nomas|solo|solamente)\s+(?:el|la|los|las)\s+de)\b"  # «repíteme…»
)
_FRAGMENT = re.compile(r"^(?:en|para|con|sin|durante|desde|de|del|por|a)\b")
_MAX_FOLLOW_UP_TOKENS = 10  # a long sentence that starts with "y" is a new question, not a continuation
# Corrections replace a slot of the previous turn: "no, me refiero a dolosos", "perdón, quise decir Celaya".
_SORRY = (
    r"(?:no|perdon|perdona|disculpa|disculpe|ups|error(?:\s+mio)?|corrijo|correccion|mi\s+error|oops|ay|ah"
    r"|me\s+equivoque(?:\s+de\s+(?:municipio|lugar|ciudad|delito|ano|periodo|fecha))?|fe\s+de\s+erratas|rectifico"
    r"|espera|esperate|aguanta|momento|un\s+momento|chin|rayos)"
)
_CORRECTION = re.compile(
    rf"^(?:{_SORRY}\s*,?\s*)*"
    r"(?:(?:me|se)\s+refier[eo]\s+(?:unicamente\s+|solo\s+|solamente\s+|nada\s+mas\s+)?a|me\s+referia\s+a"
    r"|quise\s+decir|queria\s+decir|quiero\s+decir|mas\s+bien|mejor"
    r"|en\s+realidad|era|sino)\b"
    rf"|^(?:{_SORRY}\s*,?\s*)*{_SORRY}\s*(?:,|$)"
    r"|^(?:corrijo|me\s+equivoque)\b"
    r"|\b(?:quise|queria)\s+decir$|\bme\s+referia$|\bera\s+lo\s+que\s+queria$"  # «abuso sexual quise decir»
)
# «perdón: abuso sexual» (the colon is gone once tokenized): an apology opening a short message corrects a slot
_SORRY_FIRST = re.compile(
    r"^(?:perdon|perdona|disculpa|disculpe|ups|oops|corrijo|correccion|chin|rayos|espera|error\s+mio|fe\s+de\s+erratas"
    r"|rectifico)\b"
)
# «Salamanca, no Salvatierra», «No, Celaya no: Irapuato», «no era Celaya sino Salamanca»: a place said with «no» is
# the one taken back, never one more place
NOT_BEFORE = r"\bno\s+(?:era\s+|es\s+|fue\s+|en\s+|de\s+|para\s+)?(?:el\s+|la\s+)?"
NOT_AFTER = r"(?:\s*,)?\s+no\b(?!\s+(?:registr|tuv|hub|hay|report|present|se\s)\w*)"
_MAX_CORRECTION_TOKENS = 6
ADD_PLACE = re.compile(
    r"^(?:(?:y|ahora|ok|bueno|va|pues|entonces)\s+)*"
    r"(?:agrega|agregale|anade|anadele|suma|incluye|incluyele|mete|pon\s+tambien|ponlo\s+junto|ponla\s+junto"
    # «ponnos lado a lado con Salamanca», «compáranos con Celaya»: «nos» is the place talked about
    r"|pon(?:nos|me|lo|la|los|las)?\s+(?:lado\s+a\s+lado|junto|juntos|juntas)\s+(?:con|de|a)|compar(?:anos|enos|ame|eme)"
    r"|junto\s+a|al\s+lado\s+de|compar(?:alo|ala|alos|alas|a|ar|ado|ada|amos)?\s+(?:con|contra)|contra|vs|versus"
    r"|frente\s+a|(?:y\s+)?(?:como\s+)?(?:esta|va|queda|sale)\s+(?:contra|frente\s+a))\b"
)
# A place added with «compáralo con Irapuato», «¿y contra Irapuato?» is a comparison of places, not of periods.
VERSUS = re.compile(r"\b(?:compar\w*|contra|vs|versus|frente)\b")
# "¿esa tasa está por encima del promedio estatal?", "¿y cómo se compara con el total del estado?": the state is
# added next to the previous place, not put in its place
WITH_STATE = re.compile(
    r"\b(?:los\s+(?:dos|2|tres|3)|ambos|ambas)\s+y\s+(?:el\s+)?(?:estado|total\s+estatal)\b|"  # «los dos y el estado»
    r"\b(?:arriba|abajo|encima|debajo)\s+(?:o\s+\w+\s+)?(?:del|de\s+la)\s+(?:estado|estatal|promedio|media|tasa)\b|"
    r"\b(?:promedio|media|tasa)\s+(?:estatal|del\s+estado)\b|\b(?:con|contra|frente\s+al?|que|vs|versus|respecto\s+al?)\s+"
    r"(?:el\s+|la\s+)?(?:total\s+del\s+|resto\s+del\s+|todo\s+el\s+|promedio\s+del\s+)?estado\b"
)
# "¿cuáles son?", "¿dónde?", "¿y cuántos?": a bare interrogative only continues the previous question
_BARE_QUESTION = re.compile(
    r"^(?:y\s+)?(?:cuales|cual|donde|cuantos|cuantas|que\s+municipios|en\s+cuales)(?:\s+son|\s+fueron)?$"
)
ORDINAL_ALONE = re.compile(
    rf"^(?:{_SORRY}\s*,?\s*)*(?:y\s+|mejor\s+|era\s+)?(?:en\s+|para\s+|durante\s+|de\s+)?(?:(?:el|la|del)\s+)?"
    r"(primer|primero|segundo|tercer|tercero|cuarto|quinto|sexto)"
    r"(?:\s+(?:trimestre|semestre|bimestre|cuatrimestre))?$"
)
# "ambos", "los dos" (tokens write "2"): the reply that asks for every subtype of a bare tipo, summed.
BOTH = re.compile(r"\b(?:ambos|ambas|los\s+2|las\s+2|juntos|juntas|todos|todas|la\s+suma|sumados|sumalos)\b")


EXTREME_UNITS = ("extreme:anio", "extreme:trimestre", "extreme:semestre")
SHAPE_SETTINGS = frozenset({"extreme", "presence", "average", "vs_state", "order"})


def _pending(conversation) -> bool:
    """Whether the assistant's last turn asked the person something (a clarifying question)."""
    turns = getattr(conversation, "turns", None) or []
    return bool(turns) and getattr(turns[-1], "status", None) == "clarify"


def _nearest_offered(conversation) -> bool:
    """Whether the last turn said an everyday word is no SESNSP crime and named the nearest one it records
    («levantones» → secuestro): «secuestro pues» takes that offer for the same place and period."""
    turns = getattr(conversation, "turns", None) or []
    last = turns[-1] if turns else None
    u = getattr(last, "understanding", None)
    return getattr(last, "status", None) == "refused" and bool(
        u and any(c.delito.startswith("no_sesnsp:") for c in u.crimes)
    )


def _modifies(u: Understanding) -> bool:
    """A slot that only makes sense on top of another question: a modalidad, a period, a qualifier, a measure."""
    cues = ("crime:qualifier:", "medida:tasa", "medida:conteo", "time:prev_of_previous", "time:same_period")
    return bool(u.methods or u.window or u.compare_window or any(s.startswith(cues) for s in u.signals))


def is_follow_up(question: str, current: Understanding | None = None, conversation=None) -> bool:
    """Whether the question only makes sense with the previous turn ("¿y en 2022?", "lo mismo para León").

    With the question's understanding and the conversation it also sees corrections ("no, me refiero a
    dolosos"), a bare reply to the assistant's own question ("Celaya") and a modifier with no crime
    ("¿cuántos fueron con arma de fuego?")."""
    tokens = tokenize(question or "")
    if not len(tokens):
        return False
    text = tokens.text
    n_words = sum(w.isalnum() for w in tokens.words)  # «¿y qué parte fue con arma de fuego, en porcentaje?»: commas
    if _ALWAYS.match(text) or _CORRECTION.match(text):
        return True
    if _SORRY_FIRST.match(text) and n_words <= _MAX_CORRECTION_TOKENS:
        return True
    head = re.split(r"[?(]", question or "", maxsplit=1)[0]
    if head.strip() and head != question and len(tokenize(head).words) <= 5 and _LEADS.match(tokenize(head).text):
        return True  # «¿y en Salamanca? (si no se pueden separar, dame el total de lesiones)»: a short follow-up first
    if _LEADS.match(text) and n_words <= _MAX_FOLLOW_UP_TOKENS:
        return True
    if _ANAPHORA.search(text) and n_words <= _MAX_FORMAL_TOKENS:  # «¿y cuántas por ese delito tuvo el Edomex?»
        return True
    if THOSE_N.search(text) and current is not None and not current.crimes and not current.places:
        return True  # «de esos tres cuál tuvo la tasa más alta en 2024? pásame las tasas de los 3»: however long
    if _LEADS.match(text) and n_words <= _MAX_FORMAL_TOKENS and current is not None and not current.crimes:
        return not re.search(r"\bdelitos?\b", text)  # «¿y cuál ha sido el peor mes de Silao este año?»: no crime
    if ANY_METHOD.search(text) and n_words <= _MAX_FOLLOW_UP_TOKENS:  # «quita el filtro del arma»
        return True
    if _LEADS.match(text) and n_words <= _MAX_FORMAL_TOKENS and current is not None and not _names_place(current):
        return True  # «y violaciones en 2021, que es el dato que teníamos pendiente»: the place talked about
    if _ACKNOWLEDGED.match(text) and n_words <= 8 and current is not None and not _names_place(current):
        return True  # «ok, narco en 2024?»: the next question of the same talk, about its place
    if _FORMAL_LEAD.match(text) and n_words <= _MAX_FORMAL_TOKENS:
        # «Asimismo, los homicidios no intencionales del mismo año»: a memo's next line keeps what it does not say
        complete = current is not None and current.crimes and current.window and (current.places or current.whole_state)
        if not complete:
            return True
    if bool(_FRAGMENT.match(text)) and n_words <= 5:  # "¿en Celaya?", "¿con arma blanca?"
        return True
    if current is None:
        return False
    if _pending(conversation) and picked_option(question, getattr(conversation, "last_understanding", None)):
        return True  # «el grande» after «¿Apaseo el Alto o Apaseo el Grande?»
    if _nearest_offered(conversation) and current.crimes and not _names_place(current) and n_words <= 8:
        return True  # «secuestro pues» after «no hay datos de levantones; lo más cercano es el secuestro»
    has_slot = bool(current.crimes or current.places or _modifies(current) or BOTH.search(text))
    if _pending(conversation) and has_slot and n_words <= 8:  # "Celaya", "dolosos", "los dos juntos, …"
        return True
    if TOGETHER.search(text) and not current.crimes and n_words <= 20:  # «pon los dos municipios lado a lado con…»
        return True
    if "time:previous_window" in current.signals and n_words <= _MAX_FOLLOW_UP_TOKENS and current.crimes:
        return True  # «tráfico de menores, mismo periodo, todo el país»: the talk goes on, with its measure
    # «dolosos» alone names a crime only when nothing came before to qualify
    named_crime = bool(current.crimes) and "crime:qualifier_alone" not in current.signals
    if named_crime:
        return _same_crime_again(current, conversation)
    if n_words > _MAX_FOLLOW_UP_TOKENS:  # «regresando a 2024, dámelo como tasa por cada cien mil habitantes»
        # «¿En qué mes de 2025, hasta donde haya datos publicados, se registró el máximo en el estado?»: no crime
        # named and a shape or a period asked keeps the talk's crime, however long (never «¿sobre qué delito?»)
        slots = _modifies(current) or explicit_kind(current)
        return n_words <= _MAX_LONG_TOKENS and slots and not re.search(r"\b(?:delitos?|crimen(?:es)?)\b", text)
    if ADD_PLACE.match(text) or ORDINAL_ALONE.match(text) or _BARE_QUESTION.match(text) or TOGETHER.search(text):
        return True
    if BOTH.search(text) and n_words <= 4:  # «súmalos», «los dos juntos», «ambos»: the last two things said
        return True
    shape_only = (
        explicit_kind(current) and n_words <= _MAX_FOLLOW_UP_TOKENS
    )  # "¿cuántos por día?", "¿cómo se reparten por modalidad?"
    # «¿y en Celaya?», «el municipio de guanajuato, la capital»: a place alone, said with a few words around it
    return _modifies(current) or shape_only or (bool(current.places) and n_words <= (4 if current.window else 7))


def _same_crime_again(current: Understanding, conversation) -> bool:
    """«¿cuál fue el mes con más carpetas de vf en 2022?» in a talk about San Luis de la Paz's violencia familiar: the
    crime talked about said again, with no place (or no period), goes on about the talk's place and period (a new
    crime starts anew)."""
    before = getattr(conversation, "last_understanding", None)
    if before is None or {c.delito for c in current.crimes} != {c.delito for c in before.crimes}:
        return False
    if current.group_by_municipio or current.kind == "ranking" or re.search(r"\bmunicipios\b", current.normalized):
        return False  # «¿cuáles fueron los 3 municipios con más…?», «¿cuántos municipios no tuvieron…?»
    turns = getattr(conversation, "turns", None) or []
    if before.methods or not turns or getattr(turns[-1], "status", None) != "ok":
        return False  # «secuestros de 2015 a 2024» after the extorsivos: the whole crime, a question of its own
    municipal = any(p.nivel == "municipio" for p in before.places)
    # «¿cuántas víctimas de feminicidio fueron en Silao?» after feminicidios in 2021: the period talked about too
    return (not _names_place(current) and municipal) or (current.window is None and before.window is not None)


def _names_place(u: Understanding) -> bool:
    """Whether the question names where (a place, the whole state, «en el estado», a place it could not read)."""
    # «de allá», «ahí»: the place talked about, pointed at — no new place
    unread = any(t.kind.startswith("place") and t.kind != "place_deictic" for t in u.unknown_terms)
    return bool(u.places or u.whole_state or u.generic_place or u.ambiguous_places or unread)


def explicit_kind(u: Understanding) -> bool:
    """Whether the question says its own shape (not the single-value fallback)."""
    # "kind:default" is the fallback to a single value; a shape found anyway («el más bajo», «promedio estatal») counts
    return u.kind != "unknown" and ("kind:default" not in u.signals or u.kind != "single_value")


def restated(current: Understanding, previous: Understanding) -> bool:
    """Whether a follow-up names a new crime with its own place and period: a whole question, whose filters
    (modalidad, victims) are not the previous turn's."""
    new_crime = bool(current.crimes) and {c.delito for c in current.crimes} != {c.delito for c in previous.crimes}
    placed = current.places or current.whole_state or any(s.startswith("national:place:") for s in current.signals)
    own_window = current.window is not None and "time:previous_window" not in current.signals  # not «mismo periodo»
    return new_crime and bool(placed) and own_window
