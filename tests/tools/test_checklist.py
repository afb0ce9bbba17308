"""docs/reference/pi.md#checklist, items 66-84: the coding-agent tools, one test (or more) per
item."""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path

import pytest
from unidiff import PatchSet

from pi_lsp.agent.types import AgentToolResult
from pi_lsp.tools import (
    BashOptions,
    BashTool,
    DiskWorkspace,
    Document,
    EditTool,
    FindTool,
    GrepTool,
    LsTool,
    ProcessRegistry,
    ReadTool,
    ToolError,
    WriteTool,
)

from .conftest import call, text, wait_group_gone

# ---------------------------------------------------------------------------------- read


async def test_66_read_over_2000_lines_shows_2000_and_continuation_hint(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "big.txt").write_text("\n".join(f"line {i}" for i in range(1, 2501)))
    out = text(await call(ReadTool(ws), {"path": "big.txt"}))
    body, hint = out.split("\n\n")
    assert body.split("\n") == [f"line {i}" for i in range(1, 2001)]
    assert hint == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    cont = text(await call(ReadTool(ws), {"path": "big.txt", "offset": 2001}))
    assert cont.split("\n")[0] == "line 2001"
    assert cont.endswith("line 2500")


async def test_66_read_counts_the_trailing_newline_as_pi_does(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 2501)))
    out = text(await call(ReadTool(ws), {"path": "big.txt"}))
    assert out.endswith("[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]")


async def test_67_read_offset_beyond_end_of_file(ws: DiskWorkspace, root: Path) -> None:
    (root / "a.txt").write_text("a\nb\nc")
    with pytest.raises(ToolError) as err:
        await call(ReadTool(ws), {"path": "a.txt", "offset": 10})
    assert str(err.value) == "Offset 10 is beyond end of file (3 lines total)"


async def test_68_read_limit_before_eof_says_how_many_lines_remain(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "a.txt").write_text("\n".join(str(i) for i in range(1, 11)))
    out = text(await call(ReadTool(ws), {"path": "a.txt", "offset": 3, "limit": 2}))
    assert out == "3\n4\n\n[6 more lines in file. Use offset=5 to continue.]"
    last = text(await call(ReadTool(ws), {"path": "a.txt", "offset": 9, "limit": 5}))
    assert last == "9\n10"


# ---------------------------------------------------------------------------------- edit


async def test_69_edit_exact_unique_match(ws: DiskWorkspace, root: Path) -> None:
    lines = [f"line {i}" for i in range(1, 21)]
    (root / "f.py").write_text("\n".join(lines) + "\n")
    result = await call(
        EditTool(ws), {"path": "f.py", "edits": [{"oldText": "line 10\n", "newText": "ten\n"}]}
    )
    assert text(result) == "Successfully replaced 1 block(s) in f.py."
    lines[9] = "ten"
    assert (root / "f.py").read_text() == "\n".join(lines) + "\n"
    details = result.details
    assert details["firstChangedLine"] == 10
    assert details["diff"].split("\n") == [
        "    ...",
        "  6 line 6",
        "  7 line 7",
        "  8 line 8",
        "  9 line 9",
        "-10 line 10",
        "+10 ten",
        " 11 line 11",
        " 12 line 12",
        " 13 line 13",
        " 14 line 14",
        "    ...",
    ]
    patch = PatchSet(details["patch"])
    assert len(patch) == 1
    assert patch[0].source_file == "f.py"
    assert patch[0].target_file == "f.py"
    hunk = patch[0][0]
    assert (hunk.source_start, hunk.source_length, hunk.target_start) == (6, 9, 6)
    assert [ln.value for ln in hunk if ln.is_removed] == ["line 10\n"]
    assert [ln.value for ln in hunk if ln.is_added] == ["ten\n"]


