"""Command line: ``python -m core <command>``. Every command takes ``--data-dir``.

Commands come from the modules in ``COMMAND_MODULES`` plus those named by ``CASANDRA_CLI_MODULES``
(``core.config.extra_cli_modules``), datasette-style: each module has ``register_cli(subparsers)``,
which adds its sub-parsers and sets ``handler(args, settings) -> exit code``. The built-in commands
below register through that same hook (this module is the first in the tuple). A listed module that
cannot be imported, or has no ``register_cli``, is an error: no command goes silently missing.

Exit codes: 0 done, 2 refused (clear Spanish message on stderr, data untouched),
1 for other failures (a broken command module among them).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import get_args

from core.ask.contracts import DomainHint
from core.config import DEFAULT_DATA_DIR, extra_cli_modules, load_settings
from core.engine.limits import MAX_PLAN_BYTES, load_json
from core.errors import CasandraError, DatosFaltantesError, HerramientaError, LimiteRecursosError, ValidacionError
from core.etl import SourceSpec, run_etl
from core.etl.metadata import stale
from core.etl.national import national_settings, national_specs
from core.etl.publish import Depot

# The command modules, in help order; a new command is a module with register_cli added here
# (or named in CASANDRA_CLI_MODULES without editing the project).
COMMAND_MODULES = ("core.cli", "core.etl.cli", "core.audit.cli", "core.expositor.cli", "evals.harness")


class CommandModuleError(ImportError):
    """A listed command module cannot be imported or registers nothing."""


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def _stderr_progress(stage: str, fraction: float, message: str) -> None:
    sys.stderr.write(f"[{stage} {int(fraction * 100):3d}%] {message}\n")
    sys.stderr.flush()


def load_manifest(raw_dir: Path) -> list[SourceSpec]:
    """The bundled files and their per-file options from ``raw/manifest.json``."""
    manifest = raw_dir / "manifest.json"
    if not manifest.is_file():
        raise ValidacionError(f"No existe {manifest}.", ["El manifiesto lista los archivos de data/raw."])
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return [
        SourceSpec(
            raw_dir / item["path"],
            coverage=item.get("coverage"),
            annual_cut=item.get("annual_cut"),
            procedencia=item.get("procedencia"),
        )
        for item in data["files"]
    ]


def cmd_build(args, settings) -> int:
    """Build the default store from the bundled files listed in data/raw/manifest.json."""
    depot = Depot((national_settings(settings) if args.nacional else settings).store_dir)
    if args.if_missing and depot.current_id():
        if not stale(depot.metadata()):
            sys.stderr.write(f"El almacén ya existe ({depot.current_id()}); no se reconstruye.\n")
            return 0
        sys.stderr.write(f"El almacén {depot.current_id()} se derivó con un formato anterior; se reconstruye.\n")
    raw = Path(args.raw_dir) if args.raw_dir else settings.raw_dir
    if not args.raw_dir and not (raw / "manifest.json").is_file():
        raw = DEFAULT_DATA_DIR / "raw"  # an empty data folder builds from the bundled files
    specs = load_manifest(raw)
    if args.nacional:  # the optional national store, beside the default one (core/etl/national.py)
        specs, settings = national_specs(settings, specs), national_settings(settings)
    result = run_etl(specs, settings, progress=None if args.quiet else _stderr_progress)
    _print_json(
        {
            k: result.summary.get(k)
            for k in ("status", "dataset_version", "min_date", "max_date", "row_counts", "cuarentena")
        }
    )
    return 0


def cmd_metadata(args, settings) -> int:
    """Print the current version's metadata JSON."""
    meta = Depot(settings.store_dir).metadata()
    if meta is None:
        raise DatosFaltantesError(
            "No hay datos publicados en esta carpeta.", ["Cargue archivos con `python -m core etl ARCHIVO`."]
        )
    _print_json(meta)
    return 0


