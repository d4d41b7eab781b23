"""Issue 16 §6: the HTTP API under load — concurrent clients on ``POST /plan/execute`` and ``POST /ask`` while a
steward publishes a new dataset version through ``POST /datasets`` in the middle of the run.

The real app (``python -m core api``, uvicorn, one process) serves a COPY of the store (the current version of
``data/store``, or a store built with ``python -m core build`` when there is none) in ``<work>/data``; the project's
``data/`` is never written. Tokens are made by ``Tokens.create``, the code behind ``python -m core tokens create``,
with an explicit per-token rate (``BENCH_RATE``): the default, 120 a minute per token, would answer most of this
load with 429. ``clients`` asyncio tasks, each with its own ``httpx.AsyncClient`` and one of ``ANALYST_TOKENS``
analyst tokens, send ``requests`` requests one after another: every ``ASK_EVERY``-th is a Spanish question to
``/ask`` (rules planner: no network), the rest real plans to ``/plan/execute``. When half the requests have been
answered the steward uploads ``REVISION`` (a one-row revision of León's 2024 homicides that changes 12 cells).

Measured: latency p50/p95/p99/max per endpoint, throughput, errors (any non-2xx or transport error) and the
consistency of versions (``bench.api_checks.consistency``): each answered request must name exactly one
``dataset_version``, the old one if it ended before the upload began, the new one if it began after the upload
answered, never the old one again after its client saw the new one, and its rows must be those of the version it
names (each plan and question is answered alone on each version for reference). Also: audit records written per
answered request and the server's log (tracebacks, «database is locked»).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import api_checks
from bench.common import ROOT

REVISION = ROOT / "tests" / "fixtures" / "etl" / "leon_revision.csv"
BENCH_RATE = "1000000/hour"  # per token; set explicitly so no request of the bench meets the API's default 429
ANALYST_TOKENS = 5  # the clients share them: the API keeps one Assistant per token (core/expositor/routes.py)
ASK_EVERY = 3  # one request in three is a question
PUBLISH_AT = 0.5  # the steward uploads once this share of the requests has been answered
TIMEOUT_S = 300.0
READY_TIMEOUT_S = 180.0
TARGET_ERRORS = 0

PLANS: dict[str, dict] = {
    "ranking_municipios_homicidio_2024": {
        "plan": "[6]\nentidad_id: GTO\ndelito: homicidio_doloso\nnivel: hijos\ntop_k: 5\nfrom: 2024-01-01\nto: 2024-12-31"
    },
    "serie_leon_arma_de_fuego_2024": {
        "plan": "[12]\nentidad_id: GTO.MUN.LEON\ndelito: homicidio_doloso\nmetodo: con_arma_de_fuego\n"
        "from: 2024-01-01\nto: 2024-12-31",
        "return_all": True,
    },
    "celaya_frente_a_irapuato_2024": {
        "plan": {
            "plan": [
                {
                    "tool_id": 19,
                    "args": {
                        "entidad_id": "GTO",
                        "entidades": ["GTO.MUN.CELAYA", "GTO.MUN.IRAPUATO"],
                        "from": "2024-01-01",
                        "to": "2024-12-31",
                        "delito": "homicidio_doloso",
                        "incluir_estado": True,
                    },
                }
            ]
        }
    },
    "feminicidio_municipios_2023_y_evidencia": {
        "plan": {
            "plan": [
                {
                    "tool_id": 6,
                    "args": {
                        "entidad_id": "GTO",
                        "nivel": "hijos",
                        "top_k": 10,
                        "from": "2023-01-01",
                        "to": "2023-12-31",
                        "delito": "feminicidio",
                    },
                },
                {"tool_id": 9, "args": {}},
            ]
        },
        "return_all": True,
    },
    "violencia_familiar_salamanca_2019_2022": {
        "plan": "[12]\nentidad_id: GTO.MUN.SALAMANCA\ndelito: violencia_familiar\nfrom: 2019-01-01\nto: 2022-12-31"
    },
}
QUESTIONS: dict[str, str] = {
    "homicidios_leon_2024": "¿Cuántos homicidios dolosos hubo en León en 2024?",
    "arma_de_fuego_leon_2024": "¿Cómo evolucionaron los homicidios dolosos con arma de fuego en León durante 2024?",
    "feminicidios_2023": "¿Qué municipios de Guanajuato tuvieron más feminicidios en 2023?",
    "celaya_irapuato": "Compara los homicidios dolosos de Celaya e Irapuato en 2024",
    "secuestros_2022": "¿Cuántos secuestros hubo en Guanajuato en 2022?",
    "violencia_familiar_salamanca": "tendencia de la violencia familiar en Salamanca de 2019 a 2022",
}


@dataclass(frozen=True)
class Request:
    """One request of the mix: which endpoint, which plan or question, and its body."""

    kind: str  # "plan" or "ask"
    item: str
    path: str
    body: dict


def request_for(kind: str, item: str) -> Request:
    """The request for a plan or question of the mix."""
    if kind == "ask":
        return Request("ask", item, "/ask", {"question": QUESTIONS[item], "planner": "rules"})
    return Request("plan", item, "/plan/execute", PLANS[item])


def mix(client: int, seq: int) -> Request:
    """The ``seq``-th request of ``client``: every ``ASK_EVERY``-th a question, plans and questions in turn."""
    n = client + seq  # clients start at different places of the cycle
    if n % ASK_EVERY == 0:
        names = list(QUESTIONS)
        return request_for("ask", names[(n // ASK_EVERY + client) % len(names)])
    names = list(PLANS)
    return request_for("plan", names[(n + client) % len(names)])


def copy_store(source: Path, data_dir: Path) -> str:
    """A data folder with the source's current version (and raw files); built with ``core build`` when empty."""
    if data_dir.exists():
        shutil.rmtree(data_dir)
    store = data_dir / "store"
    current = source / "store" / "CURRENT"
    if (source / "raw").is_dir():
        shutil.copytree(source / "raw", data_dir / "raw")
    if current.is_file():
        vid = current.read_text(encoding="utf-8").strip()
        shutil.copytree(source / "store" / "versions" / vid, store / "versions" / vid)
        shutil.copy2(current, store / "CURRENT")
        return "una copia de la versión " + vid
    cmd = [sys.executable, "-m", "core", "build", "--quiet", "--data-dir", str(data_dir)]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return "un almacén construido con `python -m core build`"


