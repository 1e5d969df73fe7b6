"""Answers as the model reads them: `path:line:col: text`, lines and columns from 1 in
characters, grouped by file, at most MAX_PLACES places with the total said.

Every LSP shape an answer may take is read here (Location and LocationLink, Hover's three
forms of contents, DocumentSymbol trees and flat SymbolInformation, WorkspaceSymbol with or
without a range, call hierarchy calls), so the editor and a language server read alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tools.paths import display_path
from .positions import column_of
from .source_text import LineTexts
from .uris import to_path

MAX_PLACES = 100
HOVER_CHARS = 6000
LINE_CHARS = 200

SYMBOL_KINDS = (
    "file module namespace package class method property field constructor enum "
    "interface function variable constant string number boolean array object key null "
    "enum_member struct event operator type_parameter"
).split()
"""LSP SymbolKind 1..26, by name."""


@dataclass(frozen=True)
class Place:
    uri: str
    line: int
    """0-based, as on the wire."""
    character: int
    """UTF-16 code units, as on the wire."""
    label: str = ""
    """What is there, when the line alone does not say (a symbol's kind and name)."""
    depth: int = 0


def kind_name(kind: Any) -> str:
    if isinstance(kind, int) and 1 <= kind <= len(SYMBOL_KINDS):
        return SYMBOL_KINDS[kind - 1]
    return "symbol"


def locations(answer: Any) -> list[Place]:
    """Location | Location[] | LocationLink[] | null."""
    if answer is None:
        return []
    items = answer if isinstance(answer, list) else [answer]
    found = []
    for item in items:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri") or item.get("targetUri")
        where = item.get("range") or item.get("targetSelectionRange") or item.get("targetRange")
        if isinstance(uri, str) and isinstance(where, dict):
            found.append(_place(uri, where))
    return found


def symbols(answer: Any, uri: str) -> list[Place]:
    """DocumentSymbol[] (a tree: indented) or SymbolInformation[] (flat)."""
    found: list[Place] = []

    def walk(items: Any, depth: int) -> None:
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, dict):
                continue
            label = f"{kind_name(item.get('kind'))} {item.get('name', '?')}"
            if "location" in item:  # SymbolInformation, WorkspaceSymbol
                location = item["location"]
                where = location.get("range") or {"start": {"line": 0, "character": 0}}
                container = item.get("containerName")
                label += f" (in {container})" if container else ""
                found.append(_place(location.get("uri", uri), where, label, depth))
            else:
                where = item.get("selectionRange") or item.get("range") or {}
                found.append(_place(uri, where, label, depth))
                walk(item.get("children"), depth + 1)

    walk(answer, 0)
    return found


def calls(answer: Any, incoming: bool) -> list[Place]:
    """CallHierarchyIncomingCall[] (each call site, in its caller) or
    CallHierarchyOutgoingCall[] (each callee, where it is defined)."""
    found = []
    for call in answer if isinstance(answer, list) else ():
        if not isinstance(call, dict):
            continue
        item = call.get("from" if incoming else "to")
        if not isinstance(item, dict):
            continue
        label = f"{kind_name(item.get('kind'))} {item.get('name', '?')}"
        if incoming:
            for where in call.get("fromRanges") or [item.get("selectionRange")]:
                if isinstance(where, dict):
                    found.append(_place(item.get("uri", ""), where, f"in {label}"))
        else:
            where = item.get("selectionRange") or item.get("range") or {}
            found.append(_place(item.get("uri", ""), where, label))
    return found


def hover_text(answer: Any) -> str:
    """Hover's contents: MarkupContent, a MarkedString or a list of them."""
    if not isinstance(answer, dict):
        return ""
    contents = answer.get("contents")
    parts = contents if isinstance(contents, list) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("value"), str):
            language = part.get("language")
            value = part["value"]
            texts.append(f"```{language}\n{value}\n```" if language else value)
    text = "\n\n".join(t.strip() for t in texts if t.strip())
    if len(text) > HOVER_CHARS:
        text = text[:HOVER_CHARS] + f"\n… ({len(text) - HOVER_CHARS} more characters left out)"
    return text


def _place(uri: str, where: dict[str, Any], label: str = "", depth: int = 0) -> Place:
    start = where.get("start") or {}
    return Place(uri, int(start.get("line", 0)), int(start.get("character", 0)), label, depth)


async def listing(places: list[Place], root: Path, texts: LineTexts, what: str, narrow: str) -> str:
    """The places grouped by file (the workspace's files first, in path order), each as
    `path:line:col: text`; at most MAX_PLACES, with the total and how to narrow."""
    if not places:
        return f"No {what} found."
    unique = list(dict.fromkeys(places))
    total = len(unique)
    groups: dict[str, list[Place]] = {}
    for place in unique:
        groups.setdefault(place.uri, []).append(place)
    shown_files = []
    for uri, members in groups.items():
        path = to_path(uri)
        inside = texts.inside(path) if path is not None else None
        name = display_path(root, inside) if inside is not None else (str(path) if path else uri)
        shown_files.append((inside is None, name, path, members))
    shown_files.sort(key=lambda entry: (entry[0], entry[1]))
    out: list[str] = []
    count = 0
    for _, name, path, members in shown_files:
        if count >= MAX_PLACES:
            break
        if out:
            out.append("")
        for place in sorted(members, key=lambda place: (place.line, place.character)):
            if count >= MAX_PLACES:
                break
            count += 1
            out.append(await _line(place, name, path, texts))
    files = len(groups)
    noun = what[:-1] if total == 1 and what.endswith("s") else what
    head = f"{total} {noun} in {files} file{'s' if files != 1 else ''}"
    if count < total:
        head += f"; the first {count} are shown ({narrow})"
    return head + ":\n" + "\n".join(out)


async def _line(place: Place, name: str, path: Path | None, texts: LineTexts) -> str:
    text = await texts.line(path, place.line) if path is not None else None
    column = column_of(text, place.character) if text is not None else place.character + 1
    where = f"{'  ' * place.depth}{name}:{place.line + 1}:{column}:"
    parts = [where]
    if place.label:
        parts.append(place.label)
    if text is not None:
        line = text.strip()
        line = line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"
        parts.append(f"| {line}" if place.label else line)
    return " ".join(parts)
