"""Hooks files as Claude Code writes them, and every way one can be wrong: each problem is
told with the file and the line, and the rest of the file still counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workspace_agent.agent.settings_file import read_settings
from workspace_agent.hooks.config import parse_text, short_name
from workspace_agent.hooks.sources import claude_dir, find_hooks

GOOD = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [
                    {
                        "type": "command",
                        "command": "jq -r .tool_input.file_path | xargs npx prettier --write",
                        "timeout": 30,
                    }
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "make test"}]}],
    }
}


def test_claude_codes_shape_with_its_tool_names_and_ours():
    parsed = parse_text(json.dumps(GOOD, indent=2), "settings.json", "user")
    assert parsed.problems == []
    pre, post, stop = parsed.hooks
    assert pre.matches("bash", "Bash") and not pre.matches("read_file", "Read")
    assert post.matches("edit_file", "Edit", "MultiEdit") and post.matches("write_file", "Write")
    assert not post.matches("bash", "Bash")  # matched whole, not a substring
    assert post.timeout == 30 and stop.timeout == 60 and stop.matches("anything")
    assert (pre.name, post.name, stop.name) == ("guard.sh", "prettier", "make")
    assert post.origin == "settings.json:20"  # the line of its command


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("python3 .claude/hooks/check.py --strict", "check.py"),
        ('"$CLAUDE_PROJECT_DIR"/.claude/hooks/fmt.sh', "fmt.sh"),
        ("FOO=1 npx eslint --fix", "eslint"),
        ("cd web && pnpm lint", "pnpm"),
    ],
)
def test_a_hooks_short_name_is_the_program_it_runs(command: str, name: str):
    assert short_name(command) == name


def test_every_bad_entry_is_told_with_its_line_and_the_rest_still_counts():
    text = """{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash(", "hooks": [{"type": "command", "command": "never.sh"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "kept.sh"}]}
    ],
    "OnSave": [{"hooks": [{"type": "command", "command": "x.sh"}]}],
    "Stop": [
      {"hooks": [
        {"type": "prompt", "prompt": "Is the task done?"},
        {"type": "command"},
        {"type": "command", "command": "slow.sh", "timeout": "soon"}
      ]}
    ],
    "PostToolUse": {"matcher": "Edit"}
  }
}"""
    parsed = parse_text(text, "~/.claude/settings.json", "user")
    assert [(h.event, h.command, h.timeout) for h in parsed.hooks] == [
        ("PreToolUse", "kept.sh", 60.0),
        ("Stop", "slow.sh", 60.0),
    ]
    told = "\n".join(parsed.problems)
    assert "~/.claude/settings.json:4: PreToolUse: matcher 'Bash(' is not a valid regular" in told
    assert "~/.claude/settings.json:7: 'OnSave' is not an event hooks run at" in told
    assert "settings.json:10: Stop: hook type 'prompt' is not supported here" in told
    assert "settings.json:11: Stop: a command hook needs a `command`" in told
    assert 'settings.json:12: Stop: timeout "soon" is not a positive number' in told
    assert "settings.json:15: PostToolUse must be a list" in told
    assert len(parsed.problems) == 6


def test_a_file_that_is_not_json_is_told_with_its_line_and_runs_nothing():
    parsed = parse_text(
        '{\n  "hooks": {\n    "Stop": [,]\n  }\n}', ".claude/settings.json", "workspace"
    )
    assert parsed.hooks == []
    assert parsed.problems == [
        ".claude/settings.json:3:14: not valid JSON (Expecting value); none of its hooks run "
        "until it is fixed"
    ]


def test_the_sources_in_order_merged_the_workspaces_as_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home, user_dir, root = tmp_path / "claude", tmp_path / "config", tmp_path / "ws"
    for folder in (home, user_dir, root / ".claude", root / ".workspace-agent"):
        folder.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    stop = {"Stop": [{"hooks": [{"type": "command", "command": "make test"}]}]}
    (home / "settings.json").write_text(json.dumps({"hooks": stop}))
    (user_dir / "settings.json").write_text(
        json.dumps({"maxTurns": 5, "hooks": {"SessionStart": [{"hooks": [{"command": "a"}]}]}})
    )
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": stop}))  # the same
    (root / ".claude" / "settings.local.json").write_text(
        json.dumps({"hooks": {"Notification": [{"hooks": [{"command": "notify-send hi"}]}]}})
    )
    (root / ".workspace-agent" / "settings.json").write_text(
        json.dumps(
            {"approvals": {"bash": "ask"}, "hooks": {"PreCompact": [{"hooks": [{"command": "b"}]}]}}
        )
    )
    found = find_hooks(root, user_dir)
    assert found.problems == ()
    assert [(h.event, h.source, h.candidate) for h in found.hooks] == [
        ("Stop", "user", False),
        ("SessionStart", "user", False),
        ("Notification", "workspace", True),
        ("PreCompact", "workspace", True),
    ]
    assert claude_dir() == home
    # our settings files take their `hooks` key as no setting of theirs
    assert read_settings(root, user_dir).problems == []
