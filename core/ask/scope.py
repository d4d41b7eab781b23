"""What the data can answer: a menu for vague on-topic questions, and the municipality as the finest level.

«¿Cómo está la violencia en Guanajuato?» names no crime, no figure and no shape: instead of «¿Sobre qué delito?» it
gets a short menu of runnable questions (the latest month, the municipalities with most cases, a municipality's
trend, the total of crimes). A colonia, a street, a cuadrante or «cerca de mi casa» is below the municipality, where
the SESNSP data stop: the answer says so and offers the municipality's figure when one was named.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

from core.ask.contracts import ClarifyingQuestion
from core.ask.understand.tokens import expand_chat
from core.text import MONTHS

if TYPE_CHECKING:
    from core.ask.understand import Understanding

# Words of the general state of crime, without naming one («violencia» alone, «inseguridad», «panorama»).
_VAGUE = re.compile(
    r"\b(violencia|violent[oa]s?|inseguridad|insegur[oa]s?|seguridad|segur[oa]s?|peligros[oa]s?|peligro|"
    r"delincuencia|criminalidad|crimen(es)?|delitos|incidencia|situacion|panorama|resumen|balance|diagnostico|"
    r"como (esta|anda|va|vamos|andamos|estamos|estan|andan)( la cosa| el asunto| todo| las cosas)?|"
    r"que (onda|pasa|ha pasado|esta pasando) (con|en))\b"
)
_CRIME_TALK = re.compile(
    r"\b(violencia|inseguridad|insegur[oa]s?|seguridad|peligros[oa]s?|delincuencia|criminalidad|crimen(es)?|panorama)\b"
)
_WHAT_TO_ASK = re.compile(
    r"\bque (te |le )?(puedo|podemos|se puede) (preguntar|consultar|pedir)\b|\bque (me )?(puedes|sabes|podrias) "
    r"(hacer|responder|contestar|decir)\b|\ben que me (puedes )?(ayudar|ayudas)\b|\bque (preguntas|consultas) "
    r"(puedo|se pueden|aceptas|respondes)\b|\bdame (ideas|ejemplos|opciones)\b|\bpor donde empiezo\b"
    # «¿qué tipo de preguntas te puedo hacer?», «¿qué info tienes?», «¿para qué sirves?»: the inventory, alone
    r"|\bque (tipo|tipos|clase|clases) de (preguntas|consultas|cosas|datos|informacion|info)\b"
    r"|^[¿¡ ]*(y )?(que|cuales) (info|informacion|datos|cifras|estadisticas|delitos) (tienes|tiene|tienen|hay|"
    r"manejas|manejan|cubres|incluyes|conoces|puedes consultar)( disponibles?)?[?!. ]*$"
    r"|\b(que|cual) (tipo de )?(informacion|info|datos) (me )?(puede|puedes|podria|podrias) (dar|darme|proporcionar|"
    r"proporcionarme|ofrecer|ofrecerme|compartir|compartirme)\b"
    # «q info tienes? xq no se ni q preguntarte»: the inventory asked, then chatter; not knowing what to ask
    r"|^[¿¡ ]*(y )?(que|cuales) (info|informacion|datos) (tienes|tiene|tienen|manejas|hay)\s*\?"
    # «¿qué info tienes sobre robos?»: what exists about a crime, no place nor period said
    r"|^[¿¡ ]*(y )?(que|cual) (info|informacion|datos) (tienes|tiene|hay|manejas) (sobre|de|del|acerca de) [a-z ]+[?!. ]*$"
    r"|\bno se (ni )?(que|q) (preguntar|consultar|pedir)\w*\b"
    # «¿qué cosas le puedo preguntar?», «¿qué cosas me puedes decir?», «pues de todo, lo que tengas»
    r"|\bque cosas (te |le |me )?(puedo|podemos|se puede|puedes|podrias|sabes) (preguntar|consultar|pedir|decir|hacer)\w*\b"
    r"|^[¿¡ ]*(pues )?(de )?todo,? lo que (tengas|tienes|haya|puedas)[?!. ]*$"
    r"|\bpara que (sirves|sirve esto|funcionas)\b|^[¿¡ ]*(y )?como (funcionas|te uso|se usa esto|funciona esto)[?!. ]*$"
)
# A figure, a rate or a total asked for is a data question, however general its topic.
_COUNTING = re.compile(r"\b(cuant\w*|total(es)?|numero de|tasas?|por cada|por (100|cien) mil)\b")
_LANDMARKS = (
    r"casa|trabajo|escuela|estadio|mercado|parque|plaza|jardin|central|hospital|universidad|iglesia|catedral|"
    r"aeropuerto|glorieta|puente|crucero|deportivo|tianguis|panteon|presa|centro comercial|oxxo|gasolinera|"
    r"estacion|terminal|vias del tren|autopista|carretera"
)
# Places below the municipality: named kinds (colonia, calle, cuadrante…), «cerca de mi casa», a street address.
_BELOW = re.compile(
    r"\b(colonias?|col\.|barrios?|fraccionamientos?|fracc\.?|cuadrantes?|manzanas?|cuadras?|"
    r"codigos? postal(es)?|c\.p\.|localidad(es)?|rancherias?|ejidos?|zona (centro|norte|sur|oriente|poniente)|"
    r"esquina (con|de)|comunidad(es)? (de|del|la|el)|comunidad(es)? rural(es)?|zonas? (urbanas?|rurales?)|"
    # the census's and the police's own units («por AGEB», «por sector policial», «sección electoral»)
    r"agebs?|sector(es)? (policiales?|de (policia|seguridad))|secciones? electorales?)\b"
    r"|\b(calle|avenida|av\.|bulevar|boulevard|blvd\.?|calzada|callejon|privada)\s+(de\s+)?(?!(la|el|los|las|en|y|o|con|por|a|al|del|para|que|hubo|hay|han|ha|se|fue|fueron|son|es|durante|este|esta|entre|desde|hasta|como)\b)[a-z0-9]"
    r"|\b(que|cuales|las|sus|por|cada|varias|algunas) calles\b"
    r"|\bcerca de (mi|mis|tu|su|la|el|nuestra) (casa|trabajo|escuela|domicilio|colonia|calle|cuadra)\b"
    r"|\b(mi|esta|nuestra) (colonia|calle|cuadra|manzana|zona|barrio|fraccionamiento)\b"
    # «por la zona de la estación del tren»: the part of town around a landmark
    rf"|\b(la )?zona (de|del) (la |el |los |las )?({_LANDMARKS})\b"
    r"|\balrededores\b|\b(por|a la) vuelta de\b"
    # «¿en qué carretera o tramo se concentran esos accidentes?»: a road or a stretch of it
    r"|\b(que|cuales?|las|la|sus|cada|esa|esta|en) (carreteras?|tramos?|autopistas?|libramientos?)\b"
    # «¿en qué zona de Celaya…?», «las partes de la ciudad donde…»: a part of the town, asked about
    r"|\b(que|cuales?|las|sus|cada|varias) ((zonas?|sectores?|areas?) (de|del)\b(?! los municipios\b)"
    r"|(partes?|puntos?) (de la ciudad|del municipio|de la zona)\b)"
    # near a landmark («cerca del estadio», «junto al mercado») or in a town's centre («el centro de León»)
    rf"|\b(cerca|alrededor|a un lado|junto|enfrente|atras) (de|del|a|al) (la |el |los |las |mi |mis )?({_LANDMARKS})\b"
    r"|\b(en|del) (el )?centro (historico )?(de|del) (?!(estado|pais|bajio|republica|mexico|guanajuato estado)\b)"
)
_LEVEL_WORDS = (
    ("cuadrante", "cuadrante"),
    ("calle", "calle"),
    ("avenida", "calle"),
    ("blvd", "calle"),
    ("bulevar", "calle"),
    ("barrio", "barrio"),
    ("fraccionamiento", "fraccionamiento"),
    ("codigo postal", "código postal"),
    ("localidad", "localidad"),
    ("comunidad", "localidad"),
    ("ageb", "AGEB"),
    ("sector", "sector policial"),
    ("seccion", "sección electoral"),
    ("zona ", "zona"),
    ("zonas ", "zona"),
    ("cerca de", "zona cercana a un lugar"),
    ("centro de", "zona"),
    ("cuadra", "calle"),
    ("carretera", "carretera o tramo"),
    ("tramo", "carretera o tramo"),
    ("autopista", "carretera o tramo"),
)
MENU_LEAD = "Para un panorama"
MAX_QUESTION = 300  # ClarifyingQuestion.question's limit
_LIMIT_SECTION = "limitaciones.md § El municipio es el nivel más fino: no hay cifras por colonia ni por calle"


# «¿cuántos va a haber en 2026?», «necesito un pronóstico», «proyección para el próximo año»
_FORECAST = re.compile(
    r"\b(?:pronostic\w*|predic\w*|proyecc\w*|proyect[ae]\w*|va\s+a\s+haber|van\s+a\s+haber|habra|habran|"
    r"vamos\s+a\s+tener|se\s+espera\w*|esperar\w*\s+para"
    # «¿va a bajar la violencia el próximo año?», «¿subirán los robos?»: where it goes next
    r"|va(?:n)?\s+a\s+(?:bajar|subir|aumentar|disminuir|crecer|mejorar|empeorar|seguir\s+(?:subiendo|bajando))"
    r"|(?:bajara|subira|aumentara|disminuira|crecera|mejorara|empeorara)n?"
    # «¿crees que el 2026 va a ser peor que el 2025?», «¿qué opinas?»: a guess or an opinion about what comes
    r"|va(?:n)?\s+a\s+ser\s+(?:peor|mejor|mas|menos)|sera(?:n)?\s+(?:peor|mejor)"
    # «si sigue la tendencia, ¿cuántos tendría León en 2026?», «¿cuántos crees que haya este diciembre?»
    r"|si\s+sigue\w*\s+(?:la|esta|esa|asi)\b|si\s+(?:continua|se\s+mantiene)\w*\s+(?:la|esta|esa)\s+tendencia"
    r"|cre(?:es|e|en)\s+que\s+(?:haya|habra|vaya|vayan|suba|baje|aumente|disminuya)"
    r"|cuant[oa]s\s+(?:\w+\s+){0,3}?(?:tendria|tendrian|habria|habrian|tendra|tendran)"
    # «una estimación de la tasa que tendrá Guanajuato al cierre de 2026», «¿cuántos va a ver el año que entra?»
    r"|estimacion\w*\s+(?:\w+\s+){0,6}?(?:tendra|tendran|habra|habran|sera|seran)|ano\s+que\s+(?:entra|viene))\b"
)
# «¿qué opinas?», «en tu opinión el gobernador lo está haciendo bien o mal?»: a judgement, never a count
_OPINION = re.compile(
    r"\b(?:(?:en\s+)?tu\s+opinion|(?:que|q)\s+opina[sn]?|que\s+piensas\s+(?:de|del|sobre)"
    r"|(?:lo\s+)?esta(?:n)?\s+haciendo\s+(?:bien|mal)|(?:es|son)\s+(?:culpa|responsabilidad)\s+de)\b"
)
# «pásame el query SQL», «me mandas el código con el que calculaste eso»: code is never given nor run
_CODE = re.compile(
    r"\b(?:sql|query|queries|script|scripts)\b|\bcodigo\s+(?:fuente|sql|python|con\s+(?:el|que))\b"
    r"|\b(?:el|tu|su)\s+codigo\b(?!\s+(?:postal|penal|civil|nacional|federal))"
)


# Everyday topics a place can come with («el mejor lugar de tacos en León», «hoteles en San Miguel», «el clima en
# Celaya»): no crime asked, so off topic whatever place is named
_LEISURE = re.compile(
    r"\b(?:tacos?|taquerias?|tortas?|pozole|enchiladas|gorditas|carnitas|birria|pizzas?|hamburguesas?|sushi|"
    r"comida|comer|cenar|desayunar|almorzar|restaurantes?|fondas?|antojitos|cervezas?|mezcal|hoteles?|hospedaje|"
    r"airbnb|turismo|turistic[oa]s?|vacaciones|museos?|cines?|peliculas?|conciertos?|antros?|clima|lluvias?|"
    r"temperatura|futbol|partido de|juega|jugara|boletos|vuelos?|recetas?|chistes?)\b"
)


def off_topic(normalized: str, u: Understanding | None) -> bool:
    """Whether a question is about everyday life, not crime («¿cuál es el mejor lugar de tacos en León?»): no crime
    understood, no word of crime talk («el clima de inseguridad» is crime), and a leisure topic named."""
    text = expand_chat(normalized)
    crime = bool(u is not None and u.crimes) or bool(_CRIME_TALK.search(text) or re.search(r"\bdelitos?\b", text))
    return bool(_LEISURE.search(text)) and not crime


_SAFETY = re.compile(
    r"\bes\s+(?:seguro|peligroso|inseguro|tranquilo)\s+(?:vivir|ir|mudarse|mudarme|visitar|viajar|salir|caminar|andar)\b"
    r"|\b(?:mejor\s+)?me\s+(?:cambio|mudo)\b"
)


def asks_safety(normalized: str) -> bool:
    """Whether the person asks if a place is safe for them («¿es seguro vivir en Celaya?»): a judgement, no count;
    a place below the municipality («¿es peligroso caminar junto al mercado?») is answered with where the data stop."""
    return bool(_SAFETY.search(expand_chat(normalized))) and not below_municipality(normalized)


def asks_opinion(normalized: str) -> bool:
    """Whether the question asks for a judgement («¿qué opinas?», «¿lo está haciendo bien?»), not a figure."""
    return bool(_OPINION.search(expand_chat(normalized)))


def asks_code(normalized: str) -> bool:
    """Whether the message asks for the SQL or the code behind an answer (never given, never run)."""
    return bool(_CODE.search(expand_chat(normalized)))


def asks_forecast(normalized: str) -> bool:
    """Whether the question asks for a prediction («¿cuántos va a haber?», «un pronóstico»), not published months."""
    return bool(_FORECAST.search(expand_chat(normalized)))


def is_vague(normalized: str) -> bool:
    """Whether the words ask about the state of crime in general, without a figure («¿qué tan inseguro está León?»)."""
    normalized = expand_chat(normalized)
    return bool(_VAGUE.search(normalized)) and not _COUNTING.search(normalized)


def asks_what_to_ask(normalized: str) -> bool:
    """Whether the person asks what they can ask («¿qué te puedo preguntar?», «¿en qué me ayudas?»)."""
    return bool(_WHAT_TO_ASK.search(expand_chat(normalized)))


def is_vague_crime_talk(normalized: str) -> bool:
    """Vague words that speak of crime itself («crimen», «violencia», «inseguridad»), not of the data's inventory."""
    return is_vague(normalized) and bool(_CRIME_TALK.search(normalized))


