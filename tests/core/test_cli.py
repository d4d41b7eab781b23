"""The command line contract: JSON on stdout, exit 2 with a Spanish message on refusal."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, RAW
from tests.core.engine.hostile import JOB_CASES, TEXT_CASES

pytestmark = pytest.mark.slow  # every test runs python -m core in a subprocess

ROOT = Path(__file__).resolve().parents[2]


def run(*args, data_dir: Path, env_dir: bool = False):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "core", *args]
    if env_dir:
        env["CASANDRA_DATA_DIR"] = str(data_dir)
    else:
        argv += ["--data-dir", str(data_dir)]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_etl_metadata_versions_rollback(tmp_path):
    data = tmp_path / "data"
    first = run("etl", str(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"), data_dir=data)
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert summary["status"] == "published"
    assert "[load" in first.stderr and "[publish 100%]" in first.stderr  # progress on stderr
    meta = json.loads(run("metadata", data_dir=data, env_dir=True).stdout)
    assert meta["dataset_version"] == summary["dataset_version"]
    assert meta["max_date"] == meta["data_available_until"] == "2025-11-30"
    second = run("etl", str(FIXTURES / "etl" / "leon_revision.csv"), "--quiet", data_dir=data)
    assert second.returncode == 0 and second.stderr == ""
    versions = json.loads(run("versions", data_dir=data).stdout)
    assert [v["current"] for v in versions] == [True, False]
    back = run("rollback", summary["dataset_version"], data_dir=data)
    assert back.returncode == 0
    assert json.loads(run("metadata", data_dir=data).stdout)["dataset_version"] == summary["dataset_version"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["etl", str(FIXTURES / "etl" / "header_only.csv")], "solo tiene encabezado"),
        (["etl", str(FIXTURES / "etl" / "all_bad.csv")], "cuarentena"),
        (["etl", "/no/such/file.csv"], "No se encontró"),
        (
            ["etl", str(RAW / "sesnsp" / "gto_feminicidio_2015-2024.csv"), "--coverage", "2024-13:2024-01"],
            "Mes inválido",
        ),
        (["rollback", "gx-1999.01.01-00000000"], "no existe"),
        (["metadata"], "No hay datos publicados"),
    ],
)
def test_refusals_exit_2_with_a_spanish_message(tmp_path, args, needle):
    data = tmp_path / "data"
    proc = run(*args, data_dir=data)
    assert proc.returncode == 2, proc.stderr
    assert "Error [" in proc.stderr and needle in proc.stderr
    assert proc.stdout == ""
    assert not (data / "store" / "CURRENT").exists()


def test_build_if_missing_is_a_no_op_the_second_time(tmp_path):
    data = tmp_path / "data"
    assert run("build", "--quiet", data_dir=data).returncode == 0
    again = run("build", "--if-missing", data_dir=data)
    assert again.returncode == 0 and "ya existe" in again.stderr


def test_catalog_execute_and_job_commands(tmp_path):
    data = tmp_path / "data"
    assert (
        run("etl", str(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"), "--quiet", data_dir=data).returncode == 0
    )
    cat = json.loads(run("catalog", data_dir=data).stdout)
    assert cat["catalog_version"] and len(cat["tools"]) >= 13
    plan = tmp_path / "plan.txt"
    plan.write_text("[6,9]\nentidad_id: GTO\ndelito: homicidio_doloso\nfrom: 2024-01-01\nto: 2024-12-31\ntop_k: 3\n")
    out = run("execute", str(plan), data_dir=data)
    assert out.returncode == 0, out.stderr
    envs = json.loads(out.stdout)
    assert [e["tool"] for e in envs] == ["rank_por_delito@1.1.0", "listar_evidencia@1.0.0"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"plan": [{"tool_id": 6, "args": {"top_k": "x"}}]}')
    out = run("execute", str(bad), "--last", data_dir=data)
    assert out.returncode == 2 and json.loads(out.stdout)["status"] == "error"
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps(
            {
                "intent": "consulta",
                "params": {
                    "municipio": "Celaya",
                    "fecha_inicio": "2024-01-01",
                    "fecha_fin": "2024-12-31",
                    "delito": "homicidio_doloso",
                },
            }
        )
    )
    out = run("job", str(job), data_dir=data)
    assert out.returncode == 0 and json.loads(out.stdout)["payload"]["rows"][0][2] == 443
    audit = run("audit", "verify", data_dir=data)
    assert audit.returncode == 0, audit.stdout + audit.stderr


# ---------------------------------------------------------------- hostile input on stdin

EXECUTE_CASES = [
    "json_delito_objeto",
    "json_delito_vacio",
    "json_entidad_lista",
    "json_window_texto",
    "json_nan",
    "json_1e999",
    "json_profundo",
    "json_profundo_corto",
    "json_4300_cifras",
    "texto_4300_cifras",
    "texto_profundo",
    "texto_10_mb",
    "texto_muchos_pasos",
    "json_invalido",
    "vacio",
]
LEAKS = ("Traceback", 'File "', "/work/", "Input should", "Field required", "Expecting ")


@pytest.fixture(scope="module")
def hostile_data(bundled_settings, tmp_path_factory) -> Path:
    """A private copy of the bundled store for the refused runs (their audit records stay here)."""
    data = tmp_path_factory.mktemp("cli_hostile") / "data"
    shutil.copytree(
        bundled_settings.data_dir, data, ignore=shutil.ignore_patterns("audit", "artifacts", "settings.json")
    )
    return data


def run_stdin(command: str, stdin: bytes, data_dir: Path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "core", command, "-", "--data-dir", str(data_dir)]
    return subprocess.run(argv, cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=300)


def assert_refused(out) -> None:
    """Exit 2 with ``Error [CODE]: <Spanish>`` on stderr: never exit 1, a traceback, a path or English."""
    stderr, stdout = out.stderr.decode(), out.stdout.decode()
    assert out.returncode == 2, stderr[-2000:]
    assert stderr.startswith("Error ["), stderr[:500]
    assert not any(leak in stderr or leak in stdout for leak in LEAKS), (stderr[:500], stdout[:500])


@pytest.mark.parametrize("name", EXECUTE_CASES)
def test_hostile_plans_on_stdin_exit_2_with_a_spanish_message(hostile_data, name):
    """56 of 372 such inputs ended in a traceback with exit 1."""
    out = run_stdin("execute", TEXT_CASES[name].encode("utf-8"), hostile_data)
    assert_refused(out)
    if out.stdout:  # refused by the engine (not at reading): the error envelopes are on stdout
        assert json.loads(out.stdout)[-1]["status"] == "error"


@pytest.mark.parametrize("stdin", [b"\xff\xfe[6]", b"[6]\n\x00" + b"x" * 70_000], ids=["latin1", "70KB"])
def test_unreadable_stdin_is_refused_before_parsing(hostile_data, stdin):
    assert_refused(run_stdin("execute", stdin, hostile_data))


@pytest.mark.parametrize("name", sorted(JOB_CASES))
def test_hostile_job_requests_on_stdin_exit_2_with_a_spanish_message(hostile_data, name):
    out = run_stdin("job", JOB_CASES[name].encode("utf-8"), hostile_data)
    assert_refused(out)
    if out.stdout:
        assert json.loads(out.stdout)["ok"] is False


# ---------------------------------------------------------------- command modules (the extension point)

TOY_CLI = FIXTURES / "toy_cli"


def run_with_modules(modules: str, *args, data_dir: Path):
    """``python -m core`` with ``CASANDRA_CLI_MODULES`` set and the toy folder importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TOY_CLI)]), "CASANDRA_CLI_MODULES": modules}
    return subprocess.run(
        [sys.executable, "-m", "core", *args, "--data-dir", str(data_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_command_module_named_in_the_setting_adds_its_command(tmp_path):
    """The toy module registers ``toy`` through CASANDRA_CLI_MODULES alone, and it runs with the settings."""
    proc = run_with_modules("toy_command", "toy", "--greeting", "buenas", data_dir=tmp_path / "data")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"toy": "buenas", "data_dir": str((tmp_path / "data").resolve())}
    assert "toy" in run_with_modules("toy_command", "--help", data_dir=tmp_path).stdout


@pytest.mark.parametrize("args", [["toy"], ["metadata"]])
def test_a_missing_command_module_fails_loudly(tmp_path, args):
    """A listed module that cannot be imported stops every command with its name, never a silently missing one."""
    proc = run_with_modules("toy_command,no_such_commands", *args, data_dir=tmp_path / "data")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "no_such_commands" in proc.stderr and "CASANDRA_CLI_MODULES" in proc.stderr


def test_built_ins_register_through_the_same_tuple(monkeypatch):
    """The built-in commands come from COMMAND_MODULES like any other; a module there without register_cli fails."""
    from core import cli

    monkeypatch.syspath_prepend(str(TOY_CLI))
    monkeypatch.setattr(cli, "COMMAND_MODULES", (*cli.COMMAND_MODULES, "toy_command"))
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {"etl", "ask", "audit", "eval", "toy"} <= set(sub.choices)
    assert cli.COMMAND_MODULES[0] == "core.cli"
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("core.cli", "json"))  # importable, but registers nothing
    with pytest.raises(cli.CommandModuleError, match="register_cli"):
        cli.build_parser()
