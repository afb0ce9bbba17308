"""Pure parts of the ACP front end: prompt blocks → the user message, tool titles and
locations, terminal deltas."""

from __future__ import annotations

from pathlib import Path

from acp.schema import (
    ClientCapabilities,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from pi_lsp.acp import tool_view as view
from pi_lsp.acp.prompt_input import to_message
from pi_lsp.ai.types import ImageContent, TextContent


def test_prompt_blocks_become_one_user_message() -> None:
    blocks = [
        TextContentBlock(type="text", text="fix"),
        ResourceContentBlock(type="resource_link", uri="file:///w/a%20b.py", name="a b.py"),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri="file:///w/c.py", text="print(1)"),
        ),
        ImageContentBlock(type="image", data="aGk=", mime_type="image/png"),
    ]
    message = to_message(blocks, images_allowed=True)
    assert isinstance(message.content, list)
    text, image = message.content
    assert isinstance(text, TextContent)
    assert text.text.startswith("fix @/w/a b.py")
    assert '<file path="/w/c.py">\nprint(1)\n</file>' in text.text
    assert image == ImageContent(data="aGk=", mime_type="image/png")
    plain = to_message(blocks, images_allowed=False)
    assert len(plain.content) == 1
    assert "does not accept images" in plain.content[0].text  # type: ignore[union-attr]


def test_titles_kinds_and_locations() -> None:
    cwd = Path("/w")
    assert view.title_of("read", {"path": "a.py", "offset": 3}) == "Read a.py (from line 3)"
    assert view.title_of("bash", {"command": "echo  a\n b"}) == "echo a b"
    assert view.title_of("grep", {"pattern": "TODO", "path": "src"}) == "Search for TODO in src"
    assert view.title_of("edit", {}) == "edit"
    assert [view.kind_of(n) for n in ("read", "write", "bash", "find", "mcp_x")] == [
        "read",
        "edit",
        "execute",
        "search",
        "other",
    ]
    (loc,) = view.locations_of("edit", {"path": "@src/a.py"}, cwd, {"firstChangedLine": 7})
    assert (loc.path, loc.line) == ("/w/src/a.py", 7)
    assert view.locations_of("bash", {"command": "ls"}, cwd) == []


def test_terminal_deltas_never_resend_output() -> None:
    assert view.output_delta("", "a\n") == "a\n"
    assert view.output_delta("a\n", "a\nb\n") == "b\n"
    assert view.output_delta("a\nb\n", "a\nb\n") == ""
    # a tail window that moved: only what follows the overlap
    sent = "".join(f"line {i}\n" for i in range(100))
    now = sent[500:] + "line 100\n"
    assert view.output_delta(sent, now) == "line 100\n"


def test_the_clients_mcp_servers_join_the_run_config() -> None:
    from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

    from pi_lsp.acp.mcp_servers import from_acp

    servers = from_acp(
        [
            McpServerStdio(
                name="time",
                command="uvx",
                args=["mcp-server-time"],
                env=[EnvVariable(name="TZ", value="UTC")],
            ),
            HttpMcpServer(
                type="http",
                name="docs",
                url="https://example.invalid/mcp",
                headers=[HttpHeader(name="Authorization", value="Bearer x")],
            ),
            SseMcpServer(type="sse", name="old", url="https://example.invalid/sse", headers=[]),
        ]
    )
    assert [(s.name, s.transport, s.source) for s in servers] == [
        ("time", "stdio", "acp"),
        ("docs", "http", "acp"),
    ]
    assert servers[0].args == ("mcp-server-time",)
    assert servers[0].env == {"TZ": "UTC"}
    assert servers[1].headers == {"Authorization": "Bearer x"}


def test_only_the_terminal_output_extension_gets_a_terminal() -> None:
    """Zed's display-only terminal only for a client that opted in to it; the ``terminal``
    capability is about ``terminal/*`` (never called), so it is not enough."""
    caps = ClientCapabilities(terminal=True)
    assert not view.wants_terminal(caps.field_meta)
    assert not view.wants_terminal({"terminal_output": "yes"})
    assert view.wants_terminal({"terminal_output": True})
    assert view.start_content("bash", "c1", terminal=False) == []
    assert view.start_meta("bash", "c1", Path("/w"), terminal=False) is None
    (block,) = view.final_content("bash", "c1", {}, Path("/w"), "a ``` b\n", None, False)[:1]
    assert block.type == "terminal"
    (text,) = view.final_content(
        "bash", "c1", {}, Path("/w"), "a ``` b\n", None, False, None, False
    )
    assert text.content.text == "````\na ``` b\n````"  # a fence the output cannot close
