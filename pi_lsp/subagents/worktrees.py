"""Worktree isolation for ``task`` children (docs/subagents.md#worktree-isolation).

``start``: a detached ``git worktree`` **outside** the repository
(``<data dir>/worktrees/<root session>/<child id>``) at ``HEAD``, then what the user sees is
carried in — the tracked changes (``git diff --binary HEAD``, applied), the untracked,
not ignored files (copied) and, in an editor, the open buffers' unsaved text (a workspace
that is a ``BufferSource``) — and committed there as the child's base, so the child starts
from the user's state, not a clean checkout.

``finish``: the child's change (``git diff --binary`` against that base) comes back through
the parent's ``Workspace``: for each changed text file a three-way merge (base = the file
when the child started, the child's version, the parent's current text — an open buffer
first) and one ``write_document`` labelled ``task <agent>`` with the ``task`` call's
``ToolCallContext``, so an editor shows review hunks tagged with that call (undoable,
``edits: "confirm"`` respected). Deletions, renames, binary files and overlapping changes
are not applied: they are listed, and the worktree is kept for the user (a ``.keep`` marker
beside it); otherwise it is removed.

``prune`` (at start-up, and ``pi-lsp worktrees prune``) removes every worktree under the
data directory that is not kept (a crash or ``kill -9`` leaves none behind for long);
``list_worktrees`` shows them (``pi-lsp worktrees list``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..review.merge import merge3
from ..sessions.paths import data_dir
from ..tools.workspace import ToolCallContext, Workspace
from .runner import ChildSpec

log = logging.getLogger(__name__)
GIT_IDENTITY = ("-c", "user.name=pi-lsp", "-c", "user.email=pi-lsp@localhost.invalid")


class WorktreeError(RuntimeError):
    pass


@runtime_checkable
class BufferSource(Protocol):
    """A workspace that knows the editor's open buffers (``EditorWorkspace``)."""

    async def open_buffers(self) -> Mapping[Path, str]:
        """Every open buffer's current text (unsaved edits included), by real path."""
        ...


def worktrees_root() -> Path:
    return data_dir() / "worktrees"


async def git(
    cwd: Path | str, *args: str, input: bytes | None = None, ok_codes: tuple[int, ...] = (0,)
) -> bytes:
    """Run git; its stdout, or ``WorktreeError`` with its stderr (an exit code not in
    ``ok_codes``)."""
    proc = await asyncio.create_subprocess_exec(
        "git",
        *GIT_IDENTITY,
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"},
    )
    out, err = await proc.communicate(input)
    if proc.returncode not in ok_codes:
        raise WorktreeError(f"git {args[0]}: {err.decode(errors='replace').strip()}")
    return out


@dataclass
class _Started:
    repo: Path
    path: Path
    base: str
    sub: str
    """The parent's cwd relative to the repository (the child works there too)."""


