"""AppTest: the Datos page shows the version, coverage chart, yearly series and sources."""

from __future__ import annotations

import json

from tests.markdown_check import unescape
from tests.pages.conftest import texts


def test_datos_shows_version_coverage_annual_series_and_sources(bundled_settings, make_app):
    at = make_app(bundled_settings, roles=["steward"], email="luis@example.org")
    at.run()
    at.switch_page("pages/datos.py").run()
    assert not at.exception
    assert at.title[0].value == "Datos"
    assert "datos hasta 2025-11-30" in unescape(at.caption[0].value)
    assert [m.label for m in at.metric] == ["Desde", "Datos hasta", "Celdas mensuales"]
    assert at.metric[1].value == "2025-11-30"
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert json.loads(at.get("plotly_chart")[0].proto.config)["locale"] == "es-casandra"  # Plotly's words in Spanish
    crimes = {y for trace in chart["data"] for y in trace["y"]}
    assert "Homicidio doloso" in crimes or any("omicidio" in c for c in crimes)
    assert "2026 (RNID) es parcial: 8 de 12 meses" in texts(at.info)
    annual = at.dataframe[3].value
    assert annual.loc[annual["año"] == 2026, "parcial"].item() == "sí"
    sources = at.dataframe[4].value
    assert {"procedencia", "sha256"} <= set(sources.columns)
    assert sources["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert sources["procedencia"].str.contains("SESNSP").any()


def test_datos_on_an_empty_store_says_there_is_no_data(empty_settings, make_app):
    at = make_app(empty_settings, roles=["steward"]).run()
    at.switch_page("pages/datos.py").run()
    assert not at.exception
    assert "No hay datos publicados" in texts(at.warning)
