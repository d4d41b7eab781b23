"""Bearer tokens of the HTTP API: one per client, kept hashed in the workspace file (migration 0003).

A token is ``cas_`` + 43 random URL-safe characters; only its sha256 is stored, so the secret is shown once,
when it is created, and a copied database grants nothing. Each token names a client and one of the
dashboard's roles (``analista``, ``supervisor``, ``steward``); a revoked token stays as history. Creating and
revoking are audited (kind ``token``).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
from dataclasses import dataclass

from core.audit.log import AuditLog
from core.errors import ValidacionError
from core.workspace.store import Feature

ROLES = ("analista", "supervisor", "steward")  # the dashboard's roles (ui/auth.py)
PREFIX = "cas_"
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
MAX_TOKEN_CHARS = 200  # a header beyond this is no token of ours: refused before hashing


@dataclass(frozen=True)
class Client:
    """Who a valid token names: the client, its role and its own rate (None = the API's default)."""

    name: str
    role: str
    rate: str | None = None

    @property
    def user(self) -> str:
        """How audit records name this client (``api:NAME``)."""
        return f"api:{self.name}"


@dataclass(frozen=True)
class TokenInfo:
    """One row of ``tokens list`` (never the secret nor its hash)."""

    name: str
    role: str
    rate: str | None
    created_at: str
    revoked_at: str | None


def digest(secret: str) -> str:
    """The stored form of a token: sha256 hex of its text."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _check_rate(rate: str | None) -> None:
    if rate is None:
        return
    from limits import parse

    try:
        parse(rate)
    except ValueError as exc:
        raise ValidacionError(
            f"Tasa no válida: {rate[:40]!r}.", ["Escriba la tasa como '60/minute' o '1000/hour'."]
        ) from exc


class Tokens(Feature):
    """The API tokens of a workspace."""

    def create(self, name: str, role: str, *, rate: str | None = None, by: str = "cli", settings=None) -> str:
        """A new token for ``name`` with ``role``; returns the secret (shown once, never stored)."""
        if not NAME.match(name or ""):
            raise ValidacionError(
                f"Nombre de cliente no válido: {str(name)[:40]!r}.",
                ["Use de 1 a 40 caracteres: minúsculas, dígitos, '.', '_' o '-'."],
            )
        if role not in ROLES:
            raise ValidacionError(f"Rol desconocido: {role!r}.", [f"Roles: {', '.join(ROLES)}."])
        _check_rate(rate)
        secret = PREFIX + secrets.token_urlsafe(32)
        try:
            with self.workspace.transaction() as conn:
                conn.execute(
                    "INSERT INTO api_tokens (name, role, token_hash, rate, created_at) VALUES (?, ?, ?, ?, ?)",
                    (name, role, digest(secret), rate, self.workspace.now()),
                )
        except sqlite3.IntegrityError as exc:
            raise ValidacionError(
                f"El cliente {name!r} ya tiene un token vigente.", [f"Revóquelo antes: tokens revoke {name}."]
            ) from exc
        self._audit(settings, by, "created", name, role)
        return secret

    def revoke(self, name: str, *, by: str = "cli", settings=None) -> bool:
        """Revoke the client's current token; False when it had none."""
        with self.workspace.transaction() as conn:
            cur = conn.execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                (self.workspace.now(), name),
            )
        if cur.rowcount:
            self._audit(settings, by, "revoked", name, None)
        return bool(cur.rowcount)

    def list(self, *, include_revoked: bool = False) -> list[TokenInfo]:
        """The tokens, by client name (current ones only unless ``include_revoked``)."""
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self.workspace.connection().execute(
            f"SELECT name, role, rate, created_at, revoked_at FROM api_tokens{where} ORDER BY name, id"
        )
        return [TokenInfo(*row) for row in rows]

    def client(self, secret: str | None) -> Client | None:
        """The client a presented secret names (None when unknown, revoked or malformed)."""
        if not secret or len(secret) > MAX_TOKEN_CHARS or not secret.startswith(PREFIX):
            return None
        row = (
            self.workspace.connection()
            .execute(
                "SELECT name, role, rate FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL",
                (digest(secret),),
            )
            .fetchone()
        )
        return Client(*row) if row else None

    def _audit(self, settings, by: str, status: str, name: str, role: str | None) -> None:
        """Record who gave or took a token (the audit lives beside the workspace)."""
        if settings is None:
            return
        with AuditLog.for_settings(settings) as log:
            log.append(kind="token", user=by, role="supervisor", status=status, payload={"client": name, "role": role})