async def test_70_edit_with_two_occurrences_is_refused(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.py").write_text("x = 1\ny = 2\nx = 1\n")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "f.py", "edits": [{"oldText": "x = 1", "newText": "x"}]})
    assert str(err.value) == (
        "Found 2 occurrences of the text in f.py. The text must be unique. "
        "Please provide more context to make it unique."
    )
    assert (root / "f.py").read_text() == "x = 1\ny = 2\nx = 1\n"


async def test_70_edit_duplicates_in_a_multi_edit_name_the_edit(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "f.py").write_text("a\nx\nx\n")
    with pytest.raises(ToolError) as err:
        await call(
            EditTool(ws),
            {
                "path": "f.py",
                "edits": [
                    {"oldText": "a", "newText": "b"},
                    {"oldText": "x", "newText": "y"},
                ],
            },
        )
    assert str(err.value) == (
        "Found 2 occurrences of edits[1] in f.py. Each oldText must be unique. "
        "Please provide more context to make it unique."
    )


async def test_71_fuzzy_match_keeps_untouched_lines_byte_identical(
    ws: DiskWorkspace, root: Path
) -> None:
    original = (
        "first line with trailing spaces   \n"
        "print(\u201chello\u201d)   \n"
        "it\u2019s \u2014 a dash\n"
        "last \u201cquoted\u201d line  \n"
    )
    (root / "f.py").write_bytes(original.encode())
    # the model typed straight quotes and no trailing spaces
    result = await call(
        EditTool(ws),
        {"path": "f.py", "edits": [{"oldText": 'print("hello")', "newText": 'print("bye")'}]},
    )
    assert text(result) == "Successfully replaced 1 block(s) in f.py."
    lines = (root / "f.py").read_bytes().decode().split("\n")
    assert lines[0] == "first line with trailing spaces   "
    assert lines[1] == 'print("bye")'  # the touched line comes from the normalised base
    assert lines[2] == "it\u2019s \u2014 a dash"
    assert lines[3] == "last \u201cquoted\u201d line  "


async def test_71_fuzzy_match_on_dashes_and_unicode_spaces(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_text("keep\u00a0me\na \u2013 b\u00a0c\n")
    await call(
        EditTool(ws), {"path": "f.txt", "edits": [{"oldText": "a - b c", "newText": "done"}]}
    )
    assert (root / "f.txt").read_text() == "keep\u00a0me\ndone\n"


async def test_72_edit_preserves_bom_and_crlf(ws: DiskWorkspace, root: Path) -> None:
    original = "\ufeffone\r\ntwo\r\nthree\r\n"
    (root / "f.txt").write_bytes(original.encode())
    await call(
        EditTool(ws),
        {"path": "f.txt", "edits": [{"oldText": "two\nthree", "newText": "2\n2.5\n3"}]},
    )
    assert (root / "f.txt").read_bytes() == "\ufeffone\r\n2\r\n2.5\r\n3\r\n".encode()


async def test_73_overlapping_edits_are_refused(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_text("abcdef\n")
    with pytest.raises(ToolError) as err:
        await call(
            EditTool(ws),
            {
                "path": "f.txt",
                "edits": [
                    {"oldText": "bcd", "newText": "X"},
                    {"oldText": "abc", "newText": "Y"},
                ],
            },
        )
    assert str(err.value) == (
        "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target "
        "disjoint regions."
    )


async def test_73_empty_old_text_is_refused(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_text("abc\n")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "f.txt", "edits": [{"oldText": "", "newText": "x"}]})
    assert str(err.value) == "oldText must not be empty in f.txt."
    with pytest.raises(ToolError) as err:
        await call(
            EditTool(ws),
            {
                "path": "f.txt",
                "edits": [
                    {"oldText": "a", "newText": "b"},
                    {"oldText": "", "newText": "x"},
                ],
            },
        )
    assert str(err.value) == "edits[1].oldText must not be empty in f.txt."


async def test_73_identical_result_is_refused(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_text("abc\n")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "f.txt", "edits": [{"oldText": "b", "newText": "b"}]})
    assert str(err.value) == (
        "No changes made to f.txt. The replacement produced identical content. This might "
        "indicate an issue with special characters or the text not existing as expected."
    )
    with pytest.raises(ToolError) as err:
        await call(
            EditTool(ws),
            {
                "path": "f.txt",
                "edits": [
                    {"oldText": "a", "newText": "a"},
                    {"oldText": "c", "newText": "c"},
                ],
            },
        )
    assert str(err.value) == (
        "No changes made to f.txt. The replacements produced identical content."
    )


async def test_73_empty_edits_list_is_refused(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_text("abc\n")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "f.txt", "edits": []})
    assert str(err.value) == (
        "Edit tool input is invalid. edits must contain at least one replacement."
    )


