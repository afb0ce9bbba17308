"""Streaming into a long chat: the Neovim plugin's CPU per answer and key→screen latency.

For each N in ``--answers`` (default 1, 10, 50) a fresh Neovim runs in a real terminal UI
inside tmux (``chat_stream.lua``): a Python buffer in insert mode with the plugin's chat in
a split beside it, the chat already holding N answers (prompt, thinking fold, tool card with
folded output, Markdown with a code block, usage line). Then:

1. a quiet stream: one answer of ``--chunks`` text_delta events (one every ``--chunk-ms``)
   fed to the plugin's pi/event handler; Neovim's CPU time (``getrusage``, redraw included)
   from the first chunk until the last one is on screen is ``cpu_s``;
2. ``--keys`` keys typed into the idle Python buffer, a stream typed through, and ``--keys``
   idle keys again. A key is ``tmux send-keys`` over a control-mode client; its latency is
   the time until the character appears in the pane's output (the ``%output`` notifications
   of the same client), one key at a time, ``--key-ms`` apart plus jitter.

Prints one JSON line (``pi-nvim-chat-bench/1``): per N the CPU per answer, key→screen
p50/p95/max idle and streaming, keys over 16 ms, and where Neovim's main loop spent its time
while the typed answer streamed (``flush``: the plugin's writes; ``redraw_chat`` /
``redraw``: screen updates that did / did not draw the chat's window, timed from a decoration
provider's on_start to on_end); and the ratios the targets in
docs/performance.md are stated in: ``cpu_ratio`` (CPU at the largest N ÷ at the smallest)
and ``typing_ratio`` (streaming p95 ÷ idle p95, per N). Figures, not assertions.

    python editors/neovim/bench/chat_bench.py [--nvim nvim] [--answers 1,10,50]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# what a terminal reads that is not text: CSI, OSC, DCS, charset selection, two-byte escapes
ESCAPES = re.compile(
    rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|[()][0-9A-Za-z]|.)"
)
OCTAL = re.compile(rb"\\([0-7]{3})")


class Pane:
    """A tmux session running one command, driven and watched through a control-mode client."""

    def __init__(self, workdir: Path, command: list[str], env: dict[str, str]) -> None:
        self.sock = str(workdir / "tmux.sock")
        self.tmux = ["tmux", "-S", self.sock, "-f", "/dev/null"]
        env_args = [f"{k}={v}" for k, v in env.items()]
        subprocess.run(
            [
                *self.tmux,
                "new-session",
                "-d",
                "-s",
                "b",
                "-x",
                "160",
                "-y",
                "45",
                "env",
                *env_args,
                *command,
            ],
            check=True,
        )
        self.seen: queue.Queue[float] = queue.Queue()
        self.control = subprocess.Popen(
            [*self.tmux, "-C", "attach", "-t", "b"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.control.stdout is not None
        for raw in self.control.stdout:
            now = time.perf_counter()
            if not raw.startswith(b"%output "):
                continue
            data = OCTAL.sub(lambda m: bytes([int(m.group(1), 8)]), raw.split(b" ", 2)[2])
            if b"q" in ESCAPES.sub(b"", data):
                self.seen.put(now)

    def send(self, *keys: str) -> float:
        assert self.control.stdin is not None
        t0 = time.perf_counter()
        self.control.stdin.write(("send-keys -t b " + " ".join(keys) + "\n").encode())
        self.control.stdin.flush()
        return t0

    def drain(self) -> None:
        while not self.seen.empty():
            self.seen.get_nowait()

    def key_latency(self, timeout: float = 5.0) -> float:
        """Type "q" and wait for it on the screen: milliseconds."""
        self.drain()
        t0 = self.send("q")
        while True:
            t = self.seen.get(timeout=timeout)
            if t >= t0:
                return (t - t0) * 1000

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)
        self.control.kill()
        self.control.wait()


def wait_file(path: Path, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > end:
            raise TimeoutError(f"{path.name} not written in {timeout:.0f} s")
        time.sleep(0.02)


def type_keys(
    pane: Pane,
    rng: random.Random,
    key_ms: float,
    count: int | None = None,
    until: Path | None = None,
) -> list[float]:
    out: list[float] = []
    while (count is not None and len(out) < count) or (until is not None and not until.exists()):
        out.append(pane.key_latency())
        if len(out) % 40 == 0:  # a new line now and then (not measured): keep lines short
            pane.send("Enter")
            time.sleep(0.1)
        time.sleep((key_ms + rng.uniform(0, key_ms / 2)) / 1000)
    return out


def stats(samples: list[float]) -> dict[str, Any]:
    s = sorted(samples)
    if not s:
        return {"keys": 0}

    def pct(p: float) -> float:
        return round(s[max(0, min(len(s) - 1, int(len(s) * p + 0.999999) - 1))], 2)

    return {
        "keys": len(s),
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "max_ms": round(s[-1], 2),
        "mean_ms": round(statistics.fmean(s), 2),
        "over_16ms": sum(1 for x in s if x > 16),
    }


def run_one(nvim: str, answers: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pi-nvim-bench-") as tmp:
        work = Path(tmp)
        env = {
            "PI_BENCH_DIR": str(work),
            "PI_BENCH_ANSWERS": str(answers),
            "PI_BENCH_CHUNKS": str(args.chunks),
            "PI_BENCH_CHUNK_MS": str(args.chunk_ms),
            "PI_BENCH_PLUGIN": str(Path(args.plugin).resolve()),
            "HOME": str(work),
            "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_DATA_HOME": str(work / "share"),
            "XDG_STATE_HOME": str(work / "state"),
        }
        cmd = [nvim, "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {HERE / 'chat_stream.lua'}"]
        pane = Pane(work, cmd, env)
        try:
            wait_file(work / "ready", 120)
            rng = random.Random(answers)
            pane.key_latency()  # the first key pays for the pane's first full redraw
            pane.send("F5")
            wait_file(work / "stream-1.json", 600)
            quiet = json.loads((work / "stream-1.json").read_text())
            idle = type_keys(pane, rng, args.key_ms, count=args.keys)
            pane.send("F5")
            streaming = type_keys(pane, rng, args.key_ms, until=work / "stream-2.json")
            typed = json.loads((work / "stream-2.json").read_text())
            idle += type_keys(pane, rng, args.key_ms, count=args.keys)
        finally:
            pane.close()
    return {
        "answers_before": answers,
        "nvim": quiet["nvim"],
        "cpu_s": round(quiet["cpu_s"], 3),
        "wall_s": round(quiet["wall_s"], 2),
        "chat_lines_before": quiet["chat_lines_before"],
        "complete": quiet["complete"] and typed["complete"],
        "cpu_s_while_typing": round(typed["cpu_s"], 3),
        "flush": typed.get("flush"),
        "redraw": typed.get("redraw"),
        "redraw_chat": typed.get("redraw_chat"),
        "idle": stats(idle),
        "streaming": stats(streaming),
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nvim", default=os.environ.get("PI_BENCH_NVIM", "nvim"))
    ap.add_argument(
        "--plugin",
        default=str(HERE.parent),
        help="the plugin's directory (another checkout's: a before figure)",
    )
    ap.add_argument(
        "--answers", default="1,10,50", help="answers already in the chat, comma-separated"
    )
    ap.add_argument(
        "--chunks", type=int, default=1000, help="text_delta chunks per streamed answer"
    )
    ap.add_argument("--chunk-ms", type=float, default=5, help="interval between chunks")
    ap.add_argument(
        "--keys", type=int, default=30, help="idle keys before and after the typed stream"
    )
    ap.add_argument(
        "--key-ms", type=float, default=40, help="interval between keys (plus up to half again)"
    )
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        print("chat_bench: tmux is not installed", file=sys.stderr)
        return 2
    sizes = [int(x) for x in args.answers.split(",")]
    runs = [run_one(args.nvim, n, args) for n in sizes]
    first, last = runs[0], runs[-1]
    report = {
        "schema": "pi-nvim-chat-bench/1",
        "chunks": args.chunks,
        "chunk_ms": args.chunk_ms,
        "load_1min": round(os.getloadavg()[0], 2),
        "runs": runs,
        "cpu_ratio": round(last["cpu_s"] / max(first["cpu_s"], 1e-9), 2),
        "typing_ratio": {
            str(r["answers_before"]): round(
                r["streaming"]["p95_ms"] / max(r["idle"]["p95_ms"], 1e-9), 2
            )
            for r in runs
            if r["streaming"]["keys"] and r["idle"]["keys"]
        },
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
