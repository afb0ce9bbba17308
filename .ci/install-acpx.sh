#!/usr/bin/env bash
# Installs acpx (an ACP client CLI from npm, alpha: pinned) for the ACP tier
# (tests/acp/test_e2e_acpx.py) into a prefix cached outside the clone. Idempotent and quiet on
# success; prints the acpx executable's path on stdout. The tests find it at the same path
# (or $PI_LSP_ACPX).
set -euo pipefail
PREFIX="${PI_LSP_ACPX_PREFIX:-$HOME/.cache/pi-lsp-ci/acpx}"
ACPX_VERSION=0.19.1
stamp="$PREFIX/.installed-$ACPX_VERSION"
if [ ! -f "$stamp" ]; then
  command -v npm >/dev/null || { echo "install-acpx: npm is not installed" >&2; exit 1; }
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  log="$(mktemp)"
  if ! npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
      "acpx@$ACPX_VERSION" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    rm -rf "$PREFIX"
    exit 1
  fi
  rm -f "$log"
  touch "$stamp"
fi
echo "$PREFIX/node_modules/.bin/acpx"
