"""Spanish wording: dates, periods, numbers (Mexican format), plurals, lists and crime nouns; the readers of
what a tool's Spanish headline says (crimes, place); and the canned replies of turns that run no database tool
(social, refusals, help). The answer composer and the chart titles share these.
"""

from __future__ import annotations

import re
from datetime import date

from core.text import MONTHS, normalize_text
from core.text import month_words as _date_month_words

REFUSALS = {
    "pii": (
        "No puedo dar nombres, direcciones, teléfonos ni otros datos personales de víctimas o de presuntos "
        "responsables. Casandra trabaja con cifras agregadas por municipio y mes: puedo decirte, por ejemplo, "
        "cuántos casos hubo en un municipio y periodo."
    ),
    "offensive": (
        "Prefiero mantener la conversación respetuosa. ¿Sobre qué delito, lugar o periodo quieres información?"
    ),
    "override": (
        "No puedo cambiar mis reglas ni mostrar instrucciones internas. Puedo responder preguntas sobre la "
        "incidencia delictiva en Guanajuato con los datos publicados por el SESNSP."
    ),
    "destructive": (
        "No puedo modificar ni borrar datos: el motor es de solo lectura. Un responsable de datos puede "
        "cargar archivos nuevos o volver a una versión anterior en «Carga de datos»."
    ),
    "off_topic": (
        "Solo respondo preguntas sobre incidencia delictiva (SESNSP) en Guanajuato y su metodología. "
        "Por ejemplo: «¿Cuántos homicidios dolosos hubo en León en 2024?»."
    ),
    "opinion": (
        "No doy opiniones ni califico a gobiernos o personas: solo cuento lo que el SESNSP publicó. Puedo darte las "
        "cifras para que saques tus conclusiones, por ejemplo la serie anual de un delito en un municipio."
    ),
    "safety": (
        "No puedo decirte si es seguro vivir o ir a un lugar: eso depende de mucho más que las cifras. Puedo darte lo "
        "publicado para que lo valores tú, por ejemplo la tasa de homicidios dolosos o de robo de ese municipio "
        "frente a la del estado."
    ),
    "code": (
        "No comparto ni ejecuto SQL ni código: Casandra solo corre herramientas de su catálogo, con argumentos "
        "revisados. El «Plan de consulta» de cada respuesta muestra qué herramienta se usó, con qué argumentos y sobre "
        "qué versión de los datos; la metodología está en la página Metodología."
    ),
    "culprit": (
        "No identifico culpables ni personas: los datos son conteos de carpetas de investigación por municipio "
        "y mes. Puedo darte cifras, rankings o la evolución de un delito."
    ),
}
SOCIAL_HELLO = (
    "¡Hola! Soy Casandra. Puedo responder preguntas sobre la incidencia delictiva en Guanajuato: "
    "conteos, rankings de municipios, series mes por mes, comparaciones entre periodos, porcentajes, "
    "anomalías y patrones. Por ejemplo: «¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?»."
)
SOCIAL_THANKS = "¡Con gusto! ¿Quieres consultar algo más?"
# thanks in the ways people type it («grax», «thanks!!», «muchas gracias x la ayuda de ayer»)
THANKS = frozenset({"gracias", "grax", "grx", "graciaz", "thanks", "thank", "thx", "agradezco", "agradecemos"})
# «ok», «va», «sale», «entendido»: a message has been read, nothing asked
ACKNOWLEDGMENTS = frozenset(
    {"ok", "va", "sale", "vale", "listo", "entendido", "entiendo", "genial", "chido", "orale", "sobres", "gracias"}
)
SOCIAL_BYE = "¡Hasta luego! Aquí estaré cuando necesites más cifras."
# courtesy words as people type them («ola buenas», «grasias!!», «bueno ya, bye»): read as the word they stand for
SPELLINGS = {
    **dict.fromkeys(("ola", "olaa", "holi", "holis", "hla"), "hola"),
    **dict.fromkeys(("wenas", "guenas", "buenass"), "buenas"),
    **dict.fromkeys(
        ("grasias", "grasia", "gracia", "gracais", "grasis", "grcs", "grs", "graxias", "gracas"), "gracias"
    ),
    **dict.fromkeys(("bye", "byebye", "bay", "bai", "baibai", "chao", "chau", "ciao", "adio", "adioos"), "adios"),
    **dict.fromkeys(("okay", "okey", "oki", "okis", "oka", "okk"), "ok"),
}
_SPELLED = re.compile(rf"\b(?:{'|'.join(SPELLINGS)})\b")
# a sign-off: «adiós», «nos vemos», «es todo por hoy», «eso sería todo», «ya estuvo, hasta mañana»
# («¿es todo el año?» asks)
FAREWELL = re.compile(
    r"\b(?:adios|hasta (?:luego|pronto|manana|la proxima|otra)|nos vemos|me despido|me retiro|cuidate|"
    r"(?:es|seria|sera) todo\b(?! (?:el|la|lo|los|las|junto|eso|esto)\b)|ya (?:estuvo|quedo))\b"
)


