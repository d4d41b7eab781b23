"""A screenshot of every page at 1366×768 and at 390×844, taken with Playwright and the system's Chromium
(issue 15: «a screenshot per page … committed under docs/screens/ and reviewed»).

    .venv/bin/python docs/screens/make_screens.py                  # starts the app over a copy of data/
    .venv/bin/python docs/screens/make_screens.py --url http://127.0.0.1:8501   # an app already running

The app runs in local mode (every role), over a private copy of the published store without the audit log or
its seal (a fresh chain), so the questions asked for the answer screens are audited there, not in data/audit. Besides each page, Consultar is shot with an answer
per municipality (the map tab first) and with a monthly series (Spanish months). Never downloads a browser.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ui.navigation import PAGES  # noqa: E402 - the project root is on the path only now

OUT = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
VIEWPORTS = {"1366x768": (1366, 768), "390x844": (390, 844)}
QUESTIONS = {
    "consultar_mapa": "¿Cuáles son los 10 municipios con más homicidios dolosos en 2024?",
    "consultar_serie": "Serie mensual de homicidios dolosos en León en 2024",
}
SETTLE_MS = 2500
SLOW_MS = 120_000


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(data: Path) -> Iterator[str]:
    """``streamlit run app.py`` in local mode over a copy of ``data``'s published store; yields its URL."""
    with tempfile.TemporaryDirectory(prefix="casandra-screens-") as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(data, copy, ignore=shutil.ignore_patterns("audit", "keys", "artifacts", "settings.json"))
        secrets = Path(tmp) / "secrets.toml"
        secrets.write_text("# local mode: no [auth]\n", encoding="utf-8")
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "CASANDRA_TEST_AUTH"} | {"CASANDRA_DATA_DIR": str(copy)}
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1"]
        cmd += ["--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"]
        cmd += ["--server.fileWatcherType", "none", "--secrets.files", str(secrets)]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
                time.sleep(0.5)
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def shoot(url: str, out: Path = OUT) -> list[Path]:
    """Every page and the two answer screens at both sizes; returns the files written."""
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        for size, (width, height) in VIEWPORTS.items():
            page = browser.new_page(viewport={"width": width, "height": height}, locale="es-MX")
            page.set_default_timeout(SLOW_MS)
            for i, spec in enumerate(PAGES):
                page.goto(f"{url}/{'' if i == 0 else spec.url_path}")  # the first page lives at the root
                page.locator("h1").first.wait_for()
                page.wait_for_timeout(SETTLE_MS)
                written.append(out / f"{spec.url_path}_{size}.png")
                page.screenshot(path=str(written[-1]))
            for name, question in QUESTIONS.items():
                page.goto(url)
                box = page.locator('[data-testid="stChatInput"] textarea')
                box.fill(question)
                box.press("Enter")
                chart = page.locator('[data-testid="stChatMessage"] [data-testid="stPlotlyChart"]').first
                chart.wait_for()
                chart.scroll_into_view_if_needed()
                page.wait_for_timeout(SETTLE_MS)
                written.append(out / f"{name}_{size}.png")
                page.screenshot(path=str(written[-1]))
            page.close()
        browser.close()
    return written


def main() -> None:
    """Take the screenshots (of a running app with --url, else of one started over a copy of data/)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="an app already running (local mode)")
    parser.add_argument("--data", type=Path, default=ROOT / "data", help="the data folder to copy (default data/)")
    args = parser.parse_args()
    if args.url:
        files = shoot(args.url)
    else:
        with running_app(args.data) as url:
            files = shoot(url)
    print("\n".join(str(f.relative_to(ROOT)) for f in files))


if __name__ == "__main__":
    main()
