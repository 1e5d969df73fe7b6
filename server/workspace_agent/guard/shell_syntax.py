"""Reading a bash command the way bash will: a real parser (tree-sitter-bash) and the
value of each word after quote removal, as far as it can be known before the command runs.

The command guard (command_policy) judges commands on this reading. Whatever cannot be
known in advance (a variable, a command's output, a glob) is marked as such instead of
guessed, so the guard can say "this cannot be checked" rather than pass it.
"""

from __future__ import annotations

import codecs
import re
import shlex
from dataclasses import dataclass
from functools import cache
from typing import Any

Node = Any
"""A tree_sitter.Node (the bindings ship no usable type stubs for mypy's strict use)."""

UNSET = "\x00"
"""Stands in a word's value for a variable the command does not set: it may be empty."""
OPAQUE = "\x01"
"""Stands in a word's value for text computed at run time (a command's output, a
variable this command sets from one): unknown, assumed non-empty."""

SUBSHELLS = {"command_substitution", "process_substitution"}
GLOB = re.compile(r"[*?]|\[.*\]")
BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
SEPARATORS = {";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "\n"}
TEXT_LEAVES = {"heredoc_body", "string_content", "raw_string", "comment", "ansi_c_string"}
"""Nodes whose whole span is text the parser has read (their children may not cover it)."""


@dataclass(frozen=True)
class Word:
    """One shell word: as written, as shlex would give it, and as far as it is known."""

    source: str
    literal: str
    """Quotes and backslashes removed, expansions kept as written (`"$HOME"/x` → `$HOME/x`)."""
    value: str
    """Expanded where known (`~` and `$HOME`, `$PWD`, variables the command set to plain
    text); UNSET or OPAQUE where not."""
    dynamic: str | None = None
    """Why the value is not known from the text alone: 'variable', 'output', 'computed'
    or 'pattern'; None for a plain word."""
    pattern: bool = False
    """It has an unquoted glob or brace expansion."""

    @property
    def plain(self) -> bool:
        """Nothing in it is expanded: what is written is what the command gets."""
        return self.dynamic is None

    @property
    def known(self) -> bool:
        """Its value is known before the command runs (variables it uses are)."""
        return not self.pattern and UNSET not in self.value and OPAQUE not in self.value


@dataclass
class Scope:
    """What the command has established so far at a point of the script."""

    home: str
    cwd: str | None
    """The folder commands run in; None once a `cd` went somewhere that cannot be known."""
    variables: dict[str, str]
    """Variables this command set: their text, or OPAQUE when computed."""

    def copy(self) -> Scope:
        return Scope(self.home, self.cwd, dict(self.variables))


@cache
def _parser() -> Any:
    import tree_sitter  # imported on the first command only: it costs start-up time
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(command: str) -> Node:
    """The syntax tree of `command` (its root node)."""
    return _parser().parse(command.encode("utf-8")).root_node


def text(node: Node) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def unread_text(root: Node) -> str:
    """Text of the command the parser did not place in the tree (nor in an error node).

    tree-sitter-bash drops a lone `-` before a here-document (`python3 - <<EOF`); that one
    is tolerated, since it changes nothing about what runs (`-` means "read stdin", which
    is what the interpreter does without it). Anything else unread means the tree cannot
    be trusted."""
    source = bytes(root.text)
    covered = bytearray(len(source))
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in TEXT_LEAVES:
            covered[node.start_byte - root.start_byte : node.end_byte - root.start_byte] = (
                b"\x01" * (node.end_byte - node.start_byte)
            )
        else:
            stack.extend(node.children)
    unread = bytes(b for b, seen in zip(source, covered, strict=True) if not seen)
    unread = unread.replace(b"\\\n", b"")  # line continuations
    leftover = b"".join(unread.split()).replace(b"-", b"")
    return leftover.decode("utf-8", "replace")


def word(node: Node, scope: Scope) -> Word:
    """Evaluate one word node (word, string, concatenation, expansion, ...)."""
    pieces = list(_pieces(node, scope))
    literal = "".join(piece[0] for piece in pieces)
    value = "".join(piece[1] for piece in pieces)
    dynamic = next((piece[2] for piece in pieces if piece[2]), None)
    pattern = dynamic == "pattern" or _unquoted_pattern(pieces)
    if dynamic is None and pattern:
        dynamic = "pattern"
    if pieces and pieces[0][3] and re.match(r"~(/|$)", value):  # tilde expansion
        value = scope.home + value[1:]
    return Word(text(node), literal, value, dynamic, pattern)


def _unquoted_pattern(pieces: list[tuple[str, str, str | None, bool]]) -> bool:
    unquoted = "".join(piece[0] if piece[3] else "x" for piece in pieces)
    return bool(GLOB.search(unquoted) or BRACES.search(unquoted))


def _pieces(node: Node, scope: Scope) -> Any:
    """(literal, value, dynamic kind or None, unquoted) for each part of a word."""
    kind = node.type
    if kind in ("word", "number", "test_operator", "regex", "extglob_pattern"):
        raw = text(node)
        if "\\" in raw:
            raw = re.sub(r"\\(\n|.)", _unescape, raw)
        yield raw, raw, None, True
    elif kind == "raw_string":
        raw = text(node)[1:-1]
        yield raw, raw, None, False
    elif kind == "ansi_c_string":
        yield from _ansi_c(text(node))
    elif kind in ("string", "translated_string"):
        for child in node.named_children:
            if child.type == "string_content":
                raw = re.sub(r'\\([$`"\\\n])', _unescape, text(child))
                yield raw, raw, None, False
            else:
                yield from _pieces(child, scope)
    elif kind == "concatenation":
        for child in node.named_children:
            yield from _pieces(child, scope)
    elif kind in ("simple_expansion", "expansion"):
        yield text(node), _variable(node, scope), "variable", False
    elif kind in SUBSHELLS:
        yield text(node), OPAQUE, "output", False
    elif kind in ("arithmetic_expansion", "brace_expression"):
        yield text(node), OPAQUE, "computed" if kind != "brace_expression" else "pattern", True
    elif kind == "array":
        yield text(node), OPAQUE, "computed", False
    else:  # anything else is read as text the shell may transform
        yield text(node), OPAQUE, "computed", False


def _unescape(match: re.Match[str]) -> str:
    return "" if match.group(1) == "\n" else match.group(1)


def _variable(node: Node, scope: Scope) -> str:
    """The value of `$NAME` or `${NAME}` when this command or the environment makes it
    known (HOME, PWD); UNSET for other plain variables, OPAQUE for `${X:-...}` and kin."""
    names = [child for child in node.named_children if child.type == "variable_name"]
    plain = len(node.named_children) == 1 and len(names) == 1
    if not plain:
        return OPAQUE
    name = text(names[0])
    if name in scope.variables:
        return scope.variables[name]
    if name == "HOME":
        return scope.home
    if name == "PWD":
        return scope.cwd if scope.cwd is not None else OPAQUE
    return UNSET


def _ansi_c(source: str) -> Any:
    body = source[2:-1]
    try:
        decoded = codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        yield source, OPAQUE, "computed", False
        return
    yield decoded, decoded, None, False


def expand_braces(value: str, limit: int = 64) -> list[str]:
    """Bash brace expansion of comma lists (`{a,b}`), enough to see every path a word
    names; ranges (`{1..9}`) stand for themselves. At most `limit` results."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", value)
    if not match:
        return [value]
    head, tail = value[: match.start()], value[match.end() :]
    results: list[str] = []
    for option in match.group(1).split(","):
        results.extend(expand_braces(head + option + tail, limit))
        if len(results) >= limit:
            break
    return results[:limit]


def rough_commands(source: str) -> list[list[str]]:
    """The words of each command, split at operators by shlex, without a grammar: what
    the guard falls back on for refusals where the parser reports an error."""
    lexer = shlex.shlex(source, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"  # keep newlines: they separate commands
    lexer.commenters = "#"
    try:
        tokens = [piece for token in lexer for piece in _split_newlines(token)]
    except ValueError:  # unbalanced quotes: take the plain words
        tokens = source.replace(";", " ; ").replace("|", " | ").replace("&", " & ").split()
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _split_newlines(token: str) -> list[str]:
    if "\n" not in token:
        return [token]
    parts: list[str] = []
    for piece in token.split("\n"):
        if piece:
            parts.append(piece)
        parts.append("\n")
    return parts[:-1]
