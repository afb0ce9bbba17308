#!/usr/bin/env bash
# Installs bubblewrap (bwrap), the sandbox of `permissions.bash: "sandbox"`, and checks that it
# really works here (it can be installed yet fail in a container without user namespaces).
# Idempotent and quiet on success; says why and exits 1 on failure (the sandbox tests skip with
# the reason then, or fail under CI=true).
set -euo pipefail

if ! command -v bwrap >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    for attempt in 1 2 3; do  # another apt-get may hold the dpkg lock for a while
      if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) \
        >/dev/null 2>&1; then
        break
      fi
      sleep $((attempt * 5))
    done
  fi
fi

if ! command -v bwrap >/dev/null 2>&1; then
  echo "install-sandbox: bubblewrap is not installed (apt-get install bubblewrap)" >&2
  exit 1
fi

if ! bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-pid --unshare-net \
  --die-with-parent --new-session --cap-drop ALL -- /bin/true >/dev/null 2>&1; then
  echo "install-sandbox: bwrap is installed but does not work here (no user namespaces?)" >&2
  exit 1
fi
