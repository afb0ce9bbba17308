"""Write a big saved session for the UI tier's resume measurement, through pi-lsp's own
session store (so the file is exactly what the server writes).

    python big_session.py <workspace> <xdg-data-home> [--rounds 500]

Each round is four messages: the user's question, an assistant answer with a `read` tool call,
the tool's result (40 lines), and the assistant's Markdown reply — 500 rounds make 2,000
messages with 500 tool cards. Prints the session id.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workspace", type=Path)
    ap.add_argument("data_home", type=Path)
    ap.add_argument("--rounds", type=int, default=500)
    a = ap.parse_args()
    os.environ["XDG_DATA_HOME"] = str(a.data_home)
    os.environ.pop("PI_LSP_DATA_DIR", None)

    from pi_lsp.ai.types import (
        AssistantMessage,
        TextContent,
        ToolCall,
        ToolResultMessage,
        UserMessage,
    )
    from pi_lsp.sessions.store import SessionStore

    store = SessionStore.for_workspace(a.workspace.resolve())
    session = store.create()
    body = "\n".join(f"{n:4d}  line {n} of the file, as read" for n in range(1, 41))
    for i in range(a.rounds):
        session.append_message(
            UserMessage(content=f"Question {i}: what does part {i} of app.py do?")
        )
        call = ToolCall(id=f"call_{i}", name="read", arguments={"path": "src/app.py"})
        session.append_message(
            AssistantMessage(
                content=[TextContent(text=f"Reading part {i}."), call], stop_reason="toolUse"
            )
        )
        session.append_message(
            ToolResultMessage(
                tool_call_id=call.id, tool_name="read", content=[TextContent(text=body)]
            )
        )
        reply = (
            f"Part {i} greets the user.\n\n- it **adds** two numbers\n- it prints `greet`\n\n"
            f"```python\ndef part_{i}(x):\n    return x + {i}\n```\n"
        )
        session.append_message(AssistantMessage(content=[TextContent(text=reply)]))
    session.flush()
    session.close()
    print(session.session_id)


if __name__ == "__main__":
    main()
