# Two commands for a newcomer: `make run` and `make test`. While coding: `make test-fast` and `make lint`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
DATA_DIR ?= data

.PHONY: run api test test-fast lint format venv dev store bench clean

$(VENV)/.installed: requirements.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Se necesita $(PYTHON)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

dev: $(VENV)/.dev-installed

store: venv
	$(PY) -m core --data-dir $(DATA_DIR) build --if-missing

run: store
	$(PY) -m streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT) --server.headless true

# The HTTP API (core/expositor) on 127.0.0.1; a client needs a token: `python -m core tokens create NAME --role analista`.
api: store
	$(PY) -m core --data-dir $(DATA_DIR) api --host 127.0.0.1 --port $${API_PORT:-8000}

# pytest exits 5 when it collected nothing: that is a failure here, not a pass.
PYTEST_EXIT = rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest no ejecutó ninguna prueba"; exit 1; fi; exit $$rc

# The whole suite, browser tests included.
test: dev
	$(PY) -m core --data-dir $(DATA_DIR) build --if-missing
	$(PY) -m pytest -q -n 2 tests; $(PYTEST_EXIT)

# The loop while coding (under a minute): no browser, no end-to-end tests marked `slow` (pytest.ini).
test-fast: dev
	$(PY) -m core --data-dir $(DATA_DIR) build --if-missing
	$(PY) -m pytest -q -n 2 -m "not browser and not slow" tests; $(PYTEST_EXIT)

# Lint and format check, settings in pyproject.toml; `make format` applies both.
lint: dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: dev
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) data/store data/artifacts
