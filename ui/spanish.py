"""Streamlit's own words in Spanish: the texts its widgets draw that no argument sets (issue 15, item 9).

Streamlit 1.67 has no locale setting; these texts are fixed English in its bundled JavaScript. Checked in
``streamlit/static/static/js`` (FileUploader, InputInstructions, utils) and in the browser:

- the file uploader's button reads «Upload» and its note «1GB per file • CSV, …»: the note formats
  ``server.maxUploadSize`` rounding up past half a unit with no decimals, so 600 MB reads «1GB»;
- a text or number box, once typed in, says «Press Enter to apply» (a text area «Press Ctrl+Enter to apply»);
- the chat box's counter («1950/2000») has no words and stays;
- Plotly's toolbar tooltips («Download plot as a PNG») and date formats: ``PLOTLY_CONFIG`` gives every chart
  Plotly's own locale mechanism with a Spanish dictionary.

A page cannot change those strings, so one style sheet, injected once per run by ``app.py``, hides each English
text (``font-size: 0`` on its element) and draws the Spanish one in its place (``::after``). The upload limit it
states is the configured one (``server.maxUploadSize``). ``tests/browser/test_spanish.py`` reads every page as a
person sees it and fails on English UI words.
"""

from __future__ import annotations

import streamlit as st

UPLOAD_BUTTON = "Elegir archivos"
# Plotly's own words (the toolbar's tooltips, its date formats) through its locale mechanism: ``config.locales``
# registers a dictionary keyed by the English strings Plotly.js translates (``_(gd, "Download plot as a PNG")``).
MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre"]
MONTHS += ["noviembre", "diciembre"]
PLOTLY_WORDS = {
    "Download plot as a PNG": "Descargar como PNG",
    "Download plot": "Descargar gráfica",
    "Zoom": "Acercar un área",
    "Pan": "Desplazar",
    "Box Select": "Seleccionar con un rectángulo",
    "Lasso Select": "Seleccionar a mano alzada",
    "Zoom in": "Acercar",
    "Zoom out": "Alejar",
    "Autoscale": "Escala automática",
    "Reset axes": "Restablecer los ejes",
    "Reset view": "Restablecer la vista",
    "Toggle Spike Lines": "Líneas de referencia",
    "Show closest data on hover": "Mostrar el dato más cercano",
    "Compare data on hover": "Comparar los datos",
    "Double-click to zoom back out": "Doble clic para volver a la vista completa",
    "Produced with Plotly.js": "Hecho con Plotly.js",
}
PLOTLY_CONFIG = {
    "locale": "es-casandra",
    "locales": {
        "es-casandra": {
            "dictionary": PLOTLY_WORDS,
            "format": {
                "months": [m.capitalize() for m in MONTHS],
                "shortMonths": [m[:3] for m in MONTHS],
                "days": ["domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"],
                "shortDays": ["dom", "lun", "mar", "mié", "jue", "vie", "sáb"],
                "decimal": ".",
                "thousands": ",",
            },
        }
    },
    "displaylogo": False,
}
TEXT_SIZE = "0.875rem"
SMALL_SIZE = "0.75rem"


def upload_note(limit_mb: int) -> str:
    """«Hasta 600 MB por archivo»: the limit as configured, in Spanish."""
    return f"Hasta {limit_mb:,} MB por archivo"


def style_sheet(limit_mb: int) -> str:
    """The CSS that puts Spanish over Streamlit's fixed English texts."""
    uploader = '[data-testid="stFileUploaderDropzone"]'
    instructions = '[data-testid="InputInstructions"] > span:first-child'
    single = ':is([data-testid="stTextInput"], [data-testid="stNumberInput"])'
    return f"""
{uploader} button [data-testid="stMarkdownContainer"] p {{ font-size: 0; }}
{uploader} button [data-testid="stMarkdownContainer"] p::after {{
  content: "{UPLOAD_BUTTON}"; font-size: {TEXT_SIZE};
}}
[data-testid="stFileUploaderDropzoneInstructions"] span {{ font-size: 0; }}
[data-testid="stFileUploaderDropzoneInstructions"] span::after {{
  content: "{upload_note(limit_mb)}"; font-size: {TEXT_SIZE};
}}
{single} {instructions} {{ font-size: 0; }}
{single} {instructions}::after {{ content: "Enter para aplicar"; font-size: {SMALL_SIZE}; }}
[data-testid="stTextArea"] {instructions} {{ font-size: 0; }}
[data-testid="stTextArea"] {instructions}::after {{ content: "Ctrl+Enter para aplicar"; font-size: {SMALL_SIZE}; }}
"""


def apply() -> None:
    """Inject the style sheet (a ``<style>``-only st.html takes no room on the page)."""
    limit = int(st.get_option("server.maxUploadSize"))
    st.html(f"<style>{style_sheet(limit)}</style>")
