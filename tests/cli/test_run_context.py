"""``pi-lsp run`` with a project's context, skills and templates (issue 37, docs/context.md):
the request carries AGENTS.md under Pi's header, ``/review x`` and ``/skill:name`` arrive
expanded, an unknown ``/name`` is sent as typed with a warning, project files load only when
trusted (``--approve``), and ``--show-context`` / ``--list-commands`` print what would load."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.resources.trees import Tree, build, write
from tests.support.http_server import ScriptedHTTPServer, sse_response

from .helpers import clean_env, pi_run, text_chunks
from .test_run_http import start

KEY = "sk-compat-FAKE-0000"


def _env(tmp_path: Path, tree: Tree) -> dict[str, str]:
    return clean_env(
        tmp_path,
        HOME=str(tree.home),
        PI_CODING_AGENT_DIR=str(tree.agent),
        OPENAI_COMPATIBLE_API_KEY=KEY,
        PI_LSP_NO_PREFETCH="1",
    )


async def _run(tmp_path: Path, tree: Tree, prompt: str, *flags: str) -> tuple[dict, str]:  # type: ignore[type-arg]
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(text_chunks("done")))
        proc = await start(
            [
                prompt,
                "--cwd",
                str(tree.cwd),
                "--provider",
                "openai-compatible",
                "--base-url",
                srv.url + "/v1",
                "--model",
                "test-model",
                "--no-save",
                *flags,
            ],
            _env(tmp_path, tree),
        )
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    return srv.requests[0].json, err.decode()


def _user_text(body: dict) -> str:  # type: ignore[type-arg]
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


async def test_approved_run_sends_context_skills_and_an_expanded_template(tmp_path: Path) -> None:
    tree = build(tmp_path)
    body, err = await _run(tmp_path, tree, '/review src/x.py "error handling"', "--approve")
    system = body["messages"][0]["content"]
    assert "<project_context>\n\nProject-specific instructions and guidelines:" in system
    assert "Run tests with `make check`. Never touch `vendor/`." in system
    assert "<name>release</name>" in system
    assert _user_text(body).startswith("Review src/x.py with a focus on error handling.")
    assert "warning" not in err


async def test_a_skill_command_and_an_unknown_name(tmp_path: Path) -> None:
    tree = build(tmp_path)
    body, _ = await _run(tmp_path, tree, "/skill:user-skill go", "--no-approve")
    assert _user_text(body).startswith('<skill name="user-skill"')
    assert _user_text(body).endswith("</skill>\n\ngo")
    body, err = await _run(tmp_path, tree, "/nosuch arg", "--no-approve")
    assert _user_text(body) == "/nosuch arg"
    assert "pi-lsp run: warning: /nosuch: no such prompt template or skill; sent as typed" in err


async def test_without_a_terminal_project_files_are_skipped_and_said(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.cwd / ".pi" / "SYSTEM.md", "PROJECT SYSTEM")
    body, err = await _run(tmp_path, tree, "/review a.py")
    system = body["messages"][0]["content"]
    assert "PROJECT SYSTEM" not in system
    assert "make check" in system
    assert "<name>release</name>" not in system
    assert "<name>user-skill</name>" in system
    assert _user_text(body) == "The user's review template (loses to the project's).\n"
    assert "the project's own files were not loaded (pass --approve" in err
    assert str(tree.cwd / ".pi" / "SYSTEM.md") in err


async def test_flags_turn_each_part_off(tmp_path: Path) -> None:
    tree = build(tmp_path)
    body, _ = await _run(
        tmp_path,
        tree,
        "/review a.py",
        "--approve",
        "--no-context-files",
        "--no-skills",
        "--no-prompt-templates",
        "--system-prompt",
        "CUSTOM BASE",
        "--append-system-prompt",
        "EXTRA",
    )
    system = body["messages"][0]["content"]
    assert system.startswith("CUSTOM BASE\n\nEXTRA\nCurrent date: ")
    assert _user_text(body) == "/review a.py"


def test_show_context_and_list_commands_print_json_and_exit(tmp_path: Path) -> None:
    tree = build(tmp_path)
    env = _env(tmp_path, tree)
    res = pi_run(["--show-context", "--cwd", str(tree.cwd)], env)
    assert res.returncode == 0, res.stderr
    shown = json.loads(res.stdout)
    assert [f["path"] for f in shown["contextFiles"]][-1] == str(tree.cwd / "AGENTS.override.md")
    assert shown["trust"]["status"] == "untrusted"
    assert str(tree.cwd / ".pi" / "skills") in shown["trust"]["ignoredPaths"]
    res = pi_run(["--show-context", "--approve", "--cwd", str(tree.cwd)], env)
    assert "release" in [s["name"] for s in json.loads(res.stdout)["skills"]]
    res = pi_run(["--list-commands", "--approve", "--cwd", str(tree.cwd)], env)
    commands = json.loads(res.stdout)["commands"]
    review = next(c for c in commands if c["name"] == "review")
    assert review == {
        "name": "review",
        "description": "Review a file",
        "argumentHint": "<file> [focus]",
        "source": "prompt",
        "path": str(tree.cwd / ".pi" / "prompts" / "review.md"),
    }


def test_json_output_starts_with_what_was_loaded(tmp_path: Path) -> None:
    tree = build(tmp_path)
    script = write(
        tmp_path / "s.json",
        json.dumps({"responses": [{"content": [{"type": "text", "text": "hi"}]}]}),
    )
    res = pi_run(
        ["/standup", "--cwd", str(tree.cwd), "--faux-script", str(script), "--json", "--no-save"],
        _env(tmp_path, tree),
    )
    assert res.returncode == 0, res.stderr
    first = json.loads(res.stdout.splitlines()[0])["event"]
    assert first["type"] == "resources_update"
    assert first["contextFiles"][0]["path"] == str(tree.agent / "AGENTS.md")
    assert first["trust"]["status"] == "untrusted"
