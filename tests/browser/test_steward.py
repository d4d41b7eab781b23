"""End to end in Chromium, the steward (issue 15 item 7): a removal heads the preview and blocks publishing until it
is confirmed, an identical re-upload publishes no version, the versions table says who and what, and a rollback asks
for a reason that reaches the audit."""

from __future__ import annotations

import re

import pytest

from core import api
from core.audit.log import AuditLog
from core.config import load_settings
from tests.browser.conftest import copy_store, start_app, unavailable
from tests.conftest import FIXTURES

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - dev dependencies not installed
    unavailable("Playwright no está instalado: pip install -r requirements-dev.txt", module_level=True)

pytestmark = pytest.mark.browser
LEON_NOV = FIXTURES / "etl" / "leon_one_row_2025-11.csv"  # one row: León, homicidio doloso, November 2025
REMOVED = "183 celdas de homicidio doloso de noviembre de 2025 en 46 municipios"
LOAD_MS = 120_000  # a preview or a publish over the bundled store


def test_a_steward_confirms_a_removal_reuploads_and_rolls_back_with_a_reason(app_data_dir, tmp_path, page):
    data = copy_store(app_data_dir, tmp_path / "data")
    settings = load_settings(data)
    first = api.versions(settings)[0]["dataset_version"]
    with start_app(data) as base:
        page.goto(f"{base}/carga")
        expect(page.get_by_role("heading", name="Carga de datos")).to_be_visible()
        page.locator("input[type=file]").set_input_files(str(LEON_NOV))
        expect(page.get_by_text(f"Opciones de {LEON_NOV.name}")).to_be_visible()
        page.get_by_role("button", name="Vista previa").click()

        # the removal heads the preview, in words, and publishing waits for its confirmation
        expect(page.get_by_text("Celdas eliminadas")).to_be_visible(timeout=LOAD_MS)
        expect(page.get_by_role("listitem").filter(has_text=f"Se eliminarán {REMOVED}.")).to_be_visible()
        publish = page.get_by_role("button", name="Publicar")
        expect(publish).to_be_disabled()
        expect(page.get_by_text("--confirmar", exact=False)).to_have_count(0)  # no command-line flag
        page.get_by_text(f"Entiendo que se eliminarán {REMOVED}.", exact=True).click()
        expect(publish).to_be_enabled()
        note = page.get_by_role("textbox", name="Nota de la versión (opcional)")
        note.fill("León manda noviembre corregido")
        note.press("Enter")
        publish.click()
        expect(page.get_by_text("Publicada la versión")).to_be_visible(timeout=LOAD_MS)
        versions = api.versions(settings)
        assert len(versions) == 2 and versions[0]["current"]
        assert versions[0]["publicacion"]["nota"] == "León manda noviembre corregido"

        # the same file again: nothing changes, no version is published
        page.get_by_role("button", name="Vista previa").click()
        expect(page.get_by_text("no se publicará una versión nueva")).to_be_visible(timeout=LOAD_MS)
        page.get_by_role("button", name="Publicar").click()
        expect(page.get_by_text("Sin cambios: no se publicó una versión nueva.")).to_be_visible(timeout=LOAD_MS)
        assert len(api.versions(settings)) == 2

        # rollback asks for a reason, and the audit keeps it
        page.get_by_role("button", name=f"Volver a {first}").click()
        confirm = page.get_by_role("button", name="Confirmar")
        expect(confirm).to_be_disabled()
        reason = page.get_by_role("textbox", name="Motivo (obligatorio)")
        reason.fill("La corrección de León no estaba validada")
        reason.press("Enter")
        expect(confirm).to_be_enabled()
        confirm.click()
        expect(page.get_by_text(re.compile(f"Versión vigente: {re.escape(first)}"))).to_be_visible(timeout=LOAD_MS)
    record = AuditLog.for_settings(settings).list(kind="rollback")[0]
    assert record.payload["motivo"] == "La corrección de León no estaba validada" and record.payload["to"] == first
    assert next(v for v in api.versions(settings) if v["current"])["dataset_version"] == first
