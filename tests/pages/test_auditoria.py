"""AppTest: Auditoría — filters, records, contract detail, chain verification, export and lab approval."""

from __future__ import annotations

import json
import sqlite3
from datetime import date, timedelta

import pytest

from core import api
from core.ask.govern import lab_approved
from core.audit import segment
from core.audit.log import AuditLog
from core.etl import SourceSpec
from tests.conftest import FIXTURES
from tests.pages.conftest import texts
from ui import audit_view

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

CONTRACTS = {
    "query_plan": {"mode": "fast", "domains": ["tendencias"]},
    "governor": {
        "lab_policy": {"allow_lab": False, "status": "denied", "rationale": "Laboratorio bloqueado por defecto."},
        "allowed_tool_status": ["stable"],
        "decided_by": "policy",
    },
    "analyst_plan": {"steps": ["serie"]},
    "planner_state": {"strategy": "retrieve_then_answer"},
    "plan": {"plan": [{"tool_id": 12, "args": {}}]},
    "validation": {"ok": True},
    "timings_ms": {"total": 12.5},
    "errors": [],
    "route_reason": "serie mensual",
}


@pytest.fixture
def audited(data_copy):
    """A store copy with three real records: a plan execution, a chat turn and a load."""
    vid = api.versions(data_copy)[0]["dataset_version"]
    plan = {
        "plan": [
            {
                "tool_id": 6,
                "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2024-01-01", "to": "2024-12-31"},
            }
        ]
    }
    api.execute_plan(plan, settings=data_copy, user="ana@example.org", role="analista")
    with AuditLog.for_settings(data_copy) as log:
        log.append(
            kind="ask",
            user="sofia@example.org",
            role="supervisor",
            status="ok",
            dataset_version=vid,
            question="¿Cómo van los homicidios en León?",
            tools=["serie_temporal"],
            payload=CONTRACTS,
        )
    api.load_files(
        [SourceSpec(FIXTURES / "etl" / "leon_revision.csv")],
        settings=data_copy,
        user="luis@example.org",
        role="steward",
    )
    return data_copy


def _auditoria(make_app, settings):
    at = make_app(settings, roles=["supervisor"], email="sofia@example.org").run()
    return at.switch_page("pages/auditoria.py").run()


def _rows(at):
    return at.dataframe[0].value


def test_records_verification_and_filters(audited, make_app):
    at = _auditoria(make_app, audited)
    assert not at.exception
    assert "Cadena de auditoría íntegra: 3 registros verificados." in texts(at.success)
    assert list(_rows(at)["usuario"]) == ["luis@example.org", "sofia@example.org", "ana@example.org"]
    assert "Mostrando 3 de 3 registros" in texts(at.caption)

    at.selectbox(key="aud_usuario").set_value("ana@example.org").run()
    assert list(_rows(at)["tipo"]) == ["ejecución de plan"]
    assert list(_rows(at)["herramientas"]) == ["rank_por_delito"]
    at.selectbox(key="aud_usuario").set_value(None).run()

    at.selectbox(key="aud_tipo").set_value("etl").run()
    assert list(_rows(at)["usuario"]) == ["luis@example.org"] and list(_rows(at)["estado"]) == ["published"]
    at.selectbox(key="aud_tipo").set_value(None).run()

    at.selectbox(key="aud_herramienta").set_value("serie_temporal").run()
    assert list(_rows(at)["usuario"]) == ["sofia@example.org"]
    at.selectbox(key="aud_herramienta").set_value(None).run()

    at.selectbox(key="aud_estado").set_value("published").run()
    assert len(_rows(at)) == 1
    at.selectbox(key="aud_estado").set_value(None).run()

    first = api.versions(audited)[-1]["dataset_version"]
    at.selectbox(key="aud_version").set_value(first).run()
    assert set(_rows(at)["usuario"]) == {"ana@example.org", "sofia@example.org"}
    at.selectbox(key="aud_version").set_value(None).run()

    at.text_input(key="aud_texto").input("homicidios en León").run()
    assert list(_rows(at)["pregunta"]) == ["¿Cómo van los homicidios en León?"]
    at.text_input(key="aud_texto").input("").run()

    tomorrow = date.today() + timedelta(days=1)
    at.date_input(key="aud_desde").set_value(tomorrow).run()
    assert _rows(at).empty and "Sin registros para esos filtros." in texts(at.info)
    at.date_input(key="aud_hasta").set_value(date.today() - timedelta(days=1)).run()
    assert "El rango de fechas está invertido" in at.error[0].value  # Spanish, not a traceback
    at.date_input(key="aud_desde").set_value(None).run()
    at.date_input(key="aud_hasta").set_value(None).run()
    assert len(_rows(at)) == 3


