"""YAML front matter of the markdown files other agents share with us: an Agent Skill's
`SKILL.md` (skills/) and a subagent's definition (subagents/). Both formats are YAML
between two `---` lines, then a markdown body; their authors write them for Claude Code,
Codex and the others, whose parsers are real YAML parsers, so this is one too (PyYAML's
safe loader, imported on the first file read: a workspace without such files never loads
it).

Every problem names the file and the line: a rule a field breaks points at its key's line
(`FrontMatter.line`), a missing field at the opening `---`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OPENING_LINE = 1


class FrontMatterError(ValueError):
    """A file whose front matter cannot be used: `path:line: rule`."""

    def __init__(self, path: Path, line: int, rule: str) -> None:
        super().__init__(f"{path}:{line}: {rule}")
        self.path = path
        self.line = line
        self.rule = rule


@dataclass(frozen=True)
class FrontMatter:
    """The fields of a file's front matter, where each key is, and the body after it."""

    path: Path
    fields: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)
    """The 1-based line of each top-level key in the file."""
    body: str = ""

    def line(self, key: str) -> int:
        """The key's line, or the opening `---` when the key is not there."""
        return self.lines.get(key, OPENING_LINE)

    def problem(self, key: str, rule: str) -> FrontMatterError:
        """The error for `rule`, broken by `key` (at its line)."""
        return FrontMatterError(self.path, self.line(key), rule)

    def text(self, key: str, *, required: bool = False, limit: int | None = None) -> str | None:
        """A string field (None when absent and not `required`): FrontMatterError when it
        is not a string, is empty, or is longer than `limit` characters."""
        if key not in self.fields or self.fields[key] is None:
            if required:
                raise self.problem(key, f"the front matter has no `{key}` (it is required)")
            return None
        value = self.fields[key]
        if not isinstance(value, str):
            raise self.problem(key, f"`{key}` must be text, not {_type_word(value)}")
        if not value.strip():
            raise self.problem(key, f"`{key}` is empty")
        if limit is not None and len(value) > limit:
            raise self.problem(
                key, f"`{key}` has {len(value):,} characters, at most {limit:,} are allowed"
            )
        return value

    def flag(self, key: str, default: bool) -> bool:
        """A true/false field: FrontMatterError when it is anything else."""
        value = self.fields.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.problem(key, f"`{key}` must be true or false, not {value!r}")
        return value

    def names(self, key: str, separator: str | None = None) -> tuple[str, ...] | None:
        """A list of names, written as a YAML list or as one string (split at `separator`,
        else at white space); None when absent."""
        value = self.fields.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            parts = value.split(separator) if separator else value.split()
            return tuple(part.strip() for part in parts if part.strip())
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(item.strip() for item in value if item.strip())
        raise self.problem(key, f"`{key}` must be a list of names or one string of them")


def read_front_matter(text: str, path: Path) -> FrontMatter:
    """The front matter and body of `text` (the file at `path`); FrontMatterError when it
    has none, it is never closed, it is not YAML, or it is not a mapping of names."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise FrontMatterError(
            path, OPENING_LINE, "no front matter: the file must start with a line `---`"
        )
    end = next((n for n, line in enumerate(lines[1:], start=1) if line.strip() == "---"), None)
    if end is None:
        raise FrontMatterError(
            path,
            OPENING_LINE,
            "the front matter's `---` is never closed: end it with a line `---`",
        )
    node, fields = _load("".join(lines[1:end]), path)
    if fields is None:
        fields = {}
    if not isinstance(fields, dict):
        raise FrontMatterError(
            path, 2, f"the front matter must be `key: value` lines, not {_type_word(fields)}"
        )
    keys: dict[str, int] = {}
    for key_node, _value in getattr(node, "value", ()):
        if not isinstance(key_node.value, str):
            continue
        keys[key_node.value] = key_node.start_mark.line + 2  # YAML's line 0 is the file's 2
    for key in fields:
        if not isinstance(key, str):
            raise FrontMatterError(path, 2, f"the front matter's key {key!r} is not a name")
    return FrontMatter(path, fields, keys, "".join(lines[end + 1 :]))


def _load(yaml_text: str, path: Path) -> tuple[Any, Any]:
    """The YAML's node tree (for the keys' lines) and its value."""
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(yaml_text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else 2
        problem = exc.problem or exc.context or "not valid YAML"
        rule = f"the front matter is not valid YAML: {problem}"
        raise FrontMatterError(path, line, rule) from None
    except yaml.YAMLError as exc:
        raise FrontMatterError(path, 2, f"the front matter is not valid YAML: {exc}") from None
    finally:
        loader.dispose()


def _type_word(value: Any) -> str:
    words = {
        bool: "true/false",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "a mapping",
    }
    return words.get(type(value), type(value).__name__)
