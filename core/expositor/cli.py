"""The HTTP API's commands: ``api`` (serve it with uvicorn) and ``tokens`` (create, list, revoke a client's token).

Registered like every command (``register_cli``, listed in ``core.cli.COMMAND_MODULES``). ``tokens create``
prints the secret once, on stdout, and never again: only its sha256 is kept (``core.expositor.tokens``).
"""

from __future__ import annotations

import sys
from dataclasses import replace

from core.cli import _common, _print_json
from core.expositor.tokens import ROLES, Tokens


def cmd_api(args, settings) -> int:
    """Serve the HTTP API (127.0.0.1 unless --host or CASANDRA_API_HOST say otherwise)."""
    import uvicorn

    from core.expositor.app import create_app

    api = replace(settings.api, host=args.host or settings.api.host, port=args.port or settings.api.port)
    settings = replace(settings, api=api)
    if api.host not in ("127.0.0.1", "::1", "localhost"):
        sys.stderr.write(f"Aviso: la API escucha en {api.host}; solo los tokens la protegen.\n")
    uvicorn.run(create_app(settings), host=api.host, port=api.port, log_level=args.log_level, server_header=False)
    return 0


def cmd_tokens_create(args, settings) -> int:
    """Create a client's token and print it once."""
    secret = Tokens.for_settings(settings).create(args.name, args.role, rate=args.rate, by=args.by, settings=settings)
    _print_json({"name": args.name, "role": args.role, "rate": args.rate, "token": secret})
    sys.stderr.write("Guarde el token ahora: no se vuelve a mostrar (solo se guarda su huella sha256).\n")
    return 0


def cmd_tokens_list(args, settings) -> int:
    """List the clients' tokens (never the secrets)."""
    rows = Tokens.for_settings(settings).list(include_revoked=args.all)
    _print_json([row.__dict__ for row in rows])
    return 0


def cmd_tokens_revoke(args, settings) -> int:
    """Revoke a client's current token; exit 2 when it had none."""
    if Tokens.for_settings(settings).revoke(args.name, by=args.by, settings=settings):
        _print_json({"name": args.name, "status": "revoked"})
        return 0
    sys.stderr.write(f"Error: el cliente {args.name!r} no tiene un token vigente.\n")
    return 2


def register_cli(subparsers) -> None:
    """Add ``api`` and ``tokens`` (create, list, revoke)."""
    common = _common()
    p = subparsers.add_parser("api", parents=[common], help="servir la API HTTP (Plan API, Job API, /ask)")
    p.add_argument("--host", help="dirección (por defecto 127.0.0.1; CASANDRA_API_HOST)")
    p.add_argument("--port", type=int, help="puerto (por defecto 8000; CASANDRA_API_PORT)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(handler=cmd_api)
    p = subparsers.add_parser("tokens", parents=[common], help="tokens de los clientes de la API HTTP")
    verbs = p.add_subparsers(dest="verb", required=True)
    v = verbs.add_parser("create", parents=[common], help="crear el token de un cliente (se muestra una vez)")
    v.add_argument("name")
    v.add_argument("--role", required=True, choices=ROLES)
    v.add_argument("--rate", help="tasa propia, p. ej. 60/minute (por defecto CASANDRA_API_RATE)")
    v.add_argument("--by", default="cli", help="quién lo crea (queda en la auditoría)")
    v.set_defaults(handler=cmd_tokens_create)
    v = verbs.add_parser("list", parents=[common], help="clientes y roles (nunca los tokens)")
    v.add_argument("--all", action="store_true", help="incluir los revocados")
    v.set_defaults(handler=cmd_tokens_list)
    v = verbs.add_parser("revoke", parents=[common], help="revocar el token vigente de un cliente")
    v.add_argument("name")
    v.add_argument("--by", default="cli", help="quién lo revoca (queda en la auditoría)")
    v.set_defaults(handler=cmd_tokens_revoke)
