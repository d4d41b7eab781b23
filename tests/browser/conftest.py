"""Browser fixtures: the system's Chromium driven by Playwright against a real ``streamlit run``.

Fixture contract (reused by every browser test):

- ``browser_path`` (session): ``"/usr/bin/chromium"``; skips with "Chromium no está
  instalado: apt-get install chromium" when it is missing, but FAILS instead when
  ``CI=true`` (CI installs it in ``.ci/run``). Playwright must never download a browser:
  never run ``playwright install``.
- ``app_data_dir`` (session): a temporary data folder with the bundled store
  (``run_etl(load_manifest(RAW), settings)``).
- ``app_server`` (session): ``python -m streamlit run app.py`` on 127.0.0.1 and a free port
  with ``CASANDRA_DATA_DIR=app_data_dir``, no secrets (local mode); yields the base URL
  (``http://127.0.0.1:PORT``) once ``/_stcore/health`` answers, kills the process group at
  the end. Tests that write (uploads, rollbacks, lab) should start their own server with
  ``start_app`` so the shared one keeps the bundled version.
- ``page`` (function): a Playwright sync ``Page`` in a fresh persistent Chromium context
  (own ``--user-data-dir``, the flags in ``CHROMIUM_ARGS``, locale es-MX, 1400×1000);
  actions and ``expect`` wait up to 30 s; on failure a full-page screenshot of each open
  page goes to ``test-artifacts/screenshots/`` (git-ignored).
- ``start_app(data_dir, secrets_toml=None, env=None, port=None)``: context manager for an
  extra server (yields its base URL); ``spawn`` runs any other helper server the same way.
- ``copy_store(data_dir, target)``: a private copy of a store for a test that writes.
- ``free_port()``: a free TCP port on 127.0.0.1.
- ``ask_chat(page, question)``: types a question in Consultar's chat once the page settled and presses
  Enter again when no new message appears (a submission during a rerun is dropped under load).

Every test under tests/browser is marked ``browser`` automatically.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli import load_manifest
from core.config import load_settings
from core.etl import run_etl
from tests.conftest import RAW

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_MISSING = "Chromium no está instalado: apt-get install chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
START_TIMEOUT_S = 90
EXPECT_TIMEOUT_MS = 30_000
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def unavailable(message: str, *, module_level: bool = False):
    """Skip, or fail under CI=true: what a missing browser dependency does."""
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=module_level)


@pytest.fixture(scope="session")
def browser_path() -> str:
    """The system Chromium (skip locally, fail under CI=true when missing)."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        unavailable(CHROMIUM_MISSING)
    return str(CHROMIUM)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = START_TIMEOUT_S) -> None:
    """Wait until ``url`` answers 200; fail with the server's log if it dies or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"El servidor terminó (código {proc.returncode}):\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"{url} no respondió en {timeout:.0f} s:\n{log.read_text(errors='replace')[-3000:]}")


def stop_process(proc: subprocess.Popen) -> None:
    """Terminate the process group this fixture started (SIGTERM, then SIGKILL)."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@contextlib.contextmanager
def spawn(
    cmd: list[str], log: Path, health_url: str, *, env: dict | None = None, cwd: Path = ROOT
) -> Iterator[subprocess.Popen]:
    """Start ``cmd`` in its own process group, wait for ``health_url``, kill the group at exit."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        wait_http(health_url, proc, log)
        yield proc
    finally:
        stop_process(proc)


def copy_store(data_dir: Path, target: Path) -> Path:
    """A private copy of a data folder's published store (no audit log, artifacts or settings)."""
    shutil.copytree(data_dir, target, ignore=shutil.ignore_patterns("audit", "keys", "artifacts", "settings.json"))
    return target


def build_data_dir(folder: Path) -> Path:
    """A data folder with the bundled store built from data/raw/manifest.json."""
    settings = load_settings(folder)
    run_etl(load_manifest(RAW), settings)
    return settings.data_dir


