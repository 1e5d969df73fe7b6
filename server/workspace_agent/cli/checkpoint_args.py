"""The command-line options of `changes`, `revert` and `undo-revert` (kept apart from
their code so that starting the language server does not load it)."""

from __future__ import annotations

from typing import Any


def add_parsers(commands: Any, workspace_option: Any) -> None:
    """The three subcommands, for cli/main.py."""
    changes = commands.add_parser("changes", help="what each plan item of a session changed")
    changes.add_argument("--session", required=True, help="the session's id")
    changes.add_argument("--json", action="store_true", help="the workspaceAgent/changes JSON")
    workspace_option(changes)

    rev = commands.add_parser(
        "revert", help="restore the files the agent changed from a plan item on"
    )
    rev.add_argument("--session", required=True, help="the session's id")
    target = rev.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--item", help="the plan item's id: revert to before it (its latest occurrence)"
    )
    target.add_argument(
        "--key", help="an item's key, as `changes` shows it when an id was used more than once"
    )
    target.add_argument(
        "--before-plan", action="store_true", help="revert the changes made before the plan"
    )
    target.add_argument(
        "--last-run", action="store_true", help="revert the last run that changed files"
    )
    rev.add_argument(
        "--only",
        action="store_true",
        help="take out only that item's changes, keeping later ones (a three-way merge)",
    )
    rev.add_argument(
        "--force", action="store_true", help="also restore files changed since the agent did"
    )
    rev.add_argument(
        "--dry-run", action="store_true", help="say what would be done, change nothing"
    )
    workspace_option(rev)

    undo = commands.add_parser("undo-revert", help="put back what a revert changed")
    undo.add_argument("--session", required=True, help="the session's id")
    undo.add_argument("--undo", required=True, help="the undo id the revert printed")
    undo.add_argument(
        "--force", action="store_true", help="also put back files changed since the revert"
    )
    undo.add_argument(
        "--dry-run", action="store_true", help="say what would be done, change nothing"
    )
    workspace_option(undo)
