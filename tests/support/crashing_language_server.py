"""jedi-language-server that exits (status 3) when asked for the symbols of `crash.py`:
a server that dies in the middle of a request. Run as a script (tests/support/language_servers.py)."""

import os

from jedi_language_server.cli import cli
from jedi_language_server.server import SERVER

METHOD = "textDocument/documentSymbol"
features = SERVER.protocol.fm.features
answer = features[METHOD]


def crash_on_cue(params):  # type: ignore[no-untyped-def]
    if params.text_document.uri.endswith("/crash.py"):
        os._exit(3)
    return answer(params)


features[METHOD] = crash_on_cue
cli()
