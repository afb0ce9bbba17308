"""Subagents benchmark (schema ``pi-subagents-bench/1``): what a ``task`` call costs on top of
the child's own model time, and how 4 parallel children compare with the slowest alone
(docs/subagents.md#performance).

Faux provider, real sessions and session files in a temp directory. For each of ``--runs``:

- **overhead**: a parent calls ``task`` once; the child's one reply streams for ``--delay-ms``
  per chunk. ``overhead_ms`` = the ``task`` tool's duration (its ``tool_execution_start`` →
  ``tool_execution_end`` on the parent) − the child's model time (its assistant message's
  ``message_start`` → ``message_end``): making the child's session and file, its system
  prompt, the run, the result and the records. ``overhead_cpu_ms``: the same difference in
  the process's CPU time (``time.process_time``: what the machine's load does not inflate).
- **parallel**: 4 children in one message (chunk delays 1×, 1×, 1×, 1.5× ``--delay-ms``);
  ``parallel_ms`` = the batch (first ``task`` start → last ``task`` end); ``slowest_alone_ms``
  = the slowest child's ``task`` alone, in the same run. ``ratio`` = their quotient
  (target ≤ 1.3); ``ratio_of_pairs``: the median of each repetition's own quotient (the two
  measured back to back, under the same load).

``--printer text|json``: as ``pi-lsp run`` (``--json``) does, its printer gets every event of
the parent and of the children (written to ``/dev/null``) and its terminal permission checks
are the children's.

Not a test: ``python bench/subagents_bench.py [--runs 10] [--delay-ms 2] [--printer text]``
(``--inline-fsync``: the session files' fsyncs on the loop, the old way);
the JSON result is the last line of stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_lsp.cli.output import BashPermission, JsonPrinter, TerminalPrinter
from pi_lsp.runtime import RunConfig, SessionOptions, create_agent_session
from pi_lsp.sessions import SessionStore
from pi_lsp.sessions.fsync_worker import background_fsync
from pi_lsp.tools.disk_workspace import DiskWorkspace

SYNC = background_fsync() if "--inline-fsync" not in sys.argv else None
"""The session files' fsyncs on the background worker, as every front end does
(``--inline-fsync``: on the loop, the way ``pi-lsp run`` and ``pi-lsp acp`` used to; each
costs a few ms on a busy disk)."""
PRINTER = "none"
"""``--printer``: ``pi-lsp run``'s printer on every event (``text`` / ``json``), or none."""
SINK = open(os.devnull, "w")  # noqa: SIM115  # the printer's terminal, for the whole process
CHILD_TEXT = "word " * 120  # about 150 chunks of 4 characters


def reply(text: str, **kw: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **kw}


def tasks(*names: str) -> dict[str, Any]:
    return {
        "content": [
            {
                "type": "toolCall",
                "name": "task",
                "arguments": {"description": f"job {n}", "prompt": f"{n}: do it"},
            }
            for n in names
        ]
    }


