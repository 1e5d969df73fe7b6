"""Row 4's breakdown, in one fresh process: `python -m bench.edit_steps PATH OLD NEW`.

Times edit_file as it is, its steps one by one (with the server's own functions), the
naive edit, and edit_file with a one-pass format check (what-if). Every edit toggles the
line between OLD and NEW, so the file ends as it started after an even number of edits.
Prints one JSON line.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from workspace_agent.tools import TOOLS, disk, files
from workspace_agent.tools.textfile import (
    SNIFF_BYTES,
    NotText,
    TextFormat,
    decode,
    is_binary,
    sniff_format,
)

from .file_worker import _ctx

REPEATS = 3


_ONE_READ: dict[Path, bytes] = {}
_real_read_bytes = Path.read_bytes


def _read_once(self: Path) -> bytes:
    """Path.read_bytes for the what-if: the bytes fast_sniff just read are handed over."""
    data = _ONE_READ.pop(self, None)
    return data if data is not None else _real_read_bytes(self)


def fast_sniff(path: Path, block: int = 1 << 20) -> TextFormat:
    """sniff_format's answer from C-speed checks on the bytes edit_file reads anyway (the
    what-if: the file is read once, and these bytes are the ones edit_file then edits)."""
    data = _real_read_bytes(path)
    _ONE_READ[path] = data
    if is_binary(data[:SNIFF_BYTES]):
        raise NotText("binary file")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return decode(data)[1]
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    body = memoryview(data)[len(bom) :]
    if b"\r" not in data:
        newline = "\n"
    else:
        crlf = data.count(b"\r\n")
        newline = "\r\n" if crlf and crlf == data.count(b"\n") else "\n"
    if data.isascii():
        utf8 = True
    else:
        try:
            codecs.utf_8_decode(body, "strict", True)
            utf8 = True
        except UnicodeDecodeError:
            utf8 = False
    return TextFormat("utf-8" if utf8 else "latin-1", bom, newline)


def main() -> None:
    path, old, new = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    ctx = _ctx(path.parent, 1 << 40)
    loop = asyncio.new_event_loop()
    state = {"current": old}

    def toggle() -> tuple[str, str]:
        current = state["current"]
        other = new if current == old else old
        state["current"] = other
        return current, other

    def ours() -> float:
        a, b = toggle()
        args = {"path": path.name, "old_text": a, "new_text": b}
        started = time.perf_counter()
        loop.run_until_complete(TOOLS["edit_file"].handler(ctx, args))
        return time.perf_counter() - started

    def naive() -> float:
        a, b = toggle()
        started = time.perf_counter()
        text = path.read_text()
        path.write_text(text.replace(a, b))
        return time.perf_counter() - started

    steps: dict[str, list[float]] = {}

    def timed(name: str, fn: Any, *args: Any) -> Any:
        started = time.perf_counter()
        value = fn(*args)
        steps.setdefault(name, []).append(time.perf_counter() - started)
        return value

    result: dict[str, Any] = {}
    result["ours"] = statistics.median([ours() for _ in range(REPEATS)])
    result["naive"] = statistics.median([naive() for _ in range(REPEATS)])
    for _ in range(REPEATS):  # edit_file's disk path, step by step (as in tools/files.py)
        a, b = toggle()
        fmt = timed("sniff_format (whole file: UTF-8 check, newline counts)", sniff_format, path)
        data = timed("read_bytes", path.read_bytes)
        encoded = (a.encode(fmt.encoding), b.encode(fmt.encoding))
        start, end, new_b = timed(
            "_locate (count + index of old_text)",
            files._locate,
            "f",
            data,
            a,
            b,
            fmt,
            lambda t, pieces=encoded, texts=(a, b): pieces[texts.index(t)],
        )
        timed("line number (count newlines before the edit)", data.count, b"\n", 0, start)
        view = memoryview(data)
        real_fsync = os.fsync
        fsync_times: list[float] = []

        def fsync(fd: int, real: Any = real_fsync, times: list[float] = fsync_times) -> None:
            started = time.perf_counter()
            real(fd)
            times.append(time.perf_counter() - started)

        setattr(disk.os, "fsync", fsync)  # noqa: B010
        try:
            total = time.perf_counter()
            disk.atomic_write_parts(path, (view[:start], new_b, view[end:]))
            total = time.perf_counter() - total
        finally:
            setattr(disk.os, "fsync", real_fsync)  # noqa: B010
        steps.setdefault("atomic write: temp file write + rename", []).append(
            total - sum(fsync_times)
        )
        steps.setdefault("atomic write: os.fsync of the temp file", []).append(sum(fsync_times))
        del view, data
    setattr(files, "sniff_format", fast_sniff)  # noqa: B010
    setattr(Path, "read_bytes", _read_once)  # noqa: B010
    result["ours_fast_sniff"] = statistics.median([ours() for _ in range(REPEATS)])
    if state["current"] != old:  # leave the file as it was
        naive()
    result["steps"] = {k: statistics.median(v) for k, v in steps.items()}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