def below_beside_count(normalized: str) -> bool:
    """Whether a finer place is a second ask after a count («cuántos homicidios dolosos hubo en León en 2023 y en qué
    colonias fueron la mayoría»): the count is answered, the finer level said to be unpublished."""
    text = expand_chat(normalized)
    found = _BELOW.search(text)
    before = text[: found.start()] if found else ""
    return bool(found and re.search(r"\bcuant[oa]s\b", before) and re.search(r"\s(?:y|e)\s+(?:\S+\s+){0,3}$", before))


def below_municipality(normalized: str) -> bool:
    """Whether the question is about a place below the municipality (colonia, calle, cuadrante, «cerca de mi casa»)."""
    return bool(_BELOW.search(expand_chat(normalized)))


def level_word(normalized: str) -> str:
    """The finer level a question names, in words («colonia», «calle», «zona»)."""
    return _level(normalized)


def _level(normalized: str) -> str:
    return next((word for key, word in _LEVEL_WORDS if key in normalized), "colonia")


def _municipality(u: Understanding | None) -> str | None:
    places = [p for p in (u.places if u else []) if p.nivel == "municipio"]
    return places[0].label if places else None


def _month_year(d: date) -> str:
    return f"{MONTHS[d.month - 1]} de {d.year}"


def _period(u: Understanding | None, last_year: int) -> str:
    """The question's window in words the understanding reads back; the last full year when none."""
    if not (u and u.window):
        return f"en {last_year}"
    start, end = u.window
    if start.month == 1 and end.month == 12:
        return f"en {start.year}" if start.year == end.year else f"de {start.year} a {end.year}"
    return f"de {_month_year(start)} a {_month_year(end)}"


