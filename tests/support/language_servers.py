"""A real configured language server for the code_intel tests: jedi-language-server from
PyPI (the test extra), as the user's `lspServers` setting names it, and the same server
made to crash on cue: `textDocument/documentSymbol` about a file named `crash.py` ends its
process at once (exit status 3), as a server that dies mid-request does."""

from __future__ import annotations

import json
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


def user_settings(config_dir: Path, crashing: bool = False) -> Path:
    """The user's settings.json naming the server (the crashing one when asked)."""
    command = [sys.executable, CRASHING] if crashing else [JEDI]
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = {"lspServers": {"py": {"command": command, "extensions": [".py"]}}}
    (config_dir / "settings.json").write_text(json.dumps(settings))
    return config_dir
