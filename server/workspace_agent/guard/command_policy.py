"""The command guard: a verdict on a bash command before it runs.

- **refuse**: never run, whatever the approvals say: privilege escalation (`sudo`, `su`,
  ...), formatting or overwriting disks (`mkfs`, `dd`/redirection to a disk device),
  `rm -r` of `/` or `~` written as such, shutdown/reboot, fork bombs.
- **ask**: the guard cannot read the command with confidence, so the user is asked even
  where commands are allowed: the command word is a variable or another command's output,
  `eval` or `bash -c` of computed text, a shell or interpreter fed another program's output
  as code, `source` of a generated or outside file, a destructive command whose path
  normalises to `/` or the home folder (`rm -rf /usr/..`, `cd / && rm -rf *`), text the
  parser cannot read.
- **run**: nothing of the above; the approval policy alone decides.

Apart from the verdict, a command that destroys work (`rm -r`, `git reset --hard`, `git
push --force`, ...: the `destructive` rules) carries a `destructive` reason, so a question about it
makes Deny the default and says why.

This is defence in depth, not a sandbox: a program the command starts (a build script,
`python -c ...`) can do anything the user can. The user's approval is the gate.

The command is read by a real bash parser (shell_syntax), command by command, through
pipelines, lists, compound commands, substitutions, functions and nested shells
(`bash -c '...'`, `eval '...'`, here-documents fed to a shell). `grep sudo README` runs.

What is refused, asked about or flagged, and why, is data: the rules of
command_rules.json (each with the commands it must and must not match; the table in
docs/command-policy.md is generated from them), with the vocabulary this reader needs
(shells, wrappers, interpreters). The reader applies the rules that match one simple
command, and names by id the rules that are checks of its own.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .command_rules import load
from .command_targets import folder_of, sweeping_target
from .shell_syntax import (
    OPAQUE,
    Node,
    Scope,
    Word,
    parse,
    rough_commands,
    text,
    unread_text,
    word,
)

RULES = load()
WORDS = RULES.vocabulary
MAX_DEPTH: int = WORDS["maxDepth"]
"""Shells within shells read before the guard gives up and asks."""
SHELLS = frozenset(WORDS["shells"])
DEVICE = re.compile(WORDS["diskDevice"])
WRITES = frozenset(WORDS["writeRedirects"])
FORK_BOMB = re.compile(WORDS["forkBomb"])
STDIN_FILES = frozenset(WORDS["stdinFiles"])
"""Script operands that mean "read the program from standard input"."""
READERS = frozenset(WORDS["readers"])
"""Builtins that set the variables named in their operands from their input."""
WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    name: (frozenset(spec["withArgument"]), spec["operands"])
    for name, spec in WORDS["wrappers"].items()
}
"""Commands that run the command after them: (options that take a separate argument,
operands before the command)."""
RESERVED = frozenset(WORDS["reserved"])
"""Reserved words the parser sometimes leaves as a command word (`! { sudo ls; }` reads
as the command `{`): dropped, so the command after them is still judged."""
INTERPRETERS: list[tuple[re.Pattern[str], frozenset[str], frozenset[str]]] = [
    (re.compile(spec["names"]), frozenset(spec["inline"]), frozenset(spec["withArgument"]))
    for spec in WORDS["interpreters"]
]
"""(names, options whose presence means the code is not read from stdin, options with a
separate argument)."""
DYNAMIC_HEAD: dict[str, str] = WORDS["dynamicHead"]


@dataclass(frozen=True)
class Verdict:
    """What happens to a command: "refuse" (never runs, never asked about), "ask" (the
    user is asked even where commands are allowed) or "run" (the approval policy
    decides); `reason` says why, as a clause ("it escalates privileges (sudo)")."""

    kind: Literal["run", "ask", "refuse"]
    reason: str = ""
    destructive: str = ""
    """Why the command destroys work (the first such part of it), or ""."""
    rule: str = field(default="", compare=False)
    """The id of the rule that gave `kind` (command_rules.json), or ""."""
    destructive_rule: str = field(default="", compare=False)
    """The id of the rule that gave `destructive`, or ""."""


RUN = Verdict("run")


def judge(command: str, workspace: Path | str, home: str | None = None) -> Verdict:
    """The guard's verdict on `command`, run by `bash -c` in the folder `workspace`."""
    root = os.path.realpath(workspace)
    home = posixpath.normpath(home or os.path.expanduser("~"))
    reader = _Reader(root)
    reader.script(command, Scope(home, root, {}), None, depth=0)
    flagged, flagged_by = reader.destructive or ("", "")
    if reader.refusal:
        return Verdict("refuse", reader.refusal[0], flagged, reader.refusal[1], flagged_by)
    if reader.question:
        return Verdict("ask", reader.question[0], flagged, reader.question[1], flagged_by)
    return Verdict("run", "", flagged, "", flagged_by) if flagged else RUN


