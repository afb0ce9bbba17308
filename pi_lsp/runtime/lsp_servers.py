"""The language servers a session's ``lsp`` tool may use when no editor answers (ACP,
``pi-lsp run``): ``language_servers(workspace, trusted=…)`` → a ``langserv.ServerPool`` (a
``CodeIntel``) or ``None`` when none is configured. ``lspServers`` in the user's
``<agent dir>/settings.json`` and the front end's settings always count; the project's
``.pi/lsp.json`` / ``.lsp.json`` only in a trusted project (they start programs). The front
end passes it in ``SessionOptions.code_intel`` and closes it (``await pool.aclose()``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..resources import ResourceOptions, agent_dir
from ..tools.workspace import Workspace

if TYPE_CHECKING:
    from ..langserv import ServerPool

log = logging.getLogger(__name__)


def language_servers(
    workspace: Workspace,
    *,
    trusted: bool | Callable[[], bool],
    settings: Mapping[str, Any] | None = None,
    resources: ResourceOptions | None = None,
    notify: Callable[[str], object] = lambda _: None,
    timeout: float | None = None,
) -> ServerPool | None:
    """The pool of the configured servers (``None``: none configured); each problem of the
    configuration goes to ``notify``. ``trusted`` may be a callable: asked again at each
    reload (a project trusted later gets its own servers from the next prompt on). The pool
    reloads (``ServerPool.refresh``, at the start of each prompted run) when the user's
    settings, ``.pi/lsp.json``, ``.lsp.json`` or the trust changed."""
    from ..langserv import ServerPool, load_lsp_config
    from ..langserv.config import config_files, fingerprint

    user = Path(agent_dir(resources)) / "settings.json"
    files = config_files(workspace.cwd, user)
    is_trusted = trusted if callable(trusted) else lambda: trusted

    def state() -> tuple[object, ...]:
        return (is_trusted(), fingerprint(files))

    seen = [state()]

    def load() -> Any:
        seen[0] = state()
        loaded = load_lsp_config(
            workspace.cwd, trusted=bool(seen[0][0]), user_settings=user, settings=settings
        )
        for problem in loaded.problems:
            notify(f"pi: {problem}")
        return loaded

    def changed() -> bool:
        return state() != seen[0]

    loaded = load()
    if not loaded.active:
        return None
    log.info("language servers configured: %s", ", ".join(s.name for s in loaded.active))
    if timeout is None:
        timeout = float(os.environ.get("PI_LSP_LSP_TIMEOUT", "10"))
    return ServerPool(loaded, workspace, timeout=timeout, reload=load, changed=changed)
