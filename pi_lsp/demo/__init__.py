"""The offline demo for ``pi-lsp run --demo``: an example project and a scripted model.

``copy_project()`` copies the example project (package data under ``demo/project``) to a new
temporary directory; ``demo_script()`` is the faux model's script for it: read ``greet.py``,
fix it with ``edit``, run it with ``bash``, report. Imports nothing above ``ai/``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from ..ai.providers.faux import FauxBlock, FauxResponse, FauxScript

DEMO_PROMPT = "greet.py should print 'Hello, world!'. Fix it and show me that it works."


def copy_project() -> Path:
    """A fresh temporary copy of the example project (the caller may delete it)."""
    target = Path(tempfile.mkdtemp(prefix="pi-lsp-demo-")) / "project"
    source = resources.files("pi_lsp.demo").joinpath("project")
    with resources.as_file(source) as path:
        shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def python_command() -> str:
    """How the demo's shell command starts Python on this machine."""
    return "python3" if shutil.which("python3") else sys.executable


def demo_script(*, delay_ms: float = 12.0) -> FauxScript:
    """The scripted turns (text streams in small chunks so it visibly grows)."""

    def turn(text: str, tool: str | None = None, **arguments: object) -> FauxResponse:
        blocks = [FauxBlock(type="text", text=text)]
        if tool is not None:
            blocks.append(FauxBlock(type="toolCall", name=tool, arguments=dict(arguments)))
        return FauxResponse(content=blocks)

    run = f"{python_command()} greet.py"
    return FauxScript(
        chunk_size=3,
        delay_ms=delay_ms,
        responses=[
            turn("I'll start by reading greet.py.", "read", path="greet.py"),
            turn(
                "The greeting ends with a question mark instead of an exclamation mark. Fixing it.",
                "edit",
                path="greet.py",
                edits=[{"oldText": 'name + "?"', "newText": 'name + "!"'}],
            ),
            turn("Now let me run it to check.", "bash", command=run),
            turn(
                "Done: greet.py now prints `Hello, world!` — the last character of the "
                "greeting was `?`, and it is `!` now. (This was the scripted offline demo: "
                "configure a provider to run a real model.)"
            ),
        ],
    )
