"""@-mentions in a prompt, resolved by the server so every front end has them.

`@path/to/file` puts the file's text in the prompt's `<editor-context>` block (capped at
`context.maxChars`, as a selection is; an image file goes as an image), `@folder/` its
listing, `@problems` the problems the editor reports for the workspace, `@diff` the
working tree's `git diff HEAD` (capped). A mention that cannot be resolved (a missing
path, one outside the workspace, `@problems` where the front end reports none, `@diff`
outside git) refuses the run before anything is sent (PromptRefused), saying what to do.

What counts as a mention, so that an e-mail address or pasted code is never one:

- the `@` starts a word: at the start of the text or after a space, `(`, `[`, `{`, a quote
  (so `ann@example.com` is not one), and not inside a code span or fenced block;
- the token runs to a space, a quote, a bracket, `,`, `;`, `:`, `<`, `>`; a `.`, `!` or `?`
  ending it is the sentence's, not the path's;
- `@problems` and `@diff` are the special mentions;
- a token with a `/` is a path when it starts with `/`, `~` or `..` (refused: outside the
  workspace), or its first part exists in the workspace (`@src/nope.py` is then an
  error); otherwise it is text (`@types/node`, `@owner/repo`);
- a token without `/` is a mention only when that file or folder exists
  (`@README.md`, `@Makefile`); `@dataclass`, `@app.route`, `@alice` stay text. `@./name`
  insists on a path.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..checkpoints.gitcmd import GitError, bare_env, git_program
from ..protocol import ContextDiagnostic
from ..shared import host_programs, images
from ..shared.documents import Documents
from ..shared.errors import ToolError
from ..tools.paths import display_path, safe_path
from ..tools.textfile import NotText, decode
from .editor_context import fence, format_problem
from .errors import PromptRefused

SPECIAL = ("problems", "diff")
MAX_LISTING = 200
"""Entries of a mentioned folder listed; the rest are counted."""
MAX_PROBLEMS = 100
HIDDEN = frozenset({".git", ".workspace-agent"})
MAX_SETTING = "workspaceAgent.context.maxChars"

_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_MENTION = re.compile(r"(?:^|(?<=[\s(\[{\"']))@([^\s`'\"()\[\]{}<>,;:@]+)")

Problems = Callable[[], Awaitable["list[ContextDiagnostic] | None"]]
"""The workspace's problems as the editor reports them; None: this front end cannot."""


@dataclass
class Resolved:
    """What the mentions add to a prompt: lines for the context block, image blocks,
    and the mentions as the transcript names them."""

    lines: list[str] = field(default_factory=list)
    images: list[images.Image] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


def find_mentions(prompt: str, root: Path) -> list[str]:
    """The prompt's mentions in order (each once), without the `@`: `src/app.py`, `docs/`,
    `problems`, `diff`. Paths are not checked here beyond what decides a mention."""
    text = _CODE.sub(lambda m: " " * len(m.group()), prompt)
    found: list[str] = []
    for match in _MENTION.finditer(text):
        token = match.group(1).rstrip(".!?")
        if token and token not in found and _is_mention(token, root):
            found.append(token)
    return found


def _is_mention(token: str, root: Path) -> bool:
    if token in SPECIAL:
        return True
    if "/" not in token:
        return (root / token).exists()
    if token.startswith(("/", "~", "..")):
        return True  # refused when resolved: never read outside the workspace
    first = token.split("/", 1)[0]
    return first == "." or (root / first).exists()


async def resolve(
    prompt: str,
    root: Path,
    max_chars: int,
    documents: Documents,
    problems: Problems | None,
    linked: Sequence[str] = (),
) -> Resolved:
    """Every mention of `prompt`, then every `linked` path (a client's links to files),
    resolved; PromptRefused at the first that cannot be."""
    resolved = Resolved()
    tokens = find_mentions(prompt, root)
    for token in [*tokens, *(path for path in linked if path not in tokens)]:
        resolved.names.append(f"@{token}")
        if token == "problems":
            resolved.lines.extend(await _problems(problems))
        elif token == "diff":
            resolved.lines.extend(await asyncio.to_thread(_diff, root, max_chars))
        else:
            await _path(token, root, max_chars, documents, resolved)
    return resolved


