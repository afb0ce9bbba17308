#!/bin/sh
# Runs every set of tests/suite.lua on one Neovim; the last line is "N passed, N failed".
# usage: tests/run.sh NVIM 'JSON list: the pi-lsp command'
# The sets run $PI_TEST_JOBS at a time (default 3; 1 = one after the other): each mostly waits
# on its own Neovim + pi-lsp. Each job has its own pi-lsp data dir and Neovim state dir (the
# session, permission and trust stores), and its output is printed in the list's order.
NVIM=${1:-nvim}; export PI_TEST_CMD=${2:-'["pi-lsp"]'}
DIR=$(cd "$(dirname "$0")" && pwd)
JOBS=${PI_TEST_JOBS:-3}
P=0; F=0
WORK=$(mktemp -d)
PI_TEST_SHARED=$WORK/shared; mkdir "$PI_TEST_SHARED"; export PI_TEST_SHARED  # bgstart -> bgattach: two Neovim processes
# bgstart+bgattach is one job: the second Neovim attaches to what the first left running
JOBLIST="stream tail attach modified steer interrupt abort queue review rewind revert permission rules plan planmode subagents nudges procs devserver model sessions health mcp restart tcp bgstart+bgattach warm early earlyfail codereview context contextoff"
run_job() {  # $1: sets joined by "+", run in order; each set's output goes to $WORK/<set>.out
  name=$(echo "$1" | tr + -); home=$WORK/job-$name; mkdir -p "$home/state"
  data=${PI_LSP_DATA_DIR:-$home}/$name  # under the caller's data dir when it gives one
  for set in $(echo "$1" | tr + ' '); do
    PI_TEST_SET=$set PI_LSP_DATA_DIR=$data XDG_STATE_HOME=$home/state \
      timeout 90 "$NVIM" --headless -u NONE -i NONE -n -c "luafile $DIR/suite.lua" </dev/null >"$WORK/$set.out" 2>&1 3>&-
  done
}
# a token pool: a job takes a line from the FIFO to start and gives it back when it ends
mkfifo "$WORK/tokens"; exec 3<>"$WORK/tokens"
i=0; while [ "$i" -lt "$JOBS" ]; do echo >&3; i=$((i + 1)); done
for job in $JOBLIST; do
  read -r token <&3
  ( run_job "$job"; echo >&3 ) &
done
wait
exec 3>&-
for set in $(echo "$JOBLIST" | tr + ' '); do
  out=$(tr -d '\r' <"$WORK/$set.out" 2>/dev/null)
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
rm -rf "$WORK"
echo "$P passed, $F failed"
