"""Running ``pi-lsp run`` as a subprocess, and OpenAI Chat Completions SSE chunks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pi_lsp.ai.env_keys import is_secret_env_name

ROOT = Path(__file__).resolve().parents[2]


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment without any key, sessions and temp files under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not is_secret_env_name(k)}
    env.update(
        PI_LSP_DATA_DIR=str(tmp / "data"),
        XDG_CACHE_HOME=str(tmp / "cache"),  # request templates (cli/prefetch.py) stay here
        TMPDIR=str(tmp),
        PYTHONUNBUFFERED="1",
        **extra,
    )
    return env


def pi_run(
    args: list[str], env: dict[str, str], *, timeout: float = 60, stdin: str | None = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", "run", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def faux_script(path: Path, responses: list[dict[str, Any]], **kw: Any) -> Path:
    path.write_text(json.dumps({"responses": responses, **kw}))
    return path


# ------------------------------------------------------------------ OpenAI SSE chunks


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def text_chunks(text: str, *, every: int = 4) -> list[dict[str, Any]]:
    out = [_chunk({"role": "assistant", "content": ""})]
    out += [_chunk({"content": text[i : i + every]}) for i in range(0, len(text), every)]
    out.append(_chunk({}, "stop"))
    out.append(usage_chunk())
    return out


def tool_call_chunks(
    name: str, arguments: dict[str, Any], call_id: str = "call_1"
) -> list[dict[str, Any]]:
    raw = json.dumps(arguments)
    out = [
        _chunk(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ],
            }
        )
    ]
    out += [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw[i : i + 7]}}]})
        for i in range(0, len(raw), 7)
    ]
    out.append(_chunk({}, "tool_calls"))
    out.append(usage_chunk())
    return out


def usage_chunk(prompt: int = 120, completion: int = 30) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
