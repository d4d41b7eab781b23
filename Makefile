# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
DATA_DIR ?= data

.PHONY: run test venv dev store bench clean

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

test: dev
	$(PY) -m core --data-dir $(DATA_DIR) build --if-missing
	$(PY) -m pytest -q -n 2 tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest no ejecutó ninguna prueba"; exit 1; fi; exit $$rc

bench: dev
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) data/store data/artifacts
