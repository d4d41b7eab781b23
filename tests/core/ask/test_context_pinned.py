"""One answer, one data version: a publication in the middle of a turn never mixes versions (``Assistant.ask``
pins the store, ``core.dataset.store.Store.pinned``)."""

from __future__ import annotations

from core.ask.context import Assistant
from core.ask.pipeline import Conversation
from core.etl import SourceSpec, run_etl
from tests.conftest import FIXTURES, RAW

HOMICIDIO = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
QUESTION = "homicidios dolosos con arma de fuego en León en enero de 2024"


def test_a_publication_mid_turn_leaves_the_answer_on_its_version(empty_settings, clock):
    run_etl([SourceSpec(HOMICIDIO)], empty_settings, clock=clock)
    assistant = Assistant(settings=empty_settings, use_cache=False)
    before = assistant.ask(QUESTION, Conversation(), planner="rules")
    published: list[str] = []

    def publish_once(name, phase, ms):
        """The steward publishes the León revision while the turn is being understood."""
        if not published and phase == "start":
            run_etl([SourceSpec(FIXTURES / "etl" / "leon_revision.csv")], empty_settings, clock=clock)
            published.append(assistant.store.refresh())

    during = assistant.ask(QUESTION, Conversation(), planner="rules", on_stage=publish_once)
    after = assistant.ask(QUESTION, Conversation(), planner="rules")
    old = before.answer.provenance["dataset_version"]
    assert published and published[0] != old
    assert during.answer.provenance["dataset_version"] == old
    assert during.answer.text.split("\n")[0] == before.answer.text.split("\n")[0]  # the old rows, the old figure
    assert after.answer.provenance["dataset_version"] == published[0]
    assert "99" in after.answer.text.split("\n")[0]  # the revision's January 2024