def test_a_record_detail_shows_every_contract(audited, make_app):
    at = _auditoria(make_app, audited)
    labels = at.selectbox(key="aud_detalle").options
    at.selectbox(key="aud_detalle").select_index(next(i for i, label in enumerate(labels) if "pregunta" in label)).run()
    titles = [e.label for e in at.expander]
    for title in (
        "QueryPlan (enrutador)",
        "Gobernador",
        "AnalystPlan",
        "PlannerState",
        "Plan",
        "Validación",
        "Tiempos (ms)",
        "Errores",
        "Otros campos",
    ):
        assert title in titles
    assert "¿Cómo van los homicidios en León?" in texts(at.markdown)
    shown = [json.loads(j.proto.body) for j in at.json]
    assert {"strategy": "retrieve_then_answer"} in shown and {"route_reason": "serie mensual"} in shown
    # the Governor's lab decision reads as the access decision it is, not as an error
    assert "Acceso al laboratorio: sin aprobación de supervisión" in texts(at.markdown)
    assert "denegado" not in texts(at.markdown).lower()


def test_a_tampered_chain_is_reported_naming_the_first_bad_record(audited, make_app):
    raw = sqlite3.connect(AuditLog.for_settings(audited).path)
    raw.execute("DROP TRIGGER audit_records_no_update")
    raw.execute("UPDATE audit_records SET user = 'mallory' WHERE seq = 2")
    raw.commit()
    raw.close()
    at = _auditoria(make_app, audited)
    assert not at.exception
    assert "Cadena de auditoría ROTA — Registro alterado en seq=2" in at.error[0].value


def test_the_page_says_which_tampering_it_found(audited, make_app):
    raw = sqlite3.connect(AuditLog.for_settings(audited).path)
    raw.execute("DROP TRIGGER audit_records_no_delete")
    raw.execute("DELETE FROM audit_records WHERE seq = 3")
    raw.execute("UPDATE sqlite_sequence SET seq = 2 WHERE name = 'audit_records'")  # hide it from the counter
    raw.commit()
    raw.close()
    at = _auditoria(make_app, audited)
    assert not at.exception
    assert "ROTA — Registros borrados al final en seq=3" in at.error[0].value
    assert any("reanchor" in c.value for c in at.caption)


def test_exports_follow_the_filters(audited, make_app):
    at = _auditoria(make_app, audited)
    assert [b.proto.label for b in at.get("download_button")][:2] == ["Exportar CSV", "Exportar JSON"]
    log = AuditLog.for_settings(audited)
    filters = audit_view.clean_filters(user="ana@example.org", text="")
    csv_lines = audit_view.export_bytes(log, "csv", filters).decode().strip().splitlines()
    assert len(csv_lines) == 2 and "ana@example.org" in csv_lines[1]
    records = json.loads(audit_view.export_bytes(log, "json", {}).decode())
    assert [r["seq"] for r in records] == [1, 2, 3]  # chain order


