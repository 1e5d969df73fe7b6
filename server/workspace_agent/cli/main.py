"""The `workspace-agent` command: serve (default), run and demo."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from .. import __version__
from .checkpoint_args import add_parsers as add_checkpoint_parsers

if TYPE_CHECKING:
    from ..agent.front_end import StartOptions
    from ..protocol import PromptImage

CHECKPOINT_COMMANDS = ("changes", "revert", "undo-revert")

DESCRIPTION = """\
Workspace Agent: a coding agent in a language server.
  (no command)  serve the language server on stdio (what editors launch)
  acp           serve the agent over the Agent Client Protocol on stdio (Zed, JetBrains,
                Neovim and other ACP clients launch this)
  run TASK      run one task headless in a terminal
  changes       what each plan item of a session changed (files, commands)
  revert        restore the files the agent changed from a plan item on
  undo-revert   put back what a revert changed
  mcp list      the MCP servers a run would use, and their state
  commands      the slash commands a task can start with (built-in and saved prompts)
  hooks         the hooks in force (Claude Code's format), and trusting a workspace's
  config        the effective settings, and where each one came from
  demo          an offline demo with a scripted model (no API key needed)"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workspace-agent",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command")

    serve = commands.add_parser("serve", help="language server on stdio (the default)")
    serve.add_argument("--log-level", default=os.environ.get("WORKSPACE_AGENT_LOG_LEVEL", "INFO"))
    serve.add_argument(
        "--stdio", action="store_true", help="accepted for LSP clients; stdio is the only transport"
    )

    acp = commands.add_parser("acp", help="agent over the Agent Client Protocol on stdio")
    acp.add_argument("--log-level", default=os.environ.get("WORKSPACE_AGENT_LOG_LEVEL", "INFO"))
    _grant_options(acp, "the client")

    run = commands.add_parser("run", help="run one task headless")
    run.add_argument(
        "task",
        help="what the agent should do; `/NAME ARGS` runs a saved prompt or a built-in "
        "(see `workspace-agent commands`)",
    )
    _workspace_option(run)
    run.add_argument(
        "--plan",
        action="store_true",
        help="plan first (as a `/plan ` prompt does): the agent looks but changes nothing, "
        "prints its plan and asks whether to run it, as it is or edited in $EDITOR",
    )
    run.add_argument("--model", help="model id (default: MODEL_ID or the built-in default)")
    run.add_argument(
        "--thinking",
        choices=("off", "low", "medium", "high", "max"),
        help="how much the model thinks (default: the thinking setting, else the model's own)",
    )
    run.add_argument(
        "--no-thinking",
        action="store_true",
        help="do not show the model's thinking (it still thinks; --thinking off stops that)",
    )
    run.add_argument("--max-turns", type=int, help="stop after this many model turns")
    run.add_argument("--bash-timeout", type=float, help="seconds before a command is killed")
    run.add_argument("--session", help="continue a saved session (its id)")
    run.add_argument(
        "--sandbox",
        choices=("auto", "required", "off"),
        help="run commands in the sandbox where it can start (auto, the default), only there "
        "(required: refuse them elsewhere), or never (off)",
    )
    _grant_options(run, "you")

    run.add_argument(
        "--image",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="send the image FILE (PNG, JPEG, GIF or WebP, at most 5 MB as base64) to the "
        "model with the task; repeatable",
    )
    run.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="NAME",
        help="start the workspace's MCP server NAME (from .mcp.json, .vscode/mcp.json or "
        ".cursor/mcp.json) for this run; a workspace's servers never start headless otherwise",
    )

    mcp = commands.add_parser("mcp", help="MCP servers")
    mcp_commands = mcp.add_subparsers(dest="mcp_command", required=True)
    mcp_list = mcp_commands.add_parser("list", help="list the MCP servers and their state")
    _workspace_option(mcp_list)
    mcp_list.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="NAME",
        help="also start this workspace server",
    )

    hooks = commands.add_parser("hooks", help="list the hooks in force, or trust a workspace's")
    hooks.add_argument(
        "action",
        nargs="?",
        choices=("list", "trust"),
        default="list",
        help="list (the default), or trust: the workspace's hooks waiting for trust",
    )
    hooks.add_argument(
        "numbers", nargs="*", type=int, metavar="NUMBER", help="trust: only these (as listed)"
    )
    _workspace_option(hooks)

    slash = commands.add_parser("commands", help="list the slash commands (saved prompts)")
    _workspace_option(slash)
    config = commands.add_parser("config", help="the effective settings and their sources")
    _workspace_option(config)

    add_checkpoint_parsers(commands, _workspace_option)

    demo = commands.add_parser("demo", help="offline demo with a scripted model")
    demo.add_argument("--keep", action="store_true", help="keep the demo workspace afterwards")
    demo.add_argument(
        "--pace", type=float, default=0.25, help="seconds between scripted replies (default 0.25)"
    )
    return parser


