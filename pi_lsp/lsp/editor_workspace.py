"""``EditorWorkspace``: the tools' ``Workspace`` inside an editor.

Reads see open buffers before the disk; ``edit`` / ``write`` become ``workspace/applyEdit``
(the editor's undo stack, its unsaved state) instead of disk writes. The text an edit was
computed from is compared with the current buffer (version, then text) right before it is
sent, so a stale edit is never applied (``StaleDocumentError``). After an applied edit the
disk is brought in line — by the client (``pi/saveDocuments``) or by us, never over unsaved
user changes. Path rules, listing and the mutation lock are inherited from ``DiskWorkspace``.
"""

from __future__ import annotations

import contextvars
import difflib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from ..ai.abort import AbortSignal
from ..tools import DiskWorkspace
from ..tools.workspace import (
    Document,
    EditRejectedError,
    StaleDocumentError,
    TextEdit,
    apply_text_edits,
)
from .client import ClientBridge, RequestAborted
from .documents import DocumentTracker
from .edits import (
    BOM,
    EditOptions,
    EditTarget,
    create_file_edit,
    first_changed_range,
    workspace_edit,
)
from .protocol import SAVE_DOCUMENTS, SaveDocumentsParams
from .settings import ClientFeatures, Settings

log = logging.getLogger(__name__)

RunSignal = Callable[[], AbortSignal | None]
CURRENT_SIGNAL: contextvars.ContextVar[RunSignal | None] = contextvars.ContextVar(
    "pi_lsp_run_signal", default=None
)
"""Set around a run's start so edits made by its tools can be cancelled by ``pi/abort``."""

ABORTED = "Operation aborted"


@dataclass(slots=True)
class EditPolicy:
    settings: Settings
    features: ClientFeatures