@contextlib.contextmanager
def start_app(
    data_dir: Path, secrets_toml: str | None = None, env: dict | None = None, port: int | None = None
) -> Iterator[str]:
    """``streamlit run app.py`` on 127.0.0.1 and a free port; yields the base URL.

    ``secrets_toml`` is written to a file passed with ``--secrets.files`` (so a developer's
    own .streamlit/secrets.toml is never read); None means local mode (no [auth]). Pass
    ``port`` when the secrets must name the app's own URL (``redirect_uri``).
    """
    port = port or free_port()
    run_dir = Path(data_dir).parent / f"server-{port}"
    run_dir.mkdir(parents=True, exist_ok=True)
    secrets = run_dir / "secrets.toml"
    secrets.write_text(secrets_toml or "# local mode: no [auth]\n", encoding="utf-8")
    full_env = {k: v for k, v in os.environ.items() if k != "CASANDRA_TEST_AUTH"}
    full_env.update({"CASANDRA_DATA_DIR": str(data_dir), **(env or {})})
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--secrets.files",
        str(secrets),
    ]
    base = f"http://127.0.0.1:{port}"
    with spawn(cmd, run_dir / "streamlit.log", f"{base}/_stcore/health", env=full_env):
        yield base


@pytest.fixture(scope="session")
def app_data_dir(tmp_path_factory) -> Path:
    return build_data_dir(tmp_path_factory.mktemp("browser") / "data")


@pytest.fixture(scope="session")
def app_server(app_data_dir, browser_path) -> Iterator[str]:
    with start_app(app_data_dir) as base:
        yield base


# Module scope, never session: Playwright's sync API keeps an asyncio loop marked running in this thread while it is
# open, so a later test of another module in the same xdist worker that calls asyncio.run (the MCP and API tests)
# failed with «cannot be called from a running event loop» whenever the scheduler put it after a browser test.
@pytest.fixture(scope="module")
def _playwright(browser_path):
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        unavailable("Playwright no está instalado: pip install -r requirements-dev.txt")
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)  # a first render imports pandas/plotly: allow for a busy CI
    with sync_playwright() as pw:
        yield pw


@pytest.fixture
def page(_playwright, browser_path, tmp_path, request):
    """A Page in a fresh Chromium profile; a screenshot on failure."""
    context = _playwright.chromium.launch_persistent_context(
        str(tmp_path / "chromium-profile"),
        executable_path=browser_path,
        args=CHROMIUM_ARGS,
        headless=True,
        locale="es-MX",
        viewport={"width": 1400, "height": 1000},
    )
    context.set_default_timeout(EXPECT_TIMEOUT_MS)
    current = context.pages[0] if context.pages else context.new_page()
    yield current
    failed = any(
        getattr(request.node, f"rep_{when}", None) is not None and getattr(request.node, f"rep_{when}").failed
        for when in ("setup", "call")
    )
    if failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)[-150:]
        with contextlib.suppress(Exception):
            for i, open_page in enumerate(context.pages):
                open_page.screenshot(path=str(SCREENSHOTS / f"{name}-{i}.png"), full_page=True)
    context.close()


SETTLED = """() => { const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') !== 'running'
    && !document.querySelector('[data-stale="true"]'); }"""
GREW = """n => document.querySelectorAll('[data-testid="stChatMessage"]').length > n"""
SUBMIT_TRIES = 3
SUBMIT_SEEN_MS = 20_000


def ask_chat(page, question: str, timeout: int = 120_000) -> None:
    """Type ``question`` in Consultar's chat box and press Enter until the chat shows it as a new message.

    A person waits for the page to stop loading before typing and presses Enter again when nothing happened;
    so does this: a submission that lands while the script reruns (a sidebar click, the URL's conversation id)
    is dropped by Streamlit under CI load (CI 2026-11-24, no message in 90 s)."""
    messages = page.locator('[data-testid="stChatMessage"]')
    box = page.locator('[data-testid="stChatInput"] textarea')
    before = messages.count()
    for _ in range(SUBMIT_TRIES):
        page.wait_for_function(SETTLED, timeout=timeout)
        box.fill(question)
        box.press("Enter")
        with contextlib.suppress(Exception):
            page.wait_for_function(GREW, arg=before, timeout=SUBMIT_SEEN_MS)
            return
        page.wait_for_function(SETTLED, timeout=timeout)  # a slow run still drawing: never ask twice
        if messages.count() > before:
            return
    raise AssertionError(f"la pregunta no llegó al chat tras {SUBMIT_TRIES} intentos: {question}")
