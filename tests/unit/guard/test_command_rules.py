"""The command guard's rules as data (guard/command_rules.json): every rule's examples,
through the whole guard (the real parser, wrappers, nesting), give that rule's decision
and name it; a rule without examples, or whose `when` misses one of its own, does not
load; every check the reader makes is a rule it names.

Commands are only judged here, never run.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.guard import command_policy
from workspace_agent.guard.command_rules import RULES_FILE, RulesError, load, parse

HOME = "/home/dev"
RULES = load()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with the files the examples source or run."""
    root = tmp_path / "ws"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "activate").write_text("export VIRTUAL_ENV=.venv\n")
    (root / "scripts").mkdir()
    (root / "scripts" / "build.sh").write_text("make\n")
    (root / ".env").write_text("A=1\n")
    return root


def examples(side: str) -> list[Any]:
    return [
        pytest.param(rule.id, example, id=f"{rule.id}: {example[:40]}")
        for rule in RULES.rules
        for example in (rule.match if side == "match" else rule.not_match)
    ]


def decided_by(verdict: command_policy.Verdict, rule_id: str) -> bool:
    rule = RULES.by_id(rule_id)
    if rule.decision == "destructive":
        return verdict.destructive_rule == rule_id and bool(verdict.destructive)
    return verdict.kind == rule.decision and verdict.rule == rule_id


@pytest.mark.parametrize(("rule_id", "command"), examples("match"))
def test_a_rule_decides_the_commands_it_must_match(rule_id: str, command: str, ws: Path):
    verdict = command_policy.judge(command, ws, HOME)
    assert decided_by(verdict, rule_id), verdict
    # The reason is the rule's, its placeholders filled.
    pattern = re.escape(RULES.by_id(rule_id).reason)
    pattern = re.sub(r"\\\{\w+\\\}", ".*", pattern)
    reason = (
        verdict.destructive if RULES.by_id(rule_id).decision == "destructive" else verdict.reason
    )
    assert re.fullmatch(pattern, reason, re.DOTALL), (reason, pattern)


@pytest.mark.parametrize(("rule_id", "command"), examples("notMatch"))
def test_a_rule_leaves_the_commands_it_must_not_match(rule_id: str, command: str, ws: Path):
    verdict = command_policy.judge(command, ws, HOME)
    assert not decided_by(verdict, rule_id), verdict
    assert rule_id not in (verdict.rule, verdict.destructive_rule)


def test_every_check_of_the_reader_is_a_rule_and_every_rule_is_used():
    """The reader names its checks by id; a rule without `when` that no check names
    would be a row of the table that nothing decides."""
    source = Path(command_policy.__file__).read_text("utf-8")
    named = set(re.findall(r'(?:ask|refuse)\(\s*"([a-z-]+)"', source))
    named |= set(re.findall(r'rule, recursive = "([a-z-]+)"', source))
    checks = {rule.id for rule in RULES.rules if not rule.when}
    assert named == checks


def raw_rules() -> dict[str, Any]:
    return copy.deepcopy(json.loads(RULES_FILE.read_text("utf-8")))


def rule_of(data: dict[str, Any], rule_id: str) -> dict[str, Any]:
    return next(rule for rule in data["rules"] if rule["id"] == rule_id)


def test_a_rule_without_examples_does_not_load():
    for side in ("match", "notMatch"):
        data = raw_rules()
        del rule_of(data, "shred")[side]
        with pytest.raises(RulesError, match=f"command rule shred: `{side}` must list at least"):
            parse(data)
        rule_of(data, "shred")[side] = []
        with pytest.raises(RulesError, match="command rule shred"):
            parse(data)


def test_a_rule_that_misses_its_own_examples_does_not_load():
    data = raw_rules()
    rule_of(data, "escalation")["match"].append("sudoers-check")
    with pytest.raises(RulesError) as caught:
        parse(data)
    assert str(caught.value) == (
        "command rule escalation: it does not match 'sudoers-check', listed under match"
    )
    data = raw_rules()
    rule_of(data, "git-reset-hard")["notMatch"].append("git -C x reset --hard")
    with pytest.raises(
        RulesError, match="it matches 'git -C x reset --hard', listed under notMatch"
    ):
        parse(data)


def test_a_malformed_rule_does_not_load():
    cases = [
        ({"decision": "maybe"}, "decision must be one of refuse | ask | destructive"),
        ({"when": {"command": ["x"], "colour": "red"}}, "unknown conditions colour"),
        ({"when": {"first": ["x"]}}, "a `when` names its command"),
        ({"reason": "it {frobs}"}, "the reason's frobs cannot be filled"),
        ({"because": "x"}, "unknown fields because"),
    ]
    for change, message in cases:
        data = raw_rules()
        rule_of(data, "shred").update(change)
        with pytest.raises(RulesError, match=re.escape(message)):
            parse(data)
    data = raw_rules()
    data["rules"].append(rule_of(data, "shred"))
    with pytest.raises(RulesError, match="command rule shred: the id is used twice"):
        parse(data)


def test_the_rules_load_as_shipped():
    decisions = {rule.decision for rule in RULES.rules}
    assert decisions == {"refuse", "ask", "destructive"}
    assert all(rule.match and rule.not_match for rule in RULES.rules)