def spelled_out(normalized: str) -> str:
    """A normalized message with its misspelled courtesy words written as the word they stand for."""
    return _SPELLED.sub(lambda m: SPELLINGS[m.group(0)], normalized)


# «pinche programa no sirves para nada», «eres bien lenta eh»: a complaint about Casandra itself
COMPLAINT = re.compile(
    r"\bno\s+sirve[sn]?\b|\bno\s+entiende[sn]?\s+nada\b|\beres\s+(?:bien\s+|muy\s+|re\s+)?"
    r"(?:lent[oa]|mal[oa]|inutil|tont[oa]|pesim[oa]|torpe)\b|\bpinche\s+(?:programa|sistema|app|bot|maquina)\b"
    r"|\b(?:que|q)\s+(?:mal|lento|lenta)\s+(?:programa|sistema|servicio|app|bot|eres)\b"
)
SOCIAL_SORRY = (
    "Perdón si no te he sido útil. Funciono mejor con preguntas que digan delito, lugar y periodo, por ejemplo: "
    "«¿Cuántos homicidios dolosos hubo en León en 2024?» o «violencia familiar en Celaya, 2023 contra 2022»."
)


def social_reply(normalized: str) -> str:
    """Greeting, thanks, goodbye or an apology for a complaint."""
    normalized = spelled_out(normalized)
    if COMPLAINT.search(normalized):
        return SOCIAL_SORRY
    if FAREWELL.search(normalized):
        return SOCIAL_BYE
    words = set(re.findall(r"\w+", normalized))
    # «ok», «va», «sale»: an acknowledgment is answered like a thank-you, never with the greeting
    if (THANKS | ACKNOWLEDGMENTS | {"perfecto", "excelente", "amable", "amables"}) & words:
        return SOCIAL_THANKS
    return SOCIAL_HELLO


def support_reply(crime_labels: list[str], max_date: str | None) -> str:
    """How to use Casandra and what data it has."""
    crimes = ", ".join(crime_labels[:20])
    until = f" Los datos llegan hasta {max_date}." if max_date else ""
    return (
        "Escribe tu pregunta en español indicando delito, lugar y periodo, por ejemplo «¿Cuántos feminicidios hubo "
        "en Celaya en 2021?», «¿En qué municipio hubo más secuestros en 2019?» o «Homicidios en León mes por mes en "
        "2024». También puedes pedir tasas por 100 mil habitantes, comparaciones entre años, porcentajes del total, "
        f"anomalías y patrones. Delitos disponibles: {crimes}.{until} Cada respuesta muestra el plan de consulta, "
        "la evidencia y la procedencia de los datos."
    )


def unsupported_crime_reply(label: str, available: list[str]) -> str:
    """A crime SESNSP publishes but the loaded data does not include."""
    return (
        f"Los datos cargados no incluyen {label}. El archivo municipal completo del SESNSP sí lo trae y un "
        f"responsable de datos puede cargarlo. Por ahora puedo responder sobre: {', '.join(available[:20])}."
    )