def _latest(metadata: dict, crime: str = "homicidio_doloso") -> date:
    coverage = (metadata.get("coverage") or {}).get(crime) or {}
    return date.fromisoformat(str(coverage.get("hasta") or metadata.get("max_date"))[:10])


def answers_menu(previous_turn, question: str) -> bool:
    """Whether ``question`` answers the menu the previous turn offered with one of its own words (not an option)."""
    asked = previous_turn.clarify[0] if previous_turn is not None and previous_turn.clarify else None
    return bool(asked and asked.question.startswith(MENU_LEAD) and question.strip() not in asked.options)


def menu(u: Understanding | None, metadata: dict) -> ClarifyingQuestion:
    """A short menu of runnable questions for a vague on-topic question (about the place it names, if any)."""
    place = _municipality(u) or "Guanajuato"
    latest = _latest(metadata)
    year = latest.year if latest.month == 12 else latest.year - 1
    options = [
        f"¿Cuántos homicidios dolosos hubo en {place} en {_month_year(latest)}?",
        f"¿Cuáles son los 5 municipios con más homicidios dolosos en {latest.year}?",
        f"Homicidios dolosos en {place} mes por mes en los últimos 12 meses",
        f"¿Cuántos delitos del fuero común hubo en {place} en {year}?",
    ]
    return ClarifyingQuestion(
        question=(
            f"{MENU_LEAD} en {place} puedo darte cifras concretas: las del último mes publicado, los municipios con "
            "más casos, la tendencia mes por mes o el total de delitos. Elige una de estas consultas o escribe la "
            "tuya con delito, lugar y periodo."
        ),
        reason="missing_crime",
        blocking=True,
        options=options,
    )


