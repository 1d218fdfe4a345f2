"""The openings files and the tool that builds them (tools/dev/openings.py).

The committed files are what the strength matches against the baseline start from: every line
must parse as the referee reads it, leave the game unfinished past the setup, and be a position
of its own (a repeated one would replay the same pair of games).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine.engine.game import OpeningSettings
from zengine.engine.search import Searcher
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules, variant_names
from zengine.tools.dev.openings import build
from zengine.tools.referee.schedule import parse_opening_line

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("variant", variant_names())
def test_committed_openings_are_distinct_unfinished_positions_past_the_setup(variant: str) -> None:
    path = ROOT / "openings" / f"{variant}.txt"
    lines = [t for t in path.read_text().splitlines() if t.strip() and not t.startswith("#")]
    assert len(lines) >= 100
    rules = make_rules(variant)
    keys = set()
    for line in lines:
        state = parse_opening_line(rules, line).state(rules)
        assert not state.is_over(), line
        assert state.history_length >= rules.setup_plies, line
        keys.add(state.key)
    assert len(keys) == len(lines)


def test_every_variant_has_settings() -> None:
    assert all(make_rules(v).opening_settings() is not None for v in variant_names())


@pytest.mark.parametrize("variant", ["zola", "zhadu"])
def test_built_openings_are_reproducible_and_scored_within_the_window(variant: str) -> None:
    settings = OpeningSettings(moves=2, depth=1, window=30)
    lines = build(variant, 4, seed=7, settings=settings)
    assert lines == build(variant, 4, seed=7, settings=settings)
    assert len(set(lines)) == 4
    rules = make_rules(variant)
    for line in lines:
        state = parse_opening_line(rules, line).state(rules)
        result = Searcher(hash_mb=4).search(state, GoLimits(depth=1), rules.evaluation())
        assert result.score.cp is not None and abs(result.score.cp) <= 30
