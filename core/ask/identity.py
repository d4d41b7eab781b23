"""Requests for the identity of people: names, addresses, photos, phones or who someone is.

A vocabulary, not a list of sentences: what is asked (a name, an address, a photo, a phone, «quién»), about whom (a
victim, a suspect, an officer, a person named with capitals) and the frames that join them («¿quién mató a…?»,
«¿cómo se llama el detenido…?», «¿dónde vive…?»). Aggregate questions about people («¿cuántas víctimas mujeres…?»,
«personas desaparecidas» as a crime count) name no identity item and pass.
"""

from __future__ import annotations

import re

from core.ask.understand.tokens import expand_chat

REFUSAL = (
    "No puedo dar nombres, direcciones, fotos, teléfonos ni la identidad de ninguna persona (víctimas, "
    "presuntos responsables, detenidos o autoridades). Los datos del SESNSP que usa Casandra son conteos de "
    "delitos agregados por municipio y mes: no contienen datos personales y, si los tuviera, no los daría. "
    "Puedo decirte, por ejemplo, cuántos casos de un delito hubo en un municipio y periodo."
)

# Whom: people involved in a crime, authorities, and everyday words for a person.
_PERSON = (
    r"victimas?|sospechos[oa]s?|detenid[oa]s?|culpables?|agresor(es|as?)?|asesin[oa]s?|homicidas?|feminicidas?|"
    r"violador(es|as?)?|secuestrador(es|as?)?|ladron(es|as?)?|sicarios?|delincuentes?|criminales?|"
    r"presunt[oa]s?( responsables?)?|responsables?|implicad[oa]s?|acusad[oa]s?|imputad[oa]s?|ofendid[oa]s?|"
    r"denunciantes?|testigos?|occis[oa]s?|fallecid[oa]s?|muert[oa]s?|difunt[oa]s?|cuerpos?|cadaver(es)?|"
    r"desaparecid[oa]s?|secuestrad[oa]s?|levantad[oa]s?|policias?|agentes?|oficiales?|elementos?|comandantes?|"
    r"director(es|as?)?|jefes?|lider(es)?|capos?|fiscal(es)?|juez(as)?|jueces|ministerios? publicos?|"
    r"personas?|senor(es|as?)?|senoritas?|muchach[oa]s?|chav[oa]s?|joven(es)?|nin[oa]s?|menores?|mujer(es)?|"
    r"hombres?|empresari[oa]s?|familia(res)?|familias?|hij[oa]s?|espos[oa]s?|novi[oa]s?|vecin[oa]s?|"
    # «los nombres de los asesinados», «fotos de los ejecutados»: the people a crime was done to
    r"asesinad[oa]s?|matad[oa]s?|ejecutad[oa]s?|lesionad[oa]s?|herid[oa]s?|balead[oa]s?|violentad[oa]s?"
)
# What: identity items that are personal whoever they belong to, and ambiguous ones that need a person.
_ALWAYS = (
    r"domicilios?|telefonos?( celular)?|numeros? de (telefono|celular|whatsapp)|celular(es)?|whatsapp|curp|rfc|"
    r"correos? (electronicos? )?(de|del)|e-?mail|facebook|instagram|tiktok|twitter|redes sociales|"
    r"datos personales|credencial(es)?|ine de|placas (de|del)"
)
_NEEDS_PERSON = (
    r"nombres?|apellidos?|direccion(es)?|fotos?|fotografias?|imagen(es)?|videos?|identidad(es)?|caras?|rostros?"
)
_CRIME_VERB = (
    r"mat\w*|asesin\w*|secuestr\w*|viol\w*|rob\w*|dispar\w*|atac\w*|balace\w*|ejecut\w*|levant\w*|desaparec\w*|"
    r"agredi\w*|golpe\w*|apunal\w*|extorsion\w*|denunci\w*|detuv\w*|arrest\w*|captur\w*"
)
_EVENT = r"escenas?|crimen|ataques?|asesinatos?|balaceras?|masacres?|accidentes?|cuerpos?|cadaver(es)?|levantones?"
_NOT_PEOPLE = (
    r"delitos?|municipios?|subtipos?|modalidad(es)?|tipos?|archivos?|fuentes?|indicador(es)?|categorias?|cifras?"
)

