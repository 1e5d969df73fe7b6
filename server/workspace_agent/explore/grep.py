"""The `search` tool's work: matches as `path:line: text`, grouped by file, bounded.

In a git repository `git grep` reads the tracked files (threads; it never follows a
symlink) while the untracked ones not ignored are listed, looked at (candidates.py: no
symlink, nothing over maxFileBytes) and read here, side by side; elsewhere the walker's
files are read here. The pattern is checked with Python's `re` first (a bad one
gets a clear error before anything runs); git greps with PCRE, which reads the same
syntax, and each printed line is matched again here to tell a match from its context.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .. import names
from ..shared.errors import ToolError
from .candidates import (
    Listing,
    exclusions,
    git_command,
    git_env,
    git_root,
    hidden_folders,
    list_files,
)
from .globs import pathspecs

SHOWN_MATCHES = 200
COUNT_LIMIT = 100_000
"""Past this many matches the counting stops ("more than 100,000")."""
LINE_CHARS = 300
MAX_CONTEXT = 10
BINARY_SNIFF = 8000


@dataclass(frozen=True)
class Query:
    pattern: str
    literal: bool = False
    ignore_case: bool = False
    context: int = 0

    def compiled(self) -> re.Pattern[str]:
        if "\n" in self.pattern or "\r" in self.pattern:
            raise ToolError(
                "search matches one line at a time: the pattern must not hold a line break; "
                "search for one of its lines"
            )
        flags = re.IGNORECASE if self.ignore_case else 0
        if self.literal:
            return re.compile(re.escape(self.pattern), flags)
        try:
            return re.compile(self.pattern, flags)
        except re.error as exc:
            raise ToolError(
                f"the pattern {self.pattern!r} is not a valid regular expression: {exc}. "
                "Escape the special characters (\\( \\[ \\. \\*), or pass literal: true to "
                "search for the text as written"
            ) from None


Row = tuple[str, int, str, bool]
"""A printed line: path, 1-based line number, text, whether it matches (else context)."""


@dataclass
class Found:
    rows: list[Row] = field(default_factory=list)
    """The first SHOWN_MATCHES matches and their context, in file order."""
    matches: int = 0
    files: set[str] = field(default_factory=set)
    capped: bool = False
    binary: int = 0

    def add(self, path: str, number: int, text: str, hit: bool) -> bool:
        """Count one line; True once counting should stop."""
        if hit:
            self.matches += 1
            self.files.add(path)
            if self.matches > COUNT_LIMIT:
                self.capped = True
                self.matches = COUNT_LIMIT
                return True
        if self.matches <= SHOWN_MATCHES and (
            hit or self.matches < SHOWN_MATCHES or (self.rows and self.rows[-1][0] == path)
        ):
            if len(text) > LINE_CHARS:
                text = text[:LINE_CHARS] + " …"
            self.rows.append((path, number, text, hit))
        return False

    def merged(self, other: Found) -> Found:
        """This one's lines, then the other's (the untracked files' after the tracked)."""
        return Found(
            self.rows + other.rows,
            self.matches + other.matches,
            self.files | other.files,
            self.capped or other.capped,
            self.binary + other.binary,
        )

    def lines(self) -> list[str]:
        """The first SHOWN_MATCHES matches as `path:line: text` (context `path-line- text`),
        a blank line between files."""
        out: list[str] = []
        hits, last = 0, None
        for path, number, text, hit in self.rows:
            if hit:
                hits += 1
                if hits > SHOWN_MATCHES:
                    break
            elif hits >= SHOWN_MATCHES and path != last:
                break
            if last is not None and path != last:
                out.append("")
            mark = ":" if hit else "-"
            out.append(f"{names.readable(path)}{mark}{number}{mark} {text}")
            last = path
        return out


def run(
    root: Path, query: Query, globs: list[str] | None, max_bytes: int, masks: tuple[str, ...]
) -> tuple[Listing, Found]:
    """The matches of `query` in the files under `globs`, and what was listed (whose notes
    say what was skipped)."""
    regex = query.compiled()
    if not git_root(root):
        listing = list_files(root, globs, max_bytes, masks, in_git=False)
        return listing, _read_each(root, query, regex, listing)
    from concurrent.futures import ThreadPoolExecutor

    def untracked() -> tuple[Listing, Found]:
        listing = list_files(root, globs, max_bytes, masks, untracked_only=True, in_git=True)
        return listing, _read_each(root, query, regex, listing)

    with ThreadPoolExecutor(1) as pool:  # git greps the tracked files meanwhile
        side = pool.submit(untracked)
        specs = pathspecs(globs) if globs else []
        tracked = _git_grep(root, query, regex, specs, hidden_folders(root, masks))
        listing, found = side.result()
    return listing, tracked.merged(found)


def _git_grep(
    root: Path, query: Query, regex: re.Pattern[str], specs: list[str], hidden: list[str]
) -> Found:
    """git grep over the tracked files (it never follows a symlink)."""
    args = ["grep", "-z", "-n", "-I", "--no-color"]
    args += ["-i"] if query.ignore_case else []
    args += ["-F"] if query.literal else ["-P"]
    if query.context:
        args += [f"-C{query.context}"]
    args += ["-e", query.pattern, "--", *(specs or ["."]), *exclusions(hidden)]
    found = _stream(root, args, query, regex)
    if found is None and not query.literal:  # a git without PCRE: extended regexps
        args[args.index("-P")] = "-E"
        found = _stream(root, args, query, regex)
    if found is None:
        raise ToolError("git grep cannot read this pattern; pass literal: true")
    return found


def _stream(root: Path, args: list[str], query: Query, regex: re.Pattern[str]) -> Found | None:
    """git grep's lines collected; None when git cannot read the pattern with PCRE."""
    found = Found()
    with subprocess.Popen(
        git_command(root, *args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=git_env(),
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        for raw in proc.stdout:
            parts = raw.rstrip(b"\n").split(b"\0", 2)
            if len(parts) != 3:
                continue  # the `--` between groups of context
            path, number, text_bytes = parts
            text = text_bytes.decode("utf-8", "replace")
            hit = not query.context or regex.search(text) is not None
            if found.add(os.fsdecode(path), int(number), text, hit):
                proc.kill()
                break
        error = proc.stderr.read().decode(errors="replace").strip()
        status = proc.wait()
    if status not in (0, 1) and not found.capped:
        if "-P" in args and ("PCRE" in error or "perl" in error.lower()):
            return None
        raise ToolError(f"git grep failed: {error or f'exit status {status}'}")
    return found


def _read_each(root: Path, query: Query, regex: re.Pattern[str], listing: Listing) -> Found:
    """The walker's way (and the untracked files'): each file read here."""
    found = Found()
    for candidate in listing.readable():
        try:
            data = (root / candidate.path).read_bytes()
        except OSError:
            continue
        if b"\0" in data[:BINARY_SNIFF]:
            found.binary += 1
            continue
        text = data.decode("utf-8", "replace")
        if regex.search(text) is None:
            continue
        for number, line, hit in _lines_with_context(text, regex, query.context):
            if found.add(candidate.path, number, line, hit):
                return found
    return found


def _lines_with_context(
    text: str, regex: re.Pattern[str], context: int
) -> Iterator[tuple[int, str, bool]]:
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if regex.search(line)]
    shown: dict[int, bool] = {}
    for i in hits:
        for j in range(max(0, i - context), min(len(lines), i + context + 1)):
            shown[j] = shown.get(j, False) or j == i
    for j in sorted(shown):
        yield j + 1, lines[j], shown[j]
