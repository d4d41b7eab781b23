"""``python -m core audit list|verify|export|reanchor``: the audit log from the command line.

``export --format segment --first-seq A --last-seq B`` writes a verified chain segment (``core.audit.segment``);
``verify --segment FILE`` checks one with this installation's key.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.audit import segment as audit_segment
from core.audit.log import AuditLog
from core.audit.records import _FILTERS
from core.audit.verify import describe
from core.config import load_settings
from core.errors import CasandraError


def _add_filters(parser, *, with_limit: bool) -> None:
    parser.add_argument("--since", help="desde (AAAA-MM-DD o ISO-8601 UTC, inclusive)")
    parser.add_argument("--until", help="hasta (AAAA-MM-DD o ISO-8601 UTC, inclusive)")
    parser.add_argument("--user", help="usuario exacto")
    parser.add_argument("--status", help="estado exacto (ok, error, refused…)")
    parser.add_argument("--kind", help="tipo exacto (execute, ask, plan_edit, etl…)")
    parser.add_argument("--tool", help="registros que usaron esta herramienta")
    parser.add_argument("--dataset-version", dest="dataset_version", help="versión de datos exacta")
    parser.add_argument("--text", help="texto en la pregunta o el payload")
    if with_limit:
        parser.add_argument("--limit", type=int, default=200, help="máximo de registros (200)")
        parser.add_argument("--offset", type=int, default=0, help="registros a saltar")


def _filters_from(args) -> dict:
    return {name: getattr(args, name, None) for name in _FILTERS}


def _log_for(args, settings) -> AuditLog:
    if settings is None:
        settings = load_settings(getattr(args, "data_dir", None))
    return AuditLog.for_settings(settings)


def _cli_list(args, settings) -> int:
    """``audit list``: newest records first, as a table or JSON."""
    try:
        with _log_for(args, settings) as log:
            records = log.list(**_filters_from(args), limit=args.limit, offset=args.offset)
    except (CasandraError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump([r.as_dict() for r in records], sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    if not records:
        print("Sin registros de auditoría para esos filtros.")
        return 0
    print("seq\tts\tkind\tstatus\tuser\trole\tjob_id\tquestion")
    for r in records:
        question = (r.question or "").replace("\t", " ").replace("\n", " ")
        print(f"{r.seq}\t{r.ts}\t{r.kind}\t{r.status}\t{r.user}\t{r.role}\t{r.job_id}\t{question}")
    return 0


def _cli_verify(args, settings) -> int:
    """``audit verify``: exit 0 when the chain and its anchor agree, 1 naming what was done and where."""
    if args.segment:
        return _verify_segment(args, settings)
    with _log_for(args, settings) as log:
        result = log.verify()
    print(describe(result))
    return 0 if result.ok else 1


def _verify_segment(args, settings) -> int:
    """``audit verify --segment FILE``: check an exported segment with this installation's key (exit 0 or 1)."""
    try:
        document = json.loads(Path(args.segment).read_text(encoding="utf-8"))
        with _log_for(args, settings) as log:
            key = log.seal.key()
    except (OSError, ValueError, CasandraError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    result = audit_segment.check_segment(document, key)
    print(audit_segment.describe(result))
    return 0 if result.ok else 1


def _export_segment(args, settings) -> int:
    """``audit export --format segment``: the verified segment first..last as JSON (the export is audited)."""
    if args.first_seq is None or args.last_seq is None:
        print("Error: el formato segment necesita --first-seq y --last-seq.", file=sys.stderr)
        return 2
    try:
        with _log_for(args, settings) as log:
            document = audit_segment.export(log, args.first_seq, args.last_seq, user=args.by, role="supervisor")
    except (CasandraError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    if args.output:
        target = Path(args.output)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"Exportado el segmento seq={document['first_seq']}..{document['last_seq']} a {target}.", file=sys.stderr)
    else:
        sys.stdout.write(text)
    status = audit_segment.SegmentCheck(**document["segment_verification"])
    print(audit_segment.describe(status), file=sys.stderr)
    return 0 if status.ok else 1


def _cli_reanchor(args, settings) -> int:
    """``audit reanchor``: accept the log as it is (audited with the reason), after a known loss."""
    try:
        with _log_for(args, settings) as log:
            print("Antes: " + describe(log.verify()))
            log.reanchor(user=args.user, role="supervisor", reason=args.motivo)
            result = log.verify()
    except (CasandraError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print("Después: " + describe(result))
    return 0 if result.ok else 1


def _cli_export(args, settings) -> int:
    """``audit export``: every matching record as JSON or CSV, or a verified segment, to a file or stdout."""
    if args.format == "segment":
        return _export_segment(args, settings)
    try:
        with _log_for(args, settings) as log:
            if args.output:
                target = Path(args.output)
                target.parent.mkdir(parents=True, exist_ok=True)
                with target.open("w", encoding="utf-8", newline="") as handle:
                    written = log.export(args.format, handle, **_filters_from(args))
                print(f"Exportados {written} registros de auditoría a {target}.", file=sys.stderr)
            else:
                written = log.export(args.format, sys.stdout, **_filters_from(args))
    except (CasandraError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    return 0


def register_cli(subparsers) -> None:
    """Add the ``audit`` command (``list``, ``verify``, ``export``, ``reanchor``) to an argparse subparsers object."""
    audit = subparsers.add_parser("audit", help="bitácora de auditoría: listar, verificar, exportar")
    commands = audit.add_subparsers(dest="audit_command", metavar="{list,verify,export,reanchor}")
    commands.required = True

    listing = commands.add_parser("list", help="lista registros, el más reciente primero")
    _add_filters(listing, with_limit=True)
    listing.add_argument("--json", action="store_true", help="salida en JSON")
    listing.set_defaults(handler=_cli_list)

    verify = commands.add_parser("verify", help="verifica la cadena sellada y su ancla")
    verify.add_argument("--segment", help="verifica en su lugar un segmento exportado (archivo JSON)")
    verify.set_defaults(handler=_cli_verify)

    reanchor = commands.add_parser(
        "reanchor", help="acepta la bitácora como está tras una pérdida conocida (queda auditado con el motivo)"
    )
    reanchor.add_argument("--motivo", required=True, help="por qué se acepta la bitácora como está")
    reanchor.add_argument("--user", default="local", help="quién lo decide")
    reanchor.set_defaults(handler=_cli_reanchor)

    export = commands.add_parser("export", help="exporta registros en JSON o CSV, o un segmento verificado")
    export.add_argument(
        "--format",
        choices=("json", "csv", "segment"),
        required=True,
        help="formato de salida (segment: registros seq A..B con sus hashes, el ancla y la verificación)",
    )
    export.add_argument("--output", help="archivo de salida (por omisión, la salida estándar)")
    export.add_argument("--first-seq", dest="first_seq", type=int, help="primer registro del segmento")
    export.add_argument("--last-seq", dest="last_seq", type=int, help="último registro del segmento")
    export.add_argument("--by", default="local", help="quién exporta el segmento (queda auditado)")
    _add_filters(export, with_limit=False)
    export.set_defaults(handler=_cli_export)
