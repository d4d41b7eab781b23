"""API tokens: kept only as sha256, one current token per client, revocation, refusals and the audit."""

from __future__ import annotations

import hashlib

import pytest

from core.audit.log import AuditLog
from core.errors import ValidacionError
from core.expositor.tokens import Tokens
from core.workspace.store import Workspace


@pytest.fixture
def store(empty_settings) -> Tokens:
    return Tokens.for_settings(empty_settings)


def test_a_token_is_kept_only_as_its_sha256(store, empty_settings):
    secret = store.create("tablero-norte", "analista", settings=empty_settings)
    rows = Workspace.for_settings(empty_settings).connection().execute("SELECT * FROM api_tokens").fetchall()
    assert secret.startswith("cas_") and len(secret) > 40
    assert not any(secret in str(value) for row in rows for value in row)
    assert rows[0][3] == hashlib.sha256(secret.encode()).hexdigest()
    client = store.client(secret)
    assert (client.name, client.role, client.user) == ("tablero-norte", "analista", "api:tablero-norte")


def test_secrets_differ_and_each_names_its_client(store):
    a, b = store.create("a", "analista"), store.create("b", "steward")
    assert a != b and store.client(a).name == "a" and store.client(b).role == "steward"


@pytest.mark.parametrize("presented", [None, "", "cas_", "cas_otro", "Bearer x", "x" * 500])
def test_an_unknown_secret_names_nobody(store, presented):
    store.create("a", "analista")
    assert store.client(presented) is None


def test_revoking_ends_the_token_and_frees_the_name(store, empty_settings):
    old = store.create("cuaderno", "supervisor")
    assert store.revoke("cuaderno", settings=empty_settings) is True
    assert store.client(old) is None and store.revoke("cuaderno") is False
    new = store.create("cuaderno", "analista")
    assert store.client(new).role == "analista"
    assert [(t.name, t.revoked_at is None) for t in store.list(include_revoked=True)] == [
        ("cuaderno", False),
        ("cuaderno", True),
    ]
    assert [t.name for t in store.list()] == ["cuaderno"]


@pytest.mark.parametrize(
    "name,role,rate",
    [
        ("Mayúsculas", "analista", None),
        ("con espacio", "analista", None),
        ("", "analista", None),
        ("x" * 41, "analista", None),
        ("bien", "admin", None),
        ("bien", "analista", "muchas"),
        ("bien", "analista", "10/eon"),
    ],
)
def test_a_bad_name_role_or_rate_is_refused(store, name, role, rate):
    with pytest.raises(ValidacionError):
        store.create(name, role, rate=rate)
    assert store.list(include_revoked=True) == []


def test_one_current_token_per_client(store):
    store.create("uno", "analista")
    with pytest.raises(ValidacionError, match="ya tiene un token vigente"):
        store.create("uno", "steward")


def test_creating_and_revoking_are_audited(store, empty_settings):
    store.create("auditado", "steward", by="sofia", settings=empty_settings)
    store.revoke("auditado", by="sofia", settings=empty_settings)
    records = AuditLog.for_settings(empty_settings).list(kind="token")
    assert [(r.status, r.user, r.payload["client"]) for r in records] == [
        ("revoked", "sofia", "auditado"),
        ("created", "sofia", "auditado"),
    ]
    assert all("cas_" not in str(r.payload) for r in records)
