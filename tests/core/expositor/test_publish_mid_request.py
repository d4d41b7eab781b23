"""A publication in the middle of a request (issue 16 §6): the answer names one version and carries its rows.

The load bench (``bench/api_load.py``) publishes while 50 clients ask; a request in flight at the switch must not
validate against the old version and read the new one's rows (naming the old one). Here the interleaving is
forced: the request stops right after its plan is validated, a steward publishes through ``POST /datasets``,
then the request goes on to run its tools.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from core import api
from core.ask import execute as ask_execute
from core.clock import FixedClock
from core.config import load_settings
from core.engine import execute
from core.etl import SourceSpec, run_etl
from core.expositor.app import create_app
from core.expositor.tokens import Tokens
from tests.conftest import FIXTURES
from tests.core.expositor.api_server import HOMICIDIO, serve, small_settings

LEON_2024 = "[12]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nmetodo: con_arma_de_fuego\nfrom: 2024-01-01\nto: 2024-12-31"
REVISION = FIXTURES / "etl" / "leon_revision.csv"  # León's 2024 homicides with firearm: 99, then zeros


@pytest.fixture
def published_mid_request(tmp_path, monkeypatch):
    """The API over a fresh store, a request held after its validation, and the steward's publication meanwhile."""
    data_dir = tmp_path / "data"
    run_etl([SourceSpec(HOMICIDIO)], load_settings(data_dir), clock=FixedClock(datetime(2026, 1, 15, tzinfo=UTC)))
    settings = small_settings(data_dir, rate="1000/minute")
    tokens = Tokens.for_settings(settings)
    analyst, steward = tokens.create("en-vuelo", "analista"), tokens.create("carga", "steward")
    validated, go = threading.Event(), threading.Event()
    real = execute.run_validated

    def held(*args, **kwargs):  # the plan is validated; its tools have not read the store yet
        if threading.current_thread().name != "MainThread" and not go.is_set():
            validated.set()
            go.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(execute, "run_validated", held)  # /plan/execute (core.engine.execute.run_plan)
    monkeypatch.setattr(ask_execute, "run_validated", held)  # /ask (core.ask.execute)
    answer: dict = {}
    with serve(create_app(settings), settings) as running:
        old = api.metadata(settings)["dataset_version"]

        def in_flight(path: str, body: dict) -> None:
            with running.client(analyst) as http:
                answer["response"] = http.post(path, json=body)

        yield running, steward, validated, go, answer, in_flight, old


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/plan/execute", {"plan": LEON_2024, "return_all": True}),
        ("/ask", {"question": "¿Cómo evolucionaron los homicidios dolosos con arma de fuego en León durante 2024?"}),
    ],
    ids=["plan", "ask"],
)
def test_a_request_in_flight_at_a_publication_answers_from_one_version(published_mid_request, path, body):
    running, steward, validated, go, answer, in_flight, old = published_mid_request
    before = api.execute_plan(LEON_2024, settings=running.settings)["data"]["inline"]["rows"]
    thread = threading.Thread(target=in_flight, args=(path, body))
    thread.start()
    assert validated.wait(timeout=60), "the request never reached its validation"
    with running.client(steward) as http, REVISION.open("rb") as fh:
        published = http.post("/datasets", files={"files": ("revisión.csv", fh)})
    go.set()
    thread.join(timeout=60)
    assert published.status_code == 200 and published.json()["status"] == "published", published.text
    new = published.json()["dataset_version"]
    after = api.execute_plan(LEON_2024, settings=running.settings)["data"]["inline"]["rows"]
    assert before != after  # the revision changes the rows this request reads
    response = answer["response"]
    assert response.status_code == 200, response.text
    envelopes = response.json() if path == "/plan/execute" else response.json()["envelopes"]
    named = {e["meta"]["dataset_version"] for e in envelopes}
    rows = envelopes[-1]["data"]["inline"]["rows"]
    assert named in ({old}, {new})
    assert rows == (before if named == {old} else after), f"names {named} but reads the other version's rows"