def below_reply(u: Understanding | None, normalized: str, metadata: dict, big_places: list[str]) -> ClarifyingQuestion:
    """The data stop at the municipality; the municipality's question is offered when one was named."""
    level = _level(normalized)
    place = _municipality(u)
    crimes = [c for c in (u.crimes if u else []) if c.in_data and c.delito != "total_delitos"]
    # «homicidios» is offered as doloso and culposo: their months, not the tipo row's (which ends in 2019)
    key = crimes[0].delito if crimes and crimes[0].delito != "homicidio" else "homicidio_doloso"
    latest = _latest(metadata, key)
    period = _period(u, latest.year if latest.month == 12 else latest.year - 1)
    # a group of crimes («homicidio») is offered as its parts, so the offered question is answered, not asked back
    label = "homicidios dolosos y culposos" if crimes and crimes[0].delito == "homicidio" else None
    # a SESNSP subtipo the municipal rows lack («robo a casa habitación»): published by state (and in Irapuato's own
    # file), so it is offered as asked — its answer says that level and gives what exists
    # (robo de vehículo with its modalities — «carros» — is published by municipality as robo's modalities)
    by_state = [c for c in (u.crimes if u else []) if not c.in_data and not c.note and not u.methods]
    shown = crimes or by_state
    what = label or (f"casos de {shown[0].label.lower()}" if shown else "delitos del fuero común")
    stop = f"Los datos del SESNSP llegan hasta municipio: no hay cifras por {level}"
    also = (
        f" Además, {by_state[0].label.lower()} no se publica por municipio (por estado sí)."
        if by_state and not crimes
        else ""
    )
    ask = f"¿Quieres la cifra de todo el municipio de {place}?" if place else "¿De qué municipio quieres la cifra?"
    # the contract's 300 characters: the reference to the limits section goes first, then the crime's level
    fits = [f"{stop} ({_LIMIT_SECTION}).{also} {ask}", f"{stop}.{also} {ask}", f"{stop}. {ask}"]
    question = next((q for q in fits if len(q) <= MAX_QUESTION), fits[-1][:MAX_QUESTION])
    if place:
        return ClarifyingQuestion(
            question=question,
            reason="missing_place",
            blocking=True,
            options=[f"¿Cuántos {what} hubo en {place} {period}?"],
        )
    return ClarifyingQuestion(
        question=question,
        reason="missing_place",
        blocking=True,
        options=big_places[:12],
    )


