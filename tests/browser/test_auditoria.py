"""Auditoría in Chromium: the record detail shows no Python internals and stays short, the activity per user and
day shows, and the verified segment downloads and verifies (a tampered copy does not)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from core import api
from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.audit import segment
from core.audit.log import AuditLog
from core.config import load_settings
from tests.browser.conftest import copy_store, start_app, unavailable

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - dev dependencies not installed
    unavailable("Playwright no está instalado: pip install -r requirements-dev.txt", module_level=True)

pytestmark = pytest.mark.browser
INTERNALS = ("DeltaGenerator", "Creator of Delta protobuf messages", "root_container")
MAX_HEIGHT_PX = 8_000  # every contract of the detail open: 49,064 px with the magic echo, 3,100-5,200 px without
PLAN = {
    "plan": [
        {
            "tool_id": 6,
            "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", "from": "2024-01-01", "to": "2024-12-31"},
        }
    ]
}


def _seed(settings) -> int:
    """Real records: a plan run by one analyst, then chat turns (the newest a full answer) by another; how many."""
    api.execute_plan(PLAN, settings=settings, user="ana@example.org", role="analista")
    assistant = Assistant(settings=settings, user="beto@example.org", role="analista", use_cache=False)
    conversation = Conversation()
    for question in ("¿Qué opinas del clima?", "¿Cuántos homicidios dolosos hubo en León en 2024?"):
        assistant.ask(question, conversation, planner="rules")
    return AuditLog.for_settings(settings).count()


def _download(page, name: str):
    """Click a download button until its file arrives: a click that lands mid-rerun starts no download (CI flake)."""
    for _ in range(3):
        button = page.get_by_role("button", name=name)
        expect(button).to_be_visible()
        try:
            with page.expect_download(timeout=20_000) as info:
                button.click()
            return info.value
        except PlaywrightTimeoutError:
            continue
    raise AssertionError(f"«{name}» no descargó nada en tres intentos")


def _main_height(page) -> int:
    return page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")


def test_auditoria_detail_activity_and_a_verified_segment(app_data_dir, tmp_path, page):
    settings = load_settings(copy_store(app_data_dir, tmp_path / "data"))
    n = _seed(settings)
    with start_app(settings.data_dir) as base:
        page.goto(f"{base}/auditoria")
        expect(page.get_by_role("heading", name="Auditoría")).to_be_visible()
        expect(page.get_by_text(f"Cadena de auditoría íntegra: {n} registros verificados.")).to_be_visible()

        # the newest record (the answered question) is the one shown; open every contract it holds
        expect(page.get_by_text("¿Cuántos homicidios dolosos hubo en León en 2024?").first).to_be_visible()
        expanders = page.get_by_test_id("stExpander")
        expect(expanders.filter(has_text="Gobernador")).to_have_count(1)
        for i in range(expanders.count()):
            # Click only a closed one and wait until it is open: a rerun between clicks once left one shut.
            expander = expanders.nth(i)
            content = expander.get_by_test_id("stExpanderDetails").first
            if content.get_attribute("inert") is not None:
                expander.locator("summary").first.click()
            expect(content).not_to_have_attribute("inert", "")
        expect(page.get_by_text("Acceso al laboratorio: sin aprobación de supervisión").first).to_be_visible()
        page.wait_for_timeout(500)
        body = page.locator("body").inner_text()
        assert not [word for word in INTERNALS if word in body]
        assert "denegado" not in body.lower()
        height = _main_height(page)
        assert height < MAX_HEIGHT_PX, f"Auditoría mide {height} px con el detalle abierto"

        page.get_by_role("tab", name="Actividad por usuario y día").click()
        expect(page.get_by_text("Registros por usuario y día (UTC)")).to_be_visible()
        expect(page.get_by_test_id("stVegaLiteChart").first).to_be_visible()
        expect(page.get_by_test_id("stDataFrame").last).to_be_visible()

        page.get_by_role("tab", name="Segmento verificado").click()
        download = _download(page, f"Descargar segmento verificado (seq 1–{n})")
        assert download.suggested_filename == f"auditoria_segmento_1-{n}.json"
        document = json.loads(Path(download.path()).read_text(encoding="utf-8"))

    log = AuditLog.for_settings(settings)
    key = log.seal.key()
    assert [r["seq"] for r in document["records"]] == list(range(1, n + 1))
    assert all(r["hash"] and r["prev_hash"] for r in document["records"])
    assert document["chain_verification"]["ok"] and document["segment_verification"]["ok"]
    assert segment.check_segment(document, key).ok
    assert log.list(limit=1)[0].kind == "audit_export"  # who took a copy is audited
    document["records"][-1]["user"] = "otra@example.org"
    assert segment.check_segment(document, key).problem == "edited"
