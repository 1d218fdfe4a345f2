"""A sample game record for the referee's tests: one finished Zola game, any field replaced."""

from __future__ import annotations

from zengine.engine.values import Result, Score
from zengine.tools.referee.records import GameRecord
from zengine.tools.referee.terminations import Termination


def sample_record(**changes: object) -> GameRecord:
    """The sample record with ``changes`` applied."""
    base: dict[str, object] = dict(
        id=0,
        round=0,
        pair=0,
        encounter=(0, 1),
        opening_index=0,
        event="zengine match",
        date="2026.11.29",
        variant="zola size 6",
        variant_name="zola",
        p1="A",
        p2="B",
        p1_index=0,
        p2_index=1,
        result=Result.P1_WIN,
        termination=Termination.RULES,
        reason="every Blue checker captured",
        opening="a1xa2",
        opening_moves=("a1xa2",),
        start_fen="brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r",
        final_fen="6/6/6/6/6/r5 b",
        start_side=0,
        moves=("b2xa2", "c1xb1", "d1xc1"),
        times_ms=(120, 5, 7),
        scores=(Score(cp=-35), None, Score(mate=3)),
        depths=(4, None, 9),
        time_control="10+0.1",
        overhead_ms=0.25,
        overhead_moves=2,
    )
    base.update(changes)
    return GameRecord(**base)  # type: ignore[arg-type]
