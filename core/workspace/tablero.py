"""The tablero: each user's pinned answers, kept in the workspace file (migration 0002).

A tile is pinned from an answer of Consultar or Explorar (a ``Turn``) whose plan validated: it keeps that
validated plan and its ``query_hash``, and what the answer said then — its lead sentence, a digest of the
answering result's rows and the data version. ``reading`` re-runs the plan on the current version through the
audited Plan API (kind ``tablero``) and sets «then» beside «now». Every read and write names the user: one
person never lists, reads or removes another's tiles.

A tile is one plan, whatever the data version: ``query_hash`` covers the version, so the same question asked after
a new upload has another hash but the same steps (``plan_key``); pinning it again gives the tile already there,
whose reading says the version changed. The user's order of tiles is the table's rowid (``move`` swaps two),
so reordering needs no column of its own.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass

from core.errors import ValidacionError
from core.text import canonical_json
from core.workspace.store import Feature

AUDIT_KIND = "tablero"
TITLE_CHARS = 200
MAX_TILES = 60
ORIGINS = ("consultar", "explorar")


@dataclass(frozen=True)
class Snapshot:
    """What an answer said at one moment: its lead sentence, a digest of its result rows and the data version."""

    value: str
    rows_digest: str | None
    dataset_version: str | None


@dataclass(frozen=True)
class Tile:
    """One pinned answer: its plan, where it came from, and the answer when it was pinned."""

    id: str
    title: str
    origin: str
    link: str | None  # Explorar's query string: the selection that built it
    query_hash: str
    plan: dict
    notes: list[str]
    pinned: Snapshot
    pinned_at: str


@dataclass(frozen=True)
class Reading:
    """A tile re-run now: the answer then and now, and whether the figures changed."""

    tile: Tile
    now: Snapshot
    ok: bool  # the plan still ran (an error is said in ``now.value``)

    @property
    def changed(self) -> bool:
        """Whether the result rows differ from the pinned ones (a new version may leave them equal)."""
        return self.now.rows_digest != self.tile.pinned.rows_digest

    @property
    def version_changed(self) -> bool:
        """Whether the data version is another than the pinned one."""
        return self.now.dataset_version != self.tile.pinned.dataset_version


def lead(text: str | None) -> str:
    """An answer's lead: its first paragraph (the numbers), on one line."""
    first = (text or "").strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def rows_digest(envelope: dict | None) -> str | None:
    """A digest of the answering envelope's rows (None without an ok result): equal rows, equal digest."""
    if not envelope or envelope.get("status") != "ok":
        return None
    inline = (envelope.get("data") or {}).get("inline") or {}
    body = canonical_json({"columns": inline.get("columns"), "rows": inline.get("rows")})
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


def snapshot(turn) -> Snapshot:
    """What a turn's answer says now."""
    answer = turn.answer
    version = ((answer.provenance if answer else None) or {}).get("dataset_version")
    if version is None and turn.result is not None:
        version = (turn.result.get("meta") or {}).get("dataset_version")
    return Snapshot(lead(answer.text if answer else ""), rows_digest(turn.result), version)


def pinnable(turn) -> bool:
    """Whether a turn can be pinned: its plan validated and ran to an answer."""
    validation = getattr(turn, "validation", None) or {}
    return bool(validation.get("ok") and getattr(turn, "plan", None) and turn.status == "ok")


def plan_key(plan: dict | None) -> str:
    """The identity of a plan whatever the data version: a digest of its steps' tools and arguments."""
    steps = [{"tool_id": s.get("tool_id"), "args": s.get("args") or {}} for s in (plan or {}).get("plan") or []]
    return "sha256:" + hashlib.sha256(canonical_json(steps).encode("utf-8")).hexdigest()


def _tile(row: tuple) -> Tile:
    (tid, title, origin, link, query_hash, plan, notes, version, value, digest, pinned_at) = row
    return Tile(
        tid,
        title,
        origin,
        link,
        query_hash,
        json.loads(plan),
        json.loads(notes),
        Snapshot(value, digest, version),
        pinned_at,
    )


_COLUMNS = "id, title, origin, link, query_hash, plan, notes, dataset_version, value, rows_digest, pinned_at"


