"""AppTest: Datos shows what the store holds as a matrix of crime × level × period, with a name and a level filter
(issue 14, item 7)."""

from __future__ import annotations

import pytest

from core.dataset.availability import ABSENT, LEVELS
from tests.pages.conftest import texts

pytestmark = pytest.mark.slow  # AppTest runs of a whole page

MUN, STATE, RNID = LEVELS["municipio_gto"], LEVELS["estado"], LEVELS["rnid"]


def _datos(make_app, settings):
    at = make_app(settings, roles=["analista"]).run()
    return at.switch_page("pages/datos.py").run()


def _matrix(at):
    return next(d.value for d in at.dataframe if MUN in d.value.columns)


def _row(frame, subtipo: str):
    return frame[frame["subtipo"] == subtipo].iloc[0]


def test_datos_shows_the_matrix_with_real_rows(bundled_settings, make_app):
    at = _datos(make_app, bundled_settings)
    assert not at.exception
    assert "Qué datos hay" in [h.value for h in at.subheader]
    frame = _matrix(at)
    assert list(frame.columns[:3]) == ["fuero", "tipo", "subtipo"] and {MUN, STATE, RNID} <= set(frame.columns)
    doloso = _row(frame, "Homicidio doloso")
    assert doloso[MUN].startswith("subtipo × modalidad, 46 municipios, 2020-01..2025-11")
    assert doloso[STATE].startswith("subtipo × modalidad, 32 estados, 2015-01..2024-11")
    assert _row(frame, "Violencia familiar")[MUN].startswith("subtipo, 46 municipios, 2015-01..2022-12")
    tentativa = _row(frame, "Tentativa de homicidio doloso")
    assert tentativa[RNID].endswith("2026-01..2026-03") and tentativa[MUN] == tentativa[STATE] == ABSENT
    assert f"{len(frame)} delitos." in texts(at.caption)


def test_datos_filters_the_matrix_by_crime_name_and_level(bundled_settings, make_app):
    at = _datos(make_app, bundled_settings)
    at.text_input(key="datos_delito").input("feminicidio").run()
    frame = _matrix(at)
    assert set(frame["subtipo"]) == {"Feminicidio", "Tentativa de feminicidio"}
    at.selectbox(key="datos_nivel").select(RNID).run()
    at.text_input(key="datos_delito").input("").run()
    frame = _matrix(at)
    assert not at.exception and len(frame) > 50
    assert (frame[RNID] != ABSENT).all() and frame[RNID].str.contains("2026-01..2026-03", regex=False).all()
    assert "Extorsión" not in set(frame["subtipo"])  # RNID split it into new subtipos
