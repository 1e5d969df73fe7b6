# Workspace Agent: one command per job. Everything installs itself on first use.
#   make demo   set up and run the offline demo (scripted model, no API key)
#   make test   set up and run every test (what CI runs)

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The official TypeScript ACP SDK, for the test that drives `workspace-agent acp` with it.
ACP_TS_CLIENT := tests/acp_ts_client/node_modules/.package-lock.json

.PHONY: demo test test-python test-extension lint bench bench-smoke clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(STAMP)
	$(VENV)/bin/workspace-agent demo

test: test-python test-extension

test-python: $(STAMP) $(ACP_TS_CLIENT)
	$(PY) -m pytest

$(ACP_TS_CLIENT): tests/acp_ts_client/package.json tests/acp_ts_client/package-lock.json
	npm ci --prefix tests/acp_ts_client --no-audit --no-fund --prefer-offline

# The VS Code extension: type-check, lint, VSIX, unit tests, and the end-to-end test in
# code-server + headless Chromium. Installs Node 24, code-server and Chromium if missing.
test-extension: $(STAMP)
	WA_PYTHON=$(abspath $(PY)) bash vscode-extension/scripts/ci.sh

lint: $(STAMP)
	$(VENV)/bin/ruff check server tests bench
	$(VENV)/bin/mypy

# Benchmarks against naive baselines (docs/benchmarks.md); the smoke run is for CI.
bench: $(STAMP)
	$(PY) -m bench --explain --write docs/benchmarks.md

bench-smoke: $(STAMP)
	$(PY) -m bench --quick

clean:
	rm -rf $(VENV) build *.egg-info server/*.egg-info