IDENTITY = re.compile(
    # «¿quién mató…?», «¿a quién asesinaron?», «¿quiénes son los responsables?», «¿quién es el jefe de plaza?»
    rf"\b(a )?quien(es)? (se )?(lo |la |los |las |le |les )?({_CRIME_VERB})\b"
    # «¿quién estuvo detrás del ataque?», «¿y quién lo hizo?», «¿quién lo mandó?»: who did it
    r"|\bquien(es)? (esta|estan|estuvo|estuvieron|estaba|estaban|anda|andan|andaba) (detras|atras)\b"
    r"|\bquien(es)? (lo|la|los|las) (hizo|hicieron|ordeno|ordenaron|mando|mandaron)\b"
    rf"|\bquien(es)? (ordeno|ordenaron|mando|mandaron|planeo|planearon) (el |la |los |las )?({_EVENT})\b"
    rf"|\bquien(es)? (es|son|fue|fueron|era|eran|esta|estan) (el|la|los|las|ese|esa|aquel|aquella)\b"
    rf"(?! (municipio|delito|estado|entidad|lugar|mes|ano|fuente|sesnsp|fiscalia)\b)"
    # «¿cómo se llama el detenido…?» (not «el delito», «el municipio»)
    rf"|\bcomo se llama\w* (a )?((el|la|los|las|al) )?(que\b|(?!({_NOT_PEOPLE})\b)(\w+ ){{0,2}}({_PERSON})\b)"
    rf"|\bcomo se apellid\w*"
    # «¿dónde vive el sospechoso?», «¿en qué calle vive…?»
    r"|\b(donde|en que (calle|colonia|casa)) (vive|viven|vivia|vivian|se esconde\w*|esta preso|estan presos)\b"
    # «¿qué policía mató al joven?»: which person did it
    rf"|\b(que|cual) ({_PERSON}) ({_CRIME_VERB})\b"
    # «el número de la fiscal», «el número del detenido»: one person's phone
    rf"|\bnumero (del|de la|de el) (\w+ )?({_PERSON})\b"
    # «fotos de la escena del crimen», «la dirección de la casa donde encontraron el cuerpo»: one event's place
    rf"|\b({_NEEDS_PERSON}) (de |del |de la |de los |de las )({_EVENT})\b"
    rf"|\b(direccion|ubicacion|domicilio) (exacta )?(de|del|de la) ({_EVENT}|casa|vivienda|negocio|lugar|sitio|predio)"
    r" (donde|en que) (encontraron|mataron|asesinaron|ocurrio|paso|fue|hallaron|dejaron)\b"
    # «¿dónde está el detenido?»: a person's whereabouts
    rf"|\bdonde (esta|estan|se encuentra\w*|quedo|tienen) (a )?(el |la |los |las |al )?(\w+ )?({_PERSON})\b"
    # «identifica al agresor», «dime quién es»
    rf"|\bidentifica\w*\b.{{0,20}}\b({_PERSON})\b"
    # «pásame la lista de los agresores denunciados en Irapuato», «el listado de detenidos»: who, one by one
    rf"|\b(lista|listado|relacion|padron|registro) (de |de los |de las |con los |con las )(\w+ )?({_PERSON})\b"
    # «el teléfono de la familia», «la CURP del detenido», «pásame el facebook del feminicida»
    rf"|\b({_ALWAYS})\b"
    # «nombres de las víctimas», «fotos de los cuerpos», «dirección del detenido», «foto del detenido»
    # («el nombre y la edad de la víctima»: a list of items, the later ones may be personal only beside a name)
    rf"|\b({_NEEDS_PERSON})\b((,| y| e) (el |la |los |las |su |sus )?({_NEEDS_PERSON}|edad(es)?|ocupacion(es)?))*"
    rf"( completos?)? (de |del |de la |de los |de las |a |al )?"  # «lista nombres víctimas»: telegraphic
    rf"(?!({_NOT_PEOPLE})\b)(\w+ ){{0,3}}({_PERSON})\b"
    # «datos del violador», «los datos de la víctima»: one person's data
    rf"|\bdatos (del|de la|de el) ({_PERSON})\b"
    # «si mi vecino tiene carpetas abiertas», «antecedentes penales de…»: one person's records
    r"|\b(mi|su|tu) (vecin|novi|espos|herman|prim|ti[oa]|jefe|compa|amig|ex|cunad|suegr|pareja)\w*\b.{0,60}"
    # («mi hermana sufre violencia en su casa, ¿cuántas denuncias de violencia familiar hubo…?»: a story, then a count)
    r"(?<!cuantas )(?<!cuantos )(?<!numero de )(?<!total de )"
    r"\b(carpetas?|denuncias?|antecedentes|ordenes?|orden de|detenid\w*|acusad\w*|investigad\w*|demanda\w*)\b"
    r"|\bantecedentes penales\b|\ben su contra\b"
    # «dame sus nombres», «la lista de víctimas con nombre y edad»
    rf"|\b(sus |con (su |sus )?)({_NEEDS_PERSON})\b"
    # «dame nombres», «pásame nombres y fotos»: identity items asked bare, of whoever the talk is about
    rf"|\b(dame|dime|pasame|mandame|quiero|necesito|tienes|tienen|sabes|saben)( los| las| unos| unas)? ({_NEEDS_PERSON})"
    rf"((,| y| e) (los |las )?({_NEEDS_PERSON}))*\s*([.,;:!?]|$)"
    # «los nombres de los que detuvieron», «nombres de las que desaparecieron»: the people an event names
    rf"|\b({_NEEDS_PERSON}) (de |del |de la )?(los |las )?(que|quien(es)?) (\w+ ){{0,2}}({_CRIME_VERB})"
)
# A person named with capitals («Juan Pérez») where a name is asked about: after an identity item or a search verb,
# or before what happened to them («… está detenido», «… tiene antecedentes»).
_FULL_NAME = r"[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+\s+[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+"
_NAMED = re.compile(
    rf"\b(?:[Nn]ombre|[Dd]irecci[oó]n|[Dd]omicilio|[Ff]otos?)\s+(?:de|del)\s+(?:[a-záéíóúñ]+\s+){{0,2}}{_FULL_NAME}"
    rf"|\b(?:[Bb]usca|[Bb]uscar|[Ii]nvestiga|[Cc]onoces a|[Ss]abes algo de)\s+(?:a\s+)?{_FULL_NAME}"
    # what happens to a person, not to a place (a place «tiene carpetas», a person «está detenido»)
    rf"|{_FULL_NAME}\s+(?:est[aá]|fue|tiene|era|sigue)\s+(?:\w+\s+)?(?:detenid|pres[oa]|acusad|desaparecid|"
    r"investigad|vinculad|sentenciad|antecedentes|secuestrad|muert)"
)


