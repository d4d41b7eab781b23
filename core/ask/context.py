"""The stage context: everything a turn needs (store, catalog, lexicon, caches, LLM settings).

``StageContext`` is what a stage may read; ``Assistant`` is the one implementation.
``Assistant.ask(question, conversation)`` runs the pipeline; ``core ask``, the Consultar page
and the evaluation harness all use it. One Assistant per process and data folder is enough.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from core.ask.intake import SameDayCache
from core.ask.pipeline import Conversation, OnStage, Turn, run_turn
from core.clock import Clock
from core.config import Settings, llm_settings, load_settings
from core.dataset.store import get_store
from core.engine.catalog import build_catalog


class StageContext(Protocol):
    """What a stage may use besides the turn and the conversation (``Assistant`` provides it)."""

    settings: Settings
    clock: Clock
    user: str
    role: str
    cache: SameDayCache
    use_cache: bool
    store: Any  # core.dataset.store.Store

    @property
    def metadata(self) -> dict | None:
        """Metadata of the current version (None on an empty store)."""

    @property
    def catalog(self) -> Any:
        """The CatalogSpec of the current version (core.engine.catalog.Catalog)."""

    @property
    def lexicon(self) -> Any:
        """The understanding lexicon of the current catalog (core.ask.understand.lexicon.Lexicon)."""

    @property
    def anchor(self) -> date:
        """The time anchor: the dataset's max_date, never the wall clock."""

    @property
    def min_date(self) -> date:
        """The dataset's first day."""

    @property
    def llm_config(self) -> Any:
        """The LLM endpoint settings (core.config.LlmSettings), or None."""


@dataclass
class Assistant:
    """Per-process context of the understanding pipeline."""

    settings: Settings = field(default_factory=load_settings)
    clock: Clock = field(default_factory=Clock)
    user: str = "local"
    role: str = "analista"
    cache: SameDayCache = field(default_factory=SameDayCache)
    use_cache: bool = True

    def __post_init__(self) -> None:
        self.store = get_store(self.settings)
        self._lexicon_key = None
        self._lexicon = None
        self._llm_config = None
        self._llm_loaded = False

    @property
    def metadata(self) -> dict | None:
        """Metadata of the current version (None on an empty store)."""
        return None if self.store.is_empty() else self.store.metadata()

    @property
    def catalog(self):
        """The CatalogSpec of the current version."""
        return build_catalog(self.store)

    @property
    def lexicon(self):
        """The understanding lexicon of the current catalog (rebuilt when data changes)."""
        from core.ask.understand.lexicon import Lexicon

        cat = self.catalog
        if self._lexicon_key != cat.catalog_version:
            self._lexicon, self._lexicon_key = Lexicon.from_catalog(cat), cat.catalog_version
        return self._lexicon

    @property
    def anchor(self) -> date:
        """The time anchor: the dataset's max_date (never the wall clock)."""
        meta = self.metadata
        return date.fromisoformat(meta["max_date"]) if meta else self.clock.now().date()

    @property
    def min_date(self) -> date:
        """The dataset's first day."""
        meta = self.metadata
        return date.fromisoformat(meta["min_date"]) if meta else date(2015, 1, 1)

    @property
    def llm_config(self):
        """The LLM endpoint settings, or None (``core.config.llm_settings``: environment, then secrets file)."""
        if not self._llm_loaded:
            self._llm_config, self._llm_loaded = llm_settings(), True
        return self._llm_config

    def ask(
        self,
        question: str,
        conversation: Conversation | None = None,
        *,
        domain_hint: str = "auto",
        planner: str = "auto",
        on_stage: OnStage | None = None,
    ) -> Turn:
        """Answer one question within a conversation (``on_stage(name, "start"|"done", ms)`` around each stage)."""
        conversation = conversation if conversation is not None else Conversation()
        turn = Turn(question=question, domain_hint=domain_hint, planner_requested=planner)
        # one data version from understanding to answer: a steward's publication mid-turn (another Streamlit
        # session, an API request) never mixes versions inside one answer (core.dataset.store.Store.pinned)
        pinned = getattr(self.store, "pinned", None)
        if pinned is None:
            self.store.refresh()
            return run_turn(turn, self, conversation, on_stage=on_stage)
        with pinned():
            return run_turn(turn, self, conversation, on_stage=on_stage)
