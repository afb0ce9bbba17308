"""Language server configuration, in Claude Code's ``.lsp.json`` shape (docs/tools.md#lsp).

Sources, later ones overriding earlier ones by name:

1. ``lspServers`` in the user's ``<agent dir>/settings.json`` — source ``user``;
2. the front end's own (``pi.lspServers`` in the editor's settings) — source ``settings``;
3. ``.pi/lsp.json`` then ``.lsp.json`` in the project — source ``project``, read only when the
   project is trusted (they start programs).

An entry: ``{"python": {"command": "pyright-langserver", "args": ["--stdio"],
"extensionToLanguage": {".py": "python"}, "env": {}, "initializationOptions": {},
"settings": {}, "startupTimeout": 30000, "disabled": false}}``; a file may wrap them in
``{"lspServers": {…}}``. A malformed entry is a problem naming the file and the server; the
others are kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Source = Literal["user", "settings", "project"]
PROJECT_FILES = (".pi/lsp.json", ".lsp.json")


class LspServerConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    name: str = ""
    command: str
    args: tuple[str, ...] = ()
    extension_to_language: dict[str, str] = Field(alias="extensionToLanguage")
    env: dict[str, str] = Field(default_factory=dict)
    initialization_options: Any = Field(default=None, alias="initializationOptions")
    settings: Any = None
    startup_timeout_ms: int = Field(default=30_000, alias="startupTimeout", gt=0)
    shutdown_timeout_ms: int = Field(default=2_000, alias="shutdownTimeout", gt=0)
    disabled: bool = False
    source: Source = "settings"

    def language_of(self, path: Path) -> str | None:
        """The language id of ``path`` for this server (``None``: not its file)."""
        suffix = path.suffix.lower()
        for ext, language in self.extension_to_language.items():
            if ext.lower() == suffix or (not ext.startswith(".") and f".{ext.lower()}" == suffix):
                return language
        return None


@dataclass(frozen=True, slots=True)
class LoadedLspConfig:
    servers: dict[str, LspServerConfig] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @property
    def active(self) -> list[LspServerConfig]:
        return [s for s in self.servers.values() if not s.disabled]


def parse_servers(data: Any, source: Source, where: str) -> LoadedLspConfig:
    """The entries of one file or setting (``{"lspServers": {…}}`` or the mapping itself)."""
    if isinstance(data, dict) and isinstance(data.get("lspServers"), dict):
        data = data["lspServers"]
    if not isinstance(data, dict):
        return LoadedLspConfig(problems=(f"{where}: lspServers must be an object",))
    servers: dict[str, LspServerConfig] = {}
    problems: list[str] = []
    for name, entry in data.items():
        if not isinstance(entry, dict):
            problems.append(f"{where}: language server {name!r} must be an object")
            continue
        try:
            servers[name] = LspServerConfig.model_validate(
                {**entry, "name": name, "source": source}
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            problems.append(f"{where}: language server {name!r}: {loc}: {first['msg']}")
    return LoadedLspConfig(servers, tuple(problems))


def read_file(path: Path, source: Source) -> LoadedLspConfig:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return LoadedLspConfig()
    except (OSError, ValueError) as exc:
        return LoadedLspConfig(problems=(f"{path}: {exc}",))
    if source == "user":  # settings.json: only its lspServers key
        data = data.get("lspServers", {}) if isinstance(data, dict) else {}
    return parse_servers(data, source, str(path))


def load_lsp_config(
    cwd: Path,
    *,
    trusted: bool,
    user_settings: Path | None = None,
    settings: Mapping[str, Any] | None = None,
) -> LoadedLspConfig:
    """Every source merged (later wins by name). ``trusted``: the project's own files may
    start programs (project trust, docs/context.md)."""
    layers: list[LoadedLspConfig] = []
    if user_settings is not None:
        layers.append(read_file(user_settings, "user"))
    if settings:
        layers.append(parse_servers(dict(settings), "settings", "lspServers setting"))
    if trusted:
        layers.extend(read_file(cwd / name, "project") for name in PROJECT_FILES)
    servers: dict[str, LspServerConfig] = {}
    problems: list[str] = []
    for layer in layers:
        servers.update(layer.servers)
        problems.extend(layer.problems)
    return LoadedLspConfig(servers, tuple(problems))


def untrusted_project_files(cwd: Path) -> list[str]:
    """The project's language server files that exist (they need trust)."""
    return [str(cwd / name) for name in PROJECT_FILES if (cwd / name).is_file()]


def config_files(cwd: Path, user_settings: Path | None) -> list[Path]:
    """Every file the configuration may come from (existing or not)."""
    files = [cwd / name for name in PROJECT_FILES]
    return ([user_settings] if user_settings is not None else []) + files


def fingerprint(paths: list[Path]) -> tuple[tuple[int, int, int] | None, ...]:
    """What ``paths`` are now (size, mtime, ctime; ``None``: absent): a reload compares it."""
    out: list[tuple[int, int, int] | None] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)