def _grant_options(parser: argparse.ArgumentParser, asked: str) -> None:
    """--yes, --allow-host and --allow-unsandboxed: what a person allows up front."""
    from ..agent.front_end import ALLOW_HOST_HELP, ALLOW_UNSANDBOXED_HELP, YES_HELP

    parser.add_argument(
        "--yes", "-y", action="store_true", help=YES_HELP.replace("asking", f"asking {asked}")
    )
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="HOST", help=ALLOW_HOST_HELP
    )
    parser.add_argument("--allow-unsandboxed", action="store_true", help=ALLOW_UNSANDBOXED_HELP)


def start_options(args: argparse.Namespace) -> StartOptions:
    """The grant options as the agent takes them; ValueError for a host that is none."""
    from ..agent.front_end import StartOptions, allowed_hosts

    return StartOptions(args.yes, allowed_hosts(args.allow_host), args.allow_unsandboxed)


def _workspace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        "-w",
        type=Path,
        default=Path.cwd(),
        help="the folder the agent works in (default: the current folder)",
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--stdio"]:  # many LSP clients add it to the server command
        argv = ["serve", *argv]
    args = build_parser().parse_args(argv)
    if args.command in (None, "serve"):
        return _serve(getattr(args, "log_level", "INFO"))
    if args.command == "acp":
        return _acp(args)
    if args.command == "run":
        return _run(args)
    if args.command in CHECKPOINT_COMMANDS:
        return _checkpoints(args)
    if args.command == "mcp":
        return _mcp(args)
    if args.command in ("commands", "config", "hooks"):
        return _listing(args)
    return _demo(args)


def _serve(log_level: str) -> int:
    from ..lsp import logs
    from ..lsp.lifetime import WatchedInput, exit_now
    from ..lsp.server import create_server

    server = create_server()
    logs.configure(server, log_level.upper())
    server.lifetime.exit_on_signals()
    # pygls only calls readline() and read(n) on its input: WatchedInput has both.
    stdin = cast(BinaryIO, WatchedInput(sys.stdin.buffer, server.lifetime))
    server.start_io(stdin=stdin)
    # Only when stdin closed before `initialize`: `exit`, signals and the end of input
    # once the server runs all leave from the event loop.
    exit_now(server.lifetime.exit_status())


def _acp(args: argparse.Namespace) -> int:
    from ..acp.server import configure_logging, serve

    try:
        options = start_options(args)
    except ValueError as exc:
        print(f"workspace-agent: {exc}", file=sys.stderr)  # stdout is the protocol's
        return 2
    configure_logging(args.log_level)
    return asyncio.run(serve(options))


def _run(args: argparse.Namespace) -> int:
    from .run import leave, run_task

    if not args.workspace.is_dir():
        print(f"workspace-agent: --workspace {args.workspace} is not a folder")
        return 2
    overrides: dict[str, Any] = {
        key: value
        for key, value in (
            ("model", args.model),
            ("thinking", args.thinking),
            ("maxTurns", args.max_turns),
            ("bashTimeoutSeconds", args.bash_timeout),
            ("sandbox.mode", args.sandbox),
        )
        if value is not None
    }
    try:
        images = read_images(args.image)
        options = start_options(args)
    except ValueError as exc:
        print(f"workspace-agent: {exc}")
        return 2
    status = asyncio.run(
        run_task(
            args.workspace.resolve(),
            args.task,
            overrides,
            options,
            args.session,
            tuple(args.mcp),
            show_thinking=not args.no_thinking,
            plan=args.plan,
            images=images,
        )
    )
    leave(status)


def read_images(paths: list[Path]) -> tuple[PromptImage, ...]:
    """The --image files, checked as the model will need them; ValueError saying why not."""
    from ..protocol import PromptImage
    from ..shared import images

    found = []
    for path in paths:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"--image {path}: {exc.strerror or exc}") from None
        try:
            image = images.checked(raw, f"--image {path}")
        except images.ImageError as exc:
            raise ValueError(str(exc)) from None
        found.append(PromptImage(image.data, image.media_type))
    return tuple(found)


def _mcp(args: argparse.Namespace) -> int:
    from .mcp_list import list_servers

    if not args.workspace.is_dir():
        print(f"workspace-agent: --workspace {args.workspace} is not a folder")
        return 2
    return asyncio.run(list_servers(args.workspace.resolve(), tuple(args.mcp)))


def _listing(args: argparse.Namespace) -> int:
    if not args.workspace.is_dir():
        print(f"workspace-agent: --workspace {args.workspace} is not a folder")
        return 2
    if args.command == "commands":
        from .commands import list_commands

        return list_commands(args.workspace.resolve())
    if args.command == "hooks":
        from .hooks import list_hooks, trust_hooks

        root = args.workspace.resolve()
        return trust_hooks(root, args.numbers) if args.action == "trust" else list_hooks(root)
    from .config_show import show_config

    return show_config(args.workspace.resolve())


def _checkpoints(args: argparse.Namespace) -> int:
    from . import checkpoints

    if not args.workspace.is_dir():
        print(f"workspace-agent: --workspace {args.workspace} is not a folder")
        return 2
    args.workspace = args.workspace.resolve()
    command = {
        "changes": checkpoints.show_changes,
        "revert": checkpoints.revert,
        "undo-revert": checkpoints.undo_revert,
    }[args.command]
    return asyncio.run(command(args))


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return asyncio.run(run_demo(keep=args.keep, pace=args.pace))