# -- dates, numbers and lists ------------------------------------------------------------------------------
STATE_NAMES = {"GTO": "Guanajuato"}
_PLURALS = {
    "homicidio doloso": "homicidios dolosos",
    "homicidio culposo": "homicidios culposos",
    "homicidio": "homicidios",
    "feminicidio": "feminicidios",
    "secuestro": "secuestros",
}
_ISO_RANGE = re.compile(r"(\d{4})-(\d{2})(?:-\d{2})?\.\.(\d{4})-(\d{2})(?:-\d{2})?")
_ISO_MONTH = re.compile(r"(?<![\d-])(\d{4})-(\d{2})(?:-(\d{2}))?(?![\d-])")


def _month(iso: str) -> tuple[int, int]:
    d = date.fromisoformat(iso[:10] if len(iso) >= 10 else iso + "-01")
    return d.year, d.month


def month_words(iso: str) -> str:
    """'noviembre de 2025' from '2025-11-30' or '2025-11'."""
    y, m = _month(iso)
    return _date_month_words(date(y, m, 1))


def period_words(start: str, end: str) -> str:
    """'enero a diciembre de 2024', 'diciembre de 2024 a noviembre de 2025' or 'marzo de 2024'."""
    (y1, m1), (y2, m2) = _month(start), _month(end)
    if (y1, m1) == (y2, m2):
        return f"{MONTHS[m1 - 1]} de {y1}"
    if y1 == y2:
        return f"{MONTHS[m1 - 1]} a {MONTHS[m2 - 1]} de {y1}"
    return f"{MONTHS[m1 - 1]} de {y1} a {MONTHS[m2 - 1]} de {y2}"


def between(start: str, end: str) -> str:
    """'entre enero y diciembre de 2024' or 'en marzo de 2024'."""
    words = period_words(start, end)
    if " a " not in words:
        return f"en {words}"
    first, last = words.split(" a ", 1)
    return f"entre {first} y {last}"


def humanize_dates(text: str) -> str:
    """ISO months and ranges in a tool's message ('2022-07..2022-12') written in Spanish words."""
    text = _ISO_RANGE.sub(
        lambda m: (
            period_words(f"{m[1]}-{m[2]}", f"{m[3]}-{m[4]}") if 1 <= int(m[2]) <= 12 and 1 <= int(m[4]) <= 12 else m[0]
        ),
        text,
    )
    return _ISO_MONTH.sub(
        lambda m: (
            (f"{int(m[3])} de " if m[3] else "") + month_words(f"{m[1]}-{m[2]}") if 1 <= int(m[2]) <= 12 else m[0]
        ),
        text,
    )