class Board(Feature):
    """The tiles of the workspace, per user."""

    def pin(self, user: str, turn, *, origin: str, link: str | None = None) -> Tile:
        """Pin a turn's answer to the user's board; the same plan again (on any data version) gives the tile there."""
        if not pinnable(turn):
            raise ValidacionError("Solo se puede fijar una respuesta con un plan válido que se ejecutó.", path="turn")
        if origin not in ORIGINS:
            raise ValidacionError(f"Origen desconocido: {origin!r}.", path="origin")
        query_hash = turn.validation["query_hash"]
        found = self.get_by_plan(user, turn.plan)
        if found is not None:
            return found
        if len(self.tiles(user)) >= MAX_TILES:
            raise ValidacionError(f"El tablero admite hasta {MAX_TILES} tarjetas: quite alguna antes.", path="tablero")
        snap = snapshot(turn)
        title = " ".join(str(turn.question).split())[:TITLE_CHARS]
        row = (
            uuid.uuid4().hex,
            user,
            title,
            origin,
            link,
            query_hash,
            json.dumps(turn.plan, ensure_ascii=False, sort_keys=True),
            json.dumps(list(getattr(turn, "plan_notes", []) or []), ensure_ascii=False),
            snap.dataset_version,
            snap.value,
            snap.rows_digest,
            self.workspace.now(),
        )
        with self.workspace.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO board_tiles (id, user, title, origin, link, query_hash, plan, notes, "
                "dataset_version, value, rows_digest, pinned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        return self.get_by_hash(user, query_hash)

    def tiles(self, user: str) -> list[Tile]:
        """The user's tiles in their order: as pinned, unless moved (``move``)."""
        rows = self.workspace.connection().execute(
            f"SELECT {_COLUMNS} FROM board_tiles WHERE user = ? ORDER BY rowid", (user,)
        )
        return [_tile(r) for r in rows]

    def get_by_plan(self, user: str, plan: dict | None) -> Tile | None:
        """The user's tile of this plan, pinned on any data version (``plan_key``)."""
        key = plan_key(plan)
        return next((t for t in self.tiles(user) if plan_key(t.plan) == key), None)

    def move(self, user: str, tile_id: str, step: int) -> bool:
        """Move one of the user's tiles one place up (``step`` −1) or down (+1); False at an end or when not theirs."""
        with self.workspace.transaction() as conn:
            order = [r[0] for r in conn.execute("SELECT rowid FROM board_tiles WHERE user = ? ORDER BY rowid", (user,))]
            found = conn.execute("SELECT rowid FROM board_tiles WHERE id = ? AND user = ?", (tile_id, user)).fetchone()
            at = order.index(found[0]) if found else -1
            if at < 0 or not 0 <= at + step < len(order):
                return False
            mine, other = order[at], order[at + step]
            # swap the two rowids through a free negative one (rowids are never negative here)
            conn.execute("UPDATE board_tiles SET rowid = ? WHERE rowid = ?", (-mine, mine))
            conn.execute("UPDATE board_tiles SET rowid = ? WHERE rowid = ?", (mine, other))
            conn.execute("UPDATE board_tiles SET rowid = ? WHERE rowid = ?", (other, -mine))
        return True

    def get_by_hash(self, user: str, query_hash: str) -> Tile | None:
        """The user's tile of this plan, if pinned."""
        row = (
            self.workspace.connection()
            .execute(f"SELECT {_COLUMNS} FROM board_tiles WHERE user = ? AND query_hash = ?", (user, query_hash))
            .fetchone()
        )
        return _tile(row) if row else None

    def unpin(self, user: str, tile_id: str) -> bool:
        """Remove one of the user's tiles; False when the user has no such tile."""
        with self.workspace.transaction() as conn:
            cur = conn.execute("DELETE FROM board_tiles WHERE id = ? AND user = ?", (tile_id, user))
        return cur.rowcount == 1


def reading(tile: Tile, metadata: dict, *, settings=None, user: str = "local", role: str = "analista") -> Reading:
    """Re-run a tile's plan on the current data version (validated, audited as ``tablero``) beside its pinned answer."""
    from core.explore.plan import answer

    # the steps only: the pinned meta names the version it was pinned on, and «now» is whatever is published
    turn = answer(
        {"plan": tile.plan.get("plan", [])},
        tile.title,
        tile.notes,
        metadata,
        settings=settings,
        user=user,
        role=role,
        kind=AUDIT_KIND,
        audit_extra={"tile": tile.id, "pinned_query_hash": tile.query_hash},
    )
    return Reading(tile, snapshot(turn), turn.status == "ok")
