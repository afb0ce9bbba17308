#!/usr/bin/env bash
# The steps of the pi-lsp review action (action.yml beside this file), as one script that
# runs the same in GitHub Actions and on a developer's machine (docs/ci.md):
#   1. install pi-lsp with pip ($PI_LSP_SPEC; "none": use the installed one);
#   2. review: against the merge base with $PI_REVIEW_BASE (origin/<base> when the remote
#      has it), else the last commit; SARIF to $PI_REVIEW_SARIF;
#   3. record exit-code, sarif-file and sarif-written in $GITHUB_OUTPUT (when set).
# It exits 0 whatever the review found, so the SARIF is uploaded before the job fails (the
# action's last step exits with the review's status); it exits 2 only when pi-lsp cannot be
# installed.
set -uo pipefail

python="${PYTHON:-python3}"
spec="${PI_LSP_SPEC-pi-lsp}"
sarif="${PI_REVIEW_SARIF:-pi-review.sarif}"
base="${PI_REVIEW_BASE:-}"
output="${GITHUB_OUTPUT:-/dev/null}"

if [ -n "$spec" ] && [ "$spec" != "none" ]; then
  echo "::group::install $spec"
  "$python" -m pip install --quiet "$spec" || { echo "pi-lsp review: pip install $spec failed" >&2; exit 2; }
  echo "::endgroup::"
fi

target=()
if [ -n "$base" ]; then
  if git rev-parse --verify -q "origin/$base^{commit}" >/dev/null; then
    target=(--base "origin/$base")
  else
    target=(--base "$base")
  fi
else
  target=(--commit HEAD)
fi

# shellcheck disable=SC2206  # the extra arguments are split on spaces, as documented
extra=(${PI_REVIEW_ARGS:-})
rm -f "$sarif"
"$python" -m pi_lsp review "${target[@]}" --format sarif -o "$sarif" \
  --fail-on "${PI_REVIEW_FAIL_ON:-error}" "${extra[@]}"
status=$?

{
  echo "exit-code=$status"
  echo "sarif-file=$sarif"
  if [ -s "$sarif" ]; then echo "sarif-written=true"; else echo "sarif-written=false"; fi
} >>"$output"
echo "pi-lsp review: exit status $status (0 clean, 1 findings at or above fail-on, 2 an error)"
exit 0
