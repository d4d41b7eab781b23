"""Permalinks: the URL carries a plan's query_hash; opening it re-runs that plan and says if the data changed.

The plan is the one first answered with that hash (``Conversations.answer``). It runs through
``core.api.execution`` like any plan: validated against the catalog, executed, audited (``kind="permalink"``,
the original hash in the payload). Since ``query_hash`` covers the data version, a re-run on newer data
gets a new hash; the note says which version answered first and which answers now.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engine.execute import Execution
from core.workspace.conversations import Conversations, StoredAnswer, is_query_hash

QUERY_PARAM = "plan"
AUDIT_KIND = "permalink"


@dataclass(frozen=True)
class Rerun:
    """A permalink re-run: the stored first answer, the new execution and the data versions of both."""

    stored: StoredAnswer
    execution: Execution
    dataset_version: str | None

    @property
    def changed(self) -> bool:
        """Whether the data version differs from the one of the first answer."""
        return self.stored.dataset_version != self.dataset_version

    @property
    def query_hash(self) -> str | None:
        """The query_hash of the re-run (equal to the permalink's when the data did not change)."""
        return self.execution.validated.query_hash if self.execution.validated else None

    def note(self) -> str:
        """In Spanish: whether the data changed since the plan was first answered."""
        first = f"la versión {self.stored.dataset_version or 'desconocida'} del {self.stored.answered_at[:10]}"
        if not self.changed:
            return f"Los datos no han cambiado desde la primera respuesta ({first}): el resultado es el mismo."
        return (
            f"Los datos cambiaron desde la primera respuesta ({first}); "
            f"ahora responde la versión {self.dataset_version or 'desconocida'}."
        )


def link(query_hash: str) -> str:
    """The relative URL of an answer's permalink (the page's own path plus ``?plan=<hash>``)."""
    return f"?{QUERY_PARAM}={query_hash}"


def rerun(query_hash: str, *, settings, user: str, role: str) -> Rerun | None:
    """Re-run the plan first answered with ``query_hash`` (validated, executed, audited); None when unknown."""
    if not is_query_hash(query_hash):
        return None
    stored = Conversations.for_settings(settings).answer(query_hash)
    if stored is None:
        return None
    from core.api import execution

    result = execution(
        stored.plan,
        settings=settings,
        user=user,
        role=role,
        kind=AUDIT_KIND,
        question=stored.question[:2000],
        audit_extra={"permalink": query_hash, "source_job_id": stored.job_id},
    )
    version = result.validated.dataset_version if result.validated else None
    if version is None:
        version = next((e["meta"].get("dataset_version") for e in result.envelopes if e.get("meta")), None)
    return Rerun(stored, result, version)
