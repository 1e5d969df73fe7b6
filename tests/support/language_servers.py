"""A real configured language server for the code_intel tests: jedi-language-server from
PyPI (the test extra), as the user's `lspServers` setting names it, and the same server
made to crash on cue: `textDocument/documentSymbol` about a file named `crash.py` ends its
process at once (exit status 3), as a server that dies mid-request does."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

JEDI = str(Path(sys.executable).parent / "jedi-language-server")
CRASHING = str(Path(__file__).with_name("crashing_language_server.py"))

LIB = 'def greet(name):\n    return "hi " + name\n\n\nclass Greeter:\n    def run(self):\n        return greet("x")\n'
APP = 'from lib import greet\n\nprint(greet("a"))\n'
MORE = 'from lib import greet\n\n\ndef twice():\n    return greet("b") + greet("c")\n'


def python_project(workspace: Path) -> None:
    """Three files: lib.py defines greet, app.py and more.py call it."""
    (workspace / "lib.py").write_text(LIB)
    (workspace / "app.py").write_text(APP)
    (workspace / "more.py").write_text(MORE)


def user_settings(config_dir: Path, crashing_in: Path | None = None) -> Path:
    """The user's settings.json naming the server, or the crashing one copied into the
    folder `crashing_in` (the workspace: the sandbox it runs in has a /tmp of its own, so a
    checkout under /tmp would hide the script where it is)."""
    command = [JEDI]
    if crashing_in is not None:
        script = crashing_in / Path(CRASHING).name
        shutil.copyfile(CRASHING, script)
        command = [sys.executable, str(script)]
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = {"lspServers": {"py": {"command": command, "extensions": [".py"]}}}
    (config_dir / "settings.json").write_text(json.dumps(settings))
    return config_dir