async def one_run(root: Path, names: list[str], delays: dict[str, float]) -> dict[str, float]:
    """One parent run with ``task`` calls for ``names``; the timings it saw."""
    script = root / f"script-{time.monotonic_ns()}.json"
    responses = [
        tasks(*names),
        *(reply(CHILD_TEXT, when=n, delayMs=delays[n]) for n in names),
        reply("done"),
    ]
    script.write_text(json.dumps({"responses": responses}))
    cwd = root / "project"
    cwd.mkdir(exist_ok=True)
    options = None
    if PRINTER != "none":
        permission = BashPermission(allow_all=False, interactive=False, err=SINK)
        options = SessionOptions(
            permissions=(permission,),
            child_permissions=lambda agent, child_id: (permission.for_child(agent, child_id),),
        )
    session = create_agent_session(
        RunConfig(provider="faux", faux_script=str(script)),
        DiskWorkspace([cwd]),
        file=SessionStore(root / "sessions", cwd, sync=SYNC).create(),
        options=options,
    )
    if PRINTER != "none":
        printer: Any = (
            JsonPrinter(session.session_id, SINK)
            if PRINTER == "json"
            else TerminalPrinter(SINK, SINK)
        )
        session.subscribe(printer)
        assert session.subagents is not None
        session.subagents.subscribe(printer.child)
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    model: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}  # per call: task start, model start, model end, task end

    def on_parent(e: Any) -> None:
        if e.type == "tool_execution_start":
            starts.setdefault(e.tool_call_id, time.perf_counter())
            cpu.setdefault(e.tool_call_id, []).append(time.process_time())
        elif e.type == "tool_execution_end":
            ends.setdefault(e.tool_call_id, time.perf_counter())
            cpu.setdefault(e.tool_call_id, []).append(time.process_time())

    session.subscribe(on_parent)
    assert session.subagents is not None

    def on_child(wrapped: Any) -> None:
        event = wrapped.event
        if event.type in ("message_start", "message_end") and event.message.role == "assistant":
            model.setdefault(wrapped.tool_call_id, []).append(time.perf_counter())
            cpu.setdefault(wrapped.tool_call_id, []).append(time.process_time())

    session.subagents.subscribe(on_child)
    await session.prompt("go")
    session.close()
    out = {"batch_ms": (max(ends.values()) - min(starts.values())) * 1000}
    for call_id, start in starts.items():
        begin, end = model[call_id][0], model[call_id][-1]
        out[f"overhead:{call_id}"] = ((ends[call_id] - start) - (end - begin)) * 1000
        out[f"task:{call_id}"] = (ends[call_id] - start) * 1000
        c = cpu[call_id]
        out[f"cpu:{call_id}"] = ((c[-1] - c[0]) - (c[-2] - c[1])) * 1000
    return out


async def bench(runs: int, delay_ms: float) -> dict[str, Any]:
    overheads: list[float] = []
    overheads_cpu: list[float] = []
    parallel: list[float] = []
    load_before = os.getloadavg()[0]
    alone: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["PI_LSP_DATA_DIR"] = str(root / "data")
        os.environ["HOME"] = str(root / "home")
        await one_run(root, ["WARM"], {"WARM": delay_ms})  # imports, catalog, first files
        for _ in range(runs):
            single = await one_run(root, ["SOLO"], {"SOLO": delay_ms})
            overheads += [v for k, v in single.items() if k.startswith("overhead:")]
            overheads_cpu += [v for k, v in single.items() if k.startswith("cpu:")]
            slow = await one_run(root, ["SLOW"], {"SLOW": delay_ms * 1.5})
            alone.append(slow["batch_ms"])
            names = ["P1", "P2", "P3", "SLOW"]
            delays = {"P1": delay_ms, "P2": delay_ms, "P3": delay_ms, "SLOW": delay_ms * 1.5}
            parallel.append((await one_run(root, names, delays))["batch_ms"])
    overhead = statistics.median(overheads)
    par, slowest = statistics.median(parallel), statistics.median(alone)
    return {
        "schema": "pi-subagents-bench/1",
        "python": platform.python_version(),
        "runs": runs,
        "delay_ms": delay_ms,
        "fsync": "inline" if SYNC is None else "background",
        "printer": PRINTER,
        "overhead_ms": round(overhead, 2),
        "overhead_ok": overhead <= 20.0,
        "overhead_cpu_ms": round(statistics.median(overheads_cpu), 2),
        "parallel_ms": round(par, 1),
        "slowest_alone_ms": round(slowest, 1),
        "ratio": round(par / slowest, 3),
        "ratio_ok": par / slowest <= 1.3,
        "ratio_of_pairs": round(
            statistics.median(p / a for p, a in zip(parallel, alone, strict=True)), 3
        ),
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "cpus": os.cpu_count(),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--delay-ms", type=float, default=2.0)
    p.add_argument("--inline-fsync", action="store_true", help="fsync on the loop (the old way)")
    p.add_argument(
        "--printer",
        choices=("none", "text", "json"),
        default="none",
        help="pi-lsp run's printer and permission checks on every event",
    )
    args = p.parse_args()
    global PRINTER
    PRINTER = args.printer
    result = asyncio.run(bench(args.runs, args.delay_ms))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
