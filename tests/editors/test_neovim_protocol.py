"""The Neovim plugin's wire names and public API, read from its Lua source (no editor needed):

- every method name lives in ``editors/neovim/lua/pi/protocol.lua``: no ``"pi/…"`` (or other
  LSP method) string literal in any other module, and every ``proto.method.X``-style reference
  names an entry that exists there;
- every name there is one the server registers (client → server) or sends (server → client),
  taken from the server itself (``create_server()``'s feature table) and from the checked-in
  ``docs/protocol.schema.json`` (kept current by tests/lsp/test_protocol_schema.py);
- every module function (``function M.name(...)``) carries LuaLS ``---@param`` annotations that
  match its parameters, so the annotations cannot drift from the code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lsprotocol import types

from pi_lsp.lsp.protocol import methods
from pi_lsp.lsp.server import create_server

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_LUA = ROOT / "editors" / "neovim" / "lua"
PROTOCOL_LUA = PLUGIN_LUA / "pi" / "protocol.lua"
SCHEMA = ROOT / "docs" / "protocol.schema.json"
# the tables of protocol.lua and what each holds
TABLES = ("method", "notification", "handled", "lsp")
METHOD_LITERAL = re.compile(r"^(pi|window|workspace|textDocument|client|\$)/")


def lua_strings(source: str) -> list[tuple[int, str]]:
    """The string literals of a Lua chunk with their line numbers, comments skipped (short
    strings with escapes, long strings ``[[...]]`` / ``[==[...]==]``, ``--`` and ``--[[ ]]``
    comments): enough of Lua's lexer to tell code from comments."""
    out: list[tuple[int, str]] = []
    i, n, line = 0, len(source), 1
    long_open = re.compile(r"\[(=*)\[")
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif source.startswith("--", i):
            m = long_open.match(source, i + 2)
            if m:
                close = "]" + m.group(1) + "]"
                end = source.find(close, m.end())
                end = n if end < 0 else end + len(close)
            else:
                end = source.find("\n", i)
                end = n if end < 0 else end
            line += source.count("\n", i, end)
            i = end
        elif c in "\"'":
            j, buf = i + 1, []
            while j < n and source[j] != c:
                if source[j] == "\\":
                    buf.append(source[j : j + 2])
                    j += 2
                else:
                    buf.append(source[j])
                    j += 1
            out.append((line, "".join(buf)))
            line += source.count("\n", i, j)
            i = j + 1
        elif (m := long_open.match(source, i)) is not None:
            close = "]" + m.group(1) + "]"
            end = source.find(close, m.end())
            end = n if end < 0 else end
            out.append((line, source[m.end() : end]))
            line += source.count("\n", i, end)
            i = end + len(close)
        else:
            i += 1
    return out


def method_literals(source: str) -> list[tuple[int, str]]:
    return [(ln, s) for ln, s in lua_strings(source) if METHOD_LITERAL.match(s)]


def protocol_tables() -> dict[str, dict[str, str]]:
    """protocol.lua's name tables: ``M.<table> = { key = "name", ... }``, one entry a line
    (any other line in a table fails here, so an entry cannot hide from the checks)."""
    source = PROTOCOL_LUA.read_text(encoding="utf-8")
    tables: dict[str, dict[str, str]] = {}
    for name in TABLES:
        m = re.search(rf"^M\.{name} = \{{\n(.*?)^\}}", source, re.M | re.S)
        assert m, f"protocol.lua has no M.{name} table"
        entries: dict[str, str] = {}
        for row in m.group(1).splitlines():
            if not row.strip() or row.strip().startswith("--"):
                continue
            e = re.fullmatch(r'\s+(\w+) = "([^"]+)",', row)
            assert e, f'M.{name}: not a `key = "name",` line: {row!r}'
            assert e.group(1) not in entries, f"M.{name}.{e.group(1)} twice"
            entries[e.group(1)] = e.group(2)
        tables[name] = entries
    return tables


def plugin_files() -> list[Path]:
    plugin_dir = PLUGIN_LUA.parent / "plugin"
    files = sorted(PLUGIN_LUA.rglob("*.lua")) + sorted(plugin_dir.rglob("*.lua"))
    assert len(files) > 10
    return files


# --- method names in one module -------------------------------------------------------------


def test_the_scanner_sees_literals_and_skips_comments() -> None:
    """The check can fail: a literal in code is found, the same text in comments is not."""
    src = (
        "--- pi/event in a doc comment\n"
        'local a = "pi/prompt" -- "pi/abort" in a comment\n'
        "--[[ 'pi/steer' in a block comment ]]\n"
        "local b = { ['window/showMessageRequest'] = 1, [[pi/queue]] }\n"
        'local c = "say \\"pi/x\\"" .. "x"\n'
    )
    assert method_literals(src) == [
        (2, "pi/prompt"),
        (4, "window/showMessageRequest"),
        (4, "pi/queue"),
    ]


