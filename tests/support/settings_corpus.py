"""Random settings levels for the workspace rules, and the corpus both languages check.

`cases()` draws one setting of the contract's TIGHTENING table and 1-3 levels of it (the
user's, the workspace's, a folder's), each as JSON a person could write: right values,
near misses, blank and padded names, numbers written 5.0, values of the wrong kind.

The corpus (CORPUS, committed) is a few hundred such cases drawn by hypothesis with a
fixed seed, each with the verdict of agent/settings_rules.py. The Python unit test
checks this side still gives every verdict; the extension's settingsRules test checks
core/settingsRules.ts gives the same. After a change to the rules, rewrite it with
`python -m tests.support.settings_corpus` and commit it: the extension's test then says
whether TypeScript agrees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from workspace_agent.agent.settings_rules import combine
from workspace_agent.contract import TIGHTENING

CORPUS = Path(__file__).resolve().parents[1] / "unit" / "agent" / "settings_rules_corpus.json"
SIZE = 600

SAFE = 2**53 - 1
"""Integers both languages read exactly from JSON."""
junk = st.one_of(
    st.booleans(),
    st.integers(-3, 3),
    st.text(max_size=4),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.sampled_from(["a", "bash"]), st.integers(0, 1), max_size=1),
)
"""Values of the wrong kind for any setting."""
PADDING = " \t\n\r\x0b\x0c\u00a0\u2028\x1c\x85\ufeff"
"""ASCII white space, which names are trimmed of, and other white space, which they are
not (Python's str.strip() and JavaScript's trim() disagree about it)."""


def pick(draw: st.DrawFn, *choices: tuple[int, st.SearchStrategy[Any]]) -> Any:
    """A value from one of `choices`, each as often as its weight says (hypothesis's
    one_of flattens nested ones, so a branch of many alternatives would crowd out the rest)."""
    total = draw(st.integers(0, sum(weight for weight, _ in choices) - 1))
    for weight, strategy in choices:
        if total < weight:
            return draw(strategy)
        total -= weight
    raise AssertionError("unreachable")


@st.composite
def mostly(draw: st.DrawFn, right: st.SearchStrategy[Any]) -> Any:
    """Mostly a value of `right`, now and then one of the wrong kind."""
    return pick(draw, (5, right), (1, junk))


@st.composite
def names(draw: st.DrawFn) -> Any:
    word = st.sampled_from(["CORP_", "VAULT", "~/.corp", "$HOME/x", "a b", "ß"])
    pad = st.text(PADDING, max_size=2)
    padded = st.tuples(pad, word, pad).map("".join)
    bad = st.one_of(st.text(PADDING, max_size=3), st.integers(0, 2), st.none())
    return pick(draw, (3, word), (3, padded), (1, bad))


@st.composite
def level(draw: st.DrawFn, spec: dict[str, Any]) -> Any:
    """One level's value of a setting with this rule: unset, right, or of the wrong kind."""
    way = spec["combine"]
    value: st.SearchStrategy[Any]
    if way == "toward" and "entries" in spec:
        kinds = st.sampled_from([*spec["entries"], *spec["entries"], "net", ""])
        modes = st.sampled_from([*spec["order"], *spec["order"], "ASK", ""])
        value = st.dictionaries(kinds, mostly(modes), max_size=4)
    elif way == "toward":
        value = st.sampled_from([*spec["order"], *spec["order"], "Auto", ""])
    elif way == "union":
        value = st.lists(names(), max_size=5)
    elif way == "cap":
        value = st.one_of(
            st.sampled_from([spec["none"], 1, 1000, 50_000, 100_000]),
            st.integers(-2, SAFE),
            st.integers(0, 200_000).map(float),
            st.sampled_from([1.5, -1.0, True, "5000"]),
        )
    else:
        value = st.one_of(st.text(max_size=8), st.sampled_from(["http://127.0.0.1:9", ""]))
    return pick(draw, (1, st.none()), (4, value), (1, junk))


def _ways() -> list[list[str]]:
    """The keys by way of combining (an object by entry apart), so each way is drawn as
    often as any other, however many keys it has."""
    ways: dict[str, list[str]] = {}
    for key, spec in sorted(TIGHTENING.items()):
        ways.setdefault(spec["combine"] + ("/each" if "entries" in spec else ""), []).append(key)
    return list(ways.values())


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    key = draw(st.sampled_from(draw(st.sampled_from(_ways()))))
    levels = draw(st.lists(level(TIGHTENING[key]), min_size=1, max_size=3))
    return {"key": key, "levels": levels}


def verdict(case: dict[str, Any]) -> dict[str, Any]:
    """This side's verdict on a case, as the corpus holds it."""
    found = combine(case["key"], case["levels"])
    return {"value": found.value, "refused": [r.to_json() for r in found.refused]}


def draw_corpus(size: int = SIZE) -> list[dict[str, Any]]:
    """`size` distinct cases, the same ones on every run (hypothesis derandomized)."""
    drawn: dict[str, dict[str, Any]] = {}

    @settings(
        max_examples=size * 3,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(cases())
    def collect(case: dict[str, Any]) -> None:
        if len(drawn) < size:
            drawn.setdefault(json.dumps(case, sort_keys=True), case)

    collect()
    return [{**case, "verdict": verdict(case)} for case in drawn.values()]


def write_corpus(path: Path = CORPUS) -> int:
    corpus = draw_corpus()
    lines = ",\n".join(f"  {json.dumps(case)}" for case in corpus)
    path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    return len(corpus)


if __name__ == "__main__":
    print(f"wrote {write_corpus()} cases to {CORPUS}")
