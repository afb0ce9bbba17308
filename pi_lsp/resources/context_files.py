"""Context files (``AGENTS.md`` and kin), found as Pi's ``loadProjectContextFiles`` finds them.

Per directory the first regular file of ``CONTEXT_FILE_NAMES`` (a directory so named is
skipped); the agent dir's file first, then every directory from ``/`` down to ``cwd``, each
path once. A nested linked git worktree's own file shadows the main checkout's (Pi 1.x). A
file over ``MAX_CONTEXT_BYTES`` is cut with a visible marker and a diagnostic. No trust is
needed: Pi loads these for untrusted projects too.
"""

from __future__ import annotations

import os

from .files import Watch, is_dir, is_file, read_text
from .models import ContextFile, Diagnostic

CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
MAX_CONTEXT_BYTES = 64 * 1024


def _first_in(directory: str, watch: Watch) -> str | None:
    for name in CONTEXT_FILE_NAMES:
        path = os.path.join(directory, name)
        if is_file(path, watch):
            return path
    return None


def _load(path: str, scope: str, diagnostics: list[Diagnostic], watch: Watch) -> ContextFile | None:
    text = read_text(path, diagnostics, watch)
    if text is None:
        return None
    encoded = text.encode("utf-8")
    try:
        size = os.path.getsize(path)
    except OSError:
        size = len(encoded)
    truncated = len(encoded) > MAX_CONTEXT_BYTES
    if truncated:
        more = len(encoded) - MAX_CONTEXT_BYTES
        kept = encoded[:MAX_CONTEXT_BYTES].decode("utf-8", errors="ignore")
        text = f"{kept}\n\n[truncated: {more} bytes more; read {path}]"
        diagnostics.append(
            Diagnostic(
                type="warning",
                message=f"larger than {MAX_CONTEXT_BYTES // 1024} KiB: only the first "
                f"{MAX_CONTEXT_BYTES} bytes are in the system prompt ({more} bytes cut)",
                path=path,
            )
        )
    return ContextFile(
        path=path,
        content=text,
        scope=scope,
        bytes=size,
        truncated=truncated,
    )


def _git_paths(cwd: str) -> tuple[str, str] | None:
    """``(worktree root, common git dir)`` of the repository holding ``cwd``."""
    directory = cwd
    while True:
        dot_git = os.path.join(directory, ".git")
        if os.path.isdir(dot_git):
            return directory, dot_git
        if os.path.isfile(dot_git):
            try:
                with open(dot_git, encoding="utf-8") as f:
                    line = f.read().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not line.startswith("gitdir:"):
                return None
            gitdir = os.path.join(directory, line[len("gitdir:") :].strip())
            common = gitdir
            try:
                with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as f:
                    common = os.path.join(gitdir, f.read().strip())
            except (OSError, UnicodeDecodeError):
                pass
            return directory, os.path.normpath(common)
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _shadowed(cwd: str, watch: Watch) -> str | None:
    """The main checkout's context file that a nested linked worktree's own one shadows."""
    found = _git_paths(cwd)
    if found is None:
        return None
    common = os.path.realpath(found[1])
    worktree = os.path.realpath(found[0])
    main_root = os.path.dirname(common)
    inside = worktree.startswith(main_root.rstrip(os.sep) + os.sep)
    if not inside or worktree == main_root:
        return None
    if os.path.realpath(os.path.join(main_root, ".git")) != common:
        return None  # a bare layout or a submodule: nothing is shadowed
    own = _first_in(worktree, watch)
    return os.path.join(main_root, os.path.basename(own)) if own else None


def load_context_files(
    cwd: str, agent_dir: str, diagnostics: list[Diagnostic], watch: Watch
) -> list[ContextFile]:
    files: list[ContextFile] = []
    seen: set[str] = set()
    global_path = _first_in(agent_dir, watch) if is_dir(agent_dir, watch) else None
    if global_path is not None:
        loaded = _load(global_path, "global", diagnostics, watch)
        if loaded is not None:
            files.append(loaded)
        seen.add(global_path)
    shadowed = _shadowed(cwd, watch)
    found: list[str] = []
    directory = cwd
    while True:
        path = _first_in(directory, watch)
        if path is not None:
            real = os.path.join(os.path.realpath(directory), os.path.basename(path))
            if real != shadowed and path not in seen:
                found.insert(0, path)
                seen.add(path)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    for path in found:
        scope = "cwd" if os.path.dirname(path) == cwd else "ancestor"
        loaded = _load(path, scope, diagnostics, watch)
        if loaded is not None:
            files.append(loaded)
    return files


def imports_not_followed(files: list[ContextFile]) -> list[Diagnostic]:
    """Claude Code's ``@path`` import lines are not expanded (Pi does not either): said once
    per file so the user knows."""
    out = []
    for f in files:
        in_code = False
        for line in f.content.split("\n"):
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            word = line.strip()
            if not in_code and word.startswith("@") and len(word) > 1 and " " not in word:
                out.append(
                    Diagnostic(
                        type="warning",
                        message=f"import line {word} is not followed (Pi does not expand "
                        "@imports); the line is passed as written",
                        path=f.path,
                    )
                )
                break
    return out