def test_no_method_name_literal_outside_protocol_lua() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{ln}: {text!r}"
        for path in plugin_files()
        if path != PROTOCOL_LUA
        for ln, text in method_literals(path.read_text(encoding="utf-8"))
    ]
    assert not found, "method names belong in editors/neovim/lua/pi/protocol.lua:\n" + "\n".join(
        found
    )
    # and protocol.lua does hold them (the scan is not blind)
    assert len(method_literals(PROTOCOL_LUA.read_text(encoding="utf-8"))) >= 25


def test_every_protocol_reference_names_an_entry() -> None:
    """``proto.method.setMdoe`` would be nil at run time (luacheck cannot see it)."""
    tables = protocol_tables()
    ref = re.compile(r"\bproto\.(" + "|".join(TABLES) + r")\.(\w+)")
    bad, used = [], 0
    for path in plugin_files():
        for m in ref.finditer(path.read_text(encoding="utf-8")):
            used += 1
            if m.group(2) not in tables[m.group(1)]:
                bad.append(f"{path.relative_to(ROOT)}: proto.{m.group(1)}.{m.group(2)}")
    assert not bad, bad
    assert used >= 30


def test_protocol_lua_names_only_what_the_server_registers_or_sends() -> None:
    tables = protocol_tables()
    registered = set(create_server().protocol.fm.features)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]
    # client -> server requests: the server has a handler, and they are contract requests
    for key, name in tables["method"].items():
        assert name in registered, f"the server registers no {name}"
        assert name in methods.REQUESTS, name
        assert name in schema["RequestMethod"]["enum"], name
        assert name == "pi/" + key, f"M.method.{key} = {name!r}: the key is the name after pi/"
    # client -> server notifications
    for key, name in tables["notification"].items():
        assert name in registered, f"the server registers no {name}"
        assert name in schema["ClientNotificationMethod"]["enum"], name
        assert name == "pi/" + key
    # server -> client: the plugin handles exactly what the server may send
    sent = schema["ServerMethod"]["enum"]
    assert sorted(tables["handled"].values()) == sorted(sent)
    for key, name in tables["handled"].items():
        assert name == "pi/" + key
    # standard LSP methods are lsprotocol's names
    lsp_names = {v for v in vars(types).values() if isinstance(v, str) and "/" in v}
    for name in tables["lsp"].values():
        assert name in lsp_names, f"{name} is no LSP method"
    assert tables["lsp"]["showMessageRequest"] == types.WINDOW_SHOW_MESSAGE_REQUEST


# --- LuaLS annotations on the public API ----------------------------------------------------

FUNC = re.compile(r"^function M\.(\w+)\(([^)]*)\)", re.M)
PARAM = re.compile(r"^---@param (\.\.\.|[A-Za-z_]\w*)(\?)? \S")


def annotation_problems(source: str) -> list[str]:
    """For each ``function M.f(a, b)``: the ``---@param`` lines of the comment block above it
    must name exactly its parameters (``_`` may go unannotated), each with a type."""
    lines = source.splitlines()
    problems = []
    for m in FUNC.finditer(source):
        name = m.group(1)
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        row = source.count("\n", 0, m.start()) - 1
        annotated = []
        while row >= 0 and lines[row].startswith("---"):
            p = PARAM.match(lines[row])
            if lines[row].startswith("---@param") and not p:
                problems.append(f"M.{name}: malformed {lines[row]!r}")
            if p:
                annotated.insert(0, p.group(1))
            row -= 1
        wanted = [p for p in params if p != "_"]
        if [a for a in annotated if a != "_"] != wanted:
            problems.append(f"M.{name}({', '.join(params)}): ---@param for {annotated}")
    return problems


def test_the_annotation_check_can_fail() -> None:
    src = (
        "---@param a string\n---@param b? integer\nfunction M.ok(a, b) end\n\n"
        "function M.bare(x) end\n\n"
        "---@param y string\nfunction M.stale(x) end\n\n"
        "--- no args\nfunction M.none() end\n\n"
        "---@param _ any\n---@param p table\nfunction M.handler(_, p) end\n"
    )
    assert annotation_problems(src) == [
        "M.bare(x): ---@param for []",
        "M.stale(x): ---@param for ['y']",
    ]


def test_every_module_function_is_annotated() -> None:
    problems = [
        f"{path.relative_to(ROOT)}: {p}"
        for path in sorted((PLUGIN_LUA / "pi").glob("*.lua"))
        for p in annotation_problems(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)


def test_state_and_config_declare_their_types() -> None:
    state = (PLUGIN_LUA / "pi" / "state.lua").read_text(encoding="utf-8")
    config = (PLUGIN_LUA / "pi" / "config.lua").read_text(encoding="utf-8")
    for cls in ("pi.State", "pi.Question", "pi.PermissionQuestion", "pi.Hunk", "pi.Queue"):
        assert f"---@class {cls}\n" in state, cls
    assert "---@type pi.State\n" in state
    assert "---@class pi.Options\n" in config
    assert "---@type pi.Options\nM.defaults" in config
