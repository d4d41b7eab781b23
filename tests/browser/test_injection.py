"""Browser: injected Markdown, HTML and formulas never reach a person (issue 12, points 2 and 3).

A beacon (a tiny HTTP server on 127.0.0.1 that counts every request) stands for the attacker's
host. Three payloads point at it, each through the path an attacker would use:

- an analyst's question ``Resumen ![a](beacon/x.png) [Verificar cadena](beacon/phish)`` in
  Consultar, then in «Plan de consulta» and in the audit log a supervisor reads in Auditoría;
- a subtipo ``Robo ![p](beacon/p.png) <a href='beacon/plot'>ver</a>`` loaded through the ETL into
  a copy of the store: it is in the answer, the chart title, the headline, Datos' coverage chart;
- an LLM rationale with a backtick that would close the plan panel's code span
  (``Plan ` ![r](beacon/r.png) ```), from a stub LLM whose plan uses the hostile subtipo.

Every page is visited and drawn; the beacon must see 0 requests and no page may hold a link or
image pointing at it. The quarantine and audit CSVs downloaded from the pages have their formula
cells neutralized.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from core import api
from core.config import load_settings
from core.etl import SourceSpec
from tests.browser.conftest import ask_chat, copy_store, start_app, unavailable
from tests.conftest import FIXTURES
from tests.llm_stub import StubServer, plan_reply

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - dev dependencies not installed
    unavailable("Playwright no está instalado: pip install -r requirements-dev.txt", module_level=True)

pytestmark = pytest.mark.browser
SLOW = 120_000  # ms: the first question builds the assistant's lexicon
HOSTILE_FILE = FIXTURES / "etl" / "hostile_labels.csv"
FIXTURE_HOST = "http://127.0.0.1:9"  # the fixture's stand-in for the attacker's host


class Beacon:
    """An HTTP server on 127.0.0.1 that answers 404 to everything and records each request's path."""

    def __init__(self):
        """Bind a free port (not serving yet)."""
        self.hits: list[str] = []
        beacon = self

        class Handler(BaseHTTPRequestHandler):
            def handle_one_request(self):  # every method counts, whatever it is
                self.raw_requestline = self.rfile.readline(65537)
                if not self.raw_requestline or not self.parse_request():
                    self.close_connection = True
                    return
                beacon.hits.append(f"{self.command} {self.path}")
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                self.wfile.flush()

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.host = f"127.0.0.1:{self._server.server_address[1]}"
        self.url = f"http://{self.host}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Beacon:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def beacon() -> Iterator[Beacon]:
    with Beacon() as server:
        yield server


def hostile_upload(folder: Path, beacon: Beacon) -> tuple[Path, str]:
    """The IDM_NM fixture whose subtipo carries an image and a Plotly link (and three formula counts),
    pointed at the beacon."""
    path = folder / "robo_hostil.csv"
    path.write_text(HOSTILE_FILE.read_text(encoding="utf-8").replace(FIXTURE_HOST, beacon.url), encoding="utf-8")
    return path, f"Robo ![p]({beacon.url}/p.png) <a href='{beacon.url}/plot'>ver</a>"


def links_to(page, host: str) -> list[str]:
    """Every href, xlink:href or src in the page (and its frames) that points at ``host``."""
    script = """host => [...document.querySelectorAll('*')].flatMap(e => ['href', 'xlink:href', 'src', 'srcset']
        .map(a => e.getAttribute(a)).filter(v => v && v.includes(host)))"""
    found = []
    for frame in page.frames:
        found += frame.evaluate(script, host)
    return found


