"""`python -m workspace_agent` starts the language server on stdio (what editors launch);
`python -m workspace_agent run|demo ...` works like the `workspace-agent` command.

`-m` puts the current folder first on sys.path, and editors start the server in the
workspace: there a module a sandboxed command wrote (`anthropic.py`, `mcp/`) would be
imported, on the host, by the server's later imports. So that entry goes first.
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()) and not getattr(sys.flags, "safe_path", False):
    del sys.path[0]

from .cli.main import main

raise SystemExit(main())
