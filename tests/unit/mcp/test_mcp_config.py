"""MCP server configs: every shape to one model, expansion rules, trust by fingerprint,
tool names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workspace_agent.mcp.config import ServerConfig, parse_document
from workspace_agent.mcp.names import tool_name
from workspace_agent.mcp.sources import discover
from workspace_agent.mcp.trust import TrustStore

ENV = {"HOME": "/home/u", "GH": "ghp_user_token", "ANTHROPIC_API_KEY": "sk-ant-key"}


def parse(data: dict, source: str = "user", root: Path | None = Path("/ws")):
    return parse_document(data, source=source, origin="mcp.json", root=root, environ=ENV)  # type: ignore[arg-type]


def test_vscode_claude_and_acp_shapes_give_the_same_model():
    stdio = {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}
    vscode = parse({"servers": {"time": {"type": "stdio", **stdio}}}).servers
    claude = parse({"mcpServers": {"time": stdio}}).servers
    acp = parse({"mcpServers": {"time": {**stdio, "env": [{"name": "TZ", "value": "UTC"}]}}})
    assert vscode == claude == acp.servers
    (server,) = claude
    assert (server.transport, server.command, server.args, server.env) == (
        "stdio",
        "uvx",
        ("mcp-server-time",),
        (("TZ", "UTC"),),
    )
    http = parse(
        {"servers": {"gh": {"type": "http", "url": "https://x/mcp", "headers": {"A": "b"}}}}
    )
    assert http.servers[0].transport == "http" and http.servers[0].headers == (("A", "b"),)


def test_bad_entries_are_problems_and_the_others_are_kept():
    parsed = parse(
        {
            "mcpServers": {
                "ok": {"command": "a"},
                "no-command": {"args": []},
                "sse": {"type": "sse", "url": "https://x"},
                "bad name!": {"command": "a"},
                "off": {"command": "a", "disabled": True},
            }
        }
    )
    assert [s.name for s in parsed.servers] == ["ok"]
    assert len(parsed.problems) == 3
    assert any("SSE servers are not supported" in p for p in parsed.problems)


def test_expansion_only_in_the_users_config_and_never_of_the_api_key():
    user = parse({"mcpServers": {"gh": {"command": "gh-mcp", "env": {"T": "${GH}"}}}})
    assert user.servers[0].env == (("T", "ghp_user_token"),)
    default = parse({"mcpServers": {"d": {"command": "x", "args": ["${NOPE:-fallback}"]}}})
    assert default.servers[0].args == ("fallback",)
    for value in ("${ANTHROPIC_API_KEY}", "${env:ANTHROPIC_API_KEY}"):
        leaked = parse({"mcpServers": {"x": {"command": "x", "args": [value]}}})
        assert leaked.servers == [] and "not expanded" in leaked.problems[0]
    unset = parse({"mcpServers": {"x": {"command": "x", "args": ["${UNSET}"]}}})
    assert unset.servers == [] and "${UNSET} is not set" in unset.problems[0]
    workspace = parse({"mcpServers": {"x": {"command": "x", "env": {"T": "${GH}"}}}}, "workspace")
    assert workspace.servers == [] and "may not read environment variables" in workspace.problems[0]
    folder = parse(
        {"mcpServers": {"x": {"command": "x", "args": ["${workspaceFolder}/a"]}}}, "workspace"
    )
    assert folder.servers[0].args == ("/ws/a",)
    key = parse({"mcpServers": {"x": {"command": "x", "env": {"K": "sk-ant-key"}}}})
    assert key.servers == [] and "model API key" in key.problems[0]
    named = parse({"mcpServers": {"x": {"command": "x", "env": {"ANTHROPIC_BASE_URL": "h"}}}})
    assert named.servers == []


def test_read_only_and_tool_lists_come_only_from_the_user():
    entry = {"command": "x", "readOnly": True, "denyTools": ["rm"], "allowTools": ["ls", "rm"]}
    user = parse({"mcpServers": {"x": entry}}).servers[0]
    assert user.read_only and user.deny_tools == ("rm",) and user.allow_tools == ("ls", "rm")
    assert not parse({"mcpServers": {"x": entry}}, "workspace").servers[0].read_only


def test_the_fingerprint_changes_with_any_argument_and_not_with_the_name(tmp_path: Path):
    base = ServerConfig("a", "stdio", command="sh", args=("-c", "true"), source="workspace")
    renamed = ServerConfig("b", "stdio", command="sh", args=("-c", "true"), source="workspace")
    changed = ServerConfig("a", "stdio", command="sh", args=("-c", "false"), source="workspace")
    env = ServerConfig("a", "stdio", command="sh", args=("-c", "true"), env=(("X", "1"),))
    assert base.fingerprint() == renamed.fingerprint()
    assert len({base.fingerprint(), changed.fingerprint(), env.fingerprint()}) == 3
    store = TrustStore(tmp_path / "user")
    assert not store.trusted(base)
    store.approve(base)
    assert store.trusted(base) and not store.trusted(changed)
    assert json.loads(store.path.read_text())["approved"][base.fingerprint()]["name"] == "a"
    store.revoke(base)
    assert not store.trusted(base)


def test_sources_in_precedence_order(tmp_path: Path):
    user_dir, root = tmp_path / "user", tmp_path / "ws"
    (root / ".vscode").mkdir(parents=True)
    user_dir.mkdir()
    (user_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "user-a"}}}))
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"a": {"command": "ws-a"}, "b": {"command": "ws-b"}}})
    )
    (root / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"c": {"command": "c"}}}))
    (root / ".cursor").mkdir()
    (root / ".cursor" / "mcp.json").write_text("{not json")
    found = discover(root, user_dir, environ=ENV)
    assert [(s.name, s.command, s.source) for s in found.servers] == [
        ("a", "user-a", "user"),
        ("c", "c", "workspace"),
        ("b", "ws-b", "workspace"),
    ]
    assert len(found.problems) == 1 and "cannot be read as JSON" in found.problems[0]
    # The editor's user-scope setting sits with the user's file, before the workspace's.
    editor = discover(root, user_dir, editor={"b": {"command": "editor-b"}}, environ=ENV)
    assert [(s.name, s.source) for s in editor.servers] == [
        ("a", "user"),
        ("b", "editor"),
        ("c", "workspace"),
    ]


def test_tool_names_are_valid_unique_and_stable():
    valid = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
    assert tool_name("fs", "read_file") == "mcp__fs__read_file"
    assert tool_name("my.server", "get data") == "mcp__my_server__get_data"
    long_tool = "t" * 70
    hashed = tool_name("srv", long_tool)
    assert valid.match(hashed) and len(hashed) == 64 and hashed == tool_name("srv", long_tool)
    assert hashed != tool_name("srv", "t" * 71)
    clash = tool_name("s", "a_b", taken={"mcp__s__a_b"})
    assert valid.match(clash) and clash != "mcp__s__a_b"


@pytest.mark.parametrize("server", ["x" * 64, "ünïcode", "a/b"])
def test_odd_server_names_still_give_valid_names(server: str):
    assert re.match(r"^[a-zA-Z0-9_-]{1,64}$", tool_name(server, "tool"))


def test_past_the_threshold_the_summary_says_how_many_tools_and_the_lists_filter(tmp_path: Path):
    from mcp.types import Tool as McpTool

    from workspace_agent.mcp.connection import Connection
    from workspace_agent.mcp.servers import MANY_TOOLS, McpServers

    def server(name: str, count: int, **lists: tuple[str, ...]) -> Connection:
        config = ServerConfig(name, "stdio", command="x", **lists)  # type: ignore[arg-type]
        connection = Connection(config, tmp_path, lambda c: None)
        connection.state = "ready"
        connection.tools = [
            McpTool(name=f"t{n}", input_schema={"type": "object"}) for n in range(count)
        ]
        return connection

    servers = McpServers(tmp_path, reserved=("bash",))
    servers.connections = {"a": server("a", MANY_TOOLS), "b": server("b", 3)}
    summary = servers.summary() or ""
    assert f"{MANY_TOOLS + 3} MCP tool definitions go with every request" in summary
    assert "allowTools / denyTools" in summary

    servers = McpServers(tmp_path)
    servers.connections = {
        "a": server("a", MANY_TOOLS, deny_tools=("t0",)),
        "b": server("b", 3, allow_tools=("t1",)),
    }
    assert sorted(servers.tools())[:2] == ["mcp__a__t1", "mcp__a__t10"]
    assert "mcp__a__t0" not in servers.tools() and [
        n for n in servers.tools() if n.startswith("mcp__b__")
    ] == ["mcp__b__t1"]
    assert "go with every request" not in (servers.summary() or "")
    assert servers.reverse["mcp__b__t1"] == ("b", "t1")