@dataclass
class GitWorktrees:
    """The worktrees of one root session's children."""

    workspace: Workspace
    root_session_id: str
    started: dict[str, _Started] = field(default_factory=dict)

    async def start(self, spec: ChildSpec) -> str:
        cwd = Path(self.workspace.cwd)
        try:
            top = (await git(cwd, "rev-parse", "--show-toplevel")).decode().strip()
        except (WorktreeError, OSError) as exc:
            raise WorktreeError(f"worktree isolation needs a git repository ({exc})") from None
        repo = Path(top)
        path = worktrees_root() / self.root_session_id / spec.child_id
        path.parent.mkdir(parents=True, exist_ok=True)
        _owner(path).write_text(str(os.getpid()), encoding="utf-8")  # alive: never pruned
        await git(repo, "worktree", "add", "--detach", str(path), "HEAD")
        try:
            diff = await git(repo, "diff", "--binary", "HEAD")
            if diff.strip():
                await git(path, "apply", "--binary", "--whitespace=nowarn", "-", input=diff)
            untracked = await git(repo, "ls-files", "--others", "--exclude-standard", "-z")
            for name in filter(None, untracked.decode(errors="surrogateescape").split("\0")):
                source, target = repo / name, path / name
                if source.is_file() and not source.is_symlink():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, target)
            await self._carry_buffers(repo, path)
            await git(path, "add", "-A")
            await git(path, "commit", "-q", "--allow-empty", "--no-verify", "-m", "pi-lsp base")
            base = (await git(path, "rev-parse", "HEAD")).decode().strip()
        except Exception:
            await self._remove(repo, path)
            raise
        sub = _relative(cwd, repo)
        self.started[spec.child_id] = _Started(repo, path, base, sub)
        return str(path / sub) if sub != "." else str(path)

    async def _carry_buffers(self, repo: Path, path: Path) -> None:
        """The editor's unsaved text into the worktree: each open buffer of a file in the
        repository that is tracked or not ignored (a buffer never saved too)."""
        if not isinstance(self.workspace, BufferSource):
            return
        wanted = _in_repository(repo, await self.workspace.open_buffers())
        missing = [n for n in wanted if not (path / n).is_file()]
        if missing:  # not in the worktree: only when git would not ignore it
            ignored = await git(
                repo,
                "check-ignore",
                "--stdin",
                "-z",
                input="\0".join(missing).encode() + b"\0",
                ok_codes=(0, 1),
            )
            for name in filter(None, ignored.decode(errors="surrogateescape").split("\0")):
                wanted.pop(name, None)
        _write_texts(path, wanted)

    async def finish(self, spec: ChildSpec, cwd: str, *, apply: bool = True) -> str:
        """Bring the child's change back (when ``apply``); a note for the ``task`` result."""
        started = self.started.pop(spec.child_id, None)
        if started is None:
            return ""
        path = started.path
        await git(path, "add", "-A")
        status = (await git(path, "diff", "--cached", "--name-status", "-z", started.base)).decode(
            errors="surrogateescape"
        )
        changes = _name_status(status)
        if not changes:
            await self._remove(started.repo, path)
            return "The agent changed no files (its worktree was removed)."
        if not apply:
            _keep(path)
            return f"Its changes were not applied; its worktree is kept at {path}."
        applied: list[str] = []
        left: list[str] = []
        context = ToolCallContext(session_id=self.root_session_id, tool_call_id=spec.tool_call_id)
        label = f"task {spec.agent.name}"
        for kind, name in changes:
            if kind not in ("M", "A"):
                what = {"D": "deleted", "R": "renamed", "C": "copied"}.get(kind[:1], kind)
                left.append(f"{name} ({what}: not applied)")
                continue
            outcome = await self._bring_back(started, name, kind, label, context)
            (applied if outcome is None else left).append(
                name if outcome is None else f"{name} ({outcome})"
            )
        lines = []
        if applied:
            lines.append("Applied from its worktree: " + ", ".join(applied))
        if left:
            _keep(path)
            lines.append("Not applied: " + "; ".join(left))
            lines.append(f"Its worktree is kept at {path} (pi-lsp worktrees prune removes it).")
        else:
            await self._remove(started.repo, path)
        return "\n".join(lines)

    async def _bring_back(
        self, started: _Started, name: str, kind: str, label: str, context: ToolCallContext
    ) -> str | None:
        """Merge one file into the parent's workspace; ``None`` when applied, else why not."""
        theirs_bytes = (started.path / name).read_bytes()
        base_bytes = (
            b"" if kind == "A" else await git(started.path, "show", f"{started.base}:{name}")
        )
        if b"\0" in theirs_bytes or b"\0" in base_bytes:
            return "binary: not applied"
        try:
            child_text = theirs_bytes.decode("utf-8")
            base_text = base_bytes.decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8: not applied"
        target = self.workspace.resolve(str(started.repo / name))
        if kind == "A" and not await self.workspace.exists(target):
            current = ""
        else:
            try:
                current = (await self.workspace.read_document(target)).text
            except FileNotFoundError:
                return "deleted meanwhile: not applied"
        if current == child_text:
            return None
        merged = merge3(base_text, child_text, current)
        if merged.text is None:
            return f"overlaps your changes at line {merged.conflicts[0].first_line}"
        try:
            await self.workspace.write_document(target, merged.text, label=label, context=context)
        except Exception as exc:
            return f"could not be written: {exc}"
        return None

    async def _remove(self, repo: Path, path: Path) -> None:
        with contextlib.suppress(WorktreeError, OSError):
            await git(repo, "worktree", "remove", "--force", str(path))
        shutil.rmtree(path, ignore_errors=True)
        with contextlib.suppress(OSError):
            _owner(path).unlink()
        with contextlib.suppress(WorktreeError, OSError):
            await git(repo, "worktree", "prune")
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # the root session's folder, once empty


