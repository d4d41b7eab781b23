"""Courtesy: greetings, thanks, sign-offs and self-introductions, which ask for no figure however long they are.

``core.ask.intake`` classifies a message as social with these; the reply is ``core.ask.wording``'s.
"""

from __future__ import annotations

import re

from core.ask.wording import COMPLAINT, FAREWELL, THANKS, spelled_out

_WORD = re.compile(r"[a-z0-9ñ]+")
SOCIAL = (
    "hola",
    "buenos dias",
    "buenas tardes",
    "buenas noches",
    "gracias",
    "muchas gracias",
    "adios",
    "hasta luego",
    "que tal",
    "como estas",
    "saludos",
    "ok gracias",
    "perfecto gracias",
    "excelente",
    "que onda",
    "que hubo",
    "quiubo",
    "buen dia",
    "que hay",
    "como te va",
    "mil gracias",
    "te agradezco",
    "nos vemos",
)
# Words of greetings, thanks and sign-offs: a message made only of them is social, whatever its length.
_COURTESY = frozenset(
    re.findall(
        r"\w+",
        "hola buen buenos buenas dia dias tarde tardes noche noches gracias agradezco agradecemos agradeceria antemano "
        "apoyo ayuda atencion saludos saludo cordial cordiales cordialmente atentamente quedo quedamos atento atenta "
        "atentos sus ordenes su tu de la el los las muchas muchisimas mil excelente perfecto ok que tal muy amable "
        "gentil un una y por le les te me mucho estimado estimada bendiciones feliz bonito lindo "
        "pregunta preguntita duda dudita consulta rapida rapido breve tengo hago otra "
        # a radio host's or a memo's courtesy («Aquí desde la cabina la saludamos», «ha sido de gran ayuda»)
        "casandra aqui desde cabina programa radio saludamos saludan saluda informacion ha sido gran util nos con gusto "
        # acknowledgments and sign-offs («ok», «va», «bueno ya, adiós», «ya estuvo, hasta mañana», «muy amables»)
        "ok va sale vale listo entendido entiendo genial chido orale sobres ya bueno ah veo acuerdo pues amables adios "
        "hasta luego pronto manana vemos despido "
        # how a memo addresses a person («Buenos días, licenciada. Quedo atento.»)
        "licenciado licenciada lic licenciados maestro maestra mtro mtra ingeniero ingeniera ing doctor doctora dr dra "
        "senor senora senorita don dona joven",
    )
)
# The words that make a message courtesy (the rest of _COURTESY only glues them: «y», «por», «día», «la»)
_COURTESY_CORE = frozenset(
    re.findall(
        r"\w+",
        "hola buen buenos buenas gracias agradezco agradecemos agradeceria saludos saludo saludamos saludan saluda "
        "cordial cordiales cordialmente atentamente bendiciones excelente perfecto ok amable gentil estimado estimada "
        "gusto ok va sale vale listo entendido entiendo genial chido orale sobres amables adios despido",
    )
)
# «soy nueva en el área de prevención del municipio de Cortazar», «me llamo Ana y trabajo en la fiscalía»: who is
# writing, said before (or instead of) a question
_INTRODUCTION = re.compile(
    r"\b(?:soy|somos|me llamo|mi nombre es|trabajo|trabajamos|le escribe|les escribe|te escribe|escribo|colaboro)\b"
)
# what makes a message a question or a request, whatever else it says
_ASKING = re.compile(
    r"\b(?:cuant[oa]s?|cual(?:es)?|que|donde|como|cuando|dime|dame|damelos|muestr\w*|necesito|quiero|quisiera|"
    r"me (?:puedes|podrias|puede|podria)|podrias|ocupo|busco|compar\w*|ranking|top)\b"
)


def has_phrase(text: str, phrases) -> bool:
    """Whether any of ``phrases`` occurs in ``text`` (accent-free, lowercase)."""
    return any(p in text for p in phrases)


def courtesy_only(stripped: str, words: list[str], has_domain_signal: bool) -> bool:
    """Whether a message is made only of courtesy words (its crime or place words, if any, only greet)."""
    greeting = has_phrase(stripped, SOCIAL)  # «Buenas tardes, Casandra, aquí desde la cabina…»: «aquí» points nowhere
    courteous = any(w in _COURTESY_CORE for w in words)  # «¿y por día?» is made of courtesy's glue words only
    return bool(words) and courteous and (not has_domain_signal or greeting) and all(w in _COURTESY for w in words)


def thanks_only(normalized: str, u) -> bool:
    """A thank-you or a sign-off that names no crime or place («muchas gracias, con eso es todo por hoy», «bye», «soy
    reportera…, gracias x la ayuda de ayer»): courtesy, whatever period words («hoy», «ayer») it has."""
    text = spelled_out(normalized)  # «grasias!!», «bueno ya, bye»
    words = _WORD.findall(text)
    named = u is not None and bool(u.crimes or u.places or any(s.startswith("national:") for s in u.signals))
    # «Muy amables, es todo por hoy.»: thanks or a sign-off, its «hoy» no period asked
    polite = THANKS & set(words) or FAREWELL.search(text) or {"amable", "amables"} & set(words)
    return bool(polite) and len(words) <= 16 and not named and "?" not in normalized


def introduces_only(normalized: str, u) -> bool:
    """A greeting with who is writing and nothing asked («hola buen día, soy nueva en el área de prevención del
    municipio de Cortazar»): courtesy, even when it names the asker's municipality."""
    stripped = normalized.strip(" ¿?¡!.,")
    asked = "?" in normalized or _ASKING.search(stripped)
    slots = u is not None and bool(u.crimes or u.window or any(s.startswith("national:") for s in u.signals))
    return has_phrase(stripped, SOCIAL) and bool(_INTRODUCTION.search(stripped)) and not asked and not slots


def complains_only(normalized: str, u) -> bool:
    """A complaint about Casandra itself with nothing asked («pinche programa no sirves para nada»): courtesy, answered
    with an apology and how to ask, never the out-of-scope refusal."""
    slots = u is not None and bool(u.crimes or u.places or u.window)
    return bool(COMPLAINT.search(normalized)) and not slots and "?" not in normalized
