"""The command guard's rules as data (command_rules.json beside this file): what is
refused, what is asked about, what is flagged as destroying work, each rule with the
commands it must and must not match, and the vocabulary the reader needs (shells,
wrappers, interpreters, the disk devices, ...).

A rule with `when` matches one simple command, its name and arguments as the reader
gives them (wrappers dropped); a rule without is one of the reader's own checks
(command_policy.py names it by its id). Loading checks every rule: known fields and
decisions, a reason whose placeholders it can fill, at least one command it must match
and one it must not; and a `when` rule is run on its examples (each a simple command,
read with shlex). A rule that fails any of that fails to load, naming the rule. The
whole guard runs every rule's examples in tests/unit/guard/test_command_rules.py.
"""

from __future__ import annotations

import itertools
import json
import posixpath
import re
import shlex
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

RULES_FILE = Path(__file__).with_name("command_rules.json")
DECISIONS = ("refuse", "ask", "destructive")
CONDITIONS = {
    "command",
    "commandPattern",
    "subcommand",
    "first",
    "flag",
    "noFlag",
    "arg",
    "args",
    "noArg",
    "argPrefix",
    "argDevice",
    "execs",
}
EXECUTES = ("-exec", "-execdir", "-ok", "-okdir")
"""find's options that run the command after them."""
FILLED_BY_WHEN = {"name", "arg", "first"}
"""Placeholders a `when` rule's reason may use: the command's name, the argument an
`arg` condition matched, the first argument (after the subcommand, where there is one)."""


class RulesError(ValueError):
    """The rules file breaks a rule of its own; the message names the rule."""


@dataclass(frozen=True)
class Rule:
    id: str
    decision: str
    reason: str
    when: tuple[Mapping[str, Any], ...]
    """Alternatives: the rule matches a command that meets all conditions of one. Empty:
    a check of the reader's."""
    match: tuple[str, ...]
    not_match: tuple[str, ...]

    def fill(self, **values: str) -> str:
        return self.reason.format(**values)


@dataclass(frozen=True)
class Rules:
    rules: tuple[Rule, ...]
    vocabulary: Mapping[str, Any]

    def by_id(self, rule_id: str) -> Rule:
        return next(rule for rule in self.rules if rule.id == rule_id)

    def first_match(self, decision: str, name: str, args: Sequence[str]) -> tuple[Rule, str] | None:
        """The first `when` rule of `decision` that matches the simple command `name args`
        (`args` as literals), and its reason filled in."""
        for rule in self.rules:
            if rule.decision != decision or not rule.when:
                continue
            for condition in rule.when:
                found = _matches(condition, name, list(args), self.vocabulary)
                if found is not None:
                    return rule, rule.fill(**found)
        return None


@cache
def load() -> Rules:
    """The guard's rules, checked (RulesError names what is wrong)."""
    return parse(json.loads(RULES_FILE.read_text(encoding="utf-8")))


def parse(data: Mapping[str, Any]) -> Rules:
    vocabulary = data.get("vocabulary")
    if not isinstance(vocabulary, Mapping):
        raise RulesError("command rules: no vocabulary")
    rules: list[Rule] = []
    for raw in data.get("rules", []):
        rule = _rule(raw)
        if any(rule.id == other.id for other in rules):
            raise RulesError(f"command rule {rule.id}: the id is used twice")
        _check_examples(rule, vocabulary)
        rules.append(rule)
    if not rules:
        raise RulesError("command rules: there are none")
    return Rules(tuple(rules), vocabulary)


def _rule(raw: Mapping[str, Any]) -> Rule:
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not rule_id:
        raise RulesError(f"command rule without an id: {json.dumps(raw)[:80]}")
    where = f"command rule {rule_id}"
    unknown = set(raw) - {"id", "decision", "reason", "when", "match", "notMatch"}
    if unknown:
        raise RulesError(f"{where}: unknown fields {', '.join(sorted(unknown))}")
    if raw.get("decision") not in DECISIONS:
        raise RulesError(f"{where}: decision must be one of {' | '.join(DECISIONS)}")
    reason = raw.get("reason")
    if not isinstance(reason, str) or not reason:
        raise RulesError(f"{where}: no reason")
    examples = {side: raw.get(side) for side in ("match", "notMatch")}
    for side, listed in examples.items():
        if (
            not isinstance(listed, list)
            or not listed
            or not all(isinstance(example, str) and example.strip() for example in listed)
        ):
            raise RulesError(
                f"{where}: `{side}` must list at least one command it "
                f"{'must' if side == 'match' else 'must not'} match"
            )
    when = raw.get("when", [])
    alternatives = tuple(when if isinstance(when, list) else [when])
    for condition in alternatives:
        _check_condition(where, condition)
    if alternatives:
        placeholders = {name for _, name, _, _ in string.Formatter().parse(reason) if name}
        if placeholders - FILLED_BY_WHEN:
            raise RulesError(
                f"{where}: the reason's {', '.join(sorted(placeholders - FILLED_BY_WHEN))} "
                f"cannot be filled (a `when` rule fills {', '.join(sorted(FILLED_BY_WHEN))})"
            )
    return Rule(
        rule_id,
        raw["decision"],
        reason,
        alternatives,
        tuple(examples["match"] or ()),
        tuple(examples["notMatch"] or ()),
    )


