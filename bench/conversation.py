"""Issue 15 §2: a long conversation stays fast — from Enter to the answer drawn, turn by turn up to turn 20.

Same setup and the same measure as item 5 (``bench.browser``: the bundled store built fresh, one
``streamlit run app.py``, Debian's Chromium driven by Playwright, Enter stamped in the page's clock and
the answer counted as drawn when the script settled, the last message's status is complete and its
chart or table is drawn). The difference is what is asked: one conversation of ``TURNS`` questions in a
row (no «Nueva conversación» between them), so turn n redraws the n − 1 earlier turns. Before issue 15
every earlier chart, map and plan panel was redrawn (0.3 s at turn 1, 8–9 s at turns 15–20); earlier
turns now draw light (text and a small table), a question runs the page once (its answer is drawn in the run
that asked it, ``ui/turns.py``; an ``st.rerun()`` ran it twice) and a map answer builds only its open tab. The
target is p95 ≤ 1 s at the conversation's end.

Reported: every turn's time, the p95 of the last five turns (16–20) over every conversation (the
target), the p95 of turn 20 alone, the first turns for comparison, and the reload of the 20-turn
conversation (``?c=<id>``: the page restores it from the workspace; ``recarga_ms``: until every
message is back). ``repeats`` conversations, each with its own questions' years so no answer comes
from the same-day cache of an earlier conversation.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench import browser
from bench.common import stats

TARGET_P95_MS = 1000.0
TURNS = 20
LAST = 5  # the turns the target is measured on: 16–20
# every template answers with a chart or a table in each of these years (2019 has no homicidio doloso)
YEARS = (2024, 2023, 2022, 2021, 2025)

# Twenty questions of every shape (rankings, monthly series, single values, rates, comparisons and
# follow-ups), each answered with a chart or a table; ``{y}`` changes per conversation.
TEMPLATES = (
    "¿Cuáles son los 5 municipios con más homicidios dolosos en {y}?",
    "homicidios dolosos en León mes por mes en {y}",
    "¿y en Irapuato?",
    "¿Cuántos robos hubo en Celaya en {y}?",
    "¿Cuál fue la tasa de homicidio doloso por cada 100 mil habitantes en Salamanca en {y}?",
    "violencia familiar en Silao por mes en {y}",
    "¿Qué municipios tuvieron más secuestros en {y}?",
    "¿Aumentaron los homicidios dolosos en León en {y} respecto al año anterior?",
    "feminicidios en Guanajuato por mes en {y}",
    "¿Cuántas lesiones dolosas hubo en Irapuato en {y}?",
    "los 10 municipios con más robos en {y}",
    "¿y con menos?",
    "homicidios dolosos en Pénjamo mes por mes en {y}",
    "¿Cuántos homicidios culposos hubo en Celaya en {y}?",
    "¿Qué municipios tienen la tasa más alta de violencia familiar en {y}?",
    "robos en Salamanca por mes en {y}",
    "¿y en Guanajuato capital?",
    "¿Cuántos homicidios dolosos hubo en Valle de Santiago en {y}?",
    "los 5 municipios con más feminicidios en {y}",
    "homicidios dolosos en Celaya mes por mes en {y}",
)
MESSAGES_JS = f"""(n) => ({browser.SETTLED_JS})()
  && document.querySelectorAll('[data-testid="stChatMessage"]').length === n"""


def questions(conversation: int, turns: int = TURNS) -> list[str]:
    """The questions of one conversation (its own year, so nothing comes from an earlier one's cache)."""
    year = YEARS[conversation % len(YEARS)]
    return [t.format(y=year) for t in TEMPLATES[:turns]]


def _conversation(page, asked: list[str], log) -> list[dict]:
    """One conversation from an empty chat: every turn timed; a failed turn ends it (the next need it)."""
    browser._new_conversation(page)
    samples = []
    for n, question in enumerate(asked, start=1):
        sample = browser._ask(page, question, 2 * n, browser.ANSWER_TIMEOUT_MS)
        samples.append({"turno": n, "pregunta": question, **sample})
        log(f"[conversación] turno {n}: {sample['ms']:,.0f} ms")
    return samples


def _reload(page, n_messages: int) -> float:
    """Reload the page (its URL names the conversation) until every message is drawn again; ms."""
    t0 = time.perf_counter()
    page.reload(wait_until="commit")
    page.wait_for_function(MESSAGES_JS, arg=n_messages, timeout=browser.LOAD_TIMEOUT_MS)
    ms = (time.perf_counter() - t0) * 1000
    page.evaluate(browser.STAMP_JS)
    return ms


def run(work: Path, log=print, repeats: int = 3, turns: int = TURNS) -> dict:
    """A warm-up conversation, then ``repeats`` conversations of ``turns`` questions in Chromium."""
    ok, why = browser.available()
    if not ok:
        log(f"[conversación] {why}; se omite")
        return {"omitido": why}
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    work = Path(work)
    load_start = round(os.getloadavg()[0], 2)
    data = browser.build_data(work / "data")
    conversations: list[list[dict]] = []
    reloads: list[float] = []
    failures: list[dict] = []
    try:
        with browser.serve(data, work / "server") as base, sync_playwright() as pw:
            chromium = pw.chromium.launch(
                executable_path=str(browser.CHROMIUM), args=browser.CHROMIUM_ARGS, headless=True
            )
            try:
                page = chromium.new_context(locale="es-MX", viewport={"width": 1400, "height": 1000}).new_page()
                browser._load(page, f"{base}/consultar")
                browser._ask(page, questions(len(YEARS) - 1, 1)[0], 2, browser.WARMUP_TIMEOUT_MS)  # loads the JS
                for c in range(repeats):
                    try:
                        conversations.append(_conversation(page, questions(c, turns), log))
                        reloads.append(_reload(page, 2 * turns))
                    except (PlaywrightError, RuntimeError) as exc:  # recorded; the next conversation goes on
                        failures.append({"conversacion": c, "error": str(exc).splitlines()[0][:300]})
                        log(f"[conversación] {c}: {failures[-1]['error']}")
                version = chromium.version
            finally:
                chromium.close()
    except (PlaywrightError, RuntimeError) as exc:
        log(f"[conversación] falló: {exc}")
        return {"error": str(exc)[:1000]}
    return summarize(conversations, reloads, failures, turns) | {
        "navegador": f"Chromium {version}",
        "repeticiones": repeats,
        "carga_promedio": [load_start, round(os.getloadavg()[0], 2)],
    }


def summarize(conversations: list[list[dict]], reloads: list[float], failures: list[dict], turns: int) -> dict:
    """Per-turn statistics, the target's p95 (the last ``LAST`` turns) and whether it is met."""
    by_turn = {n: [s["ms"] for c in conversations for s in c if s["turno"] == n] for n in range(1, turns + 1)}
    last = [ms for n, xs in by_turn.items() if n > turns - LAST for ms in xs]
    final = stats(last)
    return {
        "turnos": turns,
        "objetivo_p95_ms": TARGET_P95_MS,
        "por_turno_ms": {str(n): stats(xs) for n, xs in by_turn.items()},
        "ultimos_turnos": [max(1, turns - LAST + 1), turns],
        "ultimos_ms": final,
        "turno_final_ms": stats(by_turn[turns]),
        "primeros_ms": (first := stats([ms for n, xs in by_turn.items() if n <= LAST for ms in xs])),
        # load-independent: how much slower the conversation's end is than its start (1.0 = flat)
        "razon_final_inicio": round(final["p50"] / first["p50"], 2) if final["p50"] and first["p50"] else None,
        "recarga_ms": stats(reloads),
        "conversaciones": conversations,
        "fallas": failures,
        "cumple_p95": not failures and final["p95"] is not None and final["p95"] <= TARGET_P95_MS,
    }