async def _path(
    token: str, root: Path, max_chars: int, documents: Documents, resolved: Resolved
) -> None:
    try:
        path = safe_path(root, token)
    except ToolError as exc:
        raise PromptRefused(f"@{token}: {exc}. Mention a file or folder inside it.") from None
    shown = display_path(root, path)
    if path.is_dir():
        resolved.lines.extend(await asyncio.to_thread(_listing, path, shown))
        return
    if not path.is_file():
        raise PromptRefused(
            f"@{token}: there is no file or folder {shown!r} in the workspace; check the path "
            "(relative to the workspace root) and send the prompt again"
        )
    buffer = await documents.buffer(path)
    if buffer is not None:
        text: str | None = buffer.text
    else:
        raw = await asyncio.to_thread(path.read_bytes)
        if images.sniff(raw[:12]) is not None:
            try:
                resolved.images.append(images.checked(raw, f"@{token}"))
            except images.ImageError as exc:
                raise PromptRefused(str(exc)) from None
            resolved.lines.append(f"Mentioned image {shown}: attached below.")
            return
        try:
            text = decode(raw)[0]
        except NotText:
            text = None
    resolved.lines.extend(file_lines(shown, text, max_chars))


def file_lines(shown: str, text: str | None, max_chars: int, how: str = "Mentioned") -> list[str]:
    """A file's text as context lines: fenced, cut at `max_chars` with a note."""
    if text is None:
        return [f"{how} file {shown}: a binary file, its contents are not shown."]
    cut = len(text) > max_chars
    body = text[:max_chars] if cut else text
    marker = fence(body)
    lines = [f"{how} file {shown}:", marker, body, marker]
    if cut:
        lines.append(
            f"[{shown} was cut at {max_chars:,} characters (setting {MAX_SETTING}); "
            "read the file for the rest.]"
        )
    return lines


def _listing(path: Path, shown: str) -> list[str]:
    entries = sorted(
        (
            entry.name + ("/" if entry.is_dir() else "")
            for entry in os.scandir(path)
            if entry.name not in HIDDEN
        ),
        key=str.lower,
    )
    count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    lines = [f"Mentioned folder {shown}/ ({count}):"]
    lines += [f"- {name}" for name in entries[:MAX_LISTING]]
    if len(entries) > MAX_LISTING:
        lines.append(f"- … and {len(entries) - MAX_LISTING} more")
    return lines


async def _problems(problems: Problems | None) -> list[str]:
    reported = await problems() if problems is not None else None
    if reported is None:
        raise PromptRefused(
            "@problems: this front end does not report the editor's problems (the VS Code "
            "extension does); ask the agent to run the project's linter or type checker instead"
        )
    if not reported:
        return ["Problems the editor reports in the workspace: none."]
    lines = [f"Problems the editor reports in the workspace ({len(reported)}):"]
    lines += [f"- {format_problem(item)}" for item in reported[:MAX_PROBLEMS]]
    if len(reported) > MAX_PROBLEMS:
        lines.append(f"- … and {len(reported) - MAX_PROBLEMS} more")
    return lines


def _diff(root: Path, max_chars: int) -> list[str]:
    import subprocess

    host_programs.protect(root)  # never a git a command of an earlier run left in it

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        # git from outside what commands may write; no fsmonitor, external diff or textconv
        # program runs (only git reads the user's repository here).
        return subprocess.run(
            [git_program(), "-C", str(root), "-c", "core.fsmonitor=false", *args],
            input="",
            capture_output=True,
            text=True,
            errors="replace",
            env=bare_env(),
            check=False,
        )

    try:
        inside = git("rev-parse", "--is-inside-work-tree")
    except (OSError, GitError) as exc:
        raise PromptRefused(
            f"@diff: git cannot run ({exc}); install git or leave @diff out"
        ) from None
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        raise PromptRefused(
            "@diff: the workspace is not a git repository, so there is no diff to attach; "
            "leave @diff out or mention the files instead"
        )
    has_head = git("rev-parse", "--verify", "-q", "HEAD").returncode == 0
    # Before the first commit, against the empty tree: what is staged shows too.
    base = "HEAD" if has_head else git("hash-object", "-t", "tree", "--stdin").stdout.strip()
    diff = git("diff", "--no-color", "--no-ext-diff", "--no-textconv", base).stdout
    if not diff.strip():
        return ["The working tree's git diff: no changes."]
    cut = len(diff) > max_chars
    body = diff[:max_chars] if cut else diff
    marker = fence(body)
    against = "against HEAD" if has_head else "(no commit yet)"
    lines = [f"The working tree's git diff {against}:", marker + "diff", body, marker]
    if cut:
        lines.append(
            f"[The diff was cut at {max_chars:,} of {len(diff):,} characters (setting "
            f"{MAX_SETTING}); run `git diff` for the rest.]"
        )
    return lines


def names_field(names: Sequence[str]) -> dict[str, Any]:
    """The runStart event's `mentions` field (absent without any)."""
    return {"mentions": list(names)} if names else {}
