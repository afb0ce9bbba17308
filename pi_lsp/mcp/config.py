"""MCP server configuration in the format users already have (Claude Code's ``mcpServers``).

Sources, later ones overriding earlier ones by server name (docs/tools.md#mcp-servers):

1. ``.mcp.json`` at the workspace root — source ``project`` (needs the user's trust);
2. ``$XDG_CONFIG_HOME/mcp/mcp.json`` (``~/.config/mcp/mcp.json``) — source ``user``;
3. the front end's own: the ``pi.mcpServers`` setting, ``pi-lsp run --mcp-config FILE`` —
   source ``settings``; an ACP client's ``session/new`` servers — source ``acp``.

A server is stdio ``{command, args, env, cwd}`` or remote ``{type: "http", url, headers}``;
every string may use ``${VAR}`` and ``${VAR:-default}``. Per server: ``disabled``,
``timeout`` (seconds a tool call may take), ``alwaysAllow`` (tool names asked about never),
``eager`` (start with the session, also ``lifecycle: "eager"``). A malformed entry becomes a
problem naming the file and the server; the other servers are kept. Standard library and
pydantic only: loading the configuration never imports the MCP SDK.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..security.env_secrets import is_secret
from ..security.vault import MIN_SECRET_LENGTH

Source = Literal["project", "user", "settings", "acp"]
McpPermission = Literal["ask", "readOnlyWithoutAsking", "allow", "deny"]
"""``permissions.mcp``: how MCP tool calls are allowed (pi_lsp/mcp/permissions.py)."""
PROJECT_FILE = ".mcp.json"


class McpServerConfig(BaseModel):
    """One configured MCP server, its strings already ``${VAR}``-expanded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    transport: Literal["stdio", "http"]
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = Field(default_factory=dict)
    disabled: bool = False
    timeout_s: float | None = None
    """Longest one tool call of this server may take (``None``: the default, 120 s)."""
    always_allow: tuple[str, ...] = ()
    eager: bool = False
    source: Source = "settings"
    """Where the entry came from: trust decisions depend on it."""

    def secret_values(self) -> set[str]:
        """The values of this entry that are credentials, to keep out of tool results, logs
        and session files: every ``env`` value whose name or shape says so, and every header
        value of an authorization / key / token header or of a credential's shape (with and
        without its ``Bearer`` / ``Basic`` / ``token`` scheme)."""
        found: set[str] = set()
        for name, value in self.env.items():
            if is_secret(name, value):
                found.add(value)
        for name, value in self.headers.items():
            if _SECRET_HEADER.search(name) is None and not is_secret(name, value):
                continue
            found.add(value)
            scheme, _, rest = value.partition(" ")
            if rest and scheme.lower() in {"bearer", "basic", "token"}:
                found.add(rest)
        return {v.strip() for v in found if len(v.strip()) >= MIN_SECRET_LENGTH}

    def describe(self) -> str:
        """Where it runs, for the user: the command line or the URL — never env or headers."""
        if self.transport == "http":
            return self.url or ""
        return " ".join([self.command or "", *self.args]).strip()


@dataclass(slots=True)
class LoadedConfig:
    servers: list[McpServerConfig] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ConfigError(ValueError):
    """One server entry cannot be used; the message says why."""


_SECRET_HEADER = re.compile(r"(?i)auth|key|token|secret|cookie|password")

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(text: str, env: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}``; an unset variable without default is an error."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is not None:
            return value
        raise ConfigError(f"environment variable {name} is not set")

    return _VAR.sub(one, text)


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{what} must be a list of strings")
    return list(value)


def _mapping(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str | int | float | bool) for k, v in value.items()
    ):
        raise ConfigError(f"{what} must be an object of strings")
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}


