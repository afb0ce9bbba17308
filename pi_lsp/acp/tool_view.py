"""How one tool call looks in an ACP client: title, kind, locations and content.

Pure functions of the call's name, arguments and result, used by the live stream
(``updates``) and by ``session/load``'s replay (``replay``) alike, so a reloaded conversation
shows every tool call exactly as it looked live. Kinds: read→``read``; edit/write→``edit``;
bash→``execute``; grep/find/ls→``search``; anything else ``other``. ``edit`` / ``write``
results are ACP ``diff`` content (``oldText`` null for a file the call created); ``bash``
output is Zed's display-only terminal (``terminal`` content plus ``_meta.terminal_info`` /
``terminal_output`` / ``terminal_exit``) for a client that opted in to that extension
(``terminal``: ``clientCapabilities._meta.terminal_output``), else ``content`` text: the
output as the tool result cuts it, in a code block. Imports only the SDK's schema and
``wire``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeAlias

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
)

from ..wire import jsonable

ToolKind: TypeAlias = Literal["read", "edit", "execute", "search", "other"]
ToolContent: TypeAlias = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

KINDS: dict[str, ToolKind] = {
    "read": "read",
    "edit": "edit",
    "write": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
}
TITLE_MAX = 120


def args_dict(args: Any) -> dict[str, Any]:
    """The arguments as camelCase JSON (the model's own spelling), whatever form they have."""
    value = jsonable(args)
    return value if isinstance(value, dict) else {}


def kind_of(name: str) -> ToolKind:
    return KINDS.get(name, "other")


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_MAX else flat[: TITLE_MAX - 1] + "…"


def _str(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) and value else None


def title_of(name: str, args: dict[str, Any]) -> str:
    path = _str(args, "path")
    if name == "read" and path:
        offset = args.get("offset")
        return f"Read {path}" + (f" (from line {offset})" if isinstance(offset, int) else "")
    if name in ("edit", "write") and path:
        return f"{name.capitalize()} {path}"
    if name == "bash" and (command := _str(args, "command")):
        return _short(command)
    if name in ("grep", "find") and (pattern := _str(args, "pattern")):
        where = f" in {path}" if path else ""
        verb = "Search for" if name == "grep" else "Find"
        return _short(f"{verb} {pattern}{where}")
    if name == "ls":
        return f"List {path or '.'}"
    return name


def absolute(cwd: Path, path: str) -> str:
    """A model-given path as the absolute path a client can open."""
    text = path[1:] if path.startswith("@") else path
    if text.startswith("file://"):
        text = text[len("file://") :]
    candidate = Path(text).expanduser()
    return str(candidate if candidate.is_absolute() else (cwd / candidate))


def locations_of(
    name: str, args: dict[str, Any], cwd: Path, details: Any = None
) -> list[ToolCallLocation]:
    """Where the call works: the file (with a line when known) or the searched directory."""
    path = _str(args, "path")
    if name == "bash" or (path is None and name not in ("grep", "find", "ls")):
        return []
    target = absolute(cwd, path or ".")
    line: int | None = None
    if name == "read" and isinstance(args.get("offset"), int) and args["offset"] > 0:
        line = args["offset"]
    elif name == "edit" and isinstance(details, dict):
        first = details.get("firstChangedLine")
        line = first if isinstance(first, int) and first > 0 else None
    elif name == "write":
        line = 1
    return [ToolCallLocation(path=target, line=line)]


def text_content(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def result_text(content: Any) -> str:
    """The text blocks of a tool result (images are left to the model)."""
    parts: list[str] = []
    for block in content or ():
        text = getattr(block, "text", None)
        if text is None and isinstance(block, dict):
            text = block.get("text")
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


def diff_content(
    name: str, args: dict[str, Any], cwd: Path, details: Any, old_text: str | None
) -> list[ToolContent]:
    """``edit``: one diff per replacement; ``write``: the whole file (``oldText`` is the
    replaced file's text, null when the call created it)."""
    path = _str(args, "path")
    if path is None:
        return []
    target = absolute(cwd, path)
    if name == "write" and isinstance(args.get("content"), str):
        created = isinstance(details, dict) and details.get("created") is True
        return [
            FileEditToolCallContent(
                type="diff",
                path=target,
                old_text=None if created else old_text,
                new_text=args["content"],
            )
        ]
    edits = args.get("edits")
    out: list[ToolContent] = []
    if name == "edit" and isinstance(edits, list):
        for item in edits:
            if isinstance(item, dict) and isinstance(item.get("newText"), str):
                old = item.get("oldText")
                out.append(
                    FileEditToolCallContent(
                        type="diff",
                        path=target,
                        old_text=old if isinstance(old, str) else None,
                        new_text=item["newText"],
                    )
                )
    return out


def wants_terminal(client_meta: Any) -> bool:
    """Whether a client's ``clientCapabilities._meta`` opts in to Zed's display-only
    terminal (``terminal_output: true``). The ``terminal`` capability alone does not: it is
    about ``terminal/*``, which we never call, so its terminal would never exist."""
    return isinstance(client_meta, dict) and client_meta.get("terminal_output") is True


def output_text(text: str) -> ContentToolCallContent:
    """Command output as ``content`` text: a code block (its fence longer than any run of
    backticks in the output), so a client rendering Markdown shows it verbatim."""
    fence = "```"
    while fence in text:
        fence += "`"
    body = text.rstrip("\n")
    return text_content(f"{fence}\n{body}\n{fence}")


def start_content(name: str, call_id: str, terminal: bool = True) -> list[ToolContent]:
    if name == "bash" and terminal:
        return [TerminalToolCallContent(type="terminal", terminal_id=call_id)]
    return []


def start_meta(name: str, call_id: str, cwd: Path, terminal: bool = True) -> dict[str, Any] | None:
    if name == "bash" and terminal:
        return {"terminal_info": {"terminal_id": call_id, "cwd": str(cwd)}}
    return None


def output_meta(call_id: str, data: str) -> dict[str, Any]:
    return {"terminal_output": {"terminal_id": call_id, "data": data}}


def exit_meta(call_id: str, is_error: bool) -> dict[str, Any]:
    return {
        "terminal_exit": {"terminal_id": call_id, "exit_code": 1 if is_error else 0, "signal": None}
    }


def final_content(
    name: str,
    call_id: str,
    args: dict[str, Any],
    cwd: Path,
    text: str,
    details: Any,
    is_error: bool,
    old_text: str | None = None,
    terminal: bool = True,
) -> list[ToolContent]:
    """The content of the completing ``tool_call_update``."""
    if name == "bash":
        if terminal:
            return [TerminalToolCallContent(type="terminal", terminal_id=call_id)]
        return [output_text(text)] if text else []
    if name in ("edit", "write") and not is_error:
        diffs = diff_content(name, args, cwd, details, old_text)
        if diffs:
            return diffs
    return [text_content(text)] if text else []


def output_delta(sent: str, now: str) -> str:
    """What to append to a terminal that shows ``sent`` so that it ends like ``now`` (the
    tool's output is a tail window: when its start moved, the overlap is found)."""
    if now.startswith(sent):
        return now[len(sent) :]
    tail = sent[-256:]
    at = now.rfind(tail) if tail else -1
    if at >= 0:
        return now[at + len(tail) :]
    return "\r\n" + now
