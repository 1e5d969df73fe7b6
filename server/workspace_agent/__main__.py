"""`python -m workspace_agent` starts the language server on stdio (what editors launch);
`python -m workspace_agent run|demo ...` works like the `workspace-agent` command."""

from .cli.main import main

raise SystemExit(main())
