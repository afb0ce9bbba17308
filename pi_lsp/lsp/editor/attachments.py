"""What the user attaches to a prompt: files, selections, diagnostics, images and ``@path``.

``pi/prompt.attachments`` items (``{uri, range?}``, ``{diagnostics: {uri, items}}``,
``{image: {data, mimeType}}``), the v1 ``context`` (one ``{uri, range?}``) and the ``@path`` /
``@path#L10-20`` mentions in the text become one user message: the text as typed, then one
fenced section per file, selection or diagnostics list (cut as ``read`` cuts, with a note to
``read`` the rest), plus the images the model takes (a note for a model without image input).
A mention resolves only to a regular file inside the workspace; anything else stays text.
Text comes from the open buffer when there is one (unsaved changes included), else from disk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pygls.uris import from_fs_path

from ...ai import ImageContent, Model
from ...tools.disk_workspace import DiskWorkspace
from ...tools.workspace import WorkspaceError
from ..protocol.models import Attachment, DiagnosticsAttachment, FileAttachment, ImageAttachment
from ..protocol.positions import Encoding
from .documents import DocumentTracker, real_path
from .prompt_context import diagnostics_section, file_section, lines_section

MENTION = re.compile(r"(?<![\w@/])@([\w./~+-][^\s@#`'\"]*)(?:#L(\d+)(?:-L?(\d+))?)?")
"""``@path`` or ``@path#L10`` / ``@path#L10-20`` (GitHub's form); a path has no spaces."""
TRAILING = ".,;:!?)]}"


class AttachmentError(ValueError):
    """An attachment the user named cannot be read; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Mention:
    path: Path
    first_line: int | None = None
    last_line: int | None = None


class Attachments:
    """Builds the prompt for one ``pi/prompt`` (reads buffers or files)."""

    def __init__(
        self, tracker: DocumentTracker, workspace: DiskWorkspace, encoding: Encoding
    ) -> None:
        self.tracker = tracker
        self.workspace = workspace
        self.encoding = encoding

    async def build(
        self, text: str, attachments: list[Attachment], images: list[ImageContent], model: Model
    ) -> tuple[str, list[ImageContent]]:
        sections: list[str] = []
        notes: list[str] = []
        images = list(images)
        seen: set[tuple[str, str | None]] = set()
        for item in attachments:
            if isinstance(item, FileAttachment):
                rng = item.range
                key = (item.uri, rng.model_dump_json() if rng else None)
                if key not in seen:
                    seen.add(key)
                    sections.append(await self._file(item))
            elif isinstance(item, DiagnosticsAttachment):
                sections.append(await self._diagnostics(item))
            elif isinstance(item, ImageAttachment):
                images.append(ImageContent(data=item.image.data, mime_type=item.image.mime_type))
        for mention in self.mentions(text):
            uri = from_fs_path(str(mention.path)) or mention.path.as_uri()
            key = (uri, f"L{mention.first_line}-{mention.last_line}")
            if key in seen or (uri, None) in seen:
                continue
            seen.add(key)
            sections.append(await self._mention(mention))
        if images and "image" not in model.input:
            count = "An image was" if len(images) == 1 else f"{len(images)} images were"
            notes.append(
                f"[{count} attached, but the model {model.id} does not take images, so "
                "they were left out.]"
            )
            images = []
        parts = [text, *sections, *notes]
        return "\n\n".join(p for p in parts if p), images

    # ------------------------------------------------------------------ mentions

    def mentions(self, text: str) -> list[Mention]:
        """The ``@path`` mentions that resolve to regular files inside the workspace."""
        found: list[Mention] = []
        for match in MENTION.finditer(text):
            raw, first, last = match.group(1), match.group(2), match.group(3)
            path = self._resolve(raw)
            if path is None and first is None:
                stripped = raw.rstrip(TRAILING)  # "see @a.py." / "(@a.py)"
                path = self._resolve(stripped) if stripped != raw else None
            if path is None:
                continue
            if first is None:
                found.append(Mention(path))
            else:
                a = max(1, int(first))
                b = max(a, int(last)) if last else a
                found.append(Mention(path, a, b))
        return found

    def _resolve(self, raw: str) -> Path | None:
        if not raw:
            return None
        try:
            path = self.workspace.resolve(raw)
        except (WorkspaceError, OSError, ValueError):  # outside the workspace, or no path
            return None
        try:
            return path if path.is_file() else None
        except OSError:
            return None

    # ------------------------------------------------------------------ sections

    async def _read(self, uri: str, what: str) -> tuple[str, str]:
        """``(shown path, text)`` of a document: the open buffer, else the file."""
        buf = self.tracker.buffer(uri)
        path = real_path(uri)
        if buf is not None:
            content = buf.text
        elif path is not None:
            try:
                content = await self.workspace.disk_read_text(path)
            except OSError as exc:
                reason = exc.strerror or exc
                raise AttachmentError(f"{what}: cannot read {path}: {reason}") from None
        else:
            raise AttachmentError(f"{what}: {uri} is neither an open document nor a file: URI")
        if path is not None and self.workspace.contains(path):
            shown = self.workspace.display_path(path)
        else:
            shown = str(path) if path is not None else uri
        return shown, content

    async def _file(self, item: FileAttachment) -> str:
        shown, content = await self._read(item.uri, "attachment")
        rng = item.range
        return file_section(
            shown_path=shown,
            content=content,
            encoding=self.encoding,
            start=(rng.start.line, rng.start.character) if rng else None,
            end=(rng.end.line, rng.end.character) if rng else None,
        )

    async def _mention(self, mention: Mention) -> str:
        uri = from_fs_path(str(mention.path)) or mention.path.as_uri()
        shown, content = await self._read(uri, f"@{mention.path}")
        if mention.first_line is None or mention.last_line is None:
            return file_section(shown_path=shown, content=content, encoding=self.encoding)
        return lines_section(shown, content, mention.first_line - 1, mention.last_line - 1)

    async def _diagnostics(self, item: DiagnosticsAttachment) -> str:
        shown, content = await self._read(item.diagnostics.uri, "diagnostics")
        items = [d.model_dump(by_alias=True, exclude_none=True) for d in item.diagnostics.items]
        return diagnostics_section(shown, content, items)
