"""Offsets and LSP positions (workspace_agent.lsp.positions), checked against the editor
double's own reading of the LSP rules and against the rules written out by hand."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from workspace_agent.lsp import positions
from workspace_agent.lsp.positions import (
    ENCODINGS,
    UTF8,
    UTF16,
    UTF32,
    LineIndex,
    Position,
    expressible_edit,
)

from tests.support.editor_double import offset_of, position_of

# Every kind of line break LSP knows, the ones it does not (str.splitlines does), and
# characters of 1, 2, 3 and 4 UTF-8 bytes (the last ones take two UTF-16 units).
PIECES = ["\n", "\r\n", "\r", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PIECES += ["a", "Z", " ", "=", "é", "ß", "€", "中", "😀", "𝄞", "\U0010fffd"]

texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
encodings = st.sampled_from(ENCODINGS)


def test_lines_end_only_at_lsp_line_breaks():
    text = "a\fb\u2028c\x85d\re\r\nf\ng\vh"
    index = LineIndex(text)
    assert index.line_count == 4
    assert index.position(text.index("e")) == Position(1, 0)
    assert index.position(text.index("f")) == Position(2, 0)
    assert index.position(text.index("g")) == Position(3, 0)
    assert index.position(text.index("d")) == Position(0, 6)  # \f, U+2028 and \x85 are text
    assert index.offset(0, 6) == text.index("d")


@pytest.mark.parametrize(("encoding", "character"), [(UTF16, 5), (UTF8, 7), (UTF32, 4)])
def test_character_counts_code_units_of_the_encoding(encoding: str, character: int):
    text = 'x="😋"'
    index = LineIndex(text, encoding)
    assert index.position(len(text) - 1) == Position(0, character)  # the closing quote
    assert index.offset(0, character) == len(text) - 1


def test_positions_past_the_end_are_clamped_as_lsp_says():
    text = "ab\r\ncd\n"
    index = LineIndex(text)
    assert index.offset(0, 99) == 2  # the line's end, before its "\r\n"
    assert index.offset(1, 99) == 6
    assert index.offset(2, 0) == 7  # the empty last line
    assert index.offset(3, 0) == index.offset(99, 5) == len(text)


@pytest.mark.parametrize(("encoding", "inside"), [(UTF16, 1), (UTF8, 1), (UTF8, 2), (UTF8, 3)])
def test_a_position_inside_a_character_means_its_start(encoding: str, inside: int):
    index = LineIndex("a😀b", encoding)
    assert index.offset(0, 1 + inside) == 1


def test_there_is_no_position_inside_crlf():
    index = LineIndex("a\r\nb")
    with pytest.raises(ValueError, match="splits"):
        index.position(2)
    assert expressible_edit("a\r\nb", 2, 2, "X") == (1, 3, "\rX\n")
    assert expressible_edit("a\r\nb", 2, 4, "") == (1, 4, "\r")


def test_only_the_lsp_encodings_are_known():
    with pytest.raises(ValueError, match="unknown position encoding"):
        LineIndex("", "utf-7")


@given(texts, encodings, st.data())
def test_positions_agree_with_the_lsp_rules(text: str, encoding: str, data: st.DataObject):
    index = LineIndex(text, encoding)
    offset = data.draw(st.integers(0, len(text)))
    if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n":
        with pytest.raises(ValueError):
            index.position(offset)
        return
    position = index.position(offset)
    assert position == position_of(text, offset, encoding)
    assert index.offset(*position) == offset
    line, character = data.draw(st.integers(0, index.line_count + 1)), data.draw(st.integers(0, 12))
    assert index.offset(line, character) == offset_of(
        text, types.Position(line, character), encoding
    )


@given(
    texts,
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), texts), max_size=8),
    st.sampled_from([1, 2, 3, 2048]),
    encodings,
    st.data(),
)
def test_an_updated_index_equals_a_fresh_one(
    text: str, edits: list[tuple[int, int, str]], block: int, encoding: str, data: st.DataObject
):
    """Edits update only the blocks of line starts they touch (blocks of 1-3 lines here,
    so edits cross, empty and split blocks)."""
    with patch.object(positions, "_BLOCK", block):
        index = LineIndex(text, encoding)
        for a, b, new in edits:
            start, end = sorted((a % (len(index.text) + 1), b % (len(index.text) + 1)))
            index.replace(start, end, new)
            assert index.text == text[:start] + new + text[end:]
            text = index.text
            fresh = LineIndex(text, encoding)
            assert index.line_starts() == fresh.line_starts()
            assert index.line_count == fresh.line_count
            offset = data.draw(st.integers(0, len(text)))
            if not (0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n"):
                assert index.position(offset) == position_of(text, offset, encoding)
            line, character = (
                data.draw(st.integers(0, fresh.line_count)),
                data.draw(st.integers(0, 9)),
            )
            assert index.offset(line, character) == offset_of(
                text, types.Position(line, character), encoding
            )


@given(texts, encodings, st.data())
def test_edits_sent_as_positions_land_exactly(text: str, encoding: str, data: st.DataObject):
    """What applyEdit does: unique spans of the buffer, replaced through positions the
    server computes and the editor (the double's own rules) resolves."""
    buffer = text
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(buffer)))
        end = data.draw(st.integers(start, len(buffer)))
        new = data.draw(texts)
        expected = buffer[:start] + new + buffer[end:]
        a, b, sent = expressible_edit(buffer, start, end, new)
        index = LineIndex(buffer, encoding)
        first, last = index.position(a), index.position(b)
        lo = offset_of(buffer, types.Position(*first), encoding)
        hi = offset_of(buffer, types.Position(*last), encoding)
        buffer = buffer[:lo] + sent + buffer[hi:]
        assert buffer == expected
