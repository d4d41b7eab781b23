"""AppTest: Carga de datos — upload, preview, publish with progress, errors, quarantine and rollback."""

from __future__ import annotations

import pytest

from core import api
from core.audit.log import AuditLog
from core.errors import DatosFaltantesError
from tests.conftest import FIXTURES
from tests.markdown_check import unescape
from tests.pages.conftest import texts
from ui import upload

pytestmark = pytest.mark.slow  # AppTest runs of whole pages, a turn of the pipeline each

LEON = FIXTURES / "etl" / "leon_revision.csv"


def _carga(make_app, settings, email="luis@example.org"):
    at = make_app(settings, roles=["steward"], email=email).run()
    return at.switch_page("pages/carga.py").run()


def _upload(at, *paths):
    files = [(p.name, p.read_bytes(), "text/csv") for p in paths]
    at.file_uploader(key="carga_archivos").set_value(files).run()
    return at


def test_steward_previews_then_publishes_an_upload(data_copy, make_app):
    first = api.versions(data_copy)[0]["dataset_version"]
    at = _upload(_carga(make_app, data_copy), LEON)
    assert not at.exception
    publish = next(b for b in at.button if b.label == "Publicar")
    assert publish.disabled  # no publishing before a preview
    assert unescape(at.expander[0].label) == "Opciones de leon_revision.csv"

    next(b for b in at.button if b.label == "Vista previa").click().run()
    assert not at.exception and not at.error
    assert "Vista previa: nada se publicó todavía." in texts(at.info)
    files = at.dataframe[0].value
    assert files.loc[0, "archivo"] == "leon_revision.csv"
    assert files.loc[0, "formato"].startswith("IDM_NM") and files.loc[0, "codificación"] == "utf-8"
    assert files.loc[0, "delitos"] == "homicidio_doloso" and files.loc[0, "periodo"].startswith(
        "2024-01-01 a 2024-12-01"
    )
    replaced = next(m for m in at.metric if m.label == "Celdas reemplazadas")
    assert int(replaced.value.replace(",", "")) > 0
    assert api.versions(data_copy)[0]["dataset_version"] == first  # the preview published nothing

    next(b for b in at.button if b.label == "Publicar").click().run()
    assert not at.exception and not at.error
    new = api.versions(data_copy)[0]
    assert new["current"] and new["dataset_version"] != first
    assert f"Publicada la versión **{new['dataset_version']}**" in texts(at.success)
    assert at.get("progress")[0].proto.value == 100  # the bar reached the end
    assert new["dataset_version"] in set(at.dataframe[-1].value["versión"])
    record = AuditLog.for_settings(data_copy).list(kind="etl")[0]
    assert (record.user, record.role, record.status) == ("luis@example.org", "steward", "published")
    assert record.payload["files"] == ["leon_revision.csv"]


def test_a_bad_file_shows_its_spanish_error_and_nothing_changes(data_copy, make_app):
    before = api.versions(data_copy)
    at = _upload(_carga(make_app, data_copy), FIXTURES / "etl" / "all_bad.csv")
    next(b for b in at.button if b.label == "Vista previa").click().run()
    assert not at.exception
    error = unescape(at.error[0].value)
    assert "Se rechaza all_bad.csv: todas sus filas quedaron en cuarentena" in error
    assert "DATA_QUALITY_ISSUE" in error and upload.NOTHING_LOST in error
    assert next(b for b in at.button if b.label == "Publicar").disabled
    assert api.versions(data_copy) == before
    at.run()  # the message stays while the same files are selected
    assert upload.NOTHING_LOST in at.error[0].value


def test_a_bad_coverage_option_is_refused_in_spanish(data_copy, make_app):
    at = _upload(_carga(make_app, data_copy), LEON)
    at.text_input(key="carga_cov::leon_revision.csv").input("2024-13:2024-01").run()
    next(b for b in at.button if b.label == "Vista previa").click().run()
    assert "Mes inválido" in unescape(at.error[0].value)


def test_quarantine_download_and_rollback_with_confirmation(data_copy, make_app):
    first = api.versions(data_copy)[0]["dataset_version"]
    at = _upload(_carga(make_app, data_copy), FIXTURES / "etl" / "bad_rows.csv")
    next(b for b in at.button if b.label == "Vista previa").click().run()
    assert "Cuarentena de bad_rows.csv: 2 filas" in [unescape(e.label) for e in at.expander]
    next(b for b in at.button if b.label == "Publicar").click().run()
    rows = api.quarantine(data_copy)
    assert f"(CSV, {len(rows)} registros)" in at.get("download_button")[0].proto.label
    csv_text = upload.quarantine_csv(rows).decode("utf-8-sig")
    assert csv_text.splitlines()[0] == "load_id,archivo,linea,motivo,valores,cargado_en"
    assert "clave de municipio desconocida" in csv_text

    at.button(key=f"carga_rb::{first}").click().run()
    assert f"¿Volver a la versión **{first}**?" in texts(at.warning)
    assert api.versions(data_copy)[0]["current"]  # nothing happens before confirming
    at.button(key="carga_rb_ok").click().run()
    assert not at.exception
    assert f"Versión vigente: {first}." in texts(at.success)
    assert next(v for v in api.versions(data_copy) if v["current"])["dataset_version"] == first
    record = AuditLog.for_settings(data_copy).list(kind="rollback")[0]
    assert (record.user, record.role, record.payload["to"]) == ("luis@example.org", "steward", first)


def test_the_upload_handler_previews_and_publishes_file_objects(data_copy):
    """The handler the page uses, driven without Streamlit (what the browser test uploads)."""
    with LEON.open("rb") as handle:
        preview = upload.load_uploads([handle], {}, settings=data_copy, user="t@x", role="steward", dry_run=True)
    assert preview["status"] == "preview" and preview["archivos"][0]["archivo"] == "leon_revision.csv"
    with LEON.open("rb") as handle:  # its name is the full path: only the file name is kept
        done = upload.load_uploads(
            [handle],
            {"leon_revision.csv": {"procedencia": "prueba"}},
            settings=data_copy,
            user="t@x",
            role="steward",
            dry_run=False,
        )
    assert done["status"] == "published"
    source = next(s for s in api.dataset_info(data_copy)["sources"] if s["archivo"] == "leon_revision.csv")
    assert source["procedencia"] == "prueba"
    with (FIXTURES / "etl" / "header_only.csv").open("rb") as handle, pytest.raises(DatosFaltantesError):
        upload.load_uploads([handle], {}, settings=data_copy, user="t@x", role="steward", dry_run=False)


def test_safe_names_cannot_leave_the_temp_folder():
    assert upload.safe_name(1, "../../etc/passwd") == "01_passwd"
    assert upload.safe_name(2, "x y (1).csv") == "02_x_y__1_.csv"
    assert "/" not in upload.safe_name(3, "a/b/../c.csv")
