"""Spanish column labels and readable file names in the tables and CSV files people get (issue 15: «technical
names in tables and files»); the envelope keeps its contract keys."""

from __future__ import annotations

import copy
import csv
import io

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ui import column_labels

ENVELOPE = {
    "tool": "rank_por_delito@1.1.0",
    "status": "ok",
    "summary": {"headline": "Top 3 municipios por homicidio doloso (conteo)"},
    "meta": {"warnings": []},
    "data": {
        "inline": {
            "columns": [{"name": n} for n in ("entidad_id", "label", "conteo", "tasa_per_100k")],
            "rows": [["GTO.MUN.LEON", "León", 596, 31.9], ["GTO.MUN.CELAYA", "Celaya", 443, 83.2]],
            "limit_notice": {"applied": False, "total_rows": 2},
        }
    },
    "evidence": [],
}
TECHNICAL = ("entidad_id", "tasa_per_100k", "rank_por_delito")


@pytest.mark.parametrize(
    "name,label",
    [
        ("entidad_id", "Clave de lugar"),
        ("tasa_per_100k", "Tasa por 100 mil habitantes"),
        ("conteo", "Delitos registrados"),
        ("anio", "Año"),
        ("campo_nuevo", "Campo nuevo"),  # a column nobody labelled yet reads as words
    ],
)
def test_column_label(name, label):
    assert column_labels.column_label(name) == label


def test_two_columns_never_share_a_label():
    frame = pd.DataFrame([[1, 2]], columns=["fecha", "mes"])  # both «Mes»
    assert list(column_labels.spanish_frame(frame).columns) == ["Mes", "Mes (mes)"]


@pytest.mark.parametrize(
    "columns,shown",
    [
        (["entidad_id", "label", "conteo"], ["Lugar", "Delitos registrados", "Clave de lugar"]),
        (["lugar_id", "fecha", "conteo"], ["Mes", "Delitos registrados", "Clave de lugar"]),
        (["label", "conteo", "entidad_id"], ["Lugar", "Delitos registrados", "Clave de lugar"]),
        (["fecha", "conteo"], ["Mes", "Delitos registrados"]),  # no key: as it came
    ],
)
def test_on_screen_a_places_key_comes_after_its_name_and_figures(columns, shown):
    frame = column_labels.spanish_frame(pd.DataFrame([[None] * len(columns)], columns=columns))
    assert column_labels.screen_order(frame) == shown


@pytest.mark.parametrize(
    "headline,name",
    [
        ("Top 3 municipios por homicidio doloso (conteo)", "casandra_top_3_municipios_por_homicidio_doloso_conteo.csv"),
        ("Evidencia: 217 filas de León", "casandra_evidencia_217_filas_de_leon.csv"),
        ("", "casandra_resultado.csv"),
    ],
)
def test_download_names_are_readable(headline, name):
    assert column_labels.download_name({"summary": {"headline": headline}}) == name


def draw_table(envelope) -> None:
    import streamlit

    from ui import render

    seen = streamlit.session_state.setdefault("downloads", [])
    original = streamlit.download_button

    def capture(label, data, *args, **kwargs):
        seen.append({"data": data, **kwargs})
        return original(label, data, *args, **kwargs)

    streamlit.download_button = capture
    try:
        render.render_table(envelope, "t")
    finally:
        streamlit.download_button = original


def test_the_table_and_its_csv_speak_spanish():
    envelope = copy.deepcopy(ENVELOPE)
    at = AppTest.from_function(draw_table, args=(envelope,)).run(timeout=60)
    assert not at.exception
    shown = at.dataframe[0].value
    assert list(shown.columns) == ["Clave de lugar", "Lugar", "Delitos registrados", "Tasa por 100 mil habitantes"]
    on_screen = ["Lugar", "Delitos registrados", "Tasa por 100 mil habitantes", "Clave de lugar"]
    assert list(at.dataframe[0].proto.column_order) == on_screen  # the figures first: on a phone they stay in sight
    download = at.session_state["downloads"][0]
    header = next(csv.reader(io.StringIO(download["data"].decode("utf-8-sig"))))
    assert header == list(shown.columns)
    assert not any(word in download["file_name"] for word in TECHNICAL)
    assert envelope == ENVELOPE  # the contract keys inside the envelope are untouched
