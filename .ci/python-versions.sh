#!/usr/bin/env bash
# The fast tier (pytest -m "not e2e") on the other supported CPythons, 3.12 and 3.13, from
# pyenv's interpreters ($(pyenv root)/versions/3.12.*, 3.13.*; the newest patch release of
# each), then the process tier that depends on the interpreter: the language server as a
# process (stdio, TCP, signals, orphans), the ACP agent under real clients, the MCP servers'
# processes ($PROCESS_TIER below; the editors and llama.cpp stay on the main interpreter).
# One venv per version in the clone (.venv-3.12, .venv-3.13), the package installed
# into it with its test extra. The agent loop's asyncio fast path differs by version
# (tests/agent/test_stream_direct.py runs the real one of each). In CI (CI=true) a missing
# interpreter fails the run; elsewhere it is reported and skipped. .ci/run runs this after
# the main suite, so it never delays it.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { echo "ci: $*" >&2; }

# the server-process, ACP and MCP process tests (pytest -m e2e within these paths)
PROCESS_TIER=(tests/lsp tests/acp tests/mcp tests/cli/test_run_mcp.py)
PROCESS_MARKS="e2e and not editor and not real_server"

root="$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")"
failed=()
for minor in 3.12 3.13; do
  python=""
  for candidate in "$root"/versions/"$minor".*/bin/python3; do
    [ -x "$candidate" ] || continue
    # newest patch release: compare the version part numerically
    if [ -z "$python" ] || [ "$(printf '%s\n%s\n' "$python" "$candidate" | sort -V | tail -1)" = "$candidate" ]; then
      python="$candidate"
    fi
  done
  if [ -z "$python" ]; then
    step "no CPython $minor under $root/versions"
    failed+=("$minor (no interpreter)")
    continue
  fi
  venv=".venv-$minor"
  step "CPython $minor: $python → $venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q -e '.[test]'
  if ! "$venv/bin/python" -m pytest -m "not e2e" -q -p no:cacheprovider; then
    failed+=("$minor (tests)")
  fi
  if ! "$venv/bin/python" -m pytest -m "$PROCESS_MARKS" -q -p no:cacheprovider "${PROCESS_TIER[@]}"; then
    failed+=("$minor (process tests)")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  step "other Python versions failed: ${failed[*]}"
  only_missing=1
  for f in "${failed[@]}"; do [[ "$f" == *"(no interpreter)" ]] || only_missing=0; done
  if [ "${CI:-}" = "true" ] || [ $only_missing = 0 ]; then
    exit 1
  fi
fi
