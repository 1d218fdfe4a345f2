"""Perft tables kept as data files, and a check that prints a divide on mismatch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from zengine.engine.game import State
from zengine.engine.perft import divide, perft
from zengine.engine.variants import make_rules

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class PerftCase:
    variant: str
    position: str
    depth: int
    nodes: int
    slow: bool

    def state(self) -> State:
        rules = make_rules(self.variant)
        return rules.start() if self.position == "startpos" else rules.parse_position(self.position)

    @property
    def id(self) -> str:
        return f"{self.variant}:{self.position}:d{self.depth}"


def load(name: str) -> list:
    """Rows of ``variant | position | depth | nodes [| slow]`` as pytest params."""
    cases = []
    for line in (DATA / name).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        case = PerftCase(
            fields[0],
            fields[1],
            int(fields[2]),
            int(fields[3]),
            len(fields) > 4 and fields[4] == "slow",
        )
        marks = [pytest.mark.slow] if case.slow else []
        cases.append(pytest.param(case, id=case.id, marks=marks))
    return cases


def check(case: PerftCase) -> None:
    """Assert the count; on a mismatch, fail with the per-move divide for debugging."""
    state = case.state()
    got = perft(state, case.depth)
    if got != case.nodes:
        rows = divide(state, case.depth) if case.depth > 0 else []
        detail = "\n".join(f"  {text}: {count}" for text, count in rows)
        pytest.fail(f"perft {case.id}: expected {case.nodes}, got {got}\ndivide:\n{detail}")