def _check_condition(where: str, condition: Any) -> None:
    if not isinstance(condition, Mapping) or not condition:
        raise RulesError(f"{where}: a `when` is an object of conditions, or a list of them")
    unknown = set(condition) - CONDITIONS
    if unknown:
        raise RulesError(f"{where}: unknown conditions {', '.join(sorted(unknown))}")
    if "command" not in condition and "commandPattern" not in condition:
        raise RulesError(f"{where}: a `when` names its command (command or commandPattern)")


def _check_examples(rule: Rule, vocabulary: Mapping[str, Any]) -> None:
    """A `when` rule on its own examples, each read as one simple command."""
    if not rule.when:
        return
    for side, examples in (("match", rule.match), ("notMatch", rule.not_match)):
        for example in examples:
            try:
                words = shlex.split(example)
            except ValueError as exc:
                raise RulesError(f"command rule {rule.id}: {example!r}: {exc}") from exc
            name, args = posixpath.basename(words[0]), words[1:]
            hit = any(_matches(c, name, args, vocabulary) is not None for c in rule.when)
            if hit != (side == "match"):
                verb = "does not match" if side == "match" else "matches"
                raise RulesError(
                    f"command rule {rule.id}: it {verb} {example!r}, listed under {side}"
                )


def _matches(
    condition: Mapping[str, Any], name: str, args: list[str], vocabulary: Mapping[str, Any]
) -> dict[str, str] | None:
    """The placeholders' values when `name args` meets every condition, else None."""
    if "command" in condition and name not in condition["command"]:
        return None
    if "commandPattern" in condition and not re.fullmatch(condition["commandPattern"], name):
        return None
    found = {"name": name}
    rest = args
    if "subcommand" in condition:
        skip = vocabulary.get("optionsWithArgument", {}).get(name, [])
        index = 0
        while index < len(args) and args[index].startswith("-"):
            index += 2 if args[index] in skip else 1
        if index >= len(args) or args[index] not in condition["subcommand"]:
            return None
        rest = args[index + 1 :]
    found["first"] = rest[0] if rest else ""
    if "first" in condition and rest[:1] not in [[value] for value in condition["first"]]:
        return None
    if "flag" in condition and not _has_flag(rest, condition["flag"]):
        return None
    if "noFlag" in condition and _has_flag(rest, condition["noFlag"]):
        return None
    if "arg" in condition:
        wanted = condition["arg"]
        listed = vocabulary[wanted] if isinstance(wanted, str) else wanted
        hit = next((value for value in rest if value in listed), None)
        if hit is None:
            return None
        found["arg"] = hit
    if "args" in condition and not all(value in rest for value in condition["args"]):
        return None
    if "noArg" in condition and any(value in rest for value in condition["noArg"]):
        return None
    if "argPrefix" in condition and not any(
        value.startswith(tuple(condition["argPrefix"])) for value in rest
    ):
        return None
    if "argDevice" in condition:
        prefix, device = condition["argDevice"], re.compile(vocabulary["diskDevice"])
        if not any(v.startswith(prefix) and device.match(v[len(prefix) :]) for v in rest):
            return None
    if "execs" in condition and not any(
        flag in EXECUTES and posixpath.basename(command) in condition["execs"]
        for flag, command in itertools.pairwise(rest)
    ):
        return None
    return found


def _has_flag(values: list[str], spec: Mapping[str, Any]) -> bool:
    """A short option among `short`'s letters (alone or in a cluster like -rf) or the
    `long` one (or `long=...`); options end at `--` unless `throughEnd`."""
    letters, long = spec.get("short", ""), spec.get("long")
    for value in values:
        if value == "--" and not spec.get("throughEnd"):
            return False
        if long and (value == long or value.startswith(long + "=")):
            return True
        if value.startswith("-") and not value.startswith("--"):
            if any(letter in value[1:] for letter in letters):
                return True
    return False
