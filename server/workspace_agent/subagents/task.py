"""The `task` tool: the model hands a piece of work to a subagent (`{description, prompt,
agent?}`) and gets back its final message. The subagent itself is run by the agent core
(agent/subagents.py), given to this tool as `run`; this module decides which agent and
which of the run's tools it gets (`tools_for`: Claude Code's tool names mapped to ours,
never `task` itself: depth 1), and whether a call is read-only (no tool the agent gets
changes a file: such calls of one answer run side by side, agent/concurrency.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..tools.base import Tool, ToolContext, ToolError, ToolResult
from .definitions import DEFAULT, READ_ONLY_TOOLS, AgentDefinition, Agents

NAME = "task"
CLAUDE_NAMES = {
    "Read": "read_file",
    "Write": "write_file",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Bash": "bash",
    "BashOutput": "bash_output",
    "KillShell": "bash_stop",
    "TodoWrite": "todo",
    "Skill": "skill",
    "Grep": "search",
    "Glob": "find_files",
    "WebSearch": "web_search",
    "WebFetch": "web_fetch",
}
"""Claude Code's tool names, as agent files name them, and ours (a name that is not a
tool of the run, WebSearch where the web is off among them, is left out and said:
SubagentTask.missing)."""
NESTED = ("Task", "Agent", NAME)
"""A subagent never starts one (depth 1): these names are dropped without a word."""


@dataclass(frozen=True)
class SubagentTask:
    """One `task` call, resolved: the agent, the tools it gets, the task."""

    agent: AgentDefinition
    description: str
    prompt: str
    tools: dict[str, Tool] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    """Tool names its definition gives that the run has no tool for."""

    @property
    def read_only(self) -> bool:
        return read_only(self.tools)


Runner = Callable[[ToolContext, SubagentTask], Awaitable[ToolResult]]


def tools_for(
    agent: AgentDefinition, tools: Mapping[str, Tool]
) -> tuple[dict[str, Tool], tuple[str, ...]]:
    """The run's tools the agent gets, in the run's order (never `task`), and the names
    its definition gives that match none."""
    available = {name: tool for name, tool in tools.items() if name != NAME}
    missing: list[str] = []
    if agent.tools is None:
        chosen = dict(available)
    elif agent.tools == READ_ONLY_TOOLS:
        chosen = {name: tool for name, tool in available.items() if _reads(tool)}
    else:
        wanted: set[str] = set()
        for raw in agent.tools:
            name = _ours(raw)
            if name in available:
                wanted.add(name)
            elif raw.split("(")[0].strip() not in NESTED:
                missing.append(raw)
        chosen = {name: tool for name, tool in available.items() if name in wanted}
    for raw in agent.disallowed:
        chosen.pop(_ours(raw), None)
    return chosen, tuple(missing)


def read_only(tools: Mapping[str, Tool]) -> bool:
    """An agent with these tools changes no file (each tool's reach is "nothing", and it
    has some): its task calls may run side by side with other read-only calls. Its plan
    is its own, so its `todo` calls touch nothing another call sees."""
    return bool(tools) and all(tool.reach == "nothing" for tool in tools.values())


def task_tool(agents: Agents, tools: Mapping[str, Tool], run: Runner) -> Tool:
    """The tool of one run: `tools` are the run's (what its subagents choose from)."""

    def resolve(args: dict[str, Any]) -> SubagentTask:
        name = str(args.get("agent") or DEFAULT).strip()
        agent = agents.named(name)
        if agent is None:
            known = ", ".join(agents.names)
            raise ToolError(f"there is no agent {name!r}; the agents are: {known}")
        chosen, missing = tools_for(agent, tools)
        if not chosen:
            raise ToolError(f"the agent {name!r} has none of this run's tools ({_listed(agent)})")
        return SubagentTask(
            agent, str(args["description"]).strip(), str(args["prompt"]), chosen, missing
        )

    async def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        return await run(ctx, resolve(args))

    def reads_only(args: dict[str, Any]) -> bool:
        try:
            return resolve(args).read_only
        except (ToolError, KeyError):
            return False

    listing = "\n".join(f"- {agent.name}: {agent.description}" for agent in agents.agents)
    return Tool(
        name=NAME,
        description=(
            "Hand a piece of work to a subagent: a fresh conversation whose first message is "
            "your `prompt` (it sees nothing else of yours: say all it needs), in the same "
            "workspace, with its own tools and plan. Only its final message comes back, so its "
            "reading does not fill your context. Read-only ones started in one answer work at "
            f"the same time. Agents (`agent`, default {DEFAULT}):\n{listing}"
        ),
        input_schema={
            "type": "object",
            "properties": {
                "description": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The task in three to six words (shown to the user).",
                },
                "prompt": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The whole task for the subagent.",
                },
                "agent": {"type": "string", "enum": agents.names},
            },
            "required": ["description", "prompt"],
            "additionalProperties": False,
        },
        handler=handler,
        summarize=lambda args: f"{args.get('agent') or DEFAULT}: {args.get('description', '')}",
        kind="other",
        plan_safe=True,  # its subagent gets the run's tools, plan mode's refusals included
        read_only_of=reads_only,
        reach="nothing",  # its subagent's calls are watched one by one, as the run's own
        aliases=("Task",),
    )


def _reads(tool: Tool) -> bool:
    """A tool of READ_ONLY_TOOLS: one whose calls only read (`Tool.read_only`), or the plan
    tool, for the agent's own plan; not one that changes no file but acts (bash_stop)."""
    return tool.reach == "nothing" and (tool.read_only or tool.kind == "plan")


def _ours(raw: str) -> str:
    name = raw.split("(")[0].strip()  # `Bash(git:*)`: a permission rule's tool
    return CLAUDE_NAMES.get(name, name)


def _listed(agent: AgentDefinition) -> str:
    if isinstance(agent.tools, tuple):
        return "tools: " + ", ".join(agent.tools)
    return "tools: the read-only ones" if agent.tools == READ_ONLY_TOOLS else "tools: all"