# A phone stolen is an object, not a person's number: «robo de celulares», «asaltos de teléfonos».
_STOLEN = re.compile(
    r"\b(robos?|robad[oa]s?|robaron|roban|asaltos?|hurtos?|hurtaron|arrebat\w*)\s+(de\s+|del\s+|a\s+)?"
    r"(los\s+|sus\s+|el\s+|mi\s+|su\s+|un\s+)?"
    r"(telefonos?|celular(es)?)(\s+celular(es)?)?\b"
)


# «le escribo de la dirección de planeación de la policía», «soy analista de la Dirección de Seguridad»: an office
# the asker works in, not an address
_OFFICE = re.compile(
    r"\b(?:escribo|escribimos|escribe|hablo|hablamos|trabajo|trabajamos|soy|somos|colaboro)\b(?:\s+\w+){0,3}?"
    r"\s+(?:de|en|desde|para)\s+(?:la\s+)?direccion\b"
)


def asks_identity(normalized: str, original: str = "") -> bool:
    """Whether the question asks for a person's name, address, photo, phone or identity."""
    # chat shorthand written out first: «la dirección del q mató…» is «del que mató»
    text = _STOLEN.sub(" ", expand_chat(normalized))
    text = _OFFICE.sub(lambda m: m.group(0)[: -len("direccion")] + "oficina", text)
    return bool(IDENTITY.search(text) or (original and _NAMED.search(original)))