async def test_74_legacy_old_text_new_text_and_edits_as_json_string(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "f.txt").write_text("alpha\nbeta\ngamma\n")
    tool = EditTool(ws)
    await call(tool, {"path": "f.txt", "oldText": "alpha", "newText": "ALPHA"})
    await call(tool, {"path": "f.txt", "edits": '[{"oldText": "beta", "newText": "BETA"}]'})
    await call(
        tool,
        {
            "path": "f.txt",
            "edits": '[{"oldText": "BETA", "newText": "b"}]',
            "oldText": "gamma",
            "newText": "g",
        },
    )
    assert (root / "f.txt").read_text() == "ALPHA\nb\ng\n"
    prepared = tool.prepare_arguments({"path": "p", "oldText": "a", "newText": "b"})
    assert prepared == {"path": "p", "edits": [{"oldText": "a", "newText": "b"}]}


class _YieldingWorkspace(DiskWorkspace):
    """Reads yield to the event loop many times, so unserialised edits would interleave."""

    async def read_document(self, path: Path) -> Document:
        for _ in range(20):
            await asyncio.sleep(0)
        return await super().read_document(path)


async def test_75_concurrent_edits_of_one_file_both_apply_in_call_order(root: Path) -> None:
    ws = _YieldingWorkspace([root])
    (root / "f.py").write_text("x = 1\n")
    tool = EditTool(ws)
    # the second edit only matches after the first one landed
    first, second = await asyncio.gather(
        call(tool, {"path": "f.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}),
        call(tool, {"path": "f.py", "edits": [{"oldText": "x = 2", "newText": "x = 3"}]}),
    )
    assert text(first) == text(second) == "Successfully replaced 1 block(s) in f.py."
    assert (root / "f.py").read_text() == "x = 3\n"


async def test_75_edits_and_writes_to_different_spellings_of_a_file_share_one_queue(
    root: Path,
) -> None:
    ws = _YieldingWorkspace([root])
    (root / "d").mkdir()
    (root / "link").symlink_to(root / "d")
    (root / "d" / "f.txt").write_text("v1\n")
    results = await asyncio.gather(
        call(EditTool(ws), {"path": "d/f.txt", "edits": [{"oldText": "v1", "newText": "v2"}]}),
        call(EditTool(ws), {"path": "link/f.txt", "edits": [{"oldText": "v2", "newText": "v3"}]}),
        call(EditTool(ws), {"path": "./d/../d/f.txt", "oldText": "v3", "newText": "v4"}),
    )
    assert len(results) == 3
    assert (root / "d" / "f.txt").read_text() == "v4\n"


# --------------------------------------------------------------------------------- write


async def test_76_write_creates_parents_and_reports_utf16_length(
    ws: DiskWorkspace, root: Path
) -> None:
    content = "h\u00e9llo \U0001f600\n"  # é is 1 UTF-16 unit, the emoji 2
    result = await call(WriteTool(ws), {"path": "a/b/c.txt", "content": content})
    assert text(result) == "Successfully wrote 9 bytes to a/b/c.txt"
    assert (root / "a" / "b" / "c.txt").read_text(encoding="utf-8") == content
    assert result.details["created"] is True
    again = await call(WriteTool(ws), {"path": "a/b/c.txt", "content": "x"})
    assert again.details["created"] is False
    assert (root / "a" / "b" / "c.txt").read_text() == "x"


# ---------------------------------------------------------------------------------- bash


async def test_77_bash_exit_codes(ws: DiskWorkspace) -> None:
    with pytest.raises(ToolError) as err:
        await call(BashTool(ws), {"command": "echo out; echo err >&2; exit 1"})
    assert str(err.value).endswith("Command exited with code 1")
    assert "out\nerr" in str(err.value)
    assert text(await call(BashTool(ws), {"command": "true"})) == "(no output)"
    with pytest.raises(ToolError) as err:
        await call(BashTool(ws), {"command": "exit 4"})
    assert str(err.value) == "(no output)\n\nCommand exited with code 4"


async def test_78_bash_timeout_kills_the_process_group(ws: DiskWorkspace) -> None:
    registry = ProcessRegistry()
    tool = BashTool(ws, BashOptions(process_registry=registry))
    updates: list[AgentToolResult] = []
    with pytest.raises(ToolError) as err:
        await call(
            tool,
            {"command": "echo pgid=$$; sleep 5 & sleep 5", "timeout": 1},
            on_update=updates.append,
        )
    message = str(err.value)
    assert message.endswith("Command timed out after 1 seconds")
    pgid = int(message.split("pgid=")[1].split("\n")[0])
    await wait_group_gone(pgid)
    assert registry.live_count() == 0


async def test_79_bash_keeps_last_2000_lines_and_saves_full_output(ws: DiskWorkspace) -> None:
    result = await call(BashTool(ws), {"command": "seq 1 3000"})
    out = text(result)
    body, footer = out.rsplit("\n\n", 1)
    assert body.split("\n") == [str(i) for i in range(1001, 3001)]
    full_path = result.details["fullOutputPath"]
    assert footer == f"[Showing lines 1001-3000 of 3000. Full output: {full_path}]"
    assert Path(full_path).read_text() == "".join(f"{i}\n" for i in range(1, 3001))
    assert oct(os.stat(full_path).st_mode & 0o777) == "0o600"
    assert result.details["truncation"]["truncatedBy"] == "lines"
    os.unlink(full_path)


async def test_80_bash_streams_accumulated_output_at_most_every_100ms(
    ws: DiskWorkspace,
) -> None:
    loop = asyncio.get_running_loop()
    updates: list[tuple[float, str | None]] = []

    def on_update(partial: AgentToolResult) -> None:
        first = partial.content[0].text if partial.content else None  # type: ignore[union-attr]
        updates.append((loop.time(), first))

    command = "for i in $(seq 1 12); do echo line$i; sleep 0.03; done"
    result = await call(BashTool(ws), {"command": command}, on_update=on_update)
    assert text(result) == "".join(f"line{i}\n" for i in range(1, 13))
    assert updates[0][1] is None  # the immediate empty update
    texts = [t for _, t in updates[1:]]
    assert texts[-1] == text(result)
    for earlier, later in itertools.pairwise(texts):
        assert later is not None
        assert earlier is not None
        assert later.startswith(earlier)  # accumulated, not deltas
    throttled = [t for t, _ in updates[1:-1]]  # the last one is the final flush
    gaps = [b - a for a, b in itertools.pairwise(throttled)]
    assert all(gap >= 0.09 for gap in gaps), gaps
    assert 2 <= len(updates) <= 12


# ------------------------------------------------------------------------ grep, ls, find


async def test_81_grep_caps_at_100_matches_and_reports_no_match(
    ws: DiskWorkspace, root: Path, grep_backend: str
) -> None:
    (root / "many.txt").write_text("".join(f"match {i}\n" for i in range(150)))
    tool = GrepTool(ws, backend=grep_backend)  # type: ignore[arg-type]
    result = await call(tool, {"pattern": "match"})
    body, notice = text(result).split("\n\n")
    assert body.split("\n") == [f"many.txt:{i + 1}: match {i}" for i in range(100)]
    assert notice == "[100 matches limit reached. Use limit=200 for more, or refine pattern]"
    assert result.details == {"matchLimitReached": 100}
    assert text(await call(tool, {"pattern": "zebra"})) == "No matches found"


async def test_82_ls_sorts_case_insensitively_marks_dirs_and_includes_dotfiles(
    ws: DiskWorkspace, root: Path
) -> None:
    for name in ("b.txt", "A.txt", ".hidden", "c"):
        (root / name).write_text("x")
    (root / "Dir").mkdir()
    (root / "apple").mkdir()
    out = text(await call(LsTool(ws), {}))
    assert out.split("\n") == [".hidden", "A.txt", "apple/", "b.txt", "c", "Dir/"]
    (root / "empty").mkdir()
    assert text(await call(LsTool(ws), {"path": "empty"})) == "(empty directory)"


async def test_83_find_returns_relative_posix_paths(ws: DiskWorkspace, root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("")
    (root / "src" / "b.py").write_text("")
    (root / "c.txt").write_text("")
    out = text(await call(FindTool(ws), {"pattern": "*.py"}))
    assert out.split("\n") == ["src/b.py", "src/pkg/a.py"]
    inner = text(await call(FindTool(ws), {"pattern": "*.py", "path": "src"}))
    assert inner.split("\n") == ["b.py", "pkg/a.py"]
    none = await call(FindTool(ws), {"pattern": "*.rs"})
    assert text(none) == "No files found matching pattern"


async def test_84_relative_paths_tilde_and_at_prefix(
    ws: DiskWorkspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "notes.txt").write_text("hello")
    monkeypatch.setenv("HOME", str(root))
    read = ReadTool(ws)
    for spelling in (
        "notes.txt",
        "./notes.txt",
        "@notes.txt",
        "~/notes.txt",
        str(root / "notes.txt"),
        f"file://{root}/notes.txt",
        "sub/../notes.txt",
    ):
        assert text(await call(read, {"path": spelling})) == "hello", spelling
    (root / "my notes.txt").write_text("spaced")
    assert text(await call(read, {"path": "my\u202fnotes.txt"})) == "spaced"
    assert ws.resolve("~") == root
