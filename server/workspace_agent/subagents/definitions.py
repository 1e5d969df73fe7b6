"""The agents a `task` call can start: the built-in ones (BUILT_INS: `general`, `explore`)
and the user's and the project's, one markdown file each in the format Claude Code reads
(`.claude/agents/NAME.md`): front matter `name`, `description`, `tools` (a list, or one
string of names separated by commas), `disallowedTools`, `model`, `maxTurns`; the body is
its system prompt. Looked for in the workspace's `.workspace-agent/agents/` and
`.claude/agents/`, our user folder's `agents/` and `~/.claude/agents/` (or
CLAUDE_CONFIG_DIR's); the first of a name wins, a built-in's name is not taken. A file
that breaks a rule is skipped with a problem naming the file, the line and the rule; a
workspace's file that leads outside the workspace is not read (shared/workspace_files.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..config import claude_config_dir, user_config_dir
from ..shared import workspace_files
from ..shared.front_matter import FrontMatterError, read_front_matter

Scope = Literal["built-in", "workspace", "user"]
NAME = re.compile(r"\A[a-z0-9]+(?:-[a-z0-9]+)*\Z")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_BYTES = 256 * 1024
READ_ONLY_TOOLS = "read-only"
"""`tools` of an agent that gets the run's tools that only read (`Tool.read_only`:
read_file, the skill tool, read-only MCP tools, bash_output), and todo for its own plan,
and nothing else (not bash_stop, which changes no file but stops a command)."""

WORKSPACE_FOLDERS = (".workspace-agent/agents", ".claude/agents")


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str
    """Its system prompt's own part (a definition's body)."""
    tools: tuple[str, ...] | str | None = None
    """The names it may use (Claude Code's or ours, MCP tools by their name); None: the
    run's every tool but `task`; READ_ONLY_TOOLS: every one that changes no file."""
    disallowed: tuple[str, ...] = ()
    model: str | None = None
    """A model id, an alias (`sonnet`, `opus`, `haiku`) or `inherit` (None: the same)."""
    max_turns: int | None = None
    path: Path | None = None
    scope: Scope = "built-in"


GENERAL = AgentDefinition(
    name="general",
    description=(
        "every tool but task, for a self-contained piece of work (a change across files, a "
        "long investigation); may change files"
    ),
    prompt=(
        "You do one piece of work the main agent handed you, with the same tools and the same "
        "workspace. Work on it until it is done, checking your work where the project makes "
        "that possible."
    ),
)
EXPLORE = AgentDefinition(
    name="explore",
    description=(
        "searches the workspace to answer a question (where something is, how a part works, "
        "which files matter); changes nothing, only reads"
    ),
    prompt=(
        "You explore the workspace to answer the main agent's question, and you change "
        "nothing: every tool you have only reads (but todo, for your own plan). Look as widely "
        "as the question needs, read what matters, and answer with the facts asked for: file "
        "paths, names, line numbers, short quotes."
    ),
    tools=READ_ONLY_TOOLS,
)
BUILT_INS = (GENERAL, EXPLORE)
DEFAULT = GENERAL.name


@dataclass(frozen=True)
class Agents:
    """The agents of a run (built-ins first, then those found), and the files skipped."""

    agents: tuple[AgentDefinition, ...] = BUILT_INS
    problems: tuple[str, ...] = ()

    def named(self, name: str) -> AgentDefinition | None:
        return next((agent for agent in self.agents if agent.name == name), None)

    @property
    def names(self) -> list[str]:
        return [agent.name for agent in self.agents]


def folders(
    root: Path | None, home: Path | None = None, user_dir: Path | None = None
) -> list[tuple[Scope, Path]]:
    found: list[tuple[Scope, Path]] = []
    if root is not None:
        found += [("workspace", root / folder) for folder in WORKSPACE_FOLDERS]
    found.append(("user", (user_dir or user_config_dir()) / "agents"))
    found.append(("user", claude_config_dir(home) / "agents"))
    return found


def find_agents(
    root: Path | None, home: Path | None = None, user_dir: Path | None = None
) -> Agents:
    agents = list(BUILT_INS)
    problems: list[str] = []
    seen = {agent.name for agent in agents}
    looked: set[Path] = set()
    for scope, folder in folders(root, home, user_dir):
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix == ".md")
        except OSError:
            continue
        for path in files:
            if path in looked:
                continue
            looked.add(path)
            try:
                agent = read_agent(path, scope, root if scope == "workspace" else None)
            except AgentError as exc:
                problems.append(str(exc))
                continue
            if agent.name in {b.name for b in BUILT_INS}:
                problems.append(
                    f"{path}:1: `name` {agent.name!r} is a built-in agent's; the file is "
                    "skipped (give it another name)"
                )
            elif agent.name not in seen:
                seen.add(agent.name)
                agents.append(agent)
    return Agents(tuple(agents), tuple(problems))


class AgentError(ValueError):
    """An agent file that cannot be used; the message names the file, line and rule."""


def read_agent(path: Path, scope: Scope, root: Path | None = None) -> AgentDefinition:
    try:
        if root is not None:
            data = workspace_files.read_bytes(path, root, MAX_BYTES + 1)
        else:
            with path.open("rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise AgentError(f"{path}: the agent file is over {MAX_BYTES // 1024} KiB")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AgentError(f"{path}: the agent file is not UTF-8 text") from None
    except workspace_files.LeadsOutside as exc:
        raise AgentError(str(exc)) from None
    except OSError as exc:
        raise AgentError(f"{path}: cannot read the agent file ({exc.strerror})") from None
    try:
        meta = read_front_matter(text, path)
        name = meta.text("name", required=True) or ""
        if len(name) > MAX_NAME or not NAME.match(name):
            raise meta.problem(
                "name",
                f"`name` {name!r} must be at most {MAX_NAME} lowercase letters, digits and "
                "single hyphens",
            )
        description = meta.text("description", required=True, limit=MAX_DESCRIPTION) or ""
        tools = meta.names("tools", ",")
        disallowed = meta.names("disallowedTools", ",") or ()
        model = meta.text("model")
        max_turns = meta.fields.get("maxTurns")
        if max_turns is not None and (
            isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
        ):
            raise meta.problem(
                "maxTurns", f"`maxTurns` must be a whole number ≥ 1, not {max_turns!r}"
            )
        if not meta.body.strip():
            raise FrontMatterError(
                path, 1, "the agent has no system prompt: write it after the front matter"
            )
    except FrontMatterError as exc:
        raise AgentError(f"{exc}; the agent is skipped") from None
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        prompt=meta.body.strip(),
        tools=tools,
        disallowed=disallowed,
        model=None if model in (None, "inherit") else model,
        max_turns=max_turns,
        path=path,
        scope=scope,
    )
