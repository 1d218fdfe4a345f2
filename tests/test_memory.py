"""Zhadu's memos (engine/zhadu_core.py) stay within their budgets, and clearing them never changes an
answer: with budgets small enough to force clears all the time, random games give the moves of
the naive referee, destination sets equal to those worked out without the memo, and the same
evaluation as with empty memos."""

from __future__ import annotations

import random

import naive_zhadu
import pytest

from zengine.engine import zhadu_core
from zengine.engine.game import legal_moves_text
from zengine.engine.variants import make_rules


@pytest.mark.parametrize("variant,links", [("zhadu", "full"), ("zhadu-star", "star")])
def test_zhadu_memos_stay_within_tiny_budgets(
    variant: str, links: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = zhadu_core.MEMO
    monkeypatch.setattr(memo, "destination_entries", 16)
    monkeypatch.setattr(memo, "move_list_entries", 8)
    rules = make_rules(variant)
    geometry = rules.geometry
    monkeypatch.setattr(geometry, "cache", {})
    monkeypatch.setattr(memo, "move_lists", {})
    evaluate = rules.evaluation()
    rng = random.Random(11)
    largest = [0, 0]
    for _ in range(4):
        state = rules.start()
        while state.outcome() is None:
            value = evaluate(state)
            texts = legal_moves_text(state)
            count = state.count_moves()
            largest[0] = max(largest[0], len(geometry.cache))
            largest[1] = max(largest[1], len(memo.move_lists))
            position = state.position_text()
            assert texts == naive_zhadu.NaiveGame(position, links).legal(), position
            assert count == len(texts)
            occupied = state.occ[0] | state.occ[1]
            for piece, p in enumerate(state.pos):
                if p >= 0:
                    found = geometry.destinations(p, piece % 5, occupied)
                    assert found == geometry.finals(p, piece % 5, occupied), position
            kept = geometry.cache, memo.move_lists
            geometry.cache, memo.move_lists = {}, {}
            assert evaluate(state) == value, position
            geometry.cache, memo.move_lists = kept
            state.play(rng.choice(state.legal_moves()))
    assert largest == [16, 8], "the budgets are reached (so clears happen) and never passed"
