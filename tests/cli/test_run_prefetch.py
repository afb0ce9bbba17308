"""``pi-lsp run``'s early first request, end to end: real ``pi-lsp run`` processes against
the scripted server on 127.0.0.1. The second run of the same command sends its first
request at spawn from the first run's template (one request, answered, template untouched);
a stale template costs one closed request and is replaced; no template holds the key."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
from pathlib import Path

from tests.support.http_server import ScriptedHTTPServer, sse_response

from .helpers import clean_env, pi_run, text_chunks

FAKE_KEY = "sk-compat-FAKE-prefetch-77aa55cc"


def command(srv: ScriptedHTTPServer, work: Path, prompt: str) -> list[str]:
    return [
        prompt,
        "--cwd",
        str(work),
        "--provider",
        "openai-compatible",
        "--base-url",
        f"{srv.url}/v1",
        "--model",
        "local-model",
    ]


def templates(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "pi-lsp" / "requests").glob("*.json"))


def system_prompt(body: object) -> str:
    assert isinstance(body, dict)
    return str(body["messages"][0]["content"])


async def test_the_second_run_sends_its_first_request_from_the_template(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path, OPENAI_COMPATIBLE_API_KEY=FAKE_KEY)
    second = 'second "prompt" — é\nwith a newline'
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(text_chunks("First answer.")))
        first = await _run(command(srv, work, "first prompt"), env)
        assert first.returncode == 0, first.stderr
        assert "First answer." in first.stdout
        [template] = templates(tmp_path)
        assert stat.S_IMODE(template.stat().st_mode) == 0o600
        stored = template.read_text()
        assert FAKE_KEY not in stored
        assert "first prompt" not in stored
        before = template.stat()

        srv.enqueue(sse_response(text_chunks("Second answer.")))
        result = await _run(command(srv, work, second), env)
        assert result.returncode == 0, result.stderr
        assert "Second answer." in result.stdout
        assert len(srv.requests) == 2  # one request per run: the early one was the answer
        one, two = srv.requests
        assert two.json["messages"][1]["content"] == second
        assert system_prompt(two.json) == system_prompt(one.json)
        assert two.headers["authorization"] == f"Bearer {FAKE_KEY}"
        after = template.stat()
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
        assert templates(tmp_path) == [template]


async def test_a_stale_template_costs_one_closed_request_and_is_replaced(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(text_chunks("First answer.")))
        assert (await _run(command(srv, work, "one"), env)).returncode == 0
        [template] = templates(tmp_path)
        data = json.loads(template.read_text())
        data["body"][0] = data["body"][0].replace("expert coding assistant", "STALE assistant")
        template.write_text(json.dumps(data))

        answers = ["Answer A.", "Answer B."]  # in the order the two requests arrive
        srv.enqueue(*(sse_response(text_chunks(a)) for a in answers))
        result = await _run(command(srv, work, "two"), env)
        assert result.returncode == 0, result.stderr
        second = srv.requests[1:]
        stale = [i for i, r in enumerate(second) if "STALE" in system_prompt(r.json)]
        real = [i for i, r in enumerate(second) if "STALE" not in system_prompt(r.json)]
        assert (len(stale), len(real)) == (1, 1)  # the early (stale) one and the run's own
        assert answers[real[0]] in result.stdout  # the run printed its own request's answer
        assert answers[stale[0]] not in result.stdout
        assert system_prompt(second[real[0]].json) == system_prompt(srv.requests[0].json)
        assert "STALE" not in template.read_text()


async def test_turned_off_no_template_is_kept(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path, PI_LSP_NO_PREFETCH="1")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(text_chunks("Answer.")))
        assert (await _run(command(srv, work, "one"), env)).returncode == 0
    assert templates(tmp_path) == []


async def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(pi_run, args, env)  # the scripted server runs meanwhile