def go_to(page, title: str) -> None:
    """Open a page through the sidebar menu (keeps the Streamlit session and its turns)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=30_000)


def download(page, button: str) -> list[list[str]]:
    """Click a download button and read the CSV it gives."""
    with page.expect_download() as info:
        page.get_by_role("button", name=button).click()
    data = Path(info.value.path()).read_bytes().decode("utf-8-sig")
    return list(csv.reader(io.StringIO(data)))


def test_no_injected_markup_reaches_a_person(app_data_dir, tmp_path, page, beacon):
    data = copy_store(app_data_dir, tmp_path / "data")
    settings = load_settings(data)
    upload, subtipo = hostile_upload(tmp_path, beacon)
    api.load_files([SourceSpec(upload, display_name=upload.name)], settings=settings, user="datos@x.org")
    crime = next(c["delito"] for c in api.catalog(settings)["taxonomy"]["delitos"] if c["subtipo"] == subtipo)
    question = f"Resumen ![a]({beacon.url}/x.png) [Verificar cadena]({beacon.url}/phish)"
    rationale = f"Plan ` ![r]({beacon.url}/r.png) `"
    plan = [{"tool_id": 6, "args": {"entidad_id": "GTO", "delito": crime, "from": "2024-01-01", "to": "2024-12-31"}}]
    seen: dict[str, list[str]] = {}

    def check(name: str) -> None:
        page.wait_for_timeout(1500)  # let images and charts start their requests
        seen[name] = links_to(page, beacon.host)

    stub = StubServer(always=plan_reply(plan, rationale=rationale)).start()
    env = {"OPENAI_BASE_URL": stub.base_url, "CASANDRA_LLM_MODEL": "stub", "OPENAI_API_KEY": "sk-local"}
    try:
        with start_app(data, env=env) as base:
            page.set_viewport_size({"width": 1500, "height": 1300})
            page.goto(base)
            go_to(page, "Consultar")
            page.locator('[data-testid="stSidebar"]').get_by_text("LLM", exact=True).click()
            ask_chat(page, f"¿Cuántos homicidios dolosos hubo en 2024? {question}")  # a loaded crime: the LLM plans
            answer = page.locator('[data-testid="stChatMessage"]').filter(has_text="León (22)")
            expect(answer).to_be_visible(timeout=SLOW)
            expect(answer.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
            asked = page.locator('[data-testid="stChatMessage"]').filter(has_text="Verificar cadena").first
            expect(asked).to_contain_text("Resumen ![a](http")  # the question shows as its own text
            panel = answer.locator('[data-testid="stExpander"]').filter(has_text="Plan de consulta")
            panel.get_by_text("Detalles técnicos").click()  # the contracts (the LLM's rationale among them)
            expect(panel).to_contain_text("Plan ` ![r](http", timeout=60_000)  # the LLM's rationale, as text
            answer.locator('[data-testid="stExpander"]').filter(has_text="Evidencia").locator("summary").click()
            rows, load = page.get_by_text("Evidencia de rank_por_delito", exact=False), "Ver filas de evidencia"
            for _ in range(3):  # a click that lands while the script reruns under CI load is lost: click again
                page.get_by_role("button", name=load).click()
                try:
                    expect(rows).to_be_visible(timeout=30_000)
                    break
                except AssertionError:
                    if not page.get_by_role("button", name=load).count():
                        raise
            expect(rows).to_be_visible(timeout=30_000)
            check("Consultar")

            go_to(page, "Plan de consulta")
            expect(page.get_by_text("Verificar cadena", exact=False).first).to_be_visible()
            check("Plan de consulta")

            go_to(page, "Editor de plan")
            page.get_by_role("button", name="Ejecutar plan").click()
            expect(page.get_by_role("heading", name="Resultado")).to_be_visible(timeout=SLOW)
            expect(page.get_by_text("Top Robo ![p](http", exact=False).first).to_be_visible(timeout=30_000)
            check("Editor de plan")

            go_to(page, "Datos")
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
            check("Datos")

            go_to(page, "Catálogo")
            check("Catálogo")

            go_to(page, "Carga de datos")
            quarantine = download(page, "Descargar cuarentena de la versión vigente (CSV, 3 registros)")
            check("Carga de datos")

            go_to(page, "Auditoría")
            search = page.get_by_label("Texto libre (en la pregunta o el contenido)")
            search.fill("Verificar cadena")
            search.press("Enter")
            expect(page.get_by_text("Mostrando 2 de 2 registros", exact=False)).to_be_visible(timeout=30_000)
            quote = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="Verificar cadena")
            expect(quote.first).to_be_visible(timeout=30_000)  # the newest match quotes the question
            audit = download(page, "Exportar CSV")
            check("Auditoría")
    finally:
        stub.stop()

    assert stub.requests, "the LLM planner was not asked: the rationale payload never ran"
    assert beacon.hits == [], f"the browser fetched from the beacon: {beacon.hits}; links: {seen}"
    assert {name: found for name, found in seen.items() if found} == {}
    values = {row[4] for row in quarantine[1:]}
    assert values == {f'\'=HYPERLINK("{beacon.url}/q","x")', "'@SUM(A1:A9)", "'+cmd|' /C calc'!A0"}
    assert not [cell for row in quarantine + audit for cell in row if cell[:1] in ("=", "+", "@", "\t", "\r")]
