"""Git in plan mode: a repository's own configuration must not name a program git runs.

``read_only_commands`` lets plan mode run ``git status/log/diff/show/…``, but git reads
settings that run programs from the repository it works on (``.git/config``, or a bare
repository's ``config``), and a workspace can hold a repository someone else wrote
(``vendor.git/``, an unpacked archive). Two layers switch those programs off:

- ``git_environment(env)``: the bash environment in plan mode. Settings given in the
  environment (``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``, git's *command* scope) win over
  every configuration file: ``core.fsmonitor``, ``core.hooksPath`` (no hook runs),
  ``core.pager``, ``core.sshCommand``, ``credential.helper``, the ``gpg.*`` programs and
  ``log.showSignature``, submodules (never entered: their configuration is as foreign),
  and ``safe.bareRepository=explicit`` (a bare repository is used only when named with
  ``--git-dir``, which the checker refuses). Also ``GIT_ALLOW_PROTOCOL`` empty (no
  transport at all, so no ``ext::`` command, ssh or credential helper on a lazy fetch of a
  partial clone), ``GIT_OPTIONAL_LOCKS=0`` (no index write, so no index hook),
  ``GIT_PAGER=cat`` and ``GIT_TERMINAL_PROMPT=0``.
- ``GIT_GUARD``: a shell function ``git`` defined before the model's command. Programs
  named under a name the repository chooses (``diff.<driver>.command`` / ``.textconv``,
  ``filter.<driver>.clean`` / ``.smudge`` / ``.process``, ``merge.<driver>.driver``) and
  ``diff.external`` cannot be overridden by name, so when the repository's own
  configuration (``local`` or ``worktree`` scope, includes counted) sets any of them, git
  is not run and says why. The user's own (global, system) configuration is trusted.

The checker refuses what would bypass the function (a program named by a path,
``command``, ``env``, ``xargs``, ``find -exec``) and git's own options that pick another
repository or configuration (``-C``, ``--git-dir``, ``--work-tree``, ``-c``). Imports nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

NEUTRAL_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("credential.helper", ""),  # an empty value empties the list of helpers
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("log.showSignature", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("diff.submodule", "short"),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("safe.bareRepository", "explicit"),
)
"""Settings that win over every configuration file (git's command scope)."""

NEUTRAL_ENV: tuple[tuple[str, str], ...] = (
    ("GIT_ALLOW_PROTOCOL", ""),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
)

REPOSITORY_PROGRAMS = (
    r"diff\.external|diff\.[^[:space:]]+\.(command|textconv)"
    r"|filter\.[^[:space:]]+\.(clean|smudge|process)|merge\.[^[:space:]]+\.driver"
)
"""Keys (as ``git config --name-only`` prints them) that name a program under a name the
repository chooses."""

GIT_GUARD = (
    "git() {\n"
    "  local __pi_keys __pi_found\n"
    "  if ! __pi_keys=$(command git config --list --show-scope --name-only 2>/dev/null); then\n"
    "    echo 'git not run (plan mode): git could not list the configuration of this"
    " repository (git config --list failed).' >&2\n"
    "    return 1\n"
    "  fi\n"
    "  __pi_found=$(printf '%s\\n' \"$__pi_keys\" | command grep -Ei "
    f"'^(local|worktree)[[:space:]]+({REPOSITORY_PROGRAMS})$'"
    " | command cut -f2 | command tr '\\n' ' ')\n"
    '  if [ -n "$__pi_found" ]; then\n'
    "    echo \"git not run (plan mode): this repository's own configuration names programs"
    ' git would run: ${__pi_found% }. Read its config file with cat instead." >&2\n'
    "    return 1\n"
    "  fi\n"
    '  command git "$@"\n'
    "}\n"
)
"""Defined before the model's command in plan mode (see the module docstring)."""


def git_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with git's programs switched off (settings already given there are kept:
    ours are appended, and the last of a key wins)."""
    out = dict(env)
    try:
        count = max(0, int(out.get("GIT_CONFIG_COUNT", "0")))
    except ValueError:
        count = 0
    for key, value in NEUTRAL_CONFIG:
        out[f"GIT_CONFIG_KEY_{count}"] = key
        out[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    out["GIT_CONFIG_COUNT"] = str(count)
    out.update(NEUTRAL_ENV)
    return out
