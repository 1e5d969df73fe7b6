"""Rows 3 and 4: read_file on a huge file, edit_file on a large one, against the naive
way (read it all, then slice or str.replace, then write).

Every measured operation runs in a fresh process (bench/file_worker.py), which reports
its wall time and its peak RSS from the kernel (VmHWM, reset to the current RSS through
/proc/self/clear_refs just before the operation). Growth = peak - RSS before. The files
live in a temporary folder and are read with a warm page cache (they were just written),
the same for both variants; variants alternate.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .harness import run_worker, temp_dir
from .report import Row, median, mib, ms

LINE_BYTES = 100
TAIL = 100


FILLER = (b"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod " * 2)[
    : LINE_BYTES - 1 - 11 - 10
]


def line_text(n: int) -> bytes:
    """Line n (0-based) without its newline: LINE_BYTES - 1 bytes, unique."""
    return b"%010d %s%010d" % (n, FILLER, n * 7 % 10**10)


def make_file(path: Path, lines: int) -> None:
    assert len(line_text(0)) == LINE_BYTES - 1
    chunk = 100_000
    with path.open("wb") as f:
        for start in range(0, lines, chunk):
            f.write(b"".join(line_text(n) + b"\n" for n in range(start, min(lines, start + chunk))))


# -- row 3 ---------------------------------------------------------------------------------


def run_read(quick: bool) -> Row:
    lines = 200_000 if quick else 20_000_000
    ours_n, naive_n = (3, 1) if quick else (5, 3)
    size = lines * LINE_BYTES
    what = (
        f"`read_file` of the last {TAIL} lines of a {size / 1e9:.2g} GB, "
        f"{lines / 1e6:g}-million-line file"
    )
    target = ">= 100x faster, peak RSS growth <= 20 MiB"
    with temp_dir("bench-read-") as folder:
        path = folder / "huge.log"
        make_file(path, lines)
        expected = line_text(lines - 1).decode()
        runs: dict[str, list[dict[str, Any]]] = {"read-ours": [], "read-naive": []}
        for n in range(max(ours_n, naive_n)):
            for variant in (
                ("read-ours", "read-naive") if n % 2 == 0 else ("read-naive", "read-ours")
            ):
                if len(runs[variant]) >= (ours_n if variant == "read-ours" else naive_n):
                    continue
                result = run_worker("bench.file_worker", variant, str(path), str(TAIL))
                if result["check"] != expected:
                    raise RuntimeError(
                        f"{variant} returned the wrong last line: {result['check']!r}"
                    )
                runs[variant].append(result)
    ours_t = median([r["seconds"] for r in runs["read-ours"]])
    naive_t = median([r["seconds"] for r in runs["read-naive"]])
    ours_growth = max(r["peak_kib"] - r["rss_before_kib"] for r in runs["read-ours"])
    naive_growth = max(r["peak_kib"] - r["rss_before_kib"] for r in runs["read-naive"])
    speedup = naive_t / ours_t
    met = speedup >= 100 and ours_growth <= 20 * 1024
    return Row(
        3,
        what,
        f"read_text().splitlines()[-{TAIL}:]: {ms(naive_t)}, +{mib(naive_growth)} RSS",
        f"{ms(ours_t)}, +{mib(ours_growth)} RSS",
        f"{speedup:,.0f}x faster",
        target,
        met,
        [
            f"- file: {lines:,} lines of {LINE_BYTES} bytes = {size:,} bytes, in a temp folder; "
            "warm page cache for both.",
            f"- ours: the `read_file` tool handler (`offset=-{TAIL}, limit={TAIL}`) called in a "
            f"fresh process, {len(runs['read-ours'])} runs: times "
            + ", ".join(ms(r["seconds"]) for r in runs["read-ours"])
            + f"; peak RSS growth (max of runs) {mib(ours_growth)}.",
            f"- naive: `Path.read_text().splitlines()[-{TAIL}:]` in a fresh process, "
            f"{len(runs['read-naive'])} runs: times "
            + ", ".join(ms(r["seconds"]) for r in runs["read-naive"])
            + f"; peak RSS growth {mib(naive_growth)}.",
            f"- speedup = median naive / median ours = {speedup:,.1f}x (target >= 100x); RSS "
            f"growth target <= 20 MiB: {'met' if ours_growth <= 20 * 1024 else 'NOT met'}.",
            "- The tool returns the last line checked against the file's actual last line in "
            "every run.",
        ],
    )


# -- row 4 ---------------------------------------------------------------------------------


def run_edit(quick: bool) -> Row:
    lines = 100_000 if quick else 1_000_000
    repeats = 2 if quick else 5
    size = lines * LINE_BYTES
    what = f"`edit_file` of one line in a {size / 1e6:g} MB file"
    target = "no slower than the baseline, peak memory <= 3x file size"
    middle = lines // 2
    original = line_text(middle).decode()
    edited = original[:-10] + "EDITED_ONE"
    runs: dict[str, list[dict[str, Any]]] = {"edit-ours": [], "edit-naive": []}
    with temp_dir("bench-edit-") as folder:
        path = folder / "big.txt"
        make_file(path, lines)
        current = original
        for n in range(repeats):
            for variant in (
                ("edit-ours", "edit-naive") if n % 2 == 0 else ("edit-naive", "edit-ours")
            ):
                other = edited if current == original else original
                result = run_worker("bench.file_worker", variant, str(path), current, other)
                _check_line(path, middle, other, size)
                current = other
                runs[variant].append(result)
    ours_t = median([r["seconds"] for r in runs["edit-ours"]])
    naive_t = median([r["seconds"] for r in runs["edit-naive"]])
    ours_growth = max(r["peak_kib"] - r["rss_before_kib"] for r in runs["edit-ours"])
    naive_growth = max(r["peak_kib"] - r["rss_before_kib"] for r in runs["edit-naive"])
    ratio = ours_t / naive_t
    size_kib = size / 1024
    met = ratio <= 1.0 and ours_growth <= 3 * size_kib
    return Row(
        4,
        what,
        f"read, str.replace, write: {ms(naive_t)}, +{mib(naive_growth)} RSS",
        f"{ms(ours_t)}, +{mib(ours_growth)} RSS ({ours_growth / size_kib:.2f}x file)",
        f"{ratio:.2f}x the time",
        target,
        met,
        [
            f"- file: {lines:,} lines, {size:,} bytes (UTF-8, LF); the edit replaces one line "
            "in the middle (toggled back and forth between runs, checked on disk after each).",
            f"- ours: the `edit_file` tool handler in a fresh process (maxFileBytes raised for "
            f"the benchmark: the default limit of 10 MiB refuses a file this size), "
            f"{len(runs['edit-ours'])} runs: "
            + ", ".join(ms(r["seconds"]) for r in runs["edit-ours"])
            + f"; peak RSS growth {mib(ours_growth)} = {ours_growth / size_kib:.2f}x the file.",
            f"- naive: `text = p.read_text(); p.write_text(text.replace(old, new))`, "
            f"{len(runs['edit-naive'])} runs: "
            + ", ".join(ms(r["seconds"]) for r in runs["edit-naive"])
            + f"; peak RSS growth {mib(naive_growth)} = {naive_growth / size_kib:.2f}x the file.",
            "- Not the same durability: ours writes a temp file, fsyncs it and renames it over "
            "the original (a crash leaves the old or the new file); the naive write truncates "
            "in place and does not fsync.",
        ],
    )


def _check_line(path: Path, line: int, expected: str, size: int) -> None:
    if os.path.getsize(path) != size:
        raise RuntimeError(f"{path} changed size: {os.path.getsize(path)} != {size}")
    with path.open("rb") as f:
        f.seek(line * LINE_BYTES)
        got = f.read(LINE_BYTES - 1).decode()
    if got != expected:
        raise RuntimeError(f"line {line} is {got!r}, expected {expected!r}")
