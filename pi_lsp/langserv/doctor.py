"""``pi-lsp lsp doctor``: what the ``lsp`` tool's own servers would be in a project, checked
(docs/tools.md#lsp-doctor).

For each configured server: where its entry comes from, which files it covers, whether its
command is found (on the entry's ``PATH``), and — unless told not to — a real start:
``initialize`` within a timeout, the server's name and what it answers, then
``shutdown``/``exit`` and its process group killed. Also whether the project's own files
(``.pi/lsp.json``, ``.lsp.json``) count: they start programs, so only in a trusted project.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..tools.code_intel import CodeIntelError
from .config import LoadedLspConfig, LspServerConfig, load_lsp_config, untrusted_project_files
from .server import LanguageServerProcess

OPERATIONS = {
    "definitionProvider": "definition",
    "referencesProvider": "references",
    "hoverProvider": "hover",
    "documentSymbolProvider": "documentSymbols",
    "workspaceSymbolProvider": "workspaceSymbols",
    "implementationProvider": "implementation",
    "typeDefinitionProvider": "typeDefinition",
    "callHierarchyProvider": "calls",
    "renameProvider": "rename",
    "diagnosticProvider": "diagnostics (pull)",
}


@dataclass(slots=True)
class ServerCheck:
    config: LspServerConfig
    found: str | None = None
    """The command's full path (``None``: not found)."""
    started: bool | None = None
    """``None``: not tried."""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.config.disabled or (self.found is not None and self.started is not False)


@dataclass(slots=True)
class Diagnosis:
    cwd: Path
    trusted: bool
    user_settings: Path
    loaded: LoadedLspConfig
    ignored: list[str] = field(default_factory=list)
    """The project's files not read (the project is not trusted)."""
    checks: list[ServerCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            bool(self.loaded.active) and not self.loaded.problems and all(c.ok for c in self.checks)
        )


def find_command(config: LspServerConfig) -> str | None:
    """Where ``command`` is: as given when it names a path, else on the entry's ``PATH``."""
    command = os.path.expanduser(config.command)
    if os.sep in command:
        return command if os.access(command, os.X_OK) and os.path.isfile(command) else None
    return shutil.which(command, path=config.env.get("PATH", os.environ.get("PATH")))


async def try_start(config: LspServerConfig, root: Path, start_within: float) -> tuple[bool, str]:
    """Start ``config`` in ``root`` and stop it again: whether it initialized, and what it
    said (its name, answered operations) or why not."""
    limit_ms = max(1, min(config.startup_timeout_ms, int(start_within * 1000)))
    proc = LanguageServerProcess(config.model_copy(update={"startup_timeout_ms": limit_ms}), root)
    began = time.monotonic()
    try:
        await proc.ensure_started()
    except CodeIntelError as exc:
        return False, str(exc)
    finally:
        took = time.monotonic() - began
        await proc.stop()
    answers = [name for cap, name in OPERATIONS.items() if proc.supports(cap)]
    name = proc.server_info or config.command
    return True, (
        f"{name} initialized in {took:.1f} s; answers "
        + (", ".join(answers) if answers else "nothing the lsp tool asks")
    )


async def diagnose(
    cwd: Path, *, trusted: bool, user_settings: Path, start: bool = True, start_within: float = 10.0
) -> Diagnosis:
    loaded = load_lsp_config(cwd, trusted=trusted, user_settings=user_settings)
    ignored = [] if trusted else untrusted_project_files(cwd)
    out = Diagnosis(cwd, trusted, user_settings, loaded, ignored)
    for config in loaded.servers.values():
        check = ServerCheck(config, find_command(config))
        if check.found is None:
            check.detail = f"command not found: {config.command}"
        elif start and not config.disabled:
            check.started, check.detail = await try_start(config, cwd, start_within)
        out.checks.append(check)
    return out


def render(d: Diagnosis) -> list[str]:
    lines = [f"Language servers for the lsp tool in {d.cwd}"]
    lines.append(f"  user settings: {d.user_settings} (lspServers)")
    if d.trusted:
        lines.append("  project files (.pi/lsp.json, .lsp.json): read (the project is trusted)")
    elif d.ignored:
        lines.append(
            "  project files NOT read, the project is not trusted (they start programs): "
            + ", ".join(d.ignored)
        )
    else:
        lines.append("  project files (.pi/lsp.json, .lsp.json): none; the project is not trusted")
    lines.extend(f"  problem: {p}" for p in d.loaded.problems)
    if not d.checks:
        lines.append(
            "No language server is configured: the lsp tool is offered only where an editor "
            "answers (configure lspServers; docs/tools.md#lsp)."
        )
        return lines
    for check in d.checks:
        c = check.config
        files = ", ".join(
            (f"*{ext}" if ext.startswith(".") else f"*.{ext}") + f" ({lang})"
            for ext, lang in c.extension_to_language.items()
        )
        state = "disabled" if c.disabled else "OK" if check.ok else "FAILED"
        lines.append(f"{c.name}: {state} (from {c.source} configuration)")
        lines.append(f"  files: {files or 'none (extensionToLanguage is empty)'}")
        command = " ".join([c.command, *c.args])
        lines.append(
            f"  command: {command} — " + (f"found at {check.found}" if check.found else "NOT FOUND")
        )
        if check.started is not None or (check.found is None and not c.disabled):
            lines.append(f"  start: {check.detail}")
    return lines