def make_tokens(data_dir: Path, analysts: int) -> dict[str, list[str] | str]:
    """Analyst tokens for the clients, one for the reference answers and a steward's, all at ``BENCH_RATE``."""
    from core.config import load_settings
    from core.expositor.tokens import Tokens

    settings = load_settings(data_dir)
    tokens = Tokens.for_settings(settings)

    def create(name: str, role: str) -> str:
        return tokens.create(name, role, rate=BENCH_RATE, by="bench", settings=settings)

    return {
        "analistas": [create(f"bench-analista-{i}", "analista") for i in range(analysts)],
        "referencia": create("bench-referencia", "analista"),
        "steward": create("bench-steward", "steward"),
    }


def free_port() -> int:
    """A free 127.0.0.1 port (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def api_server(data_dir: Path, log_path: Path) -> Iterator[tuple[str, int]]:
    """``python -m core api`` over ``data_dir`` on a free port until the block ends: (base URL, pid)."""
    port = free_port()
    cmd = [sys.executable, "-m", "core", "api", "--data-dir", str(data_dir), "--port", str(port)]
    with open(log_path, "wb") as out:
        proc = subprocess.Popen([*cmd, "--log-level", "warning"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"la API terminó al arrancar (código {proc.returncode}); ver {log_path}")
            try:
                if httpx.get(url + "/health/ready", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"la API no quedó lista en {READY_TIMEOUT_S:.0f} s")
            time.sleep(0.25)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def _send(http: httpx.AsyncClient, req: Request, sample: dict, start: float) -> dict:
    """Send one request and fill its sample (times, status, versions named, rows' fingerprint)."""
    t0 = time.perf_counter()
    try:
        response = await http.post(req.path, json=req.body)
        t1 = time.perf_counter()
        sample.update(status=response.status_code, error=None)
        try:
            body = response.json()
        except ValueError:
            body = None
        sample.update(versions=api_checks.versions_named(body), fingerprint=api_checks.fingerprint(body))
        if api_checks.is_error(sample) and isinstance(body, dict):
            sample["code"] = (body.get("error") or {}).get("code")
    except httpx.HTTPError as exc:
        t1 = time.perf_counter()
        sample.update(status=None, error=f"{type(exc).__name__}: {exc}"[:200], versions=[], fingerprint=None)
    sample.update(t0=round(t0 - start, 4), t1=round(t1 - start, 4), ms=(t1 - t0) * 1000)
    return sample


async def references(url: str, token: str) -> dict[tuple[str, str], str]:
    """Each plan and question answered alone: (kind, item) → (version, fingerprint of its rows)."""
    out = {}
    async with httpx.AsyncClient(base_url=url, headers=_auth(token), timeout=TIMEOUT_S) as http:
        for kind, names in (("plan", PLANS), ("ask", QUESTIONS)):
            for item in names:
                s = await _send(http, request_for(kind, item), {"kind": kind, "item": item}, time.perf_counter())
                if api_checks.is_error(s) or len(s["versions"]) != 1:
                    raise RuntimeError(f"la referencia {kind} {item} falló: {s.get('status')} {s.get('error')}")
                out[(kind, item)] = (s["versions"][0], s["fingerprint"])
    return out


async def load(url: str, tokens: dict, clients: int, requests: int, revision: Path = REVISION) -> tuple[list, dict]:
    """Run the clients and, once ``PUBLISH_AT`` of the requests are answered, the steward's upload."""
    total = clients * requests
    samples: list[dict] = []
    halfway = asyncio.Event()
    publication: dict = {}
    start = time.perf_counter()

    async def client(c: int) -> None:
        token = tokens["analistas"][c % len(tokens["analistas"])]
        async with httpx.AsyncClient(base_url=url, headers=_auth(token), timeout=TIMEOUT_S) as http:
            for seq in range(requests):
                req = mix(c, seq)
                samples.append(
                    await _send(http, req, {"client": c, "seq": seq, "kind": req.kind, "item": req.item}, start)
                )
                if len(samples) >= total * PUBLISH_AT:
                    halfway.set()

    async def steward() -> None:
        await halfway.wait()
        p0 = time.perf_counter()
        async with httpx.AsyncClient(base_url=url, headers=_auth(tokens["steward"]), timeout=TIMEOUT_S) as http:
            files = {"files": (revision.name, revision.read_bytes(), "text/csv")}
            try:
                response = await http.post("/datasets", files=files, data={"note": "bench api: revisión de León"})
                body = response.json()
                publication.update(status=response.status_code, resultado=body.get("status"))
                publication["version"] = body.get("dataset_version") if response.status_code == 200 else None
                publication["error"] = None if response.status_code == 200 else body.get("error")
            except (httpx.HTTPError, ValueError) as exc:
                publication.update(status=None, version=None, error=f"{type(exc).__name__}: {exc}"[:200])
        p1 = time.perf_counter()
        publication.update(
            inicio_s=round(p0 - start, 3),
            fin_s=round(p1 - start, 3),
            ms=round((p1 - p0) * 1000, 1),
            respuestas_antes=sum(s["t1"] < p0 - start for s in samples),
        )

    await asyncio.gather(*(client(c) for c in range(clients)), steward())
    return samples, publication


def _server_log(path: Path) -> dict:
    """Tracebacks, «database is locked» and error lines the server wrote while loaded."""
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    lines = text.splitlines()
    bad = [ln for ln in lines if "Traceback" in ln or "locked" in ln.lower() or ln.startswith("ERROR")]
    return {
        "tracebacks": text.count("Traceback"),
        "bloqueos_sqlite": text.lower().count("database is locked"),
        "lineas_error": len(bad),
        "ejemplos": bad[:5],
    }


def _audit(data_dir: Path, samples: list[dict]) -> dict:
    """Audit records of the analysts' tokens against their answered requests (none may be lost)."""
    from core.audit.log import AuditLog
    from core.config import load_settings

    answered = {k: sum(1 for s in samples if s["kind"] == k and not api_checks.is_error(s)) for k in ("plan", "ask")}
    with AuditLog.for_settings(load_settings(data_dir)) as log:
        users = {f"api:bench-analista-{i}" for i in range(ANALYST_TOKENS)}
        found = {
            "plan": sum(log.count(user=u, kind="execute") for u in users),
            "ask": sum(log.count(user=u, kind="ask") for u in users),
        }
    return {"respondidas": answered, "registros": found, "completa": found == answered}


def run(work: Path, log, *, clients: int = 50, requests: int = 200, source: Path | None = None) -> dict:
    """Serve a copy of the store, load it with ``clients`` × ``requests`` requests and publish mid-run."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    data_dir = work / "data"
    origin = copy_store(Path(source) if source else ROOT / "data", data_dir)
    tokens = make_tokens(data_dir, ANALYST_TOKENS)
    log(f"[api] {clients} clientes × {requests} solicitudes; almacén: {origin}")
    load_before = [round(x, 2) for x in os.getloadavg()]
    with api_server(data_dir, work / "server.log") as (url, _pid):
        before = asyncio.run(references(url, tokens["referencia"]))
        samples, publication = asyncio.run(load(url, tokens, clients, requests))
        after = asyncio.run(references(url, tokens["referencia"]))
    load_after = [round(x, 2) for x in os.getloadavg()]
    old = next(iter({v for v, _ in before.values()}))
    new = publication.get("version")
    baselines = {(k, i, v): fp for ref in (before, after) for (k, i), (v, fp) in ref.items()}
    window = (publication["inicio_s"], publication["fin_s"]) if "inicio_s" in publication else None
    check = api_checks.consistency(samples, old, new, window, baselines)
    errors = api_checks.errors(samples)
    changed = sum(before[key][1] != after[key][1] for key in before)
    wall = max((s["t1"] for s in samples), default=0.0)  # the clients' time; the upload may end later
    published_ok = bool(new) and new != old and {v for v, _ in after.values()} == {new}
    res = {
        "clientes": clients,
        "solicitudes_por_cliente": requests,
        "solicitudes": len(samples),
        "mezcla": {k: sum(s["kind"] == k for s in samples) for k in ("plan", "ask")},
        "planes": list(PLANS),
        "preguntas": list(QUESTIONS),
        "tokens": {"analistas": ANALYST_TOKENS, "tasa_por_token": BENCH_RATE},
        "almacen": origin,
        "duracion_carga_s": round(wall, 2),
        "rendimiento_rps": round(len(samples) / wall, 1) if wall else None,
        "por_endpoint": api_checks.per_endpoint(samples),
        "total_ms": api_checks.latency(s["ms"] for s in samples if not api_checks.is_error(s)),
        "errores": errors,
        "publicacion": publication,
        "versiones": {"anterior": old, "nueva": new},
        "publico_version_nueva": published_ok,
        "consistencia": check,
        "referencias_que_cambian": {"cambian": changed, "de": len(before)},
        "auditoria": _audit(data_dir, samples),
        "registro_servidor": _server_log(work / "server.log"),
        "carga_promedio": [load_before, load_after],
    }
    res["cumple"] = errors["total"] <= TARGET_ERRORS and check["consistente"] and published_ok
    log(
        f"[api] {res['solicitudes']} solicitudes en {wall:.1f} s ({res['rendimiento_rps']}/s); errores "
        f"{errors['total']}; versiones {check['por_version']}; problemas {check['problemas']}"
    )
    shutil.rmtree(data_dir, ignore_errors=True)  # a copy of the store: nothing to keep
    return res
