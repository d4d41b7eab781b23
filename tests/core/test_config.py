"""Settings: ``core.config`` is the one reader of the environment and of the secrets file in ``core``."""

from __future__ import annotations

import re

import pytest

from core.config import LLM_NAMES, PROJECT_ROOT, LlmSettings, llm_settings

# Reading the process environment or the app's secrets folder, however it is spelled.
SETTINGS_READS = re.compile(r"\benviron\b|\bgetenv\b|\.streamlit\b")


def test_only_config_reads_the_environment_or_the_streamlit_folder():
    """No module of core/ but core/config.py names os.environ, getenv or .streamlit."""
    config = PROJECT_ROOT / "core" / "config.py"
    offenders = [
        f"{path.relative_to(PROJECT_ROOT)}:{n}: {line.strip()}"
        for path in sorted((PROJECT_ROOT / "core").rglob("*.py"))
        if path != config
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SETTINGS_READS.search(line)
    ]
    assert offenders == []


# ---------------------------------------------------------------- the LLM endpoint


@pytest.fixture
def clean_env(monkeypatch):
    for name in LLM_NAMES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_config_from_the_environment(clean_env, tmp_path):
    clean_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    clean_env.setenv("CASANDRA_LLM_MODEL", "gemma")
    clean_env.setenv("CASANDRA_LLM_TIMEOUT", "7.5")
    config = llm_settings(tmp_path / "missing.toml")
    assert config == LlmSettings("sk-local", "http://127.0.0.1:8080/v1", "gemma", 7.5, 2)


@pytest.mark.parametrize(
    "toml",
    [
        'OPENAI_API_KEY = "sk-file"\nOPENAI_BASE_URL = "http://127.0.0.1:9000/v1"\nCASANDRA_LLM_MODEL = "qwen"\n',
        '[llm]\nOPENAI_API_KEY = "sk-file"\nOPENAI_BASE_URL = "http://127.0.0.1:9000/v1"\nCASANDRA_LLM_MODEL = "qwen"\n',
    ],
)
def test_config_from_secrets_toml(clean_env, tmp_path, toml):
    path = tmp_path / "secrets.toml"
    path.write_text(toml, encoding="utf-8")
    config = llm_settings(path)
    assert (config.api_key, config.base_url, config.model, config.timeout_s) == (
        "sk-file",
        "http://127.0.0.1:9000/v1",
        "qwen",
        20.0,
    )
    clean_env.setenv("CASANDRA_LLM_MODEL", "env-model")  # the environment comes first
    assert llm_settings(path).model == "env-model"


@pytest.mark.parametrize(
    "env,expected",
    [
        ({}, None),
        ({"CASANDRA_LLM_MODEL": "m"}, None),  # no endpoint and no key
        ({"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, None),  # no model
        ({"OPENAI_API_KEY": "sk-x", "CASANDRA_LLM_MODEL": "m"}, ("sk-x", None, "m")),  # OpenAI itself
        (
            {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "CASANDRA_LLM_MODEL": "m", "CASANDRA_LLM_TIMEOUT": "nope"},
            ("sk-local", "http://127.0.0.1:1/v1", "m"),
        ),
    ],
)
def test_config_is_none_unless_a_model_and_an_endpoint_are_set(clean_env, tmp_path, env, expected):
    for k, v in env.items():
        clean_env.setenv(k, v)
    (tmp_path / "bad.toml").write_text("esto no es toml = = =", encoding="utf-8")
    config = llm_settings(tmp_path / "bad.toml")
    assert (config if config is None else (config.api_key, config.base_url, config.model)) == expected
    if config:
        assert config.timeout_s == 20.0


def test_the_secrets_file_is_one_patchable_setting(clean_env, tmp_path):
    """Without an explicit path, ``llm_settings`` reads ``core.config.SECRETS_FILE`` (tests point it elsewhere)."""
    path = tmp_path / "secrets.toml"
    path.write_text('[llm]\nOPENAI_BASE_URL = "http://127.0.0.1:9/v1"\nCASANDRA_LLM_MODEL = "m"\n', encoding="utf-8")
    clean_env.setattr("core.config.SECRETS_FILE", path)
    assert llm_settings() == LlmSettings("sk-local", "http://127.0.0.1:9/v1", "m")
    clean_env.setattr("core.config.SECRETS_FILE", tmp_path / "missing.toml")
    assert llm_settings() is None