@dataclass(frozen=True)
class _Input:
    """Where a command's standard input comes from, when that matters to the guard."""

    kind: Literal["pipe", "generated", "text", "file"]
    text: str | None = None
    """For "text" (a here-document or here-string): its content when known."""
    source: Word | None = None
    """For "file": the file name."""


class _Reader:
    """Walks the syntax tree and records the first refusal and the first question."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.refusal: tuple[str, str] | None = None
        self.question: tuple[str, str] | None = None
        self.destructive: tuple[str, str] | None = None
        """Each: (the reason, the id of its rule)."""

    def refuse(self, rule_id: str, **values: str) -> None:
        self.refusal = self.refusal or (RULES.by_id(rule_id).fill(**values), rule_id)

    def ask(self, rule_id: str, **values: str) -> None:
        self.question = self.question or (RULES.by_id(rule_id).fill(**values), rule_id)

    # --- structure ---------------------------------------------------------------

    def script(self, source: str, scope: Scope, stdin: _Input | None, depth: int) -> None:
        if FORK_BOMB.search(source):
            self.refuse("fork-bomb")
        if depth > MAX_DEPTH:
            self.ask("nested-too-deep")
            return
        root = parse(source)
        self.visit(root, scope, stdin, depth)
        if root.has_error:  # the tree may have lost commands: the words still count
            for words in rough_commands(source):
                unwrapped, _ = _unwrap([Word(w, w, w) for w in words], None)
                if unwrapped:
                    self.refused_by_rule(unwrapped)
                    self.refusals_inside(unwrapped, scope, depth)
            self.ask("does-not-parse", near=_near(root))
        elif unread_text(root):
            self.ask("partly-unread")

    def visit(self, node: Node, scope: Scope, stdin: _Input | None, depth: int) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, scope, stdin, depth, [])
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects = node.children_by_field_name("redirect")
            if body is not None and body.type == "command":
                self.command(body, scope, stdin, depth, redirects)
            else:
                inner = self.redirects(redirects, scope, stdin)
                if body is not None:
                    self.visit(body, scope, inner, depth)
            for redirect in redirects:
                self.visit(redirect, scope, stdin, depth)
        elif kind == "pipeline":
            piped = False
            for child in node.children:
                if child.type in ("|", "|&"):
                    piped = True
                elif child.is_named:
                    self.visit(child, scope.copy(), _Input("pipe") if piped else stdin, depth)
        elif kind in ("subshell", "command_substitution", "function_definition"):
            for child in node.named_children:
                self.visit(child, scope.copy(), stdin, depth)
        elif kind == "process_substitution":
            fed = _Input("pipe") if text(node).startswith(">(") else stdin
            for child in node.named_children:
                self.visit(child, scope.copy(), fed, depth)
        elif kind == "variable_assignment":
            self.assign(node, scope, stdin, depth)
        elif kind == "unset_command":
            for child in node.named_children:
                scope.variables[text(child)] = ""
        elif kind == "for_statement":
            variable = node.child_by_field_name("variable")
            if variable is not None:
                scope.variables[text(variable)] = OPAQUE
            self.children(node, scope, stdin, depth)
        else:
            self.children(node, scope, stdin, depth)

    def children(self, node: Node, scope: Scope, stdin: _Input | None, depth: int) -> None:
        for child in node.named_children:
            self.visit(child, scope, stdin, depth)

    def assign(self, node: Node, scope: Scope, stdin: _Input | None, depth: int) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        given = word(value, scope) if value is not None else None
        if name is not None:
            # Text (with UNSET where it copies a variable that may be empty) or OPAQUE.
            readable = given is None or (
                not given.pattern and OPAQUE not in given.value and "+=" not in text(node)
            )
            scope.variables[text(name)] = (given.value if given else "") if readable else OPAQUE
        if value is not None:
            self.visit(value, scope, stdin, depth)

    def redirects(self, nodes: list[Node], scope: Scope, stdin: _Input | None) -> _Input | None:
        """Check writes to disk devices; return the standard input the redirections give."""
        for node in nodes:
            if node.type == "file_redirect":
                target = node.child_by_field_name("destination")
                operator = next((c.type for c in node.children if not c.is_named), "")
                if target is None:
                    continue
                destination = word(target, scope)
                if operator in WRITES and DEVICE.match(destination.literal):
                    self.refuse("device-redirect", device=destination.literal)
                if operator == "<" and target.type == "process_substitution":
                    stdin = _Input("generated")
                elif operator == "<":
                    stdin = _Input("file", source=destination)
            elif node.type == "heredoc_redirect":
                stdin = _Input("text", _heredoc(node))
            elif node.type == "herestring_redirect" and node.named_children:
                given = word(node.named_children[-1], scope)
                stdin = _Input("text", given.value if given.known else None)
        return stdin

    # --- one simple command ----------------------------------------------------------

    def command(
        self,
        node: Node,
        scope: Scope,
        stdin: _Input | None,
        depth: int,
        redirects: list[Node],
    ) -> None:
        words: list[Word] = []
        own_redirects: list[Node] = []
        for index, child in enumerate(node.children):
            field = node.field_name_for_child(index)
            if field == "name" and child.named_children:
                words.append(word(child.named_children[0], scope))
            elif field == "argument":
                words.append(word(child, scope))
            elif field == "redirect":
                own_redirects.append(child)
        stdin = self.redirects(own_redirects + redirects, scope, stdin)
        for child in node.named_children:  # substitutions inside the words run first
            if child.type == "variable_assignment":
                value = child.child_by_field_name("value")
                if value is not None:
                    self.visit(value, scope, stdin, depth)
            else:
                self.visit(child, scope, stdin, depth)
        self.simple(words, scope, stdin, depth)

    def simple(self, words: list[Word], scope: Scope, stdin: _Input | None, depth: int) -> None:
        words, replaced = _unwrap(words, self)
        if not words:
            return
        head, args = words[0], words[1:]
        if not head.plain:
            what = DYNAMIC_HEAD[head.dynamic or "computed"]
            self.ask("dynamic-command-word", what=what, source=head.source)
            return
        name = posixpath.basename(head.value)
        if self.refused_by_rule(words):
            return
        flagged = RULES.first_match("destructive", name, [arg.literal for arg in args])
        if flagged and not self.destructive:
            self.destructive = (flagged[1], flagged[0].id)
        if replaced and (replaced in head.value or name in SHELLS | {"eval"}):
            if any(replaced in each.value for each in words):
                shown = " ".join(each.source for each in words)
                self.ask("xargs-input-as-command", replaced=replaced, shown=shown)
                return
        if name in ("cd", "pushd"):
            scope.cwd = _cd(args, scope)
        elif name == "popd":
            scope.cwd = None
        elif name in SHELLS:
            self.shell(name, args, scope, stdin, depth)
        elif name in ("source", "."):
            if args:
                self.script_file(f"it sources `{args[0].source}`", args[0], scope)
        elif name == "eval":
            self.code("eval", args, scope, stdin, depth, same_shell=True)
        elif name == "trap" and args and not args[0].value.startswith("-"):
            self.code("trap", args[:1], scope, None, depth)
        elif name == "watch":
            self.code("watch", _after_options(args, {"-n", "--interval"}), scope, None, depth)
        elif name == "alias" and any("=" in arg.value for arg in args):
            self.ask("alias")
        elif name == "find":
            self.find(args, scope, depth)
        elif name in READERS:
            for arg in args:
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", arg.value):
                    scope.variables[arg.value] = OPAQUE
        else:
            self.interpreter(name, args, stdin)
        self.sweeping(name, args, scope)

    def refusals_inside(self, words: list[Word], scope: Scope, depth: int) -> None:
        """The code a shell (`bash -c`) or `eval` runs, among words that did not parse: its
        refusals count; its questions do not (the whole command is asked about as unread)."""
        name = posixpath.basename(words[0].value)
        question = self.question
        if name in SHELLS:
            self.shell(name, words[1:], scope.copy(), None, depth)
        elif name == "eval":
            self.code("eval", words[1:], scope.copy(), None, depth)
        self.question = question

    def refused_by_rule(self, words: list[Word]) -> bool:
        """Whether a refusing rule matches the simple command `words` (recorded if so)."""
        name = posixpath.basename(words[0].value)
        found = RULES.first_match("refuse", name, [arg.literal for arg in words[1:]])
        if found is not None:
            self.refusal = self.refusal or (found[1], found[0].id)
        return found is not None

    def interpreter(self, name: str, args: list[Word], stdin: _Input | None) -> None:
        """python, node, perl, ... given another program's output as their program."""
        program = _program(name, args)
        if program is None:
            return
        if program.source.startswith(("<(", '"<(')):
            self.ask("interpreter-runs-output", name=name, source=program.source)
        elif program.value in STDIN_FILES and stdin is not None:
            if stdin.kind in ("pipe", "generated"):
                self.ask("interpreter-reads-piped-code", name=name)

    def shell(
        self, name: str, args: list[Word], scope: Scope, stdin: _Input | None, depth: int
    ) -> None:
        inline = from_stdin = False
        index = 0
        while index < len(args):
            value = args[index].value
            if value == "--":
                index += 1
                break
            if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                index += 2
                continue
            if value.startswith(("-", "+")) and len(value) > 1:
                if not value.startswith("--"):
                    inline = inline or (value[0] == "-" and "c" in value)
                    from_stdin = from_stdin or "s" in value
                index += 1
                continue
            break
        operands = args[index:]
        if operands and not inline and operands[0].value in STDIN_FILES:
            operands, from_stdin = operands[1:], True
        if inline:
            if operands:
                self.code(f"{name} -c", operands[:1], scope.copy(), stdin, depth)
        elif operands and not from_stdin:
            self.script_file(f"it runs the script `{operands[0].source}`", operands[0], scope)
        elif stdin is None:
            return
        elif stdin.kind == "text" and stdin.text is not None:
            self.script(stdin.text, scope.copy(), None, depth + 1)
        elif stdin.kind == "text":
            self.ask("shell-reads-computed-commands", name=name)
        elif stdin.kind == "file" and stdin.source is not None:
            self.script_file(f"{name} reads `{stdin.source.source}`", stdin.source, scope)
        else:
            self.ask("shell-reads-piped-commands", name=name)

    def code(
        self,
        what: str,
        args: list[Word],
        scope: Scope,
        stdin: _Input | None,
        depth: int,
        same_shell: bool = False,
    ) -> None:
        """Text that a shell runs as commands (`eval`, `bash -c`, `trap`, `watch`)."""
        if not args:
            return
        if all(arg.known for arg in args):
            inner = scope if same_shell else scope.copy()
            self.script(" ".join(arg.value for arg in args), inner, stdin, depth + 1)
        else:
            self.ask("computed-code", what=what, shown=" ".join(arg.source for arg in args))

    def script_file(self, what: str, target: Word, scope: Scope) -> None:
        """A script read by a shell: only a file that exists in the workspace is read
        with confidence (one the command generates, or one from elsewhere, is not)."""
        if not target.known:
            self.ask("script-named-at-run-time", what=what)
            return
        folder = scope.cwd
        path = target.value if target.value.startswith("/") else None
        if path is None and folder is not None:
            path = posixpath.join(folder, target.value)
        if path is None:
            self.ask("script-from-unknown-folder", what=what)
            return
        real = os.path.realpath(path)
        if real != self.workspace and not real.startswith(self.workspace.rstrip("/") + "/"):
            self.ask("script-outside-workspace", what=what)
        elif not os.path.isfile(real):
            self.ask("script-not-yet-written", what=what)

    def find(self, args: list[Word], scope: Scope, depth: int) -> None:
        starts: list[Word] = []
        for arg in args:
            if arg.value.startswith(("-", "(", "!")):
                break
            starts.append(arg)
        deletes = any(arg.value == "-delete" for arg in args)
        index = 0
        while index < len(args):
            if args[index].value in ("-exec", "-execdir", "-ok", "-okdir"):
                end = index + 1
                while end < len(args) and args[end].value not in (";", "+"):
                    end += 1
                executed = args[index + 1 : end]
                if executed and posixpath.basename(executed[0].value) == "rm":
                    deletes = True
                self.simple(executed, scope.copy(), None, depth)
                index = end
            index += 1
        if deletes:
            for start in starts or [Word(".", ".", ".")]:
                hit = sweeping_target(start, scope)
                if hit:
                    self.ask("find-deletes-sweeping", target=hit)
                    return

    def sweeping(self, name: str, args: list[Word], scope: Scope) -> None:
        """rm, chmod -R and kin on `/`, the home folder or everything in them."""
        if name == "rm":
            rule, recursive = "sweeping-delete", _recursive(args)
        elif name in ("chmod", "chown", "chgrp") and _recursive(args):
            rule, recursive = "sweeping-change", True
        else:
            return
        for target in _operands(args):
            hit = sweeping_target(target, scope)
            if hit and (recursive or hit.startswith("everything in")):
                self.ask(rule, name=name, target=hit)
                return


