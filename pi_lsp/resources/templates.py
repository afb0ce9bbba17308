"""Prompt templates: ``/name args`` → the template's text with the arguments put in, as Pi's
``prompt-templates`` does it (``.md`` files, not searched recursively; name = file name
without ``.md``; ``description`` / ``argument-hint`` frontmatter, else the first non-empty
line, cut at 60 characters).

Substitution is one pass over the template only, never over what was put in (an argument
holding ``$1`` stays ``$1``): ``$1``… (missing → empty), ``${N:-default}``,
``${@:N}`` / ``${@:N:L}`` (1-based, 0 counts as 1), ``${@:-default}`` /
``${ARGUMENTS:-default}``, ``$ARGUMENTS`` and ``$@`` (all arguments, one space between).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .files import (
    FirstOfName,
    FrontmatterError,
    Watch,
    entry_kind,
    list_dir,
    parse_frontmatter,
    read_text,
)
from .models import Diagnostic, PromptTemplate

TemplateScope = Literal["user", "project", "path"]
_COMMAND = re.compile(r"^/(\S+)(?:\s+([\s\S]*))?$")
_PLACEHOLDER = re.compile(
    r"\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)"
)
_USES_ARGS = re.compile(r"\$(\d+|@|ARGUMENTS)|\$\{(\d+|@|ARGUMENTS)")


@dataclass(frozen=True, slots=True)
class TemplateRoot:
    path: str
    scope: TemplateScope


def parse_command_args(text: str) -> list[str]:
    """Arguments split as in a shell: a quote opening an argument groups up to its match
    (``\\"`` inside is a quote); an unclosed quote is a plain character; ``""`` is an empty
    argument."""
    args: list[str] = []
    current = ""
    has_token = False
    quote: str | None = None
    quote_start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and i + 1 < len(text) and text[i + 1] == quote:
                current += quote
                i += 1
            elif char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'" and not has_token:
            quote, quote_start, has_token = char, i, True
        elif char.isspace():
            if has_token:
                args.append(current)
                current, has_token = "", False
        else:
            current += char
            has_token = True
        if quote and i == len(text) - 1:  # unclosed: the quote was a plain character
            quote = None
            current = text[quote_start]
            i = quote_start
        i += 1
    if has_token:
        args.append(current)
    return args


def substitute_args(content: str, args: Sequence[str]) -> str:
    all_args = " ".join(args)

    def one(m: re.Match[str]) -> str:
        target, default, start, length, simple = m.groups()
        if target is not None:
            if target in ("@", "ARGUMENTS"):
                value: str | None = all_args
            else:
                index = int(target) - 1
                value = args[index] if 0 <= index < len(args) else None
            return value if value else default
        if start is not None:
            first = max(int(start) - 1, 0)
            chosen = args[first:] if length is None else args[first : first + int(length)]
            return " ".join(chosen)
        if simple in ("ARGUMENTS", "@"):
            return all_args
        index = int(simple) - 1
        return args[index] if 0 <= index < len(args) else ""

    return _PLACEHOLDER.sub(one, content)


def split_command(text: str) -> tuple[str, str] | None:
    """``(name, argument text)`` of ``/name args`` (``None``: not a command)."""
    if not text.startswith("/"):
        return None
    m = _COMMAND.match(text)
    if m is None:
        return None
    return m.group(1), m.group(2) or ""


def expand_template(text: str, templates: Sequence[PromptTemplate]) -> str | None:
    """The expansion of ``/name args`` when ``name`` is a template, else ``None``."""
    parts = split_command(text)
    if parts is None:
        return None
    template = next((t for t in templates if t.name == parts[0]), None)
    if template is None:
        return None
    return substitute_args(template.content, parse_command_args(parts[1]))


def uses_arguments(template: PromptTemplate) -> bool:
    return template.argument_hint is not None or bool(_USES_ARGS.search(template.content))


def missing_arguments(template: PromptTemplate, args: Sequence[str]) -> list[int]:
    """The ``$N`` the template uses beyond the arguments given (each becomes empty)."""
    wanted = {int(n) for n in re.findall(r"\$(\d+)", template.content)}
    return sorted(n for n in wanted if n > len(args) and n > 0)


def load_template_file(
    path: str, scope: TemplateScope, diagnostics: list[Diagnostic], watch: Watch
) -> PromptTemplate | None:
    text = read_text(path, diagnostics, watch)
    if text is None:
        return None
    try:
        front, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        diagnostics.append(Diagnostic(type="warning", message=str(exc), path=path))
        return None
    description = front.get("description")
    description = description if isinstance(description, str) else ""
    if not description:
        first = next((line for line in body.split("\n") if line.strip()), None)
        if first is not None:
            description = first[:60] + ("..." if len(first) > 60 else "")
    hint = front.get("argument-hint")
    return PromptTemplate(
        name=os.path.basename(path).removesuffix(".md"),
        description=description,
        content=body,
        path=path,
        scope=scope,
        argument_hint=hint if isinstance(hint, str) and hint else None,
    )


def load_templates(
    roots: Sequence[TemplateRoot], diagnostics: list[Diagnostic], watch: Watch
) -> list[PromptTemplate]:
    """Templates of every root in order; the first of a name wins (``collision``)."""
    kept = FirstOfName[PromptTemplate]("/")
    for root in roots:
        if os.path.isfile(root.path):
            paths = [root.path] if root.path.endswith(".md") else []
        elif os.path.isdir(root.path):
            paths = [
                e.path
                for e in list_dir(root.path, watch)
                if e.name.endswith(".md") and entry_kind(e) == "file"
            ]
        else:
            watch.note(root.path)
            if root.scope == "path":
                diagnostics.append(
                    Diagnostic(
                        type="error", message="Prompt template path does not exist", path=root.path
                    )
                )
            continue
        for path in paths:
            template = load_template_file(path, root.scope, diagnostics, watch)
            if template is not None:
                kept.add(template)
    diagnostics.extend(kept.collisions)
    return kept.items()
