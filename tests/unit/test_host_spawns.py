"""Every program the server starts on the host is named by an absolute path found outside
the folders sandboxed commands may write (shared/host_programs.py), never by a bare name
that a PATH lookup would resolve, perhaps to a launcher a command planted in the
workspace.

Read with ast over every module of server/workspace_agent: each call that starts a
process must pass, as its program, an absolute path literal or one of the resolved
expressions listed in RESOLVED (each says where its value comes from). A new spawn with a
bare name fails here; a new spawn with another expression fails until its resolution is
checked and listed (and docs/host-execution.md names the process).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "workspace_agent"

SPAWNS = {
    "subprocess.run",
    "subprocess.Popen",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "asyncio.create_subprocess_exec",
    "asyncio.create_subprocess_shell",
    "os.system",
    "os.popen",
    "os.execv",
    "os.execve",
    "os.execvp",
    "os.execvpe",
    "os.spawnv",
    "os.spawnvp",
    "os.posix_spawn",
    "os.posix_spawnp",
    "anyio.open_process",
    "StdioServerParameters",
}

RESOLVED = {
    # git for the checkpoint store: host_programs.program("git")
    ("checkpoints/gitcmd.py", "git"),
    ("checkpoints/gitcmd.py", "git_program()"),
    ("checkpoints/excludes.py", "git_program()"),
    ("checkpoints/only.py", "git_program()"),
    ("checkpoints/seed.py", "git_program()"),
    # git diff for a prompt's @diff: the same git_program()
    ("agent/mentions.py", "git_program()"),
    # bwrap of the probe: find_bwrap (host_programs.find, the workspace protected)
    ("sandbox/probe.py", "*argv"),
    # search and find_files: git_command() starts with host_programs.program("git"), the
    # workspace protected first (explore/candidates.py git_root)
    ("explore/candidates.py", "git_command(root, *args)"),
    ("explore/grep.py", "git_command(root, *args)"),
    # the bash tool: /bin/bash, or bwrap from find_bwrap (sandbox/launch.py builds the argv)
    ("tools/bash.py", "*launch.argv"),
    # a background command: the same launch (/bin/bash under its small shell, or bwrap)
    ("tools/background.py", "*launch.argv"),
    # MCP servers: mcp/sources.py `located` made it absolute (outside the workspace, or a
    # candidate the user trusted, shown with its full path)
    ("mcp/connection.py", "config.command"),
    # the user's hooks: bash (else sh) from host_programs (hooks/runner.py host_argv), with
    # host_path() as their PATH; the workspace's: the sandbox's launch of /bin/bash
    ("hooks/runner.py", "*argv"),
    # `run --plan`'s edit: the user's $VISUAL / $EDITOR, host_programs.find (a bare name on
    # host_path(), a path as the user wrote it)
    ("cli/plan.py", "editor"),
    # a configured language server: the sandbox's launch (bwrap), or with sandbox.mode off
    # host_programs.find of its program (code_intel/launching.py)
    ("code_intel/client.py", "*launch.argv"),
}


def spawn_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        name = f"{func.value.id}.{func.attr}"
    elif isinstance(func, ast.Name):
        name = func.id
    else:
        return None
    return name if name in SPAWNS else None


def program_of(call: ast.Call, name: str) -> ast.expr | None:
    """The expression naming the program: the first element of the argv (or the first
    positional argument of an exec-style call), `command=` of StdioServerParameters."""
    if name == "StdioServerParameters":
        return next((k.value for k in call.keywords if k.arg == "command"), None)
    if name.startswith("os.exec"):
        return call.args[0] if call.args else None
    first = call.args[0] if call.args else None
    if isinstance(first, ast.List):
        return first.elts[0] if first.elts else None
    return first


def spawn_sites() -> list[tuple[str, int, str, str]]:
    """(module, line, spawn, program expression) for every spawn in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = spawn_name(node)
            if name is None:
                continue
            program = program_of(node, name)
            found.append((module, node.lineno, name, ast.unparse(program) if program else ""))
    return found


SITES = spawn_sites()


def test_the_sites_are_found():
    modules = {module for module, *_ in SITES}
    assert {"checkpoints/gitcmd.py", "tools/bash.py", "mcp/connection.py"} <= modules


@pytest.mark.parametrize(
    ("module", "line", "spawn", "program"), SITES, ids=[f"{m}:{n}" for m, n, *_ in SITES]
)
def test_every_host_spawn_names_its_program_by_a_resolved_absolute_path(
    module: str, line: int, spawn: str, program: str
):
    if program.startswith(("'", '"')):
        literal = ast.literal_eval(program)
        assert literal.startswith("/"), (
            f"{module}:{line} starts {literal!r} by a bare name: a PATH lookup can find a "
            "program a sandboxed command planted; resolve it with shared/host_programs.py"
        )
        return
    assert (module, program) in RESOLVED, (
        f"{module}:{line} {spawn} starts `{program}`: name it with a resolved absolute path "
        "(shared/host_programs.py) and list it in RESOLVED, saying where it comes from"
    )


def test_a_bare_name_is_caught():
    tree = ast.parse("subprocess.run(['git', 'status'])")
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call))
    name = spawn_name(call)
    assert name == "subprocess.run"
    program = program_of(call, name)
    assert program is not None and ast.literal_eval(program) == "git"
