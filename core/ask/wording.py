"""Canned Spanish replies for turns that run no database tool (social, refusals, help)."""
from __future__ import annotations

REFUSALS = {
    "pii": ("No puedo dar nombres, direcciones, teléfonos ni otros datos personales de víctimas o de presuntos "
            "responsables. Casandra trabaja con cifras agregadas por municipio y mes: puedo decirte, por ejemplo, "
            "cuántos casos hubo en un municipio y periodo."),
    "offensive": ("Prefiero mantener la conversación respetuosa. ¿Sobre qué delito, lugar o periodo quieres información?"),
    "override": ("No puedo cambiar mis reglas ni mostrar instrucciones internas. Puedo responder preguntas sobre la "
                 "incidencia delictiva en Guanajuato con los datos publicados por el SESNSP."),
    "destructive": ("No puedo modificar ni borrar datos: el motor es de solo lectura. Un responsable de datos puede "
                    "cargar archivos nuevos o volver a una versión anterior en «Carga de datos»."),
    "off_topic": ("Solo respondo preguntas sobre incidencia delictiva (SESNSP) en Guanajuato y su metodología. "
                  "Por ejemplo: «¿Cuántos homicidios dolosos hubo en León en 2024?»."),
    "culprit": ("No identifico culpables ni personas: los datos son conteos de carpetas de investigación por municipio "
                "y mes. Puedo darte cifras, rankings o la evolución de un delito."),
}
SOCIAL_HELLO = ("¡Hola! Soy Casandra. Puedo responder preguntas sobre la incidencia delictiva en Guanajuato: "
                "conteos, rankings de municipios, series mes por mes, comparaciones entre periodos, porcentajes, "
                "anomalías y patrones. Por ejemplo: «¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?».")
SOCIAL_THANKS = "¡Con gusto! ¿Quieres consultar algo más?"
SOCIAL_BYE = "¡Hasta luego! Aquí estaré cuando necesites más cifras."


def social_reply(normalized: str) -> str:
    """Greeting, thanks or goodbye."""
    if "gracias" in normalized or "perfecto" in normalized or "excelente" in normalized:
        return SOCIAL_THANKS
    if "adios" in normalized or "hasta luego" in normalized:
        return SOCIAL_BYE
    return SOCIAL_HELLO


def support_reply(crime_labels: list[str], max_date: str | None) -> str:
    """How to use Casandra and what data it has."""
    crimes = ", ".join(crime_labels[:20])
    until = f" Los datos llegan hasta {max_date}." if max_date else ""
    return ("Escribe tu pregunta en español indicando delito, lugar y periodo, por ejemplo «¿Cuántos feminicidios hubo "
            "en Celaya en 2021?», «¿En qué municipio hubo más secuestros en 2019?» o «Homicidios en León mes por mes en "
            "2024». También puedes pedir tasas por 100 mil habitantes, comparaciones entre años, porcentajes del total, "
            f"anomalías y patrones. Delitos disponibles: {crimes}.{until} Cada respuesta muestra el plan de consulta, "
            "la evidencia y la procedencia de los datos.")


def unsupported_crime_reply(label: str, available: list[str]) -> str:
    """A crime SESNSP publishes but the loaded data does not include."""
    return (f"Los datos cargados no incluyen {label}. El archivo municipal completo del SESNSP sí lo trae y un "
            f"responsable de datos puede cargarlo. Por ahora puedo responder sobre: {', '.join(available[:20])}.")