def _in_repository(repo: Path, buffers: Mapping[Path, str]) -> dict[str, str]:
    """``buffers`` of files inside ``repo`` (not its ``.git``), by their path in it."""
    real_repo = Path(os.path.realpath(repo))
    out: dict[str, str] = {}
    for open_path, text in buffers.items():
        try:
            name = Path(os.path.realpath(open_path)).relative_to(real_repo).as_posix()
        except ValueError:
            continue  # outside the repository: not the child's to see
        if name.split("/", 1)[0] != ".git":
            out[name] = text
    return out


def _write_texts(root: Path, texts: Mapping[str, str]) -> None:
    """Each text to its file under ``root`` (never through a symlink), as it is."""
    for name, text in texts.items():
        target = root / name
        if target.is_symlink():
            continue
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if target.is_file() and target.read_text(encoding="utf-8") == text:
                continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")


def _relative(cwd: Path, repo: Path) -> str:
    return os.path.relpath(os.path.realpath(cwd), os.path.realpath(repo))


def _is_dir(path: str) -> bool:
    return os.path.isdir(path)


def _owner(path: Path) -> Path:
    return path.with_name(path.name + ".pid")


def _owner_alive(path: Path) -> bool:
    """The process that made the worktree still runs (another pi-lsp's child, busy)."""
    try:
        pid = int(_owner(path).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _keep(path: Path) -> None:
    with contextlib.suppress(OSError):
        _owner(path).unlink()  # the user's now: pruned only when asked
        path.with_name(path.name + ".keep").write_text("kept for the user\n", encoding="utf-8")


def _name_status(text: str) -> list[tuple[str, str]]:
    parts = text.split("\0")
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(parts) and parts[i]:
        kind = parts[i]
        if kind[:1] in ("R", "C"):
            out.append((kind[:1], f"{parts[i + 1]} → {parts[i + 2]}"))
            i += 3
        else:
            out.append((kind[:1], parts[i + 1]))
            i += 2
    return out


# ---------------------------------------------------------------------- list and prune


@dataclass(frozen=True, slots=True)
class WorktreeInfo:
    path: str
    root_session: str
    child_session: str
    kept: bool
    repository: str | None


def list_worktrees() -> list[WorktreeInfo]:
    root = worktrees_root()
    out = []
    for session_dir in sorted(root.glob("*")) if root.is_dir() else []:
        for path in sorted(p for p in session_dir.iterdir() if p.is_dir()):
            out.append(
                WorktreeInfo(
                    path=str(path),
                    root_session=session_dir.name,
                    child_session=path.name,
                    kept=path.with_name(path.name + ".keep").exists(),
                    repository=_repository_of(path),
                )
            )
    return out


def _repository_of(path: Path) -> str | None:
    """The main repository of a worktree (its ``.git`` file names ``…/.git/worktrees/x``)."""
    try:
        text = (path / ".git").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text.split(":", 1)[1].strip())
    return str(gitdir.parent.parent.parent)


async def prune(*, kept_too: bool = False, busy: frozenset[str] = frozenset()) -> list[str]:
    """Remove the worktrees no one uses (``busy``: child ids running in this process) that
    were not kept for the user (``kept_too``: those as well); the removed paths."""
    removed = []
    for info in list_worktrees():
        if info.child_session in busy or (info.kept and not kept_too):
            continue
        if _owner_alive(Path(info.path)) and not info.kept:
            continue  # another running pi-lsp's child
        path = Path(info.path)
        repo = info.repository
        with contextlib.suppress(WorktreeError, OSError):
            if repo is not None and _is_dir(repo):
                await git(repo, "worktree", "remove", "--force", str(path))
        shutil.rmtree(path, ignore_errors=True)
        for marker in (path.with_name(path.name + ".keep"), _owner(path)):
            with contextlib.suppress(OSError):
                marker.unlink()
        with contextlib.suppress(WorktreeError, OSError):
            if repo is not None and _is_dir(repo):
                await git(repo, "worktree", "prune")
        with contextlib.suppress(OSError):
            path.parent.rmdir()
        removed.append(str(path))
    return removed


def worktree_summary(info: WorktreeInfo) -> dict[str, Any]:
    return {
        "path": info.path,
        "rootSession": info.root_session,
        "childSession": info.child_session,
        "kept": info.kept,
        "repository": info.repository,
    }
