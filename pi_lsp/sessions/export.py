"""A session as a page a reviewer can read: ``pi-lsp export`` and ``/export``
(docs/sessions.md#export).

``export_html`` renders the current branch of a session file as one self-contained HTML page
— the prompts, the answers, thinking folded in ``<details>``, each tool call with its
arguments, its result and (for ``edit``) its diff, the usage of each answer and the totals —
with inline CSS, no script and no remote asset. ``export_markdown`` renders the same as
Markdown. Every entry goes through the session ``Redactor`` first, so a secret that reached
the file (written by an older version, planted by hand) is not in the page.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ..ai import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from .entries import (
    CompactionEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    entry_to_dict,
    parse_entry,
)
from .redact import Redactor
from .session_file import SessionFile
from .store import prompt_text, session_title

ExportFormat = Literal["html", "markdown"]
RESULT_CHARS = 20_000
SHORT_RESULT_LINES = 12
"""A tool result shorter than this is shown unfolded."""
"""Characters of one tool result kept in the page (the rest is cut, with a note)."""


@dataclass(slots=True)
class _Totals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    models: list[str] = field(default_factory=list)

    def add(self, message: AssistantMessage) -> None:
        u = message.usage
        self.input += u.input
        self.output += u.output
        self.cache_read += u.cache_read
        self.cache_write += u.cache_write
        self.cost += u.cost.total
        name = f"{message.provider}/{message.model}".strip("/")
        if name and name not in self.models:
            self.models.append(name)

    def line(self) -> str:
        parts = [f"input {self.input:,}", f"output {self.output:,}"]
        if self.cache_read or self.cache_write:
            parts.append(f"cache read {self.cache_read:,} / write {self.cache_write:,}")
        if self.cost:
            parts.append(f"cost ${self.cost:.4f}")
        return " · ".join(parts)


def redacted_branch(file: SessionFile, redactor: Redactor | None = None) -> list[SessionEntry]:
    """The current branch, each entry redacted (a copy: the file is not touched)."""
    redactor = redactor or Redactor()
    out: list[SessionEntry] = []
    for entry in file.get_branch():
        data = redactor.data(entry_to_dict(entry))
        out.append(parse_entry(json.dumps(data, ensure_ascii=False)))
    return out


def title_of(file: SessionFile, entries: Sequence[SessionEntry]) -> str:
    first = next(
        (
            e.message
            for e in entries
            if isinstance(e, MessageEntry) and getattr(e.message, "role", None) == "user"
        ),
        None,
    )
    prompt = prompt_text(getattr(first, "content", ""))
    return Redactor().text(session_title(prompt, file.name))


def export_session(
    file: SessionFile, fmt: ExportFormat = "html", *, redactor: Redactor | None = None
) -> str:
    entries = redacted_branch(file, redactor)
    if fmt == "markdown":
        return export_markdown(file, entries)
    return export_html(file, entries)


def write_export(
    file: SessionFile,
    out: Path,
    fmt: ExportFormat = "html",
    *,
    redactor: Redactor | None = None,
) -> Path:
    """Render and write (mode 0600: a session may hold private code); the path written."""
    text = export_session(file, fmt, redactor=redactor)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    fd = tmp.open("w", encoding="utf-8")
    try:
        tmp.chmod(0o600)
        fd.write(text)
    finally:
        fd.close()
    tmp.replace(out)
    return out


# ---------------------------------------------------------------------- shared parts


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif getattr(block, "type", None) == "image":
            parts.append("[image]")
    return "\n".join(parts)


def _cut(text: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    return text[:RESULT_CHARS] + f"\n… ({len(text) - RESULT_CHARS:,} more characters)"


def _diff_of(message: ToolResultMessage) -> str | None:
    details = message.details
    if isinstance(details, dict):
        diff = details.get("diff")
        if isinstance(diff, str) and diff.strip():
            return diff
    return None


def _stamp(value: str) -> str:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


# ---------------------------------------------------------------------- HTML

CSS = """
:root{--bg:#fafafa;--fg:#1f2328;--muted:#656d76;--card:#fff;--line:#d0d7de;--user:#ddf4ff;
--add:#dafbe1;--del:#ffebe9;--err:#cf222e;--code:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;
--card:#161b22;--line:#30363d;--user:#0c2d6b;--add:#033a16;--del:#67060c;--err:#ff7b72;
--code:#1c2128}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:920px;margin:0 auto;padding:24px 16px 64px}
header{border-bottom:1px solid var(--line);margin-bottom:20px;padding-bottom:12px}
h1{font-size:22px;margin:0 0 6px}.meta{color:var(--muted);font-size:13px}
.msg{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:14px 0;
padding:12px 16px}.msg.user{background:var(--user)}
.role{font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.04em;
color:var(--muted);margin-bottom:6px}
.text{white-space:pre-wrap;word-wrap:break-word}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:8px 10px;
overflow:auto;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;margin:6px 0}
details{margin:8px 0}summary{cursor:pointer;color:var(--muted)}
.tool{border-left:3px solid var(--line);padding-left:10px;margin:10px 0}
.tool .name{font-family:ui-monospace,monospace;font-weight:600}
.err{color:var(--err)}.usage{color:var(--muted);font-size:12px;margin-top:6px}
.diff span{display:block}.diff .add{background:var(--add)}.diff .del{background:var(--del)}
.compaction{color:var(--muted);font-style:italic}
"""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _pre(text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<pre{attr}>{_esc(text)}</pre>"


def _diff_html(diff: str) -> str:
    rows = []
    for line in diff.split("\n"):
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"
        rows.append(f'<span class="{cls}">{_esc(line) if line else " "}</span>')
    return '<pre class="diff">' + "".join(rows) + "</pre>"


def _usage_html(message: AssistantMessage) -> str:
    u = message.usage
    if not (u.input or u.output):
        return ""
    cost = f" · ${u.cost.total:.4f}" if u.cost.total else ""
    model = _esc(message.model) + " · " if message.model else ""
    return f'<div class="usage">{model}input {u.input:,} · output {u.output:,}{cost}</div>'


def _result_html(result: ToolResultMessage) -> str:
    label = "error" if result.is_error else "result"
    cls = ' class="err"' if result.is_error else ""
    body = _cut(_text_of(result.content)) or "(no output)"
    short = body.count("\n") < SHORT_RESULT_LINES
    out = f"<details{' open' if result.is_error or short else ''}><summary{cls}>{label}</summary>"
    out += _pre(body) + "</details>"
    diff = _diff_of(result)
    if diff is not None:
        out += "<details open><summary>diff</summary>" + _diff_html(diff) + "</details>"
    return out


def _assistant_html(message: AssistantMessage, results: dict[str, ToolResultMessage]) -> str:
    parts = ['<section class="msg assistant"><div class="role">pi</div>']
    for block in message.content:
        if isinstance(block, TextContent) and block.text.strip():
            parts.append(f'<div class="text">{_esc(block.text.strip())}</div>')
        elif isinstance(block, ThinkingContent) and block.thinking.strip():
            parts.append(
                "<details><summary>thinking</summary>"
                f'<div class="text">{_esc(block.thinking.strip())}</div></details>'
            )
        elif isinstance(block, ToolCall):
            args = json.dumps(block.arguments, ensure_ascii=False, indent=1)
            parts.append(
                f'<div class="tool"><div class="name">{_esc(block.name)}</div>{_pre(args)}'
            )
            result = results.get(block.id)
            if result is not None:
                parts.append(_result_html(result))
            parts.append("</div>")
    if message.stop_reason in ("error", "aborted"):
        why = message.error_message or message.stop_reason
        parts.append(f'<div class="err">({_esc(message.stop_reason)}: {_esc(why)})</div>')
    parts.append(_usage_html(message))
    parts.append("</section>")
    return "".join(parts)


def _results_by_call(entries: Sequence[SessionEntry]) -> dict[str, ToolResultMessage]:
    """Each tool call's result, by the call's id."""
    return {
        e.message.tool_call_id: e.message
        for e in entries
        if isinstance(e, MessageEntry) and isinstance(e.message, ToolResultMessage)
    }


def export_html(file: SessionFile, entries: Sequence[SessionEntry]) -> str:
    """The page for ``entries`` (already redacted: ``redacted_branch``)."""
    title = title_of(file, entries)
    results = _results_by_call(entries)
    totals = _Totals()
    body: list[str] = []
    for entry in entries:
        if isinstance(entry, MessageEntry):
            message = entry.message
            if isinstance(message, AssistantMessage):
                totals.add(message)
                body.append(_assistant_html(message, results))
            elif getattr(message, "role", None) == "user":
                text = _text_of(message.content)  # type: ignore[union-attr]
                body.append(
                    '<section class="msg user"><div class="role">You · '
                    f'{_esc(_stamp(entry.timestamp))}</div><div class="text">{_esc(text)}</div>'
                    "</section>"
                )
            elif not isinstance(message, ToolResultMessage):
                summary = getattr(message, "summary", None)
                if isinstance(summary, str):
                    body.append(
                        '<section class="msg compaction"><div class="role">summary</div>'
                        f'<div class="text">{_esc(summary)}</div></section>'
                    )
        elif isinstance(entry, CompactionEntry):
            body.append(
                '<p class="compaction">Earlier turns were compacted; the model then saw '
                "this summary:</p>" + _pre(entry.summary)
            )
        elif isinstance(entry, ModelChangeEntry):
            body.append(f'<p class="meta">model: {_esc(entry.provider)}/{_esc(entry.model_id)}</p>')
    header = file.header
    meta = [
        f"session {_esc(header.id)}",
        _esc(_stamp(header.timestamp)),
        _esc(header.cwd) if header.cwd else "",
        ", ".join(_esc(m) for m in totals.models),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>{_esc(title)}</title><style>{CSS}</style></head><body><main>"
        f"<header><h1>{_esc(title)}</h1>"
        f'<div class="meta">{" · ".join(m for m in meta if m)}</div>'
        f'<div class="meta">usage: {_esc(totals.line())}</div></header>'
        + "\n".join(body)
        + '<footer class="meta">exported by pi-lsp</footer></main></body></html>\n'
    )


# ---------------------------------------------------------------------- Markdown


def _fenced(text: str, language: str = "") -> str:
    longest = 0
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def export_markdown(file: SessionFile, entries: Sequence[SessionEntry]) -> str:
    title = title_of(file, entries)
    results = _results_by_call(entries)
    totals = _Totals()
    out: list[str] = []
    for entry in entries:
        if isinstance(entry, CompactionEntry):
            out += ["*Earlier turns were compacted; summary:*", "", _fenced(entry.summary), ""]
            continue
        if not isinstance(entry, MessageEntry):
            continue
        message = entry.message
        if isinstance(message, AssistantMessage):
            totals.add(message)
            out += ["## pi", ""]
            for block in message.content:
                if isinstance(block, TextContent) and block.text.strip():
                    out += [block.text.strip(), ""]
                elif isinstance(block, ThinkingContent) and block.thinking.strip():
                    out += [
                        "<details><summary>thinking</summary>",
                        "",
                        block.thinking.strip(),
                        "",
                        "</details>",
                        "",
                    ]
                elif isinstance(block, ToolCall):
                    args = json.dumps(block.arguments, ensure_ascii=False, indent=1)
                    out += [f"**{block.name}**", "", _fenced(args, "json"), ""]
                    result = results.get(block.id)
                    if result is not None:
                        label = "error" if result.is_error else "result"
                        body = _cut(_text_of(result.content)) or "(no output)"
                        out += [f"*{label}:*", "", _fenced(body), ""]
                        diff = _diff_of(result)
                        if diff is not None:
                            out += [_fenced(diff, "diff"), ""]
            if message.stop_reason in ("error", "aborted"):
                out += [f"*({message.stop_reason}: {message.error_message or ''})*", ""]
        elif getattr(message, "role", None) == "user":
            text = _text_of(message.content)  # type: ignore[union-attr]
            out += ["## You", "", *(f"> {line}" if line else ">" for line in text.split("\n"))]
            out.append("")
    head = [
        f"# {title}",
        "",
        f"session {file.header.id} · {_stamp(file.header.timestamp)}"
        + (f" · {', '.join(totals.models)}" if totals.models else ""),
        "",
        f"usage: {totals.line()}",
        "",
    ]
    return "\n".join(head + out).rstrip() + "\n"
