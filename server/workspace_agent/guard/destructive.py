"""Commands that destroy work: the command guard flags them so a question about them makes
Deny the default and says why ("deletes files recursively (rm -r)").

Flagging changes no policy: a flagged command runs where commands are allowed, and is
asked about as any other where they are not. It only changes how the question reads.
The reasons are clauses without a subject, for "Careful: this <reason>."
"""

from __future__ import annotations

import itertools

from .shell_syntax import Word

EXECUTES = {"-exec", "-execdir", "-ok", "-okdir"}
GIT_OPTIONS_WITH_ARGUMENT = {"-C", "-c", "--git-dir", "--work-tree", "--namespace"}


def destructive(name: str, args: list[Word]) -> str | None:
    """Why the simple command `name args` destroys work, or None."""
    values = [arg.literal for arg in args]
    if name == "rm" and _has_flag(values, "rR", "--recursive"):
        return "deletes files recursively (rm -r)"
    if name == "find" and "-delete" in values:
        return "deletes the files it finds (find -delete)"
    if name == "find" and any(
        flag in EXECUTES and command.rsplit("/", 1)[-1] == "rm"
        for flag, command in itertools.pairwise(values)
    ):
        return "deletes the files it finds (find -exec rm)"
    if name == "shred":
        return "destroys the files' contents (shred)"
    if name == "git":
        return _git(values)
    return None


def _git(values: list[str]) -> str | None:
    index = 0
    while index < len(values) and values[index].startswith("-"):
        index += 2 if values[index] in GIT_OPTIONS_WITH_ARGUMENT else 1
    if index >= len(values):
        return None
    sub, rest = values[index], values[index + 1 :]
    if sub == "clean" and _has_flag(rest, "f", "--force"):
        if _has_flag(rest, "n", "--dry-run"):
            return None
        return "deletes untracked files (git clean -f)"
    if sub == "reset" and "--hard" in rest:
        return "discards uncommitted changes (git reset --hard)"
    if sub == "push" and (
        _has_flag(rest, "f", "--force")
        or any(v.startswith(("--force-with-lease", "--force-if-includes")) for v in rest)
        or any(v.startswith("+") for v in rest)
    ):
        return "rewrites the remote branch's history (git push --force)"
    if sub == "checkout" and ("--" in rest or "." in rest or _has_flag(rest, "f", "--force")):
        return "discards uncommitted changes (git checkout -- …)"
    if sub == "restore" and "--staged" not in rest and "-S" not in rest:
        return "discards uncommitted changes (git restore)"
    if sub == "branch" and ("-D" in rest or ("--delete" in rest and "--force" in rest)):
        return "deletes a branch with unmerged work (git branch -D)"
    if sub == "stash" and rest[:1] in (["drop"], ["clear"]):
        return f"drops stashed changes (git stash {rest[0]})"
    return None


def _has_flag(values: list[str], letters: str, long: str) -> bool:
    """A short option among `letters` (alone or in a cluster like -rf) or the long one."""
    for value in values:
        if value == "--":
            return False
        if value == long or value.startswith(long + "="):
            return True
        if value.startswith("-") and not value.startswith("--"):
            if any(letter in value[1:] for letter in letters):
                return True
    return False
