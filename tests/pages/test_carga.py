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
LOAD_S = 240  # a preview or a publish loads the whole bundled store: slow on a loaded machine
LEON_NOV = FIXTURES / "etl" / "leon_one_row_2025-11.csv"  # one row: León, homicidio doloso, November 2025
REMOVED = "183 celdas de homicidio doloso de noviembre de 2025 en 46 municipios"


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

    next(b for b in at.button if b.label == "Vista previa").click().run(timeout=LOAD_S)
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

    next(b for b in at.button if b.label == "Publicar").click().run(timeout=LOAD_S)
    assert not at.exception and not at.error
    new = api.versions(data_copy)[0]
    assert new["current"] and new["dataset_version"] != first
    assert f"Publicada la versión **{new['dataset_version']}**" in texts(at.success)
    assert at.get("progress")[0].proto.value == 100  # the bar reached the end
    assert "Se agregarán" not in texts(at.markdown) and "Cambiaron 12 celdas de homicidio doloso" in texts(at.markdown)
    assert new["dataset_version"] in set(at.dataframe[-1].value["versión"])
    record = AuditLog.for_settings(data_copy).list(kind="etl")[0]
    assert (record.user, record.role, record.status) == ("luis@example.org", "steward", "published")
    assert record.payload["files"] == ["leon_revision.csv"]


def test_a_bad_file_shows_its_spanish_error_and_nothing_changes(data_copy, make_app):
    before = api.versions(data_copy)
    at = _upload(_carga(make_app, data_copy), FIXTURES / "etl" / "all_bad.csv")
    next(b for b in at.button if b.label == "Vista previa").click().run(timeout=LOAD_S)
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
    next(b for b in at.button if b.label == "Vista previa").click().run(timeout=LOAD_S)
    assert "Mes inválido" in unescape(at.error[0].value)


def test_quarantine_download_and_rollback_with_confirmation(data_copy, make_app):
    first = api.versions(data_copy)[0]["dataset_version"]
    at = _upload(_carga(make_app, data_copy), FIXTURES / "etl" / "bad_rows.csv")
    next(b for b in at.button if b.label == "Vista previa").click().run(timeout=LOAD_S)
    assert "Cuarentena de bad_rows.csv: 2 filas" in [unescape(e.label) for e in at.expander]
    next(b for b in at.button if b.label == "Publicar").click().run(timeout=LOAD_S)
    rows = api.quarantine(data_copy)
    assert f"(CSV, {len(rows)} registros)" in at.get("download_button")[0].proto.label
    csv_text = upload.quarantine_csv(rows).decode("utf-8-sig")
    assert csv_text.splitlines()[0] == "load_id,archivo,linea,motivo,valores,cargado_en"
    assert "clave de municipio desconocida" in csv_text

    at.button(key=f"carga_rb::{first}").click().run()
    assert f"¿Volver a la versión **{first}**?" in texts(at.warning)
    assert api.versions(data_copy)[0]["current"]  # nothing happens before confirming
    assert at.button(key="carga_rb_ok").disabled  # a reason first
    at.text_input(key=f"carga_rb_motivo::{first}").input("Cuarentena sin revisar").run()
    at.button(key="carga_rb_ok").click().run()
    assert not at.exception
    assert f"Versión vigente: {first}." in texts(at.success)
    assert next(v for v in api.versions(data_copy) if v["current"])["dataset_version"] == first
    record = AuditLog.for_settings(data_copy).list(kind="rollback")[0]
    assert (record.user, record.role, record.payload["to"]) == ("luis@example.org", "steward", first)
    assert record.payload["motivo"] == "Cuarentena sin revisar"


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


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def test_a_removal_heads_the_preview_and_blocks_publishing_until_confirmed(data_copy, make_app):
    before = api.versions(data_copy)
    at = _upload(_carga(make_app, data_copy), LEON_NOV)
    _button(at, "Vista previa").click().run(timeout=LOAD_S)
    assert not at.exception
    assert at.metric[0].label == "Celdas eliminadas"  # removals first
    assert next(m for m in at.metric if m.label == "Celdas eliminadas").value == "183"
    assert f"Se eliminarán {REMOVED}." in texts(at.markdown)
    assert "no contará como total del estado" in texts(at.warning)  # November would keep León only
    consent = at.checkbox[0]
    assert unescape(consent.label) == f"Entiendo que se eliminarán {REMOVED}."
    shown = texts(at.markdown) + texts(at.warning) + texts(at.error) + unescape(consent.label)
    assert "--" not in shown  # the page never names a command-line flag
    assert _button(at, "Publicar").disabled
    consent.check().run()
    assert not _button(at, "Publicar").disabled
    note = next(t for t in at.text_input if t.label == "Nota de la versión (opcional)")
    note.input("León manda noviembre corregido").run()
    _button(at, "Publicar").click().run(timeout=LOAD_S)
    assert not at.exception and not at.error
    now = next(v for v in api.versions(data_copy) if v["current"])
    assert len(api.versions(data_copy)) == len(before) + 1
    assert now["publicacion"]["cambios"]["eliminadas"] == 183
    assert now["publicacion"]["nota"] == "León manda noviembre corregido"
    table = at.dataframe[-1].value
    row = table[table["versión"] == now["dataset_version"]].iloc[0]
    assert (row["por"], row["archivos"], row["cambios"]) == ("luis@example.org", LEON_NOV.name, "+0 ~1 −183")
    assert row["nota"] == "León manda noviembre corregido"
    assert "None" not in table.astype(str).to_string()  # «anterior: None» never again


def test_an_identical_reupload_publishes_no_new_version(data_copy, make_app):
    at = _upload(_carga(make_app, data_copy), LEON)
    _button(at, "Vista previa").click().run(timeout=LOAD_S)
    _button(at, "Publicar").click().run(timeout=LOAD_S)
    count = len(api.versions(data_copy))
    _button(at, "Vista previa").click().run(timeout=LOAD_S)
    assert "Sin cambios: la versión vigente ya tiene este contenido; no se publicará una versión nueva." in texts(
        at.info
    )
    _button(at, "Publicar").click().run(timeout=LOAD_S)
    assert not at.exception and not at.error
    assert "Sin cambios: no se publicó una versión nueva." in texts(at.info)
    assert len(api.versions(data_copy)) == count
