"""A parent and its ``task`` children scripted by one faux script (``when`` keys a child's
responses to its prompt)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_lsp.runtime import RunConfig, SessionOptions, create_agent_session
from pi_lsp.runtime.session_factory import ConfiguredSession
from pi_lsp.sessions import SessionStore
from pi_lsp.tools.disk_workspace import DiskWorkspace


def text(t: str, **kw: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": t}], **kw}


def calls(*calls: tuple[str, dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return {
        "content": [{"type": "toolCall", "name": n, "arguments": a} for n, a in calls],
        **kw,
    }


def task(description: str, prompt: str, **kw: Any) -> tuple[str, dict[str, Any]]:
    return ("task", {"description": description, "prompt": prompt, **kw})


def write_script(path: Path, responses: list[dict[str, Any]], **kw: Any) -> str:
    path.write_text(json.dumps({"responses": responses, **kw}), encoding="utf-8")
    return str(path)


def make_session(
    tmp: Path,
    responses: list[dict[str, Any]],
    *,
    options: SessionOptions | None = None,
    cwd: Path | None = None,
    **config: Any,
) -> ConfiguredSession:
    path = write_script(tmp / "script.json", responses)
    cwd = cwd or tmp / "project"
    cwd.mkdir(exist_ok=True)
    store = SessionStore(tmp / "sessions", cwd)
    return create_agent_session(
        RunConfig(provider="faux", faux_script=path, **config),
        DiskWorkspace([cwd]),
        file=store.create(),
        options=options,
    )
