"""The plan as a markdown checklist for $EDITOR, read back: ids kept by text, a rewording
by its words, new lines as new items, `> comment` lines under their item."""

from __future__ import annotations

from workspace_agent.cli.plan import read_checklist, render
from workspace_agent.protocol import PlanComment, PlanItem, TodoItem

PLAN = [
    TodoItem("1", "Read the greeting module", "pending"),
    TodoItem("2", "Change the greeting to hello", "pending"),
    TodoItem("3", "Add a test for the greeting", "pending"),
]


def test_the_checklist_is_one_line_per_item():
    assert render(PLAN) == (
        "- [ ] Read the greeting module\n"
        "- [ ] Change the greeting to hello\n"
        "- [ ] Add a test for the greeting"
    )


def test_an_unchanged_checklist_is_the_plan():
    assert read_checklist("# header\n" + render(PLAN) + "\n", PLAN) == (
        [PlanItem(i.id, i.text) for i in PLAN],
        [],
    )


def test_edits_reorders_deletions_additions_and_comments_are_read_back():
    edited = (
        "# The plan\n"
        "- [ ] Change the greeting to hello there\n"
        "> keep it short\n"
        ">\n"
        "\n"
        "- [x] Read   the greeting module\n"
        "- [ ] Update the README\n"
        "> and the changelog\n"
        "- [ ]\n"
    )
    items, comments = read_checklist(edited, PLAN)
    assert items == [
        PlanItem("2", "Change the greeting to hello there", edited=True),
        PlanItem("1", "Read the greeting module"),
        PlanItem("user-1", "Update the README", edited=True),
    ]
    assert comments == [
        PlanComment("2", "keep it short"),
        PlanComment("user-1", "and the changelog"),
    ]


def test_an_emptied_checklist_has_no_items():
    assert read_checklist("# all deleted\n\n", PLAN) == ([], [])
