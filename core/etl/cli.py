"""The steward's commands: ``etl`` (load files, or preview them), ``versions`` and ``rollback``.

Registered like every command (``register_cli``, listed in ``core.cli.COMMAND_MODULES``). A load that would
remove cells the files do not mention is refused unless ``--confirmar-eliminaciones`` repeats the number the
preview (``--dry-run``) reports in ``cambios.totales.eliminadas``.
"""

from __future__ import annotations

from pathlib import Path

from core.cli import _common, _print_json, _stderr_progress
from core.etl import SourceSpec
from core.etl.publish import Depot


def cmd_etl(args, settings) -> int:
    """Load files into a new dataset version (or preview them)."""
    from core import api

    specs = [SourceSpec(Path(p), coverage=args.coverage, annual_cut=args.annual_cut) for p in args.files]
    summary = api.load_files(
        specs,
        settings=settings,
        user=args.user,
        role="steward",
        dry_run=args.dry_run,
        progress=None if args.quiet else _stderr_progress,
        confirm_removals=args.confirmar_eliminaciones,
        note=args.nota,
    )
    _print_json(summary)
    return 0


def cmd_versions(args, settings) -> int:
    """List the published versions, newest first."""
    _print_json(Depot(settings.store_dir).versions())
    return 0


def cmd_rollback(args, settings) -> int:
    """Make an earlier version current again."""
    from core import api

    meta = api.rollback(args.version_id, settings=settings, user=args.user, role="steward", reason=args.motivo)
    _print_json({"status": "rolled_back", "dataset_version": meta["dataset_version"], "max_date": meta["max_date"]})
    return 0


def register_cli(subparsers) -> None:
    """Add the steward's commands: etl, versions, rollback."""
    common = _common()
    p = subparsers.add_parser("etl", parents=[common], help="cargar archivos CSV/ZIP en una nueva versión")
    p.add_argument("files", nargs="+")
    p.add_argument("--coverage", help="AAAA-MM:AAAA-MM para archivos largos sin ceros")
    p.add_argument("--annual-cut", help="AAAA-MM: último mes incluido en los totales anuales")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="revisar sin publicar (vista previa)")
    p.add_argument(
        "--confirmar-eliminaciones",
        type=int,
        metavar="N",
        help="publicar aunque se eliminen celdas: N = las celdas eliminadas que dijo la vista previa",
    )
    p.add_argument("--nota", help="nota de la versión publicada")
    p.add_argument("--user", default="cli")
    p.set_defaults(handler=cmd_etl)
    subparsers.add_parser("versions", parents=[common], help="versiones publicadas").set_defaults(handler=cmd_versions)
    p = subparsers.add_parser("rollback", parents=[common], help="volver a una versión anterior")
    p.add_argument("version_id")
    p.add_argument("--motivo", help="por qué se vuelve a esa versión (queda en la auditoría)")
    p.add_argument("--user", default="cli")
    p.set_defaults(handler=cmd_rollback)