def _read_input(path: str, limit: int | None = None) -> str:
    """The text of a file or of stdin ('-'); with ``limit``, at most that many bytes are read (more is refused)."""
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(-1 if limit is None else limit + 1) if stream else sys.stdin.read().encode()
        else:
            with Path(path).open("rb") as fh:
                data = fh.read(-1 if limit is None else limit + 1)
    except OSError as exc:
        raise ValidacionError(f"No se pudo leer {'la entrada estándar' if path == '-' else repr(path)}.") from exc
    if limit is not None and len(data) > limit:
        raise LimiteRecursosError(
            f"La entrada ocupa más de {limit // 1024} KiB; el límite es {limit // 1024} KiB.",
            ["Un plan o un JobRequest válido ocupa pocos KiB."],
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidacionError(
            f"La entrada no es texto UTF-8 válido (byte {exc.start + 1}).", ["Guarde el archivo como UTF-8."]
        ) from exc


def cmd_catalog(args, settings) -> int:
    """Print the CatalogSpec JSON."""
    from core import api

    _print_json(api.catalog(settings))
    return 0


def cmd_execute(args, settings) -> int:
    """Run a plan (text or JSON) and print its envelopes; exit 2 when the result is an error."""
    from core import api

    _quiet_core_logs()
    text = _read_input(args.plan, MAX_PLAN_BYTES)
    try:
        envs = api.execute_plan(
            text,
            strict_time=args.strict_time,
            return_all=not args.last,
            settings=settings,
            user=args.user,
            role="analista",
        )
    except Exception as exc:  # the engine answers plans with envelopes; this is the store or the audit failing
        logging.getLogger(__name__).exception("execute failed unexpectedly")
        raise HerramientaError(
            "Error interno al ejecutar el plan.", ["Intente de nuevo; si persiste, avise al equipo de datos."]
        ) from exc
    _print_json(envs)
    last = envs if isinstance(envs, dict) else envs[-1]
    if last["status"] != "ok":
        _print_refusal(last["error"])
    return 0 if last["status"] == "ok" else 2


def _quiet_core_logs() -> None:
    """Keep core's diagnostic logs (tracebacks of the last-resort nets) off the person's stderr.

    Without a handler, Python prints warnings and their tracebacks to stderr; the person gets the
    Spanish message instead. A caller that configures logging still receives the records.
    """
    core_log = logging.getLogger("core")
    if not core_log.handlers and not logging.getLogger().handlers:
        core_log.addHandler(logging.NullHandler())


def _print_refusal(error: dict) -> None:
    """The Spanish message of an error block on stderr (stdout keeps the JSON)."""
    sys.stderr.write(f"Error [{error['code']}]: {error['details']}\n")
    for hint in error.get("hints") or []:
        sys.stderr.write(f"  - {hint}\n")


def cmd_job(args, settings) -> int:
    """Run a JobRequest JSON file and print the JobResult."""
    from core.jobs import run_job

    _quiet_core_logs()
    request = load_json(_read_input(args.job, MAX_PLAN_BYTES), "El JobRequest")
    result = run_job(request, settings=settings, user=args.user)
    _print_json(result.model_dump())
    if not result.ok:
        _print_refusal(result.error)
    return 0 if result.ok else 2


def cmd_contracts(args, settings) -> int:
    """Export the contracts' JSON Schemas to catalogs/contracts."""
    from core.ask.contracts import export_schemas
    from core.config import CATALOGS_DIR

    names = export_schemas(Path(args.output) if args.output else CATALOGS_DIR / "contracts")
    _print_json(names)
    return 0


def cmd_ask(args, settings) -> int:
    """Answer questions as one conversation (or several, from --conversations)."""
    from core.ask.context import Assistant
    from core.ask.pipeline import Conversation

    assistant = Assistant(settings=settings, user=args.user, role="analista")
    if args.conversations:
        try:
            convs = json.loads(_read_input(args.conversations))
            assert isinstance(convs, list) and all(
                isinstance(c, list) and all(isinstance(q, str) for q in c) for c in convs
            )
        except (json.JSONDecodeError, AssertionError) as exc:
            raise ValidacionError(
                "--conversations espera una lista JSON de conversaciones (listas de preguntas)."
            ) from exc
    else:
        if not args.questions:
            raise ValidacionError(
                "Escriba al menos una pregunta.",
                ["Ejemplo: python -m core ask '¿Cuántos homicidios hubo en León en 2024?'"],
            )
        convs = [[" ".join(args.questions)]] if args.one else [args.questions]
    results = []
    for questions in convs:
        conversation = Conversation()
        turns = [assistant.ask(q, conversation, domain_hint=args.domain_hint, planner=args.planner) for q in questions]
        results.append(turns)
    if args.json:
        if args.conversations:
            _print_json({"conversations": [{"turns": [t.as_dict() for t in turns]} for turns in results]})
        else:
            _print_json({"turns": [t.as_dict() for t in results[0]]})
    else:
        for turns in results:
            for t in turns:
                sys.stdout.write(t.answer.text + "\n\n")
    return 0


def cmd_mcp(args, settings) -> int:
    """Serve Casandra's MCP tools and resources over stdin/stdout (an MCP client launches this)."""
    from core.expositor.mcp_server import run_stdio

    _quiet_core_logs()
    return run_stdio(settings)


def _common() -> argparse.ArgumentParser:
    """The options every command accepts (``--data-dir``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="carpeta de datos (por defecto data/; CASANDRA_DATA_DIR la cambia)",
    )
    return common


def register_cli(subparsers) -> None:
    """Add the built-in commands (build, metadata, catalog, execute, job, ask, contracts; the steward's in core.etl.cli)."""
    common = _common()
    p = subparsers.add_parser("build", parents=[common], help="construir el almacén con los archivos de data/raw")
    p.add_argument("--if-missing", action="store_true")
    p.add_argument("--raw-dir")
    p.add_argument("--nacional", action="store_true", help="almacén nacional aparte con las partes municipales")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(handler=cmd_build)
    p = subparsers.add_parser("metadata", parents=[common], help="metadatos de la versión vigente")
    p.set_defaults(handler=cmd_metadata)
    p = subparsers.add_parser("catalog", parents=[common], help="catálogo de herramientas (CatalogSpec)")
    p.set_defaults(handler=cmd_catalog)
    p = subparsers.add_parser("execute", parents=[common], help="ejecutar un plan (texto o JSON; '-' = stdin)")
    p.add_argument("plan")
    p.add_argument("--strict-time", action="store_true")
    p.add_argument("--last", action="store_true", help="solo el último sobre")
    p.add_argument("--user", default="cli")
    p.set_defaults(handler=cmd_execute)
    p = subparsers.add_parser("job", parents=[common], help="ejecutar un JobRequest JSON (API de compatibilidad)")
    p.add_argument("job")
    p.add_argument("--user", default="cli")
    p.set_defaults(handler=cmd_job)
    p = subparsers.add_parser("ask", parents=[common], help="preguntar en español (una conversación)")
    p.add_argument("questions", nargs="*")
    p.add_argument("--json", action="store_true")
    p.add_argument("--planner", choices=["auto", "rules", "llm"], default="auto")
    p.add_argument(
        "--domain-hint",
        default="auto",
        choices=get_args(DomainHint),  # the contract's hints (core.ask.contracts)
    )
    p.add_argument("--conversations", help="archivo JSON: lista de conversaciones (listas de preguntas)")
    p.add_argument("--one", action="store_true", help="unir las palabras en una sola pregunta")
    p.add_argument("--user", default="cli")
    p.set_defaults(handler=cmd_ask)
    p = subparsers.add_parser("mcp", parents=[common], help="servidor MCP por stdio (herramientas, ask, recursos)")
    p.set_defaults(handler=cmd_mcp)
    p = subparsers.add_parser("contracts", parents=[common], help="exportar los JSON Schema de los contratos")
    p.add_argument("--output")
    p.set_defaults(handler=cmd_contracts)


def command_modules(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """``COMMAND_MODULES`` then the extra module names, each once, in order."""
    return tuple(dict.fromkeys((*COMMAND_MODULES, *extra)))


def build_parser(extra_modules: Iterable[str] = ()) -> argparse.ArgumentParser:
    """The argparse tree of every command: each command module's ``register_cli`` adds its own."""
    parser = argparse.ArgumentParser(prog="python -m core", description="Casandra: motor y datos.", parents=[_common()])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in command_modules(extra_modules):
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise CommandModuleError(
                f"No se pudo importar el módulo de órdenes {name!r} (COMMAND_MODULES o CASANDRA_CLI_MODULES): {exc}"
            ) from exc
        register = getattr(module, "register_cli", None)
        if not callable(register):
            raise CommandModuleError(f"El módulo de órdenes {name!r} no tiene register_cli(subparsers).")
        register(sub)
    return parser


def _split_data_dir(argv: list[str]) -> tuple[str | None, list[str]]:
    """Take ``--data-dir`` from anywhere in argv, so plugin commands accept it too."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--data-dir", default=None)
    known, rest = pre.parse_known_args(argv)
    return known.data_dir, rest


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    data_dir, rest = _split_data_dir(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(extra_cli_modules())
    except CommandModuleError as exc:
        sys.stderr.write(f"Error: {exc}\n")
        return 1
    args = parser.parse_args(rest)
    args.data_dir = data_dir
    settings = load_settings(args.data_dir)
    try:
        return int(args.handler(args, settings) or 0)
    except CasandraError as exc:
        sys.stderr.write(f"Error [{exc.code}]: {exc.details}\n")
        for hint in exc.hints:
            sys.stderr.write(f"  - {hint}\n")
        return 2
    except KeyboardInterrupt:
        return 130
