"""``python -m core tokens`` and ``python -m core api``: the secret once on stdout, loopback by default."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import uvicorn

from core.cli import main
from core.expositor.tokens import Tokens
from tests.core.expositor.api_server import api_settings_fixture, tokens_fixture  # noqa: F401 - the fixtures

ROOT = Path(__file__).resolve().parents[3]


def run(capsys, data_dir, *argv) -> tuple[int, str, str]:
    code = main(["--data-dir", str(data_dir), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tokens_create_list_revoke(capsys, empty_settings):
    code, out, err = run(capsys, empty_settings.data_dir, "tokens", "create", "cuaderno", "--role", "supervisor")
    created = json.loads(out)
    assert code == 0 and created["role"] == "supervisor" and "no se vuelve a mostrar" in err
    assert Tokens.for_settings(empty_settings).client(created["token"]).name == "cuaderno"
    code, out, _ = run(capsys, empty_settings.data_dir, "tokens", "list")
    assert code == 0 and [t["name"] for t in json.loads(out)] == ["cuaderno"] and created["token"] not in out
    code, out, _ = run(capsys, empty_settings.data_dir, "tokens", "revoke", "cuaderno")
    assert code == 0 and json.loads(out)["status"] == "revoked"
    code, _, err = run(capsys, empty_settings.data_dir, "tokens", "revoke", "cuaderno")
    assert code == 2 and "no tiene un token vigente" in err
    code, out, _ = run(capsys, empty_settings.data_dir, "tokens", "list", "--all")
    assert json.loads(out)[0]["revoked_at"]


@pytest.mark.parametrize(
    "argv,message",
    [
        (["tokens", "create", "Mal Nombre", "--role", "analista"], "Nombre de cliente no válido"),
        (["tokens", "create", "bien", "--role", "analista", "--rate", "mucho"], "Tasa no válida"),
    ],
)
def test_tokens_create_refusals_exit_2(capsys, empty_settings, argv, message):
    code, out, err = run(capsys, empty_settings.data_dir, *argv)
    assert code == 2 and out == "" and message in err


def test_an_unknown_role_is_refused_by_the_parser(capsys, empty_settings):
    with pytest.raises(SystemExit):
        run(capsys, empty_settings.data_dir, "tokens", "create", "x", "--role", "admin")


@pytest.mark.parametrize(
    "argv,env,host,port",
    [
        ([], {}, "127.0.0.1", 8000),
        (["--port", "8123"], {}, "127.0.0.1", 8123),
        ([], {"CASANDRA_API_PORT": "8124"}, "127.0.0.1", 8124),
        (["--host", "0.0.0.0"], {}, "0.0.0.0", 8000),
    ],
)
def test_api_serves_on_loopback_unless_told(capsys, monkeypatch, empty_settings, argv, env, host, port):
    seen = {}
    monkeypatch.delenv("CASANDRA_API_HOST", raising=False)
    monkeypatch.delenv("CASANDRA_API_PORT", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw, app=app))
    code, _, err = run(capsys, empty_settings.data_dir, "api", *argv)
    assert code == 0 and (seen["host"], seen["port"]) == (host, port)
    assert seen["app"].state.settings.data_dir == empty_settings.data_dir
    assert ("Aviso" in err) is (host != "127.0.0.1")


@pytest.mark.slow
def test_python_m_core_api_serves_until_stopped(api_settings, tokens):
    with socket.socket() as probe:  # a free port for the child (released just before it binds)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "core", "--data-dir", str(api_settings.data_dir), "api", "--port", str(port)]
    child = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE)
    try:
        deadline, live = time.monotonic() + 60, None
        while time.monotonic() < deadline and live is None:
            try:
                live = httpx.get(f"http://127.0.0.1:{port}/health/live", timeout=2)
            except httpx.TransportError:
                time.sleep(0.2)
        headers = {"Authorization": f"Bearer {tokens['analista']}"}
        meta = httpx.get(f"http://127.0.0.1:{port}/dataset/metadata", headers=headers, timeout=30)
    finally:
        child.terminate()
        child.wait(timeout=30)
    assert live is not None and live.json() == {"status": "live"}
    assert meta.status_code == 200 and meta.json()["dataset_version"].startswith("gx-")
