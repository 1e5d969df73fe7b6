"""Saved prompts as files: the three folders and which wins, front matter, arguments,
and the errors a user sees for an unknown command or a bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.agent.saved_prompts import CommandError, expand, list_commands, resolve


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def user(tmp_path: Path) -> Path:
    return tmp_path / "user"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_commands_from_all_three_folders_the_workspace_first(root: Path, user: Path):
    write(root / ".workspace-agent/commands/review.md", "---\ndescription: Review\n---\nOurs $1")
    write(root / ".claude/commands/review.md", "Claude's review")
    write(root / ".claude/commands/explain.md", "---\nargument-hint: FILE\n---\nExplain $ARGUMENTS")
    write(user / "commands/tidy.md", "# Tidy the code\nTidy it.")

    commands, problems = list_commands(root, user)

    assert problems == []
    shown = {c.name: (c.source, c.description, c.argument_hint) for c in commands}
    assert shown["review"] == ("workspace", "Review", None)
    assert shown["explain"] == ("claude", "Explain $ARGUMENTS", "FILE")
    assert shown["tidy"] == ("user", "Tidy the code", None)
    assert [c.name for c in commands][:5] == ["plan", "compact", "clear", "undo", "cost"]
    assert resolve("/review src/app.py", root, user).text == "Ours src/app.py"  # type: ignore[union-attr]
    assert resolve("/explain a.py b.py", root, user).text == "Explain a.py b.py"  # type: ignore[union-attr]


def test_arguments_replace_the_placeholders():
    assert expand("Compare $1 with $2 ($ARGUMENTS)", '"a b.py" c.py') == (
        'Compare a b.py with c.py ("a b.py" c.py)'
    )
    assert expand("Fix $1 and $3", "x.py") == "Fix x.py and"
    assert expand("Review the diff.", "carefully") == "Review the diff.\n\ncarefully"


def test_built_ins_and_ordinary_prompts(root: Path, user: Path):
    assert resolve("fix the bug", root, user) is None
    assert resolve("/usr/bin/env is missing", root, user) is None  # a path, not a command
    assert resolve("//review is a word", root, user) is None  # // sends / as it is
    plan = resolve("/plan add a test", root, user)
    assert plan is not None and plan.built_in and plan.arguments == "add a test"


def test_an_unknown_command_names_the_near_ones_and_the_folders(root: Path, user: Path):
    write(root / ".workspace-agent/commands/review.md", "Review")
    with pytest.raises(CommandError) as caught:
        resolve("/reveiw x", root, user)
    message = str(caught.value)
    assert message.startswith("there is no command /reveiw. Did you mean /review?")
    assert str(root / ".workspace-agent" / "commands") in message
    assert "start it with //" in message


def test_bad_front_matter_names_the_file_and_line(root: Path, user: Path):
    bad = write(
        root / ".claude/commands/broken.md", "---\ndescription: ok\nthis is not a key\n---\nx"
    )
    unclosed = write(user / "commands/open.md", "---\ndescription: never closed\n")

    commands, problems = list_commands(root, user)

    assert "broken" not in [c.name for c in commands]
    assert problems == [
        f"{bad}:3: bad front matter: expected `key: value`, got 'this is not a key' "
        "(the keys are description, argument-hint)",
        f"{unclosed}: bad front matter: the `---` on line 1 is never closed; end the front "
        "matter with a line `---`",
    ]
    with pytest.raises(CommandError, match=f"^{bad}:3: bad front matter"):
        resolve("/broken", root, user)
