"""Start the pi-lsp bundled with this extension (bundled/libs, one set of packages with the
compiled parts for CPython 3.11-3.13) with the Python that runs this file.

Run isolated (`python -I bundled/launch.py --stdio`): the user's site-packages and PYTHONPATH
never mix with the bundled packages. `--check` imports the compiled parts and exits: the
extension runs it before using the bundled server, so a wheel this machine cannot load (a
glibc too old, another CPU) is found before a start fails, and said in the log.
"""

import os
import sys

LIBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libs")


def _check() -> int:
    import importlib

    for name in ("pydantic_core._pydantic_core", "re2", "yaml", "pi_lsp.main"):
        importlib.import_module(name)
    if sys.platform != "win32":
        try:
            importlib.import_module("uvloop")
        except ImportError:
            pass  # asyncio's own loop is the fallback (pi_lsp/runtime/event_loop.py)
    from pi_lsp import __version__

    print(f"pi-lsp {__version__} (bundled, Python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    if sys.version_info < (3, 11):
        sys.stderr.write(f"pi-lsp needs Python >= 3.11; this is {sys.version.split()[0]}\n")
        sys.exit(3)
    sys.path.insert(0, LIBS)
    if sys.argv[1:] == ["--check"]:
        sys.exit(_check())
    from pi_lsp.main import main

    sys.exit(main())
