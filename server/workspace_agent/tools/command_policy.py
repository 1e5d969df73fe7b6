"""Commands refused whatever the approval policy: privilege escalation, wiping disks or
home folders, shutting the machine down, fork bombs.

Matching is on parsed words (shlex), command by command, so `grep sudo README` passes
and `sudo  rm` does not. Wrappers (`env`, `nohup`, `time`, `xargs`, ...) and nested
shells (`bash -c "..."`, `eval`) are looked through.
"""

from __future__ import annotations

import os
import re
import shlex

SEPARATORS = {";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "\n"}
REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>"}
WRAPPERS = {
    "env",
    "nohup",
    "time",
    "command",
    "exec",
    "nice",
    "ionice",
    "xargs",
    "stdbuf",
    "setsid",
    "chroot",
    "builtin",
    "then",
    "do",
    "else",
    "!",
    "{",
}
WRAPPERS_WITH_ARG = {"timeout", "watch"}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "fish"}
ESCALATION = {"sudo", "su", "doas", "pkexec", "run0", "sudoedit"}
POWER = {"shutdown", "reboot", "halt", "poweroff"}
DEVICE = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper/)")
HOME_OR_ROOT = {
    "/",
    "/*",
    "/.",
    "~",
    "~/",
    "~/*",
    "$HOME",
    "$HOME/",
    "$HOME/*",
    "${HOME}",
    "${HOME}/",
    "${HOME}/*",
}
FORK_BOMB = re.compile(r"(\S+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;\s*\1")


def refusal(command: str) -> str | None:
    """Why `command` is never run, or None when it is not one of the refused kinds."""
    if FORK_BOMB.search(command):
        return "it is a fork bomb"
    return _check(command, depth=0)


def _check(command: str, depth: int) -> str | None:
    tokens = _tokens(command)
    for index, token in enumerate(tokens[:-1]):
        if token in REDIRECTS and DEVICE.match(tokens[index + 1]):
            return f"it writes to the disk device {tokens[index + 1]}"
    for words in _simple_commands(tokens):
        reason = _check_words(words, depth)
        if reason:
            return reason
    return None


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"  # keep newlines: they separate commands
    lexer.commenters = "#"
    try:
        tokens: list[str] = []
        for token in lexer:
            tokens.extend(_split_newlines(token))
        return tokens
    except ValueError:  # unbalanced quotes: bash would refuse too; check the plain words
        return command.replace(";", " ; ").replace("|", " | ").replace("&", " & ").split()


def _split_newlines(token: str) -> list[str]:
    if "\n" not in token:
        return [token]
    parts: list[str] = []
    for piece in token.split("\n"):
        if piece:
            parts.append(piece)
        parts.append("\n")
    return parts[:-1]


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _check_words(words: list[str], depth: int) -> str | None:
    words = _unwrap(words)
    if not words:
        return None
    name = os.path.basename(words[0])
    args = words[1:]
    if name in ESCALATION:
        return f"it escalates privileges ({name})"
    if (
        name in POWER
        or (name == "systemctl" and args[:1] in (["poweroff"], ["reboot"], ["halt"]))
        or (name in ("init", "telinit") and args[:1] in (["0"], ["6"]))
    ):
        return "it shuts down or reboots the machine"
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "wipefs"):
        return f"it formats a disk ({name})"
    if name == "dd" and any(arg.startswith("of=") and DEVICE.match(arg[3:]) for arg in args):
        return "it writes to a disk device with dd"
    if name == "rm" and _recursive(args) and any(arg in HOME_OR_ROOT for arg in args):
        target = next(arg for arg in args if arg in HOME_OR_ROOT)
        return f"it deletes {target} recursively"
    if depth < 3 and name in SHELLS and "-c" in args[:-1]:
        return _check(args[args.index("-c") + 1], depth + 1)
    if depth < 3 and name == "eval":
        return _check(" ".join(args), depth + 1)
    return None


def _unwrap(words: list[str]) -> list[str]:
    """Drop variable assignments and wrapper commands in front of the real command."""
    while words:
        first = words[0]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", first) or first in WRAPPERS:
            words = words[1:]
        elif first in WRAPPERS_WITH_ARG:
            words = words[2:]
        elif first.startswith("-") and len(words) > 1:  # options of a dropped wrapper
            words = words[1:]
        else:
            break
    return words


def _recursive(args: list[str]) -> bool:
    flags = "".join(arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--"))
    return "r" in flags.lower() or "--recursive" in args
