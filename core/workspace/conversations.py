"""Conversations per user: a titled list of turns kept in the workspace file (migration 0001).

A turn is kept as the ``core ask --json`` dict (``Turn.as_dict()``) with its validated plan, its
``query_hash`` and the data version it was answered on, so a reload draws the conversation again and
a permalink (the plan's hash) finds the plan to re-run. Every read and write names the user: one
person never lists, opens or writes into another's conversation.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from core.errors import ValidacionError
from core.workspace.store import Feature

TITLE_CHARS = 80
HASH_CHARS = 71  # "sha256:" + 64 hex digits


@dataclass(frozen=True)
class ConversationInfo:
    """One row of a user's history: id, title (its first question), last change and number of turns."""

    id: str
    title: str
    created_at: str
    updated_at: str
    turns: int


@dataclass(frozen=True)
class StoredAnswer:
    """The first answer given to a plan (by its query_hash): what a permalink re-runs and compares with.

    ``question`` is the standalone (rewritten) question: a follow-up «¿y en 2021?» reads whole in a shared link."""

    query_hash: str
    plan: dict
    question: str
    dataset_version: str | None
    answered_at: str
    conversation_id: str
    job_id: str


def title_of(question: str) -> str:
    """A conversation's title: its first question on one line, cut at ``TITLE_CHARS`` with an ellipsis."""
    line = " ".join(str(question).split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def new_id() -> str:
    """A fresh conversation id (32 hex digits: what the URL carries)."""
    return uuid.uuid4().hex


def is_id(value: object) -> bool:
    """Whether a value (from a URL) has the shape of a conversation id."""
    return isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value)


def is_query_hash(value: object) -> bool:
    """Whether a value (from a URL) has the shape of a query_hash (``sha256:`` + 64 hex digits)."""
    return (
        isinstance(value, str)
        and len(value) == HASH_CHARS
        and value.startswith("sha256:")
        and all(c in "0123456789abcdef" for c in value[7:])
    )


def _turn_keys(turn: dict) -> tuple[str | None, str | None, dict | None]:
    """query_hash, dataset_version and plan of a turn dict (None when it ran no valid plan)."""
    validation = turn.get("validation") or {}
    provenance = (turn.get("answer") or {}).get("provenance") or {}
    if not validation.get("ok") or not turn.get("plan"):
        return None, provenance.get("dataset_version"), None
    version = provenance.get("dataset_version") or ((turn["plan"].get("meta") or {}).get("dataset_version"))
    return validation.get("query_hash"), version, turn["plan"]


class Conversations(Feature):
    """The conversations of the workspace."""

    def owner(self, conversation_id: str) -> str | None:
        """Who a conversation belongs to (None when it does not exist)."""
        row = (
            self.workspace.connection()
            .execute("SELECT user FROM conversations WHERE id = ?", (conversation_id,))
            .fetchone()
        )
        return row[0] if row else None

    def exists(self, user: str, conversation_id: str) -> bool:
        """Whether ``user`` has a conversation with this id."""
        return self.owner(conversation_id) == user

    def history(self, user: str, limit: int = 50) -> list[ConversationInfo]:
        """The user's conversations, the most recently changed first."""
        rows = self.workspace.connection().execute(
            """SELECT c.id, c.title, c.created_at, c.updated_at,
                      (SELECT count(*) FROM conversation_turns t WHERE t.conversation_id = c.id)
               FROM conversations c WHERE c.user = ? ORDER BY c.updated_at DESC, c.rowid DESC LIMIT ?""",
            (user, int(limit)),
        )
        return [ConversationInfo(*row) for row in rows]

    def add_turn(self, user: str, conversation_id: str, turn: dict) -> int:
        """Append a turn (``Turn.as_dict()``) to the user's conversation, creating it on its first turn; its seq."""
        if not is_id(conversation_id):
            raise ValidacionError("Identificador de conversación inválido.", path="conversation_id")
        query_hash, version, plan = _turn_keys(turn)
        now = self.workspace.now()
        with self.workspace.transaction() as conn:
            row = conn.execute("SELECT user FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO conversations (id, user, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    (conversation_id, user, title_of(turn.get("question", "")), now, now),
                )
            elif row[0] != user:
                raise ValidacionError("Esta conversación pertenece a otra persona.", path="conversation_id")
            else:
                conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
            seq = conn.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM conversation_turns WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()[0]
            conn.execute(
                """INSERT INTO conversation_turns
                   (conversation_id, seq, job_id, question, query_hash, dataset_version, plan, turn, created_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    conversation_id,
                    seq,
                    str(turn.get("job_id") or uuid.uuid4().hex),
                    str(turn.get("question") or ""),
                    query_hash,
                    version,
                    json.dumps(plan, ensure_ascii=False, sort_keys=True) if plan else None,
                    json.dumps(turn, ensure_ascii=False, default=str),
                    now,
                ),
            )
        return int(seq)

    def turns(self, user: str, conversation_id: str) -> list[dict]:
        """The turn dicts of the user's conversation in order (empty when it is not theirs or does not exist)."""
        rows = self.workspace.connection().execute(
            """SELECT t.turn FROM conversation_turns t JOIN conversations c ON c.id = t.conversation_id
               WHERE c.id = ? AND c.user = ? ORDER BY t.seq""",
            (conversation_id, user),
        )
        return [json.loads(row[0]) for row in rows]

    def answer(self, query_hash: str) -> StoredAnswer | None:
        """The first answer given to the plan with this query_hash (any user's: a permalink is shared)."""
        row = (
            self.workspace.connection()
            .execute(
                """SELECT query_hash, plan, coalesce(json_extract(turn, '$.rewritten_question'), question),
                          dataset_version, created_at, conversation_id, job_id
                   FROM conversation_turns WHERE query_hash = ? AND plan IS NOT NULL
                   ORDER BY created_at, rowid LIMIT 1""",
                (query_hash,),
            )
            .fetchone()
        )
        if row is None:
            return None
        return StoredAnswer(row[0], json.loads(row[1]), row[2], row[3], row[4], row[5], row[6])