def rnid_municipal_reply(u: Understanding, metadata: dict) -> ClarifyingQuestion:
    """A municipality's question about 2026: that methodology (RNID) is published by state only; its state's
    figure is offered, never given in the municipality's place."""
    place = _municipality(u) or "ese municipio"
    crime = u.crimes[0].label.lower() if u.crimes else "ese delito"
    latest = _latest(metadata, u.crimes[0].delito if u.crimes else "homicidio_doloso")
    start, end = u.window
    when = _month_year(start) if start == end.replace(day=1) else f"de {_month_year(start)} a {_month_year(end)}"
    return ClarifyingQuestion(
        question=(
            f"No hay datos de {place} en 2026: los datos por municipio llegan a {_month_year(latest)}, y las cifras "
            "de 2026 (metodología RNID) solo se publican por estado. ¿Quieres la de todo Guanajuato?"
        )[:MAX_QUESTION],
        reason="missing_place",
        blocking=True,
        options=[f"{crime} en Guanajuato {when}"],
    )


def unpublished_reply(u: Understanding | None, what: str, metadata: dict) -> ClarifyingQuestion:
    """Not in the data: the SESNSP publishes carpetas and victims by month; the count it has is offered."""
    place = _municipality(u) or next((p.label for p in (u.places if u else [])), None)
    crimes = [c for c in (u.crimes if u else []) if c.in_data and c.delito != "total_delitos"]
    latest = _latest(metadata, crimes[0].delito if crimes else "homicidio_doloso")
    period = _period(u, latest.year if latest.month == 12 else latest.year - 1)
    stop = (
        "Eso no está en los datos cargados: el SESNSP publica carpetas de investigación (delitos) y víctimas por mes "
        f"y lugar; no publica {what}."
    )
    if crimes and place:
        offer = f"¿Cuántos casos de {crimes[0].label.lower()} hubo en {place} {period}?"
        return ClarifyingQuestion(
            question=f"{stop} ¿Quieres las carpetas?", reason="unsupported_crime", blocking=True, options=[offer]
        )
    return ClarifyingQuestion(
        question=f"{stop} ¿Qué delito y lugar quieres consultar?", reason="unsupported_crime", blocking=True
    )
