"""A real uvicorn server for the HTTP API tests: a small store, one token per role, a free 127.0.0.1 port.

``serve(app)`` runs uvicorn in a thread on a socket the test bound itself (port 0: no race for the port) and
stops it on exit. The session fixtures give a store built from one bundled file, tokens for every role (and a
rate-limited and a revoked one) and the server over them; a test module imports the three
``*_fixture`` functions to use them.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import httpx
import pytest
import uvicorn

from core.clock import FixedClock
from core.config import ApiSettings, Settings, load_settings
from core.etl import SourceSpec, run_etl
from core.expositor.app import create_app
from core.expositor.tokens import Tokens
from tests.conftest import RAW

HOMICIDIO = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
BODY_CAP = 8 * 1024  # small, so a 413 needs no large body
UPLOAD_CAP = 64 * 1024


@dataclass(frozen=True)
class Running:
    """A served app: its base URL and settings."""

    url: str
    settings: Settings

    def client(self, token: str | None = None, headers: dict | None = None) -> httpx.Client:
        """An httpx client for this server, with the bearer token when given (or the headers as given)."""
        headers = {"Authorization": f"Bearer {token}"} if token else (headers or {})
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


@contextmanager
def serve(app, settings: Settings) -> Iterator[Running]:
    """Serve ``app`` with uvicorn in a thread on a free 127.0.0.1 port until the block ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API server did not start")
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{port}", settings)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def small_settings(data_dir, **api) -> Settings:
    """Settings over ``data_dir`` with the tests' small body and upload caps (and any other API setting)."""
    base = load_settings(data_dir)
    limits = replace(base.limits, max_upload_bytes=UPLOAD_CAP)
    return replace(base, limits=limits, api=ApiSettings(**{"max_body_bytes": BODY_CAP, **api}))


@pytest.fixture(scope="session", name="api_settings")
def api_settings_fixture(tmp_path_factory) -> Settings:
    """A store built once from the bundled homicide file (2020-2025)."""
    data_dir = tmp_path_factory.mktemp("expositor") / "data"
    run_etl(
        [SourceSpec(HOMICIDIO)], load_settings(data_dir), clock=FixedClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC))
    )
    return small_settings(data_dir)


@pytest.fixture(scope="session", name="tokens")
def tokens_fixture(api_settings) -> dict[str, str]:
    """A token per role, one limited to 2 requests a minute and one revoked (name → secret)."""
    store = Tokens.for_settings(api_settings)
    made = {role: store.create(f"cliente-{role}", role) for role in ("analista", "supervisor", "steward")}
    made["lento"] = store.create("lento", "analista", rate="2/minute")
    made["revocado"] = store.create("revocado", "analista")
    store.revoke("revocado")
    return made


@pytest.fixture(scope="session", name="server")
def server_fixture(api_settings, tokens) -> Iterator[Running]:
    """The API over the session's store, served by uvicorn for the whole session."""
    with serve(create_app(api_settings), api_settings) as running:
        yield running
