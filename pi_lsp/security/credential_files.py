"""Files that hold credentials, and the variables that point a tool at them.

A variable in ``FILE_VARIABLES`` is no secret itself but names one (``KUBECONFIG``,
``NETRC``, ``DOCKER_CONFIG`` …): it is not passed to commands (``env_secrets.scrub_env``),
and ``hidden_files`` lists what the sandbox (``sandbox.sandbox_argv``) covers with an empty
file — the files those variables name and each one's default location, plus git's and the
GitHub CLI's stored tokens. Without the sandbox a command runs as the user, and only the
permission question stands between it and these files (docs/tools.md). Pure but for
``stat`` calls.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

FILE_VARIABLES: dict[str, tuple[str, ...]] = {
    "KUBECONFIG": (".kube/config",),  # a list of files, like PATH
    "NETRC": (".netrc",),
    "DOCKER_CONFIG": (".docker/config.json",),  # a directory: its config.json
    "PGPASSFILE": (".pgpass",),
    "AWS_SHARED_CREDENTIALS_FILE": (".aws/credentials",),
    "GOOGLE_APPLICATION_CREDENTIALS": (".config/gcloud/application_default_credentials.json",),
}
"""Each variable and the default location(s) of its file, relative to the home directory."""
OTHER_FILES = (".git-credentials", ".config/gh/hosts.yml")
"""Tokens stored by git's ``store`` helper and by the GitHub CLI."""


def _named(name: str, value: str) -> list[Path]:
    parts = value.split(os.pathsep) if name == "KUBECONFIG" else [value]
    paths = [Path(part).expanduser() for part in parts if part]
    if name == "DOCKER_CONFIG":
        return [path / "config.json" for path in paths]
    return paths


def hidden_files(
    env: Mapping[str, str], home: Path | None = None, allow: Collection[str] = ()
) -> tuple[Path, ...]:
    """The credential files that exist, resolved (a symlink's target), each once. A variable
    the user lets through to commands (``allow``: ``permissions.envAllow``) keeps its files."""
    home = home if home is not None else Path(env.get("HOME") or Path.home())
    candidates: list[Path] = [home / rel for rel in OTHER_FILES]
    for name, defaults in FILE_VARIABLES.items():
        if name in allow:
            continue
        value = env.get(name)
        if value:
            candidates += _named(name, value)
        candidates += [home / rel for rel in defaults]
    found: dict[Path, None] = {}
    for path in candidates:
        try:
            if path.is_absolute() and path.is_file():
                found[path.resolve()] = None
        except OSError:
            continue
    return tuple(found)
