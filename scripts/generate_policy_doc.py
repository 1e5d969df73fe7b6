"""Write the command guard's table (docs/command-policy.md, between its GENERATED markers)
from its rules, server/workspace_agent/guard/command_rules.json: what is refused, what is
asked about, what is flagged as destroying work, each rule with its reason and the
commands it must and must not match.

Stdlib only, like generate_contract.py; `make generate` runs both, `make check-generated`
(part of `make lint`) fails on a stale table: python scripts/generate_policy_doc.py --check
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

SOURCE = Path("server/workspace_agent/guard/command_rules.json")
DOC = Path("docs/command-policy.md")
MARK = "command-rules"
SECTIONS = [
    ("refuse", "Refused: never run, whatever the approvals say"),
    ("ask", "Asked about: even where commands are allowed, the user is asked, with the reason"),
    (
        "destructive",
        "Flagged as destroying work: a question about it defaults to Deny and says why",
    ),
]


def code(text: str) -> str:
    """`text` as a Markdown code span inside a table cell (pipes escaped, newlines shown)."""
    shown = text.replace("\n", "⏎").replace("|", "\\|")
    ticks = "`" * (max((len(run) for run in re.findall("`+", shown)), default=0) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def when(rule: dict[str, Any]) -> str:
    """The rule's `when` in a few words, or the reader's check it is."""
    alternatives = rule.get("when")
    if not alternatives:
        return "a check of the reader's"
    if isinstance(alternatives, dict):
        alternatives = [alternatives]
    parts = []
    for condition in alternatives:
        words = []
        for name, value in condition.items():
            shown = ", ".join(value) if isinstance(value, list) else json.dumps(value)
            words.append(f"{name} {shown}".replace("|", "\\|"))
        parts.append("; ".join(words))
    return " — or — ".join(parts)


def table(data: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for decision, title in SECTIONS:
        rules = [rule for rule in data["rules"] if rule["decision"] == decision]
        out += [f"### {title}", "", "| rule | reason | when | matches | does not match |"]
        out.append("| --- | --- | --- | --- | --- |")
        for rule in rules:
            cells = [
                f"`{rule['id']}`",
                rule["reason"].replace("|", "\\|"),
                when(rule),
                "<br>".join(code(example) for example in rule["match"]),
                "<br>".join(code(example) for example in rule["notMatch"]),
            ]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return out[:-1]


def rewrite(text: str, data: dict[str, Any]) -> str:
    begin = (
        f"<!-- BEGIN GENERATED {MARK}: from {SOURCE} by scripts/generate_policy_doc.py; "
        "edit the rules and run make generate -->"
    )
    end = f"<!-- END GENERATED {MARK} -->"
    start, stop = text.find(f"<!-- BEGIN GENERATED {MARK}"), text.find(end)
    if start < 0 or stop < 0:
        raise SystemExit(f"{DOC}: no GENERATED {MARK} markers")
    return text[:start] + "\n".join([begin, *table(data), end]) + text[stop + len(end) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the table is stale")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    data = json.loads((args.root / SOURCE).read_text(encoding="utf-8"))
    current = (args.root / DOC).read_text(encoding="utf-8")
    wanted = rewrite(current, data)
    if wanted == current:
        return 0
    if args.check:
        print(
            f"{DOC} is out of date with {SOURCE}: run make generate "
            "(python scripts/generate_policy_doc.py) and commit the result",
            file=sys.stderr,
        )
        return 1
    (args.root / DOC).write_text(wanted, encoding="utf-8")
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
