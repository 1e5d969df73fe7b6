"""What skills, subagents and the web tools add to a run, looked for afresh at its
start (a new skill or agent file applies to the next run): the skills' list at the end of
the system prompt and the `skill` tool (only when there are skills the model may load:
without any, the request is byte for byte what it was), the folders of the user's skills
for read_file, the `task` tool over the agents found, web_fetch and web_search (unless
the `web` setting is `off`), and a notice for each file that cannot be used. Composed
into the run by sessions.py; skills/, subagents/ and web/ are imported here, at a run's
start, never at the server's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..protocol import Usage
from ..shared.errors import ToolError
from ..shared.observers import RunScope
from ..tools.base import Tool
from ..tools.live import LiveTools
from . import plan_mode
from .loop import RunState
from .model import Model, ModelError, ModelFactory

SEARCH_PROVIDERS = ("anthropic", "vertex")
"""Where the Messages API has the web search server tool (Amazon Bedrock has none)."""

if TYPE_CHECKING:
    from ..subagents.definitions import Agents


@dataclass(frozen=True)
class RunExtras:
    scope: RunScope
    state: RunState
    model_factory: ModelFactory
    instructions: str
    """The instructions' block of the system prompt ("" without instruction files)."""
    skills_block: str
    skill_tool: Tool | None
    agents: Agents
    read_roots: tuple[Path, ...]
    notices: tuple[str, ...]

    @property
    def prompt_tail(self) -> str:
        """What the system prompt ends with: the instructions, then the skills' list."""
        return "\n\n".join(part for part in (self.instructions, self.skills_block) if part)

    def tools(self, tools: Mapping[str, Tool], planning: bool) -> Mapping[str, Tool]:
        """The run's tools: the session's, the skill tool, plan mode's refusals, then the
        task tool over all of them (its subagents choose from these)."""
        from ..subagents.task import task_tool
        from .subagents import SubagentRunner

        web = self.web_tools()
        if web:
            tools = LiveTools(tools, lambda: web)
        skill = self.skill_tool
        if skill is not None:
            tools = LiveTools(tools, lambda: {skill.name: skill})
        if planning:
            tools = plan_mode.PlanTools(tools)
        runner = SubagentRunner(
            self.scope,
            self.state,
            self.model_factory,
            (self.instructions,),
            self.skills_block,
        )
        task = task_tool(self.agents, tools, runner)
        return LiveTools(tools, lambda: {task.name: task})

    def web_tools(self) -> dict[str, Tool]:
        """web_fetch, and web_search where the provider has the server tool (not Bedrock);
        none under `web: off`. A search's request goes to the run's model, its tokens and
        searches into the run's usage and the session's."""
        settings = self.scope.settings
        if settings.web == "off":
            return {}
        from ..tools.web import WEB_FETCH, Answer, search_settings, web_search_tool

        found = {WEB_FETCH.name: WEB_FETCH}
        if settings.provider not in SEARCH_PROVIDERS:
            return found
        models: list[Model] = []

        async def ask(
            system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
        ) -> Answer:
            if not models:
                models.append(self.model_factory(search_settings(settings)))
            try:
                return await models[0].respond(
                    system=system,
                    tools=tools,
                    messages=messages,
                    on_text=lambda _text: None,
                    on_retry=lambda *_args: None,
                )
            except ModelError as exc:  # the tool's result says it; the run goes on
                raise ToolError(
                    f"the web search request failed: {exc} (an organization may have to turn "
                    "web search on in its console; web_fetch reads a page you know)"
                ) from None

        def count(usage: Usage) -> None:
            self.state.usage.add(usage)
            self.scope.session.usage.add(usage)

        search = web_search_tool(ask, count)
        found[search.name] = search
        return found


def run_extras(
    scope: RunScope,
    state: RunState,
    instructions: str,
    model_factory: ModelFactory,
    home: Path | None = None,
) -> RunExtras:
    """The skills and agents of the run's workspace and user (`home`: the user's home
    folder, `~` by default)."""
    from ..skills.discovery import find_skills
    from ..subagents.definitions import find_agents

    found = find_skills(scope.root, home)
    agents = find_agents(scope.root, home)
    notices = [*found.problems, *agents.problems]
    block, tool = "", None
    if found.for_model:
        from ..skills.catalog import catalog
        from ..skills.tool import skill_tool

        listed = catalog(found.for_model, scope.settings.context_window)
        block, tool = listed.block, skill_tool(found, scope.root)
        if listed.left_out:
            notices.append(
                f"Skills: {listed.listed} of {listed.listed + listed.left_out} are listed for "
                "the model (the list is kept within 2% of the context window); it can still "
                "load the others by name, and you can start any with /NAME."
            )
    roots = tuple(skill.folder for skill in found.skills if skill.scope == "user")
    return RunExtras(
        scope, state, model_factory, instructions, block, tool, agents, roots, tuple(notices)
    )
