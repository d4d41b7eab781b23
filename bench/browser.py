"""Item 5: from submitting a question in Consultar to the rendered answer, in Chromium (target p95 ≤ 2 s).

Setup: the bundled store built by the real ETL in ``<work>/data``, one ``streamlit run app.py``
(local mode, no secrets, ``CASANDRA_DATA_DIR`` pointing there) and Debian's Chromium at
``/usr/bin/chromium`` driven by Playwright's sync API with the flags of ``tests/browser``
(Playwright never downloads a browser). Without Chromium or Playwright the section is
``{"omitido": <reason>}``.

What one sample measures: a keydown listener (capture phase) stamps ``performance.now()``
when Enter is pressed in the chat input (``[data-testid="stChatInput"] textarea``); a
predicate polled on every animation frame (``page.wait_for_function``, ``polling="raf"``)
stamps the first frame where the answer is rendered, and the sample is the difference, in
the page's own clock. "Rendered" means all of:

- ``[data-testid="stApp"]`` has ``data-test-script-state="notRunning"`` and no element is
  ``data-stale="true"``: the script run that asked ended (the only one: it draws the answer
  itself, ``ui/turns.py``, with no ``st.rerun()`` after it) and every element of the previous
  run was replaced;
- the conversation has the expected number of ``stChatMessage`` and the last one is the
  assistant's (``stChatMessageAvatarAssistant``) with its ``st.status`` complete
  (``stExpanderIconCheck``, label «Listo en N ms») and non-empty answer text outside any
  expander;
- at least one chart or table is visible in that message, every visible
  ``stPlotlyChart`` holds Plotly's ``.main-svg``, every visible ``stDataFrame`` the data
  grid's ``canvas``, and no visible ``stSkeleton`` is left (Streamlit shows a skeleton while
  an element's lazily loaded JavaScript arrives; the first answer's table appears seconds
  after the script ends). Hidden content is not waited for: the map in the «Mapa» tab, the
  collapsed «Evidencia» expander, and the grid's accessibility table (``glide-cell-*``),
  which the grid builds 200 ms after drawing (debounced).

Also kept per sample: ``listo_ms`` (Enter → the first frame where the question's ``st.status``
shows its check, i.e. the pipeline is done, before the same run draws the answer's chart, table
and plan), ``servidor_ms`` (the pipeline total in the status label) and
``ms_playwright`` (Playwright's own round trip: ``press`` → predicate result in Python).

Order: first page load on the fresh server (``carga_inicial_ms``: ``goto`` until the chat
input is ready), a warm-up pass over every question (the first answer loads Plotly's and
the grid's JavaScript), ``repeats`` measured passes, then ``repeats`` reloads (``recarga_ms``).
Every ask starts from «Nueva conversación» (a follow-up re-renders only its setup turn).
The assistant caches results per question for the day, so each repeat asks a variant
(another year or municipality); a repeat past the variants is flagged ``repetida``.
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
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT, quiet_fds, stats

TARGET_P95_MS = 2000.0
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]  # as tests/browser/conftest.py
START_TIMEOUT_S = 120
LOAD_TIMEOUT_MS = 120_000
WARMUP_TIMEOUT_MS = 120_000  # the first render imports pandas/plotly on the server and loads their JS
ANSWER_TIMEOUT_MS = 60_000
CHAT_BOX = '[data-testid="stChatInput"] textarea'


@dataclass(frozen=True)
class Question:
    """A kind of question: ``variants[0]`` warms up, the rest are repeats; ``(setup, q)`` times only q."""

    case: str
    variants: tuple


def _years(template: str, years=(2025, 2024, 2023, 2022, 2021, 2020)) -> tuple:
    return tuple(template.format(y=y) for y in years)


QUESTIONS = (
    Question("ranking", _years("¿Cuáles son los 5 municipios con más homicidios dolosos en {y}?")),
    Question("serie mensual", _years("homicidios dolosos en León mes por mes en {y}")),
    Question("valor único", _years("¿Cuántos homicidios dolosos hubo en Celaya en {y}?")),
    Question("tasa", _years("¿Cuál fue la tasa de homicidio doloso por cada 100 mil habitantes en León en {y}?")),
    Question(
        "comparación",
        tuple(
            f"¿Aumentaron los homicidios dolosos en {m} en 2024 respecto a 2023?"
            for m in ("Irapuato", "Celaya", "León", "Salamanca", "Silao", "Pénjamo")
        ),
    ),
    Question(
        "seguimiento",
        tuple(
            (f"¿Cuántos homicidios dolosos hubo en León en {y}?", "¿y en Irapuato?")
            for y in (2025, 2024, 2023, 2022, 2021, 2020)
        ),
    ),
)

# Stamp the moment Enter goes down, in the page's clock (survives Streamlit reruns: no reload).
STAMP_JS = """() => { if (!window.__benchStamp) { window.__benchStamp = true;
  document.addEventListener('keydown', e => { if (e.key === 'Enter') {
    window.__benchT0 = performance.now(); window.__benchT1 = undefined; } }, true); } }"""
SETTLED_JS = """() => { const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
         && !document.querySelector('[data-stale="true"]'); }"""
EMPTY_CHAT_JS = f"""() => ({SETTLED_JS})() && !!document.querySelector('{CHAT_BOX}')
  && document.querySelectorAll('[data-testid="stChatMessage"]').length === 0"""
RELOADED_JS = f"""() => ({SETTLED_JS})() && !!document.querySelector('{CHAT_BOX}')"""
ANSWER_JS = f"""(n) => {{
  const msgs = document.querySelectorAll('[data-testid="stChatMessage"]');
  const last = msgs[n - 1];
  if (msgs.length === n && window.__benchT1 === undefined
      && last.querySelector('[data-testid="stExpanderIconCheck"]')) window.__benchT1 = performance.now();
  if (!({SETTLED_JS})() || msgs.length !== n) return false;
  if (!last.querySelector('[data-testid="stChatMessageAvatarAssistant"]')) return false;
  const label = (last.querySelector('[data-testid="stExpander"] summary') || {{}}).innerText || '';
  if (last.querySelector('[data-testid="stExpanderIconError"]')) return {{error: label.trim()}};
  if (!last.querySelector('[data-testid="stExpanderIconCheck"]')) return false;
  const text = [...last.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .some(e => !e.closest('[data-testid="stExpander"]') && e.innerText.trim());
  if (!text) return false;
  const seen = e => e.checkVisibility();
  const charts = [...last.querySelectorAll('[data-testid="stPlotlyChart"]')].filter(seen);
  const tables = [...last.querySelectorAll('[data-testid="stDataFrame"]')].filter(seen);
  if (!charts.length && !tables.length) return false;
  if (charts.some(c => !c.querySelector('.main-svg')) || tables.some(t => !t.querySelector('canvas'))) return false;
  if ([...last.querySelectorAll('[data-testid="stSkeleton"]')].some(seen)) return false;
  const t0 = window.__benchT0, done = performance.now();
  return {{ms: done - t0, listo: window.__benchT1 - t0, label, charts: charts.length, tables: tables.length}};
}}"""


def available() -> tuple[bool, str]:
    """Whether item 5 can run here, and the Spanish reason when it cannot."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return False, f"Chromium no está instalado ({CHROMIUM}): apt-get install chromium"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False, "Playwright no está instalado: pip install -r requirements-dev.txt"
    return True, ""


def build_data(folder: Path) -> Path:
    """A fresh data folder with the bundled store (``run_etl(load_manifest(RAW), settings)``)."""
    from core.cli import load_manifest
    from core.config import DEFAULT_DATA_DIR, load_settings
    from core.etl import run_etl

    shutil.rmtree(folder, ignore_errors=True)  # asks write audit records and artifacts: start clean
    settings = load_settings(folder)
    with quiet_fds():
        run_etl(load_manifest(DEFAULT_DATA_DIR / "raw"), settings)
    return settings.data_dir


@contextlib.contextmanager
def serve(data_dir: Path, run_dir: Path) -> Iterator[str]:
    """``streamlit run app.py`` in local mode on a free port (own process group); yields the base URL."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # a free port on 127.0.0.1
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run_dir.mkdir(parents=True, exist_ok=True)
    secrets = run_dir / "secrets.toml"
    secrets.write_text("# local mode: no [auth]\n", encoding="utf-8")  # never a developer's own secrets
    env = {k: v for k, v in os.environ.items() if k != "CASANDRA_TEST_AUTH"}
    env["CASANDRA_DATA_DIR"] = str(data_dir)
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
    log = run_dir / "streamlit.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"Streamlit no arrancó (código {proc.returncode}):\n{log.read_text(errors='replace')[-2000:]}"
                )
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
            time.sleep(0.25)
        yield base
    finally:  # only the process group this function started: SIGTERM, then SIGKILL
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if proc.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)


def _load(page, url: str | None) -> float:
    """Open (or reload) Consultar; ms until the chat input is ready and the script has settled."""
    t0 = time.perf_counter()
    if url is None:
        page.reload(wait_until="commit")
    else:
        page.goto(url, wait_until="commit")
    # a reload restores the conversation of the URL (ui/history.py): its turns are there, the box is ready
    ready = EMPTY_CHAT_JS if url is not None else RELOADED_JS
    page.wait_for_function(ready, timeout=LOAD_TIMEOUT_MS)
    ms = (time.perf_counter() - t0) * 1000
    page.evaluate(STAMP_JS)
    return ms


def _new_conversation(page) -> None:
    """«Nueva conversación» (sidebar) and wait for the emptied chat."""
    if page.locator('[data-testid="stChatMessage"]').count():
        page.get_by_role("button", name="Nueva conversación").click()
    page.wait_for_function(EMPTY_CHAT_JS, timeout=ANSWER_TIMEOUT_MS)


def _ask(page, question: str, n_messages: int, timeout_ms: int) -> dict:
    """Type ``question``, press Enter and wait for the rendered answer (see the module docstring)."""
    box = page.locator(CHAT_BOX)
    box.fill(question)
    t0 = time.perf_counter()
    box.press("Enter")
    got = page.wait_for_function(ANSWER_JS, arg=n_messages, timeout=timeout_ms, polling="raf").json_value()
    wall = (time.perf_counter() - t0) * 1000
    if "error" in got:
        raise RuntimeError(f"la aplicación no respondió: {got['error']}")
    server = re.search(r"Listo en ([\d,]+) ms", got.get("label") or "")
    return {
        "ms": round(got["ms"], 1),
        "listo_ms": round(got["listo"], 1),
        "ms_playwright": round(wall, 1),
        "servidor_ms": float(server.group(1).replace(",", "")) if server else None,
        "graficas": got["charts"],
        "tablas": got["tables"],
    }


def _sample(page, q: Question, variant, timeout_ms: int) -> dict:
    """One ask of one variant from a new conversation (a follow-up asks its setup first, untimed)."""
    setup, question = variant if isinstance(variant, tuple) else (None, variant)
    _new_conversation(page)
    n = 2
    if setup is not None:
        _ask(page, setup, n, timeout_ms)
        n = 4
    return {"pregunta": question, **({"antes": setup} if setup else {}), **_ask(page, question, n, timeout_ms)}


def _passes(page, questions: tuple, repeats: int, log) -> tuple[dict, list]:
    """The warm-up pass and ``repeats`` measured passes; samples per case and the failed asks."""
    from playwright.sync_api import Error as PlaywrightError

    samples: dict[str, list[dict]] = {q.case: [] for q in questions}
    failures: list[dict] = []
    for p in range(repeats + 1):
        for q in questions:
            i = 0 if p == 0 else 1 + (p - 1) % (len(q.variants) - 1)
            try:
                s = _sample(page, q, q.variants[i], WARMUP_TIMEOUT_MS if p == 0 else ANSWER_TIMEOUT_MS)
            except (PlaywrightError, RuntimeError) as exc:  # one failed ask is recorded; the bench goes on
                failures.append({"caso": q.case, "pasada": p, "error": str(exc).splitlines()[0][:300]})
                log(f"[browser] {q.case} (pasada {p}): {failures[-1]['error']}")
                continue
            if p == 0:
                log(f"[browser] calentamiento {q.case}: {s['ms']:,.0f} ms")
            else:
                s["repetida"] = p > len(q.variants) - 1  # past the variants: the same-day cache may answer
                samples[q.case].append(s)
    return samples, failures


def run(work: Path, log=print, questions: tuple = QUESTIONS, repeats: int = 5) -> dict:
    """Warm up once over ``questions``, then time ``repeats`` asks of each in Chromium."""
    ok, why = available()
    if not ok:
        log(f"[browser] {why}; se omite")
        return {"omitido": why}
    from importlib.metadata import version as package_version

    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    work = Path(work)
    load_start = round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    data = build_data(work / "data")
    etl_s = round(time.perf_counter() - t0, 1)
    log(f"[browser] {len(questions)} preguntas × {repeats} repeticiones (más 1 de calentamiento); datos en {etl_s} s")
    try:
        t0 = time.perf_counter()
        with serve(data, work / "server") as base, sync_playwright() as pw:
            start_s = round(time.perf_counter() - t0, 1)
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            try:
                page = browser.new_context(locale="es-MX", viewport={"width": 1400, "height": 1000}).new_page()
                first_load = _load(page, f"{base}/consultar")
                log(f"[browser] servidor listo en {start_s} s; primera carga de Consultar {first_load:,.0f} ms")
                samples, failures = _passes(page, questions, repeats, log)
                reloads = [_load(page, None) for _ in range(repeats)]
                version = browser.version
            finally:
                browser.close()
    except (PlaywrightError, RuntimeError) as exc:  # no server or no page: the other sections still get written
        log(f"[browser] falló: {exc}")
        return {"error": str(exc)[:1000]}
    cases = []
    for q in questions:
        xs = samples[q.case]
        ms = stats([x["ms"] for x in xs])
        cases.append(
            {
                "caso": q.case,
                "pregunta": xs[0]["pregunta"] if xs else str(q.variants[-1]),
                "ms": ms,
                "listo_ms": stats([x["listo_ms"] for x in xs]),
                "ms_playwright": stats([x["ms_playwright"] for x in xs]),
                "servidor_ms": stats([x["servidor_ms"] for x in xs]),
                "cumple_p95": ms["p95"] is not None and ms["p95"] <= TARGET_P95_MS,
                "muestras": xs,
            }
        )
        log(f"[browser] {q.case}: p50 {ms['p50']} ms, p95 {ms['p95']} ms (n={ms['n']})")
    total = stats([x["ms"] for xs in samples.values() for x in xs])
    return {
        "navegador": f"Chromium {version} (Debian, {CHROMIUM})",
        "playwright": package_version("playwright"),
        "streamlit": package_version("streamlit"),
        "repeticiones": repeats,
        "objetivo_p95_ms": TARGET_P95_MS,
        "carga_promedio": [load_start, round(os.getloadavg()[0], 2)],
        "datos_s": etl_s,
        "arranque_servidor_s": start_s,
        "carga_inicial_ms": round(first_load, 1),
        "recarga_ms": stats(reloads),
        "casos": cases,
        "total_ms": total,
        "cumple_p95": not failures and total["p95"] is not None and total["p95"] <= TARGET_P95_MS,
        "fallas": failures,
    }
