"""docs/editors.md's eglot set-ups, verbatim, in batch Emacs (smoke tests: the answer reaches
the user — streamed into ``*pi*``, or as a message with the plain set-up — and the edit
lands)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import tool_reply, write_script

DOCS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"


def driver(buffer: str, marker: str, label: str) -> str:
    """Open a.py, start eglot, ``pi-prompt``, wait until ``buffer`` shows ``marker``, print
    ``buffer`` as ``label:[…]`` and a.py as ``BUF:[…]``."""
    return rf"""
(setq eglot-sync-connect t)
(find-file (expand-file-name "a.py" (getenv "PI_TEST_ROOT")))
(python-mode)
(apply #'eglot (eglot--guess-contact))
(let ((deadline (+ (float-time) 30)))
  (while (and (not (eglot-current-server)) (< (float-time) deadline))
    (accept-process-output nil 0.05)))
(pi-prompt "change it")
(let ((deadline (+ (float-time) 30)))
  (while (and (< (float-time) deadline)
              (not (with-current-buffer {buffer}
                     (string-match-p "{marker}" (buffer-string)))))
    (accept-process-output nil 0.05)))
(princ (format "{label}:[%s]\n" (with-current-buffer {buffer} (buffer-string))))
(princ (format "BUF:[%s]\n" (with-current-buffer "a.py" (buffer-string))))
(kill-emacs 0)
"""


def snippet(name: str) -> str:
    match = re.search(rf"<!-- snippet: {name} -->\n```elisp\n(.*?)```", DOCS.read_text(), re.S)
    assert match
    return match.group(1)


def local_server(config: str, script: Path) -> str:
    """The docs' config with this checkout's server and a faux script for the model."""
    for original, replacement in (
        (
            '("pi-lsp" :initializationOptions',
            f'("{sys.executable}" "-m" "pi_lsp" :initializationOptions',
        ),
        (
            ':provider "anthropic" :model "claude-sonnet-4-5"',
            f':provider "faux" :fauxScript "{script}"',
        ),
    ):
        assert original in config
        config = config.replace(original, replacement)
    return config


def run_docs_setup(tmp_path: Path, name: str, elisp_driver: str) -> tuple[Path, str]:
    """Run snippet ``name`` plus the driver in batch Emacs; ``(workspace, output)``."""
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("Emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    probe = subprocess.run(
        [emacs, "--batch", "-q", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        pytest.skip("eglot is not installed")
    script = write_script(
        tmp_path / "script.json",
        [
            tool_reply(
                "edit",
                {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]},
                text="Changing it.",
            ),
            {"content": [{"type": "text", "text": "Done: f returns 2."}]},
        ],
    )
    config = local_server(snippet(name), script)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    test_el = tmp_path / "test.el"
    test_el.write_text("(require 'eglot)\n(require 'cl-lib)\n" + config + elisp_driver)
    env = {
        **os.environ,
        "PI_TEST_ROOT": str(root),
        "PI_LSP_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    proc = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(test_el)],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )
    return root, proc.stdout + proc.stderr


@pytest.mark.editor
def test_docs_eglot_setup(tmp_path: Path) -> None:
    root, out = run_docs_setup(
        tmp_path, "eglot", driver('(get-buffer-create "*pi*")', "-- done --", "PI")
    )
    assert "PI:[Changing it.Done: f returns 2.\n-- done --\n]" in out, out
    assert "BUF:[def f():\n    return 2\n]" in out, out
    assert (root / "a.py").read_text() == "def f():\n    return 2\n"


@pytest.mark.editor
def test_docs_eglot_plain_setup_shows_the_answer(tmp_path: Path) -> None:
    """No ``pi/event`` handler: the answer arrives as a message naming the transcript."""
    _, out = run_docs_setup(
        tmp_path, "eglot-plain", driver("(messages-buffer)", "Transcript: ", "MESSAGES")
    )
    assert "pi: Done: f returns 2." in out, out
    transcript = Path(out.split("Transcript: ", 1)[1].split()[0])
    assert "**edit**" in transcript.read_text(encoding="utf-8")
    assert "BUF:[def f():\n    return 2\n]" in out, out