def join_y(items) -> str:
    """'a, b y c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " y " + items[-1] if items else ""


_VIOLENCE_TAIL = re.compile(r"^(.+?) (con|sin) violencia$")


def methods_phrase(labels) -> str:
    """'robo de coche de 4 ruedas, de motocicleta y de embarcaciones, con y sin violencia' for their six modalidades.

    A vehicle robo is published as one modalidad per kind and violence: listing all six reads as noise, so kinds
    that come with the same violences are said once each and the violences once; anything else is listed as is."""
    labels = list(dict.fromkeys(labels))
    kinds: dict[str, list[str]] = {}
    for label in labels:
        if not (m := _VIOLENCE_TAIL.match(label)):
            return join_y(labels)
        kinds.setdefault(m[1], []).append(m[2])
    violences = {tuple(sorted(v)) for v in kinds.values()}
    if len(violences) != 1 or len(labels) < 2:
        return join_y(labels)
    stems, tail = list(kinds), " y ".join(next(iter(violences))) + " violencia"
    first = stems[0].split(" de ", 1)
    if len(first) == 2 and all(s.startswith(first[0] + " de ") for s in stems):  # «robo de …, de … y de …»
        stems = [stems[0], *(s[len(first[0]) + 1 :] for s in stems[1:])]
    return f"{join_y(stems)}{',' if len(stems) > 1 else ''} {tail}"


def fmt_int(value: float | None) -> str:
    """Mexican integer format: 1,234 ('sin dato' for a missing value, never 0)."""
    return "sin dato" if value is None else f"{round(value):,}"


def fmt_num(value: float | None, decimals: int = 1) -> str:
    """Mexican decimal format: 1,234.5 ('sin dato' for a missing value, never 0)."""
    return "sin dato" if value is None else f"{value:,.{decimals}f}"


def fmt_pct(value: float, signed: bool = False) -> str:
    """A percentage with one decimal: '23.4 %' (or '+19.7 %')."""
    return f"{value:+.1f} %" if signed else f"{value:.1f} %"


def crime_noun(labels: list[str], count: float = 2, detail: str = "") -> str:
    """'homicidios dolosos', 'delito de aborto', 'delitos de abuso sexual y violación' (+ ' ' + detail)."""
    if detail:
        noun = crime_noun(labels, count)
        if detail.split()[0] == noun.split()[0].rstrip("s"):  # «secuestros secuestro extorsivo»: one name, said once
            return f"{noun} de la modalidad «{detail}»"
        head = labels[0].lower().split()[0] if len(labels) == 1 and labels[0] else ""
        if head and detail.lower().split()[0] == head:  # robo's (or robo de vehículo's) «robo de motocicleta»
            return f"{'delito' if count == 1 else 'delitos'} de {detail}"
        return f"{noun} {detail}"
    low, one = [label.lower() for label in labels], count == 1
    if len(low) == 1 and low[0] in _PLURALS:
        return low[0] if one else _PLURALS[low[0]]
    if len(low) == 1 and low[0].startswith(("otros delitos", "delitos ")):
        return low[0]
    if low == ["electorales"]:
        return "delito electoral" if one else "delitos electorales"
    head = "delito" if one else "delitos"
    if len(low) == 1 and low[0].startswith("contra "):
        return f"{head} {low[0]}"
    return f"{head} de {join_y(low)}" if low else head


def state_name(entidad_id: str) -> str:
    """'Guanajuato' for any id under GTO."""
    prefix = str(entidad_id).split(".")[0]
    return STATE_NAMES.get(prefix, prefix)


def shares_state_name(entidad_id: str) -> bool:
    """Whether a municipality has its state's name (the capital, GTO.MUN.GUANAJUATO): sentences must say which."""
    place = str(entidad_id)
    name = normalize_text(state_name(place)).upper().replace(" ", "_")
    return ".MUN." in place and place.rsplit(".", 1)[1] == name


# -- what a tool's Spanish headline says ------------------------------------------------------------------
_CRIMES_IN_HEADLINE = (
    re.compile(r"^Top (.+) \((?:conteo|tasa_per_100k)\) — "),
    re.compile(r"^(?:Serie mensual|Comparación|Anomalías) de (.+?) — "),
    re.compile(r"^Entidades (?:con (?:más|menos) eventos|por \w+) \((.+?)\)[,]? "),
    # the everyday shapes (tools 15-19) start their headlines with one of these words
    re.compile(
        r"^(?:Máximo y mínimo|Promedio|Presencia|Modalidades|Serie anual|Lugares|Desglose por delito) de (.+?) — "
    ),
)


def crime_labels(envelope: dict) -> list[str]:
    """Crime labels the tool wrote in its headline (['Homicidio doloso']); [] when none."""
    head = envelope.get("summary", {}).get("headline", "")
    for pattern in _CRIMES_IN_HEADLINE:
        found = pattern.search(head)
        if found and found.group(1) != "todos los delitos":
            return found.group(1).split(", ")
    return []


def place_label(envelope: dict) -> str:
    """Who a headline speaks of ('León', 'municipios de Guanajuato'); '' when it says nothing."""
    found = re.search(r" — (.+?)(?:, (?:\d{4}-\d{2}|todo el periodo)|: )", envelope["summary"]["headline"])
    who = re.sub(r"^Hijos de \w+ \((.+?)\)$", r"municipios de \1", found.group(1) if found else "")
    return re.sub(r"\bde ([A-Z]{2,4})$", lambda m: f"de {state_name(m[1])}", who)
