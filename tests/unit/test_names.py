"""A file name's forms (names.py): any name's bytes survive the readable form and
`pathBytes`, and a name that is UTF-8 is itself on the wire."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workspace_agent import names

LATIN1 = b"caf\xe9.txt".decode("utf-8", "surrogateescape")


def test_a_latin1_name_reads_as_bash_writes_it_and_carries_its_bytes():
    assert names.readable(LATIN1) == "caf\\xe9.txt"
    assert names.path_fields(LATIN1) == {"path": "caf\\xe9.txt", "pathBytes": "Y2Fm6S50eHQ="}
    assert names.path_fields("café.txt") == {"path": "café.txt"}
    assert names.decoded("Y2Fm6S50eHQ=") == LATIN1
    assert names.from_readable("caf\\xe9.txt") == LATIN1
    assert names.from_readable("caf\\xE9.txt") == LATIN1  # a model may write it in capitals
    assert names.from_readable("a\\x41") is None  # "A" is never escaped: a name of its own
    assert names.from_readable("café.txt") is None


@pytest.mark.parametrize("bad", ["not base64!", "", "AA=="])
def test_path_bytes_that_are_not_a_name_are_refused(bad: str):
    with pytest.raises(names.BadName):
        names.decoded(bad)


@given(st.binary(min_size=1, max_size=24).filter(lambda b: b"\0" not in b))
def test_every_name_round_trips_through_its_wire_forms(raw: bytes):
    name = names.from_bytes(raw)
    fields = names.path_fields(name)
    wire = json.loads(json.dumps(fields, ensure_ascii=False).encode("utf-8"))
    assert (
        names.to_bytes(names.decoded(wire["pathBytes"]) if "pathBytes" in wire else wire["path"])
        == raw
    )
    if "pathBytes" in wire:
        assert names.from_readable(wire["path"]) == name  # the readable form alone names it


def test_scrubbed_values_can_always_be_written_as_utf8():
    value = {"path": LATIN1, "list": [LATIN1, 1, None], LATIN1: "x"}
    assert json.dumps(names.scrubbed(value), ensure_ascii=False).encode("utf-8")
