"""A permalink re-runs the first plan answered with its hash, audited, and says whether the data changed."""

from __future__ import annotations

import pytest

from core.ask.context import Assistant
from core.audit.log import AuditLog
from core.workspace import permalink
from core.workspace.conversations import Conversations, new_id

pytestmark = pytest.mark.slow


def _answered(settings, question: str) -> dict:
    turn = Assistant(settings=settings).ask(question).as_dict()
    Conversations.for_settings(settings).add_turn("ana@x", new_id(), turn)
    return turn


@pytest.mark.parametrize(
    "question", ["¿Qué municipios tuvieron más robos en 2024?", "Homicidios dolosos en Celaya por mes en 2023"]
)
def test_same_data_same_hash_same_rows_and_audited(own_data, question: str) -> None:
    turn = _answered(own_data, question)
    query_hash = turn["validation"]["query_hash"]
    rerun = permalink.rerun(query_hash, settings=own_data, user="beto@x", role="analista")
    assert rerun is not None and not rerun.changed
    assert rerun.query_hash == query_hash
    assert rerun.execution.envelopes[-1]["data"]["inline"]["rows"] == turn["result"]["data"]["inline"]["rows"]
    assert "no han cambiado" in rerun.note()
    (record,) = AuditLog.for_settings(own_data).list(kind=permalink.AUDIT_KIND)
    assert (record.user, record.query_hash, record.payload["permalink"]) == ("beto@x", query_hash, query_hash)


def test_a_permalink_on_newer_data_says_the_version_changed(own_data) -> None:
    turn = _answered(own_data, "¿Cuántos secuestros hubo en León en 2024?")
    old = "gx-2025.01.01-00000000"
    turn["answer"]["provenance"]["dataset_version"] = old  # as if answered on an earlier version
    turn["plan"]["meta"]["dataset_version"] = old
    turn["validation"]["query_hash"] = "sha256:" + "c" * 64
    Conversations.for_settings(own_data).add_turn("ana@x", new_id(), turn)
    rerun = permalink.rerun("sha256:" + "c" * 64, settings=own_data, user="ana@x", role="analista")
    assert rerun is not None and rerun.changed
    assert rerun.execution.status == "ok"
    assert old in rerun.note() and "cambiaron" in rerun.note()


@pytest.mark.parametrize("value", ["sha256:" + "d" * 64, "no-es-un-hash", ""])
def test_an_unknown_or_malformed_hash_finds_nothing(own_data, value: str) -> None:
    assert permalink.rerun(value, settings=own_data, user="ana@x", role="analista") is None
    assert permalink.link("sha256:" + "d" * 64) == "?plan=sha256:" + "d" * 64
