"""AppTest of «Explorar»: the slicers build the chat's plan, the answer and its Plan de consulta are drawn,
the URL carries the selection both ways (a link opens it; a change writes it), and the run is audited."""

from __future__ import annotations

import pytest

from core.audit.log import AuditLog
from tests.markdown_check import unescape

pytestmark = pytest.mark.slow  # AppTest runs of a whole page

LEON_2024 = {
    "delito": "homicidio_doloso",
    "lugar": "GTO.MUN.LEON",
    "desde": "2024-01",
    "hasta": "2024-12",
    "forma": "total",
}


@pytest.fixture
def explorar(data_copy, make_app):
    def open_with(params: dict | None = None, roles=("analista",)):
        at = make_app(data_copy, roles=list(roles), script="pages/explorar.py")
        at.query_params.update(params or {})
        at.run()
        return at

    return open_with


def all_text(at) -> str:
    return unescape("\n".join(e.value for e in [*at.markdown, *at.caption, *at.info, *at.success, *at.subheader]))


def test_a_link_opens_its_selection_and_answers_it(explorar, data_copy):
    at = explorar(LEON_2024)
    assert not at.exception, at.exception
    assert at.selectbox(key="explorar_forma").value == "total"
    assert at.multiselect(key="explorar_lugares").value == ["GTO.MUN.LEON"]
    assert (at.selectbox(key="explorar_desde").value, at.selectbox(key="explorar_hasta").value) == (
        "2024-01",
        "2024-12",
    )
    text = all_text(at)
    assert "León registró 596 homicidios dolosos" in text
    assert "**Qué calculé**" in text  # the plan in plain words first; the contracts open with a toggle
    at.toggle(key="explorar_technical").set_value(True).run()
    assert not at.exception, at.exception
    assert "Plan válido" in all_text(at) and "`rank_por_delito@" in all_text(at)
    assert at.query_params["lugar"] == "GTO.MUN.LEON" and at.query_params["medida"] == "conteo"
    with AuditLog.for_settings(data_copy) as log:
        records = list(log.list(kind="explore"))
    assert len(records) == 1 and records[0].user == "ana@example.org"


def test_changing_a_slicer_writes_the_url_and_answers_again(explorar):
    at = explorar(LEON_2024)
    at.selectbox(key="explorar_forma").set_value("ranking").run()
    assert not at.exception, at.exception
    assert at.query_params["forma"] == "ranking" and "lugar" not in at.query_params  # the ranking takes no place
    assert at.multiselect(key="explorar_lugares").value == []
    assert "Los 10 municipios con más homicidios dolosos" in all_text(at)
    at.radio(key="explorar_medida").set_value("tasa").run()
    assert at.query_params["medida"] == "tasa"
    assert "por cada 100 mil" in all_text(at)


def test_the_first_visit_answers_the_default_selection(explorar):
    at = explorar()
    assert not at.exception, at.exception
    assert at.multiselect(key="explorar_delitos").value == ["homicidio_doloso"]
    assert at.query_params["delito"] == "homicidio_doloso" and at.query_params["forma"] == "total"
    assert "Guanajuato registró" in all_text(at)


def test_a_stale_link_is_fitted_and_says_so(explorar):
    at = explorar({**LEON_2024, "delito": ["no_existe", "robo"], "forma": "pastel", "top": "500"})
    assert not at.exception, at.exception
    notes = unescape("\n".join(i.value for i in at.info))
    assert "no están en los datos" in notes and "«forma»" in notes and "de 1 a 46" in notes
    assert at.query_params["delito"] == "robo" and at.query_params["forma"] == "total"


def test_a_steward_cannot_open_explorar(explorar):
    at = explorar(LEON_2024, roles=("steward",))
    assert not at.exception
    assert "León registró" not in all_text(at)