def test_the_lab_toggle_writes_an_audited_setting(audited, make_app):
    at = _auditoria(make_app, audited)
    assert at.toggle(key="aud_lab").value is False and not lab_approved(audited)
    at.toggle(key="aud_lab").set_value(True).run()
    assert not at.exception
    assert lab_approved(audited)
    assert "Laboratorio aprobado" in texts(at.success)
    record = AuditLog.for_settings(audited).list(kind="settings")[0]
    assert (record.user, record.role, record.payload) == ("sofia@example.org", "supervisor", {"lab_approved": True})
    at.run()
    assert at.toggle(key="aud_lab").value is True  # reads the stored setting back
    at.toggle(key="aud_lab").set_value(False).run()
    assert not lab_approved(audited)
    assert [r.payload["lab_approved"] for r in AuditLog.for_settings(audited).list(kind="settings")] == [False, True]
    assert "íntegra: 5 registros" in texts(at.success)


def test_an_empty_log_is_fine(data_copy, make_app):
    at = _auditoria(make_app, data_copy)
    assert not at.exception
    assert "íntegra: 0 registros" in texts(at.success)
    assert "Sin registros para esos filtros." in texts(at.info)


def _all_elements(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _all_elements(child)


def test_the_record_detail_prints_no_python_internals(audited, make_app):
    """Streamlit's magic drew «Creator of Delta protobuf messages» (a DeltaGenerator's help) under every contract."""
    at = _auditoria(make_app, audited)
    labels = at.selectbox(key="aud_detalle").options
    at.selectbox(key="aud_detalle").select_index(next(i for i, label in enumerate(labels) if "pregunta" in label)).run()
    assert not at.exception
    assert at.get("help") == []
    shown = "\n".join(str(getattr(e, "proto", "")) for e in _all_elements(at._tree))
    for internal in ("DeltaGenerator", "Creator of Delta protobuf messages", "root_container"):
        assert internal not in shown


def test_activity_per_user_and_day_follows_the_filters(audited, make_app):
    at = _auditoria(make_app, audited)
    activity = at.dataframe[1].value
    assert list(activity.columns) == [
        "día (UTC)",
        "usuario",
        "preguntas",
        "planes ejecutados",
        "cargas",
        "denegaciones",
        "otros",
        "total",
    ]
    by_user = activity.set_index("usuario")
    assert by_user.loc["ana@example.org", "planes ejecutados"] == 1
    assert by_user.loc["sofia@example.org", "preguntas"] == 1
    assert by_user.loc["luis@example.org", "cargas"] == 1
    assert activity["total"].sum() == 3
    assert len(at.get("vega_lite_chart")) == 1
    at.selectbox(key="aud_usuario").set_value("luis@example.org").run()
    assert list(at.dataframe[1].value["usuario"]) == ["luis@example.org"]
    at.date_input(key="aud_desde").set_value(date.today() + timedelta(days=1)).run()
    assert "Sin actividad para esos filtros." in texts(at.info)


def test_a_verified_segment_is_offered_for_the_records_shown(audited, make_app):
    at = _auditoria(make_app, audited)
    assert (at.number_input(key="aud_seg_desde").value, at.number_input(key="aud_seg_hasta").value) == (1, 3)
    button = next(b for b in at.get("download_button") if "segmento" in b.proto.label)
    assert button.proto.label == "Descargar segmento verificado (seq 1–3)" and not button.proto.disabled
    at.number_input(key="aud_seg_desde").set_value(3).run()
    at.number_input(key="aud_seg_hasta").set_value(2).run()
    assert "Rango de registros inválido" in at.error[0].value
    assert not [b for b in at.get("download_button") if "segmento" in b.proto.label]

    document = json.loads(audit_view.segment_bytes(audited, 1, 3, "sofia@example.org", "supervisor"))
    log = AuditLog.for_settings(audited)
    assert segment.check_segment(document, log.seal.key()).ok
    assert log.list(limit=1)[0].kind == "audit_export"
    document["records"][1]["question"] = "otra"
    assert not segment.check_segment(document, log.seal.key()).ok
