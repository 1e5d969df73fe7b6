"""Agent Skills: found in every folder (the workspace's, our user folder, a test home's
~/.claude and ~/.agents), every malformed front matter rule skipped with its file, line
and rule while the others load, the model's list bounded with a note, `/name args` a
slash command (a skill before a command file of the same name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.agent.saved_prompts import CommandError, list_commands, resolve
from workspace_agent.skills.catalog import catalog
from workspace_agent.skills.discovery import find_skills


def skill(folder: Path, name: str, front: str | None = None, body: str = "Do it.\n") -> Path:
    """`folder`/`name`/SKILL.md with `front` as its front matter (a valid one by default)."""
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = front if front is not None else f"name: {name}\ndescription: Use for {name}."
    path.write_text(f"---\n{meta}\n---\n{body}", encoding="utf-8")
    return path


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    root, home, user = tmp_path / "ws", tmp_path / "home", tmp_path / "user"
    root.mkdir()
    return {"root": root, "home": home, "user": user}


def test_skills_come_from_every_folder_the_workspaces_first(places: dict[str, Path]):
    root, home, user = places["root"], places["home"], places["user"]
    skill(root / ".workspace-agent/skills", "ours")
    skill(root / ".claude/skills", "claude-team")
    skill(root / ".agents/skills", "agents-team")
    skill(user / "skills", "mine")
    skill(home / ".claude/skills", "claude-mine")
    skill(home / ".agents/skills", "agents-mine")
    skill(home / ".claude/skills", "ours", "name: ours\ndescription: the user's, shadowed")

    found = find_skills(root, home, user)

    assert found.problems == ()
    assert [(s.name, s.scope) for s in found.skills] == [
        ("ours", "workspace"),
        ("claude-team", "workspace"),
        ("agents-team", "workspace"),
        ("mine", "user"),
        ("claude-mine", "user"),
        ("agents-mine", "user"),
    ]
    assert found.named("ours").description == "Use for ours."  # type: ignore[union-attr]


MALFORMED = [
    # (front matter or whole file, folder, line, words of the rule)
    (None, "no-front", 1, "no front matter"),
    ("---\nname: open\ndescription: d\n", "open", 1, "never closed"),
    ("---\nname: [bad\n---\n", "bad-yaml", 3, "not valid YAML"),
    ("---\n- a list\n---\n", "a-list", 2, "must be `key: value` lines"),
    ("---\ndescription: d\n---\n", "no-name", 1, "has no `name`"),
    ("---\nname: 12\ndescription: d\n---\n", "12", 2, "`name` must be text"),
    ("---\nname: " + "a" * 65 + "\ndescription: d\n---\n", "a" * 65, 2, "65 characters"),
    ("---\nname: Upper\ndescription: d\n---\n", "Upper", 2, "lowercase letters"),
    ("---\nname: -lead\ndescription: d\n---\n", "-lead", 2, "lowercase letters"),
    ("---\nname: trail-\ndescription: d\n---\n", "trail-", 2, "lowercase letters"),
    ("---\nname: two--hyphens\ndescription: d\n---\n", "two--hyphens", 2, "single hyphens"),
    ("---\nname: other\ndescription: d\n---\n", "folder", 2, "the skill folder's name"),
    ("---\nname: no-desc\n---\n", "no-desc", 1, "has no `description`"),
    ("---\nname: empty-desc\ndescription: ''\n---\n", "empty-desc", 3, "`description` is empty"),
    ("---\nname: long-desc\ndescription: " + "x" * 1025 + "\n---\n", "long-desc", 3, "1,025"),
    ("---\nname: lic\ndescription: d\nlicense: [MIT]\n---\n", "lic", 4, "`license` must be text"),
    (
        "---\nname: compat\ndescription: d\ncompatibility: " + "c" * 501 + "\n---\n",
        "compat",
        4,
        "`compatibility` has 501",
    ),
    ("---\nname: meta\ndescription: d\nmetadata: v1\n---\n", "meta", 4, "`metadata` must be a map"),
    (
        "---\nname: tools\ndescription: d\nallowed-tools: {Bash: yes}\n---\n",
        "tools",
        4,
        "`allowed-tools` must be a list",
    ),
    (
        "---\nname: dmi\ndescription: d\ndisable-model-invocation: sometimes\n---\n",
        "dmi",
        4,
        "`disable-model-invocation` must be true or false",
    ),
    (
        "---\nname: ui\ndescription: d\nuser-invocable: 'no'\n---\n",
        "ui",
        4,
        "`user-invocable` must be true or false",
    ),
    ("---\nname: hint\ndescription: d\nargument-hint: 3\n---\n", "hint", 4, "`argument-hint` must"),
]


@pytest.mark.parametrize(
    ("text", "folder", "line", "rule"), MALFORMED, ids=[m[1][:20] for m in MALFORMED]
)
def test_a_malformed_skill_is_skipped_naming_file_line_and_rule_and_the_others_load(
    places: dict[str, Path], text: str | None, folder: str, line: int, rule: str
):
    root = places["root"]
    skills = root / ".claude/skills"
    skill(skills, "fine")
    path = skills / folder / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text if text is not None else "Just a body.\n", encoding="utf-8")

    found = find_skills(root, places["home"], places["user"])

    assert [s.name for s in found.skills] == ["fine"]
    (problem,) = found.problems
    assert problem.startswith(f"{path}:{line}: "), problem
    assert rule in problem and problem.endswith("the skill is skipped")
    # the same problem in the slash-command list, where the user looks for /names
    commands, problems = list_commands(root, places["user"])
    assert problem in problems and "fine" in [c.name for c in commands]


def test_a_skill_that_is_not_utf8_or_leads_outside_is_skipped(places: dict[str, Path], tmp_path):
    root = places["root"]
    bad = root / ".claude/skills/latin/SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    outside = skill(tmp_path / "elsewhere", "linked")
    (root / ".claude/skills/linked").symlink_to(outside.parent)

    found = find_skills(root, places["home"], places["user"])

    assert found.skills == ()
    assert sorted(found.problems) == sorted(
        [
            f"{bad}: SKILL.md is not UTF-8 text",
            f"{root / '.claude/skills/linked/SKILL.md'}: not read: it leads outside the workspace "
            "(a symbolic link, or in a folder that is one)",
        ]
    )


def test_two_hundred_skills_stay_within_two_percent_of_the_window_with_a_note(tmp_path: Path):
    folder = tmp_path / "skills"
    for n in range(200):
        skill(folder, f"skill-{n:03d}", f"name: skill-{n:03d}\ndescription: {'word ' * 60}{n}")
    found = find_skills(None, tmp_path / "home", tmp_path / "none")
    assert found.skills == ()  # none of the default folders
    from workspace_agent.skills.discovery import read_skill

    skills = [read_skill(p, "user") for p in sorted(folder.glob("*/SKILL.md"))]

    listed = catalog(skills, context_window=200_000)

    assert len(listed.block) <= 200_000 * 0.02 * 4
    assert 0 < listed.listed < 200 and listed.listed + listed.left_out == 200
    assert listed.block.count("\n- skill-") == listed.listed
    assert f"({listed.left_out} more skills are not listed, to keep this list within 2% of" in (
        listed.block
    )
    assert "Do it." not in listed.block  # names and descriptions only, never a body
    assert catalog([], 200_000).block == ""


def test_a_skill_is_a_slash_command_before_a_command_file_of_its_name(places: dict[str, Path]):
    root, user = places["root"], places["user"]
    skill(
        root / ".claude/skills",
        "review",
        "name: review\ndescription: Review a change\nargument-hint: FILE",
        "Review $ARGUMENTS with scripts/check.sh.\n",
    )
    (root / ".claude/commands").mkdir(parents=True)
    (root / ".claude/commands/review.md").write_text("The command file's review")
    skill(
        root / ".claude/skills",
        "background",
        "name: background\ndescription: d\nuser-invocable: false",
    )

    commands, problems = list_commands(root, user)
    shown = {c.name: c.to_wire() for c in commands}

    assert problems == []
    assert shown["review"] == {
        "name": "review",
        "description": "Review a change",
        "source": "skill",
        "argumentHint": "FILE",
        "path": str(root / ".claude/skills/review/SKILL.md"),
    }
    assert "background" not in shown
    invocation = resolve("/review src/app.py", root, user)
    assert invocation is not None and not invocation.built_in
    assert invocation.text.startswith('<skill name="review" folder=".claude/skills/review">\n')
    assert "Review src/app.py with scripts/check.sh." in invocation.text
    assert "The command file's review" not in invocation.text
    with pytest.raises(CommandError, match="user-invocable: false"):
        resolve("/background", root, user)
