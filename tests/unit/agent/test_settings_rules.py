"""The workspace rules (agent/settings_rules.py over the contract's TIGHTENING): random
levels never end looser than the user's own value (or the server's default), and the
committed corpus of random cases still gets this side's verdicts, which the extension's
core/settingsRules.ts is held to verdict for verdict (test/unit/settingsRules.test.ts)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given, settings

from workspace_agent.agent.settings_rules import combine
from workspace_agent.contract import TIGHTENING

from tests.support.settings_corpus import CORPUS, SIZE, cases, verdict


def test_the_corpus_gets_this_sides_verdicts():
    """A change to the rules (the contract's data or settings_rules.py) fails here until the
    corpus is rewritten (python -m tests.support.settings_corpus); the extension's test
    then says whether TypeScript agrees."""
    corpus = json.loads(CORPUS.read_text("utf-8"))
    assert len(corpus) == SIZE
    wrong = [case for case in corpus if json.loads(json.dumps(verdict(case))) != case["verdict"]]
    assert wrong == [], f"{len(wrong)} verdicts changed, the first: {wrong[0]}"


def test_the_corpus_has_every_way_refuse_every_kind_of_part():
    corpus = json.loads(CORPUS.read_text("utf-8"))
    seen = Counter(
        (TIGHTENING[case["key"]]["combine"], refusal["why"], refusal.get("entry", False))
        for case in corpus
        for refusal in case["verdict"]["refused"]
    )
    for needed in [
        ("toward", "invalid", False),
        ("toward", "invalid", True),
        ("toward", "looser", False),
        ("toward", "looser", True),
        ("union", "invalid", False),
        ("union", "invalid", True),
        ("cap", "invalid", False),
        ("cap", "looser", False),
        ("userOnly", "userOnly", False),
    ]:
        assert seen[needed] >= 3, (needed, seen)
    applied = Counter(c["key"] for c in corpus if c["verdict"]["value"] is not None)
    assert all(applied[key] for key in TIGHTENING if TIGHTENING[key]["combine"] != "userOnly")


@settings(max_examples=150)
@given(cases())
def test_random_levels_never_end_looser_than_the_users_own(case: dict[str, Any]):
    key, levels = case["key"], case["levels"]
    spec, found = TIGHTENING[key], combine(case["key"], case["levels"])
    user = combine(key, levels[:1]).value  # what of the user's own level applies
    assert all(levels[r.level] is not None for r in found.refused)
    way = spec["combine"]
    if way == "userOnly":
        assert found.value == levels[0]
        assert [r.level for r in found.refused] == [
            i for i, level in enumerate(levels) if i and level is not None
        ]
    elif way == "toward" and "entries" in spec:
        rank = spec["order"].index
        for kind, mode in (found.value or {}).items():
            floor = (user or {}).get(kind, spec["start"][kind])
            assert mode in spec["entries"][kind] and rank(mode) >= rank(floor), (kind, mode)
        assert set(user or {}) <= set(found.value or {})
    elif way == "toward":
        floor = user if user is not None else spec["start"]
        assert found.value is None or spec["order"].index(found.value) >= spec["order"].index(floor)
        assert user is None or found.value is not None
    elif way == "union":
        names = found.value or []
        assert len(names) == len(set(names))
        assert all(name and name == name.strip(spec["trim"]) for name in names)
        assert all(name in names for name in user or [])
    elif way == "cap" and user not in (None, spec["none"]):
        assert found.value not in (None, spec["none"]) and found.value <= user
