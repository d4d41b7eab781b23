"""Shared helpers: percentiles, the machine's description, process-tree sampling, row comparison."""

from __future__ import annotations

import contextlib
import math
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "bench" / "out"
GB = 1024**3
MB = 1024**2


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100), None for no values."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    if len(xs) == 1:
        return float(xs[0])
    pos = (len(xs) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return float(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))


def stats(values: Sequence[float]) -> dict:
    """n, min, p50, p95, max and mean of a list of timings (ms or s)."""
    xs = [v for v in values if v is not None]
    return {
        "n": len(xs),
        "min": round(min(xs), 3) if xs else None,
        "p50": _r(percentile(xs, 50)),
        "p95": _r(percentile(xs, 95)),
        "max": round(max(xs), 3) if xs else None,
        "mean": round(sum(xs) / len(xs), 3) if xs else None,
    }


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 3)


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b rounded to 2 decimals, None if either is missing or b is 0."""
    if a is None or not b:
        return None
    return round(a / b, 2)


def machine() -> dict:
    """nproc, CPU model, memory, load, Python and DuckDB versions."""
    import duckdb
    import numpy
    import pyarrow

    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        nproc = int(subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        nproc = os.cpu_count()
    vm = psutil.virtual_memory()
    return {
        "nproc": nproc,
        "cpu_model": model or platform.processor() or platform.machine(),
        "memoria_total_gb": round(vm.total / GB, 1),
        "memoria_disponible_gb": round(vm.available / GB, 1),
        "python": sys.version.split()[0],
        "duckdb": duckdb.__version__,
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,
        "plataforma": platform.platform(),
        "carga_promedio": [round(x, 2) for x in os.getloadavg()],
    }


def cpu_steal() -> float | None:
    """Percent of CPU time stolen by the hypervisor over one second (contention from neighbours)."""
    try:
        a = psutil.cpu_times()
        time.sleep(1.0)
        b = psutil.cpu_times()
    except Exception:  # noqa: BLE001 - informative only
        return None
    total = sum(b) - sum(a)
    steal = getattr(b, "steal", 0.0) - getattr(a, "steal", 0.0)
    return round(100 * steal / total, 1) if total > 0 else None


@dataclass
class TreeSample:
    """Wall time and peak RSS of a process and its children (sampled every ``interval`` s)."""

    wall_s: float = 0.0
    peak_rss_bytes: int = 0
    cpu_s: float = 0.0
    samples: int = 0
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    extra: dict = field(default_factory=dict)


def run_measured(
    cmd: list[str],
    *,
    env: dict | None = None,
    cwd: Path | None = None,
    interval: float = 0.05,
    timeout: float | None = None,
) -> TreeSample:
    """Run ``cmd``; sample the RSS of its whole process tree every ``interval`` seconds."""
    out = TreeSample()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, text=True)
    parent = psutil.Process(proc.pid)
    peak = 0
    cpu = {}
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            try:
                procs = [parent] + parent.children(recursive=True)
            except psutil.Error:
                procs = []
            rss = 0
            for p in procs:
                try:
                    rss += p.memory_info().rss
                    t = p.cpu_times()
                    cpu[p.pid] = t.user + t.system
                except psutil.Error:
                    pass
            peak = max(peak, rss)
            out.samples += 1
            stop.wait(interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    out.wall_s = time.perf_counter() - t0
    stop.set()
    th.join()
    out.cpu_s = round(sum(cpu.values()), 2)
    out.peak_rss_bytes = peak
    out.returncode = proc.returncode
    out.stdout, out.stderr = stdout, stderr[-4000:]
    return out


def norm_cell(v: Any) -> Any:
    """A cell as plain JSON (dates as ISO text, Decimal/float as float, NaN as None)."""
    if isinstance(v, (date, datetime)):
        return v.isoformat()
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):  # numpy scalars
        return norm_cell(v.item())
    return v


def same_rows(got: list[list], want: list[list], tol: float = 1e-9) -> tuple[bool, float, str]:
    """Compare result rows cell by cell; floats within ``tol``. Returns (equal, max float diff, why)."""
    if len(got) != len(want):
        return False, float("nan"), f"{len(got)} filas frente a {len(want)}"
    worst = 0.0
    for i, (a, b) in enumerate(zip(got, want)):
        a, b = [norm_cell(x) for x in a], [norm_cell(x) for x in b]
        if len(a) != len(b):
            return False, worst, f"fila {i}: {len(a)} columnas frente a {len(b)}"
        for j, (x, y) in enumerate(zip(a, b)):
            if isinstance(x, bool) or isinstance(y, bool):
                if bool(x) != bool(y) or (x is None) != (y is None):
                    return False, worst, f"fila {i} col {j}: {x!r} ≠ {y!r}"
                continue
            if isinstance(x, (int, float)) and isinstance(y, (int, float)):
                d = abs(float(x) - float(y))
                worst = max(worst, d)
                if d > tol:
                    return False, worst, f"fila {i} col {j}: {x!r} ≠ {y!r}"
                continue
            if x != y:
                return False, worst, f"fila {i} col {j}: {x!r} ≠ {y!r}"
    return True, worst, ""


@contextlib.contextmanager
def quiet_fds():
    """Send this process's stdout/stderr file descriptors to /dev/null (DuckDB's progress bars)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)
