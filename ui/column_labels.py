"""Spanish names for what a person reads or downloads: the columns of a result table and its CSV file name.

Contract keys (``entidad_id``, ``tasa_per_100k``…) stay what they are inside envelopes, plans and the audit;
only the table drawn on a page and the CSV a person downloads carry these labels (issue 15: «technical names
in tables and files»). A column without a label here is shown as its words («nuevo_campo» → «Nuevo campo»).
"""

from __future__ import annotations

import pandas as pd

from core.text import slug_key

COLUMN_LABELS = {
    "entidad_id": "Clave de lugar",
    "lugar_id": "Clave de lugar",
    "clave": "Clave",
    "label": "Lugar",
    "nivel": "Nivel",
    "conteo": "Delitos registrados",
    "conteo_base": "Delitos en el periodo base",
    "conteo_estado": "Delitos en el estado",
    "cambio": "Cambio",
    "cambio_pct": "Cambio (%)",
    "tasa_per_100k": "Tasa por 100 mil habitantes",
    "tasa_per_100k_base": "Tasa por 100 mil habitantes en el periodo base",
    "min_tasa": "Tasa mínima",
    "porcentaje": "Porcentaje",
    "porcentaje_estado": "Porcentaje del estado",
    "poblacion": "Población",
    "delito": "Delito",
    "delito_a": "Delito A",
    "delito_b": "Delito B",
    "metodo": "Modalidad (clave)",
    "modalidad": "Modalidad",
    "fecha": "Mes",
    "mes": "Mes",
    "meses": "Meses",
    "anio": "Año",
    "dias": "Días",
    "desde": "Desde",
    "hasta": "Hasta",
    "desde_mes": "Desde el mes",
    "hasta_mes": "Hasta el mes",
    "from": "Desde",
    "to": "Hasta",
    "periodo": "Periodo",
    "publicado": "Publicado",
    "parcial": "Año parcial",
    "metodologia": "Metodología",
    "z_score": "Puntaje z",
    "z_acotado": "Puntaje z acotado",
    "direccion": "Dirección",
    "severity": "Gravedad",
    "score": "Puntaje",
    "patron": "Patrón",
    "support": "Soporte",
    "confidence": "Confianza",
    "lift": "Elevación (lift)",
    "transacciones": "Casos analizados",
    "n": "Número",
    "indice": "Índice",
    "mediana": "Mediana",
    "promedio": "Promedio",
    "posicion": "Posición",
    "puesto_min": "Mejor puesto",
    "puesto_max": "Peor puesto",
    "municipios": "Municipios",
    "con_eventos": "Con casos",
    "min_eventos": "Mínimo de casos",
    "eventos": "Casos",
    "victimas": "Víctimas",
    "sexo": "Sexo",
    "rango_edad": "Edad",
    "fuero": "Fuero",
    "ley": "Ley",
    "tabla": "Tabla",
    "medida": "Medida",
    "por": "Agrupado por",
    "frente_al_estado": "Frente al estado",
    "frente_al_pais": "Frente al país",
    "row_id": "Fila (row_id)",
    "source_file": "Archivo de origen",
    "source_row": "Fila del archivo",
}
MAX_NAME = 60
KEY_COLUMNS = ("entidad_id", "lugar_id")


def column_label(name: str) -> str:
    """The Spanish label of a result column (its words when it has none)."""
    return COLUMN_LABELS.get(name) or str(name).replace("_", " ").strip().capitalize() or str(name)


def spanish_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as a person reads it: Spanish column labels (two columns never share one)."""
    labels, seen = [], set()
    for name in frame.columns:
        label = column_label(str(name))
        label = label if label not in seen else f"{label} ({name})"
        seen.add(label)
        labels.append(label)
    return frame.set_axis(labels, axis=1)


def screen_order(frame: pd.DataFrame) -> list[str]:
    """A Spanish frame's columns as shown on screen: the place's key («Clave de lugar») after its name and figures.

    The key is a machine's name (``GTO.MUN.SAN_FRANCISCO_DEL_RINCON``): first, it filled a phone's width and pushed
    the figures out of sight. The CSV keeps the envelope's order."""
    keys = {column_label(name) for name in KEY_COLUMNS}
    return [c for c in frame.columns if c not in keys] + [c for c in frame.columns if c in keys]


def download_name(envelope: dict, fallback: str = "resultado") -> str:
    """A readable CSV file name from what the result says (its headline), e.g.
    ``casandra_top_10_municipios_por_homicidio_doloso.csv``; never the tool's name."""
    headline = ((envelope or {}).get("summary") or {}).get("headline") or ""
    words = slug_key(headline)[:MAX_NAME].strip("_") or fallback
    return f"casandra_{words}.csv"