def _reserved(value: str) -> bool:
    """A reserved word, or several the parser read as one word: after `!` tree-sitter-bash
    lexes `{ {` of `! { { sudo ls; }; }` as a single command name."""
    parts = value.split()
    return bool(parts) and all(part in RESERVED for part in parts)


def _unwrap(words: list[Word], reader: _Reader | None) -> tuple[list[Word], str | None]:
    """Drop wrapper commands (`env`, `nohup`, `timeout 5`, `xargs -n1`, ...) in front of
    the command they run; `command -v x` runs nothing. Also returns the string xargs
    replaces with its input (`-I {}`), if any."""
    replaced: str | None = None
    while words and (words[0].plain or "=" in words[0].literal):
        name = posixpath.basename(words[0].value)
        if _reserved(words[0].value) or re.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=", words[0].literal):
            words = words[1:]  # a misparsed reserved word, or an assignment (`time x=1`)
            continue
        spec = WRAPPERS.get(name)
        if spec is None:
            break
        with_argument, operands = spec
        rest = words[1:]
        if name == "command" and rest and rest[0].value in ("-v", "-V"):
            return [], None
        index = 0
        while index < len(rest):
            value = rest[index].value
            if name == "xargs":
                replaced = _replace_string(rest, index) or replaced
            if name == "env" and (value == "-" or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", value)):
                index += 1
            elif name == "env" and value.startswith(("-S", "--split-string")):
                if reader is not None:
                    reader.ask("env-split-string")
                return [], None
            elif value == "--":
                index += 1
                break
            elif value.startswith("-") and len(value) > 1:
                index += 2 if value in with_argument else 1
            else:
                break
        words = rest[index + operands :]
    return words, replaced


def _replace_string(args: list[Word], index: int) -> str | None:
    """The string an xargs option at `index` replaces with input (`-I X`, `-IX`, `-i`,
    `--replace[=X]`), or None."""
    value = args[index].value
    if value == "-I":
        return args[index + 1].value if index + 1 < len(args) else None
    if value.startswith("-I"):
        return value[2:]
    if value.startswith("-i"):
        return value[2:] or "{}"
    if value.startswith("--replace"):
        return value.partition("=")[2] or "{}"
    return None


def _cd(args: list[Word], scope: Scope) -> str | None:
    operands = [arg for arg in args if not (arg.value.startswith("-") and arg.value != "-")]
    if not operands:
        return scope.home
    if operands[0].value == "-":
        return None
    return folder_of(operands[0], scope)


def _after_options(args: list[Word], with_argument: set[str]) -> list[Word]:
    index = 0
    while index < len(args) and args[index].value.startswith("-"):
        index += 2 if args[index].value in with_argument else 1
    return args[index:]


def _operands(args: list[Word]) -> list[Word]:
    operands: list[Word] = []
    options_done = False
    for arg in args:
        if not options_done and arg.value == "--":
            options_done = True
        elif options_done or not arg.value.startswith("-") or arg.value == "-":
            operands.append(arg)
    return operands


def _recursive(args: list[Word]) -> bool:
    values = [arg.literal for arg in args]
    flags = "".join(v[1:] for v in values if v.startswith("-") and not v.startswith("--"))
    return "r" in flags.lower() or "--recursive" in values


def _program(name: str, args: list[Word]) -> Word | None:
    """Where the interpreter `name` reads its program: its script operand (`-` for
    standard input); None when `name` is no interpreter or the code is inline (`-c`)."""
    for names, inline, with_argument in INTERPRETERS:
        if not names.fullmatch(name):
            continue
        index = 0
        while index < len(args):
            value = args[index].value
            if value == "-" or not value.startswith("-"):
                return args[index]
            short = not value.startswith("--")
            if value in inline or (short and any(f[1] in value[1:] for f in inline if len(f) == 2)):
                return None
            index += 2 if value in with_argument else 1
        return Word("-", "-", "-")
    return None


def _heredoc(node: Node) -> str | None:
    """The text of a here-document, or None when the shell expands parts of it."""
    body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
    quoted = start is not None and any(q in text(start) for q in "'\"\\")
    expanded = any(c.type not in ("heredoc_content",) for c in body.named_children)
    return text(body) if quoted or not expanded else None


def _near(root: Node) -> str:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            shown = " ".join(text(node).split())[:40]
            return f" near `{shown}`" if shown else ""
        stack.extend(reversed(node.children))
    return ""
