#!/bin/sh
# Runs every set of tests/suite.lua on one Neovim; the last line is "N passed, N failed".
# usage: tests/run.sh NVIM 'JSON list: the pi-lsp command'
NVIM=${1:-nvim}; export PI_TEST_CMD=${2:-'["pi-lsp"]'}
DIR=$(cd "$(dirname "$0")" && pwd)
P=0; F=0
PI_TEST_SHARED=$(mktemp -d); export PI_TEST_SHARED  # bgstart -> bgattach: two Neovim processes
for set in stream tail attach modified steer interrupt abort queue review rewind revert permission rules plan planmode subagents nudges procs devserver model sessions health mcp restart tcp bgstart bgattach warm codereview context; do
  out=$(PI_TEST_SET=$set timeout 90 "$NVIM" --headless -u NONE -i NONE -n -c "luafile $DIR/suite.lua" </dev/null 2>&1)
  out=$(printf '%s\n' "$out" | tr -d '\r')
  printf '%s\n' "$out" | grep -aoE '(PASS|FAIL|SKIP) .*'
  printf '%s\n' "$out" | grep -aqE '[0-9]+ passed, [0-9]+ failed' || { echo "FAIL $set: no result"; printf '%s\n' "$out" | tail -5; }
  p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' | tail -1)
  f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' | tail -1)
  [ -z "$f" ] && f=1 && p=0
  P=$((P + p)); F=$((F + f))
done
for rec in "$PI_TEST_SHARED"/state/*.json; do  # a background server a failed run left
  [ -f "$rec" ] && kill "$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$rec")" 2>/dev/null
done
rm -rf "$PI_TEST_SHARED"
echo "$P passed, $F failed"