class EditorWorkspace(DiskWorkspace):
    def __init__(
        self,
        roots: Sequence[Path | str],
        *,
        bridge: ClientBridge,
        tracker: DocumentTracker,
        policy: Callable[[], EditPolicy],
    ) -> None:
        super().__init__(roots)
        self.bridge = bridge
        self.tracker = tracker
        self._policy = policy

    # ------------------------------------------------------------------------ reads

    async def read_document(self, path: Path) -> Document:
        uri = self.tracker.uri_for(path)
        if uri is not None:
            buf = await self.tracker.settled_buffer(uri)
            if buf is not None:
                return Document(path=path, text=buf.text, version=buf.version, from_buffer=True)
        return await super().read_document(path)

    async def exists(self, path: Path) -> bool:
        """An open buffer exists even before it is first saved."""
        return self.tracker.uri_for(path) is not None or await super().exists(path)

    # ----------------------------------------------------------------------- writes

    async def write_document(self, path: Path, text: str, *, label: str) -> None:
        if await self.exists(path):
            doc = await self.read_document(path)
            await self.apply_edits(doc, [TextEdit(0, len(doc.text), text)], label=label)
            return
        label = _label(label)
        if not self.bridge.create_files:
            await self.disk_write_text(path, text)
            await self._follow(from_fs_path(str(path)) or path.as_uri(), None)
            return
        uri = from_fs_path(str(path)) or path.as_uri()
        edit = create_file_edit(uri, text, self._options(label))
        await self._confirm(label, "", text, path)
        await self._send(edit, label)
        await self._sync_disk(path, uri, text, user_dirty=False)
        await self._follow(uri, first_changed_range(edit))

    async def apply_edits(
        self, document: Document, edits: Sequence[TextEdit], *, label: str
    ) -> None:
        label = _label(label)
        path = document.path
        new_text = apply_text_edits(document.text, edits)
        target, user_dirty = await self._current(document)
        await self._confirm(label, document.text, new_text, path)
        if self._policy().settings.edits == "confirm" and not self.bridge.change_annotations:
            target, user_dirty = await self._current(document)  # the user may have typed
        edit = workspace_edit(target, edits, self._options(label))
        await self._send(edit, label)
        if self.tracker.uri_for(path) is not None:
            self.tracker.expect(target.uri, target.version, new_text)
        disk_text = new_text
        if document.from_buffer and not new_text.startswith(BOM):
            disk_text = await self._keep_bom(path, new_text)
        await self._sync_disk(path, target.uri, disk_text, user_dirty=user_dirty)
        await self._follow(target.uri, first_changed_range(edit))

    # -------------------------------------------------------------------- internals

    async def _current(self, document: Document) -> tuple[EditTarget, bool]:
        """The edit target if ``document`` is still current, else ``StaleDocumentError``;
        plus whether the open buffer holds unsaved user changes."""
        path = document.path
        shown = self.display_path(path)
        uri = self.tracker.uri_for(path)
        buf = self.tracker.buffer(uri) if uri is not None else None
        if buf is not None:
            # a new version is fine as long as the text is what the edit was computed from
            if buf.text != document.text:
                raise StaleDocumentError(
                    f"{shown} changed in the editor after it was read; the edit was not "
                    "applied. Read the file again and retry."
                )
            disk = await self._disk_text(path)
            user_dirty = disk is None or disk.removeprefix(BOM) != buf.text.removeprefix(BOM)
            version = None if buf.expected else buf.version
            return EditTarget(buf.uri, buf.text, version), user_dirty
        disk = await self._disk_text(path)
        if disk is None or disk != document.text:
            raise StaleDocumentError(
                f"{shown} changed on disk after it was read; the edit was not applied. "
                "Read the file again and retry."
            )
        return EditTarget(from_fs_path(str(path)) or path.as_uri(), disk, None), False

    async def _disk_text(self, path: Path) -> str | None:
        try:
            return await self.disk_read_text(path)
        except OSError:
            return None

    async def _keep_bom(self, path: Path, text: str) -> str:
        disk = await self._disk_text(path)
        return BOM + text if disk is not None and disk.startswith(BOM) else text

    def _options(self, label: str) -> EditOptions:
        confirm = self._policy().settings.edits == "confirm"
        return EditOptions(
            encoding=self.bridge.encoding,
            document_changes=self.bridge.document_changes,
            create_supported=self.bridge.create_files,
            annotation_label=label if confirm and self.bridge.change_annotations else None,
        )

    async def _confirm(self, label: str, old: str, new: str, path: Path) -> None:
        """Confirm mode without annotation support: ask Apply / Reject first."""
        if self._policy().settings.edits != "confirm" or self.bridge.change_annotations:
            return
        message = f"{label}\n\n{_short_diff(old, new, self.display_path(path))}\n\nApply?"
        answer = await self.bridge.ask(
            message, ["Apply", "Reject"], kind=types.MessageType.Info, signal=_signal()
        )
        if answer != "Apply":
            raise EditRejectedError(
                f"The user rejected the change to {self.display_path(path)}; nothing was "
                "written."
            )

    async def _send(self, edit: types.WorkspaceEdit, label: str) -> None:
        try:
            applied, reason = await self.bridge.apply_edit(edit, label, _signal())
        except RequestAborted:
            raise EditRejectedError(ABORTED) from None
        if not applied:
            raise EditRejectedError(
                f"The editor did not apply the edit ({reason or 'no reason given'}); "
                "nothing was written."
            )

    async def _sync_disk(self, path: Path, uri: str, text: str, *, user_dirty: bool) -> None:
        features = self._policy().features
        if features.save_documents:
            try:
                result = await self.bridge.request(
                    SAVE_DOCUMENTS, SaveDocumentsParams(uris=[uri]).to_wire(), _signal()
                )
            except (JsonRpcException, RequestAborted) as exc:
                log.warning("pi/saveDocuments failed for %s: %s", uri, exc)
                return
            saved = result.get("saved") if isinstance(result, dict) else None
            if not isinstance(saved, list) or uri not in saved:
                log.info("the client did not save %s", uri)
            return
        if user_dirty:
            log.info("%s has unsaved changes in the editor; not writing it to disk", path)
            return
        await self.disk_write_text(path, text)

    async def _follow(self, uri: str, selection: types.Range | None) -> None:
        if self._policy().settings.follow_edits:
            self.bridge.show_document(uri, selection)  # not waited on


def _signal() -> AbortSignal | None:
    getter = CURRENT_SIGNAL.get()
    return getter() if getter is not None else None


def _label(label: str) -> str:
    return label if label.startswith("pi") else f"pi: {label}"


def _short_diff(old: str, new: str, name: str, limit: int = 30) -> str:
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{name}", f"b/{name}", n=1, lineterm=""
        )
    )[2:]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more lines"]
    return "\n".join(lines) or "(no visible change)"
