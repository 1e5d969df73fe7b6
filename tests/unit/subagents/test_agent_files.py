"""Agent files as Claude Code writes them: tools as a comma string or a YAML list (Claude
Code's names mapped to ours, a name the run lacks said), disallowedTools, a model alias,
and each rule a file can break, skipped with its file, line and rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.agent.subagents import subagent_model
from workspace_agent.subagents.definitions import find_agents
from workspace_agent.subagents.task import read_only, tools_for
from workspace_agent.tools import BACKGROUND_TOOLS, TOOLS


def agent_file(folder: Path, name: str, front: str, body: str = "You review code.\n") -> Path:
    path = folder / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\n{body}")
    return path


def test_tools_are_mapped_from_claude_codes_names_and_the_missing_ones_said(tmp_path: Path):
    root, home = tmp_path / "ws", tmp_path / "home"
    agents = root / ".claude" / "agents"
    agent_file(
        agents,
        "reviewer",
        "name: reviewer\ndescription: Reviews.\ntools: Read, Grep, Glob, Bash(git:*)\nmodel: haiku\nmaxTurns: 5",
    )
    agent_file(
        agents,
        "writer",
        "name: writer\ndescription: Writes.\ntools:\n  - Write\n  - Edit\n  - Task\ndisallowedTools: Edit",
    )
    agent_file(
        agents, "watcher", "name: watcher\ndescription: Watches.\ntools: BashOutput, KillShell"
    )
    agent_file(
        home / ".claude" / "agents", "reviewer", "name: reviewer\ndescription: the user's, shadowed"
    )

    found = find_agents(root, home, tmp_path / "user")

    assert found.problems == ()
    assert found.names == ["general", "explore", "reviewer", "watcher", "writer"]
    reviewer, writer = found.named("reviewer"), found.named("writer")
    assert reviewer is not None and writer is not None
    assert (reviewer.model, reviewer.max_turns, reviewer.prompt) == ("haiku", 5, "You review code.")
    chosen, missing = tools_for(reviewer, TOOLS)
    assert list(chosen) == ["bash", "read_file", "search", "find_files"] and missing == ()
    chosen, missing = tools_for(writer, {**TOOLS, "task": TOOLS["todo"]})
    assert list(chosen) == ["write_file"] and missing == ()  # Task dropped: depth 1
    explore = found.named("explore")
    assert explore is not None
    chosen, _ = tools_for(explore, TOOLS)
    assert list(chosen) == ["read_file", "todo", "search", "find_files"] and read_only(chosen)
    # background commands: Claude Code's names mapped; explore reads their output, stops none
    watcher = found.named("watcher")
    assert watcher is not None
    chosen, missing = tools_for(watcher, {**TOOLS, **BACKGROUND_TOOLS})
    assert list(chosen) == ["bash_output", "bash_stop"] and missing == ()
    chosen, _ = tools_for(explore, {**TOOLS, **BACKGROUND_TOOLS})
    assert list(chosen) == ["read_file", "todo", "search", "find_files", "bash_output"]
    assert not read_only(tools_for(found.named("general"), TOOLS)[0])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("front", "body", "line", "rule"),
    [
        ("description: d", "x", 1, "has no `name`"),
        ("name: Code Reviewer\ndescription: d", "x", 2, "`name` 'Code Reviewer' must be"),
        ("name: r\n", "x", 1, "has no `description`"),
        ("name: r\ndescription: d\ntools: {Read: true}", "x", 4, "`tools` must be a list"),
        ("name: r\ndescription: d\nmaxTurns: 0", "x", 4, "`maxTurns` must be a whole number"),
        ("name: r\ndescription: d\nmodel: [a]", "x", 4, "`model` must be text"),
        ("name: r\ndescription: d", "  \n", 1, "no system prompt"),
        ("name: explore\ndescription: mine", "x", 1, "a built-in agent's"),
    ],
)
def test_a_broken_agent_file_is_skipped_naming_file_line_and_rule(
    tmp_path: Path, front: str, body: str, line: int, rule: str
):
    path = agent_file(tmp_path / "ws" / ".claude" / "agents", "broken", front, body)
    found = find_agents(tmp_path / "ws", tmp_path / "home", tmp_path / "user")
    (problem,) = found.problems
    assert problem.startswith(f"{path}:{line}: ") and rule in problem, problem
    assert found.names == ["general", "explore"]


def test_a_model_alias_is_the_sessions_model_of_that_family_or_its_newest():
    assert subagent_model(None, "claude-sonnet-5-5", "anthropic") == ("claude-sonnet-5-5", None)
    assert subagent_model("inherit", "m", "anthropic") == ("m", None)
    assert subagent_model("sonnet", "claude-sonnet-5-5", "anthropic") == ("claude-sonnet-5-5", None)
    assert subagent_model("haiku", "claude-sonnet-5-5", "anthropic") == ("claude-haiku-5", None)
    model, note = subagent_model("haiku", "anthropic.claude-sonnet-5-v1:0", "bedrock")
    assert model == "anthropic.claude-sonnet-5-v1:0" and note and "not a bedrock model id" in note
    assert subagent_model("claude-opus-4-8", "m", "anthropic") == ("claude-opus-4-8", None)
