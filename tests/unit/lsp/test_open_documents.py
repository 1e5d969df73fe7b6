"""The server's copy of open documents (lsp/open_documents.py), fed the changes the
editor double makes by its own reading of the LSP rules, and waiting for a change."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from workspace_agent.lsp.open_documents import OpenDocument, OpenDocuments
from workspace_agent.lsp.positions import ENCODINGS

from tests.support.editor_double import applied_edits, range_of, typing_change

PIECES = ["\n", "\r\n", "\r", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PIECES += ["a", "b", " ", "é", "€", "中", "😀", "𝄞"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
URI = "file:///work/doc.txt"


@given(texts, st.lists(texts, min_size=1, max_size=5), st.sampled_from(ENCODINGS))
def test_typing_reaches_the_servers_copy(text: str, typed: list[str], encoding: str):
    document = OpenDocument(URI, 1, text, encoding)
    for new in typed:
        document.apply(typing_change(document.text, new, encoding))
        assert document.text == new


@given(texts, st.sampled_from(ENCODINGS), st.data())
def test_edits_applied_by_the_editor_reach_the_servers_copy(
    text: str, encoding: str, data: st.DataObject
):
    """Several edits in one workspace edit come back as one didChange with several
    changes, each range valid after the ones before it."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6, unique=True)))
    spans = list(zip(cuts[::2], cuts[1::2], strict=False))
    spans = [
        (start, end)
        for start, end in spans
        if not any(0 < o < len(text) and text[o - 1 : o + 1] == "\r\n" for o in (start, end))
    ]
    edits = [
        types.TextEdit(range=range_of(text, start, end, encoding), new_text=data.draw(texts))
        for start, end in spans
    ]
    expected, changes = applied_edits(text, edits, encoding)
    document = OpenDocument(URI, 1, text, encoding)
    for change in changes:
        document.apply(change)
    assert document.text == expected


def test_a_full_change_and_ranges_past_the_end():
    document = OpenDocument(URI, 1, "ab\r\ncd", "utf-16")
    document.apply(types.TextDocumentContentChangeWholeDocument(text="x\fy\rz"))
    assert document.text == "x\fy\rz"
    past = types.Range(start=types.Position(0, 99), end=types.Position(7, 0))
    document.apply(types.TextDocumentContentChangePartial(range=past, text="!"))
    assert document.text == "x\fy!"  # line 0 ends at the lone "\r"; line 7 is the end


def change_params(version: int, text: str) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
    )


def open_item(text: str) -> types.TextDocumentItem:
    return types.TextDocumentItem(uri=URI, language_id="plaintext", version=1, text=text)


async def test_waiting_for_a_change_ends_when_the_change_arrives():
    documents = OpenDocuments()
    documents.open(open_item("a"), "utf-16")
    document = documents.get(URI)
    assert document is not None
    waiting = asyncio.ensure_future(document.changed_since(1, timeout=30))
    await asyncio.sleep(0)
    assert not waiting.done()
    documents.change(change_params(2, "b"))
    assert await asyncio.wait_for(waiting, 5) is True
    assert await document.changed_since(1, timeout=30) is True  # already past: no wait
    assert await document.changed_since(2, timeout=0.05) is False  # nothing came


async def test_closing_or_reopening_ends_the_wait():
    documents = OpenDocuments()
    documents.open(open_item("a"), "utf-16")
    first = documents.get(URI)
    assert first is not None
    waiting = asyncio.ensure_future(first.changed_since(1, timeout=30))
    await asyncio.sleep(0)
    documents.open(open_item("a"), "utf-16")
    assert await asyncio.wait_for(waiting, 5) is True and first.closed
    second = documents.get(URI)
    assert second is not None and second is not first
    waiting = asyncio.ensure_future(second.changed_since(1, timeout=30))
    await asyncio.sleep(0)
    documents.close(URI)
    assert await asyncio.wait_for(waiting, 5) is True and documents.get(URI) is None
    documents.change(change_params(2, "x"))  # a change for a closed document is ignored
    assert documents.get(URI) is None