def parse_server(
    name: str, raw: Any, source: Source, env: Mapping[str, str] | None = None
) -> McpServerConfig:
    """One ``mcpServers`` entry → a config (``ConfigError`` says what is wrong)."""
    environ = os.environ if env is None else env
    if not isinstance(raw, dict):
        raise ConfigError("must be an object")
    kind = raw.get("type", raw.get("transport"))
    if kind is None:
        kind = "http" if "url" in raw and "command" not in raw else "stdio"
    if kind in ("streamable-http", "streamableHttp", "http"):
        kind = "http"
    if kind == "sse":
        raise ConfigError(
            'type "sse" (the deprecated HTTP+SSE transport) is not supported: use "http"'
        )
    if kind not in ("stdio", "http"):
        raise ConfigError(f'unknown type {kind!r} (use "stdio" or "http")')

    def text(key: str) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string")
        return expand(value, environ)

    timeout = raw.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise ConfigError("timeout must be a positive number of seconds")
    always = raw.get("alwaysAllow", [])
    disabled = raw.get("disabled", False)
    eager = raw.get("eager", raw.get("lifecycle") == "eager")
    if not isinstance(disabled, bool) or not isinstance(eager, bool):
        raise ConfigError("disabled and eager must be true or false")
    common: dict[str, Any] = {
        "name": name,
        "disabled": disabled,
        "timeout_s": float(timeout) if timeout is not None else None,
        "always_allow": tuple(_strings(always, "alwaysAllow")),
        "eager": eager,
        "source": source,
    }
    if kind == "http":
        url = text("url")
        if not url or not url.startswith(("http://", "https://")):
            raise ConfigError("an http server needs a url (http:// or https://)")
        headers = _mapping(raw.get("headers", {}), "headers")
        return McpServerConfig(
            transport="http",
            url=url,
            headers={k: expand(v, environ) for k, v in headers.items()},
            **common,
        )
    command = text("command")
    if not command:
        raise ConfigError("a stdio server needs a command")
    args = _strings(raw.get("args", []), "args")
    env_map = _mapping(raw.get("env", {}), "env")
    return McpServerConfig(
        transport="stdio",
        command=command,
        args=tuple(expand(a, environ) for a in args),
        env={k: expand(v, environ) for k, v in env_map.items()},
        cwd=text("cwd"),
        **common,
    )


def parse_servers(
    data: Any, source: Source, origin: str, env: Mapping[str, str] | None = None
) -> LoadedConfig:
    """An object holding ``mcpServers`` (or the ``mcpServers`` object itself, as settings
    pass it) → configs and problems (``origin`` names the file or setting in them)."""
    out = LoadedConfig()
    servers = data.get("mcpServers", data) if isinstance(data, dict) else data
    if not isinstance(servers, dict):
        out.problems.append(f"{origin}: mcpServers must be an object")
        return out
    for name, raw in servers.items():
        try:
            out.servers.append(parse_server(name, raw, source, env))
        except (ConfigError, ValueError) as exc:
            out.problems.append(f"{origin}: MCP server {name!r}: {exc}")
    return out


def read_file(path: Path, source: Source, env: Mapping[str, str] | None = None) -> LoadedConfig:
    """A JSON file with ``mcpServers``; a missing file is no servers and no problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return LoadedConfig()
    except OSError as exc:
        return LoadedConfig(problems=[f"{path}: {exc.strerror or exc}"])
    try:
        data = json.loads(text)
    except ValueError as exc:
        return LoadedConfig(problems=[f"{path}: not valid JSON ({exc})"])
    return parse_servers(data, source, str(path), env)


def user_config_file(env: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if env is None else env
    base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")) / ".config")
    return Path(base).expanduser() / "mcp" / "mcp.json"


def merge(*layers: LoadedConfig) -> LoadedConfig:
    """Later layers override earlier ones by server name (the order of first mention kept)."""
    by_name: dict[str, McpServerConfig] = {}
    problems: list[str] = []
    for layer in layers:
        problems += layer.problems
        for server in layer.servers:
            by_name[server.name] = server
    return LoadedConfig(list(by_name.values()), problems)


def load(
    workspace_root: Path | None,
    extra: Iterable[LoadedConfig] = (),
    *,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> LoadedConfig:
    """The effective servers: the project file, the user file, then ``extra`` (settings,
    ``--mcp-config``, ACP), later overriding earlier."""
    layers = []
    if workspace_root is not None:
        layers.append(read_file(workspace_root / PROJECT_FILE, "project", env))
    layers.append(read_file(user_file or user_config_file(env), "user", env))
    return merge(*layers, *extra)
