"""MultiPV: the option, and the lines ``info ... multipv i ...`` of every iteration
(docs/protocol.md, "Several lines: MultiPV"), checked line by line against the rules."""

from __future__ import annotations

import re
import time

import pytest
from test_protocol_helpers import INFO_RE, Script

from zengine.engine.game import State
from zengine.engine.values import Info, Score, parse_info
from zengine.engine.variants import make_rules

#: An ``info`` line with its rank, as docs/protocol.md writes it.
RANKED_RE = re.compile(
    r"^info depth \d+ seldepth \d+ multipv \d+ score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+"
    r" time \d+( hashfull \d+)?( tbhits \d+)? pv( \S+)+$"
)
ZOLA_START = "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"
ZOLA_MIDGAME = "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/2rbrb r"  # startpos moves a1xa2 b1xa2
ZHADU_SET = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"
#: Zola, Red to move with 3 moves: one mates in 2, two lose at once.
ZOLA_THREE = "6/6/br4/6/6/6 r"
#: Generous: only for what must happen (no timing is asserted).
PATIENCE = 60


def infos(lines: list[str]) -> list[Info]:
    """The parsed ``info`` lines among ``lines``."""
    return [info for line in lines if (info := parse_info(line)) is not None]


def by_depth(lines: list[str]) -> dict[int, list[Info]]:
    """The ``info`` lines of a search, grouped by iteration, in the order printed."""
    groups: dict[int, list[Info]] = {}
    for info in infos(lines):
        assert info.depth is not None
        groups.setdefault(info.depth, []).append(info)
    return groups


def rank(score: Score | None) -> float:
    """A score as a number that orders scores as the side to move prefers them: a win beats
    every evaluation (the sooner the better), a loss is below every one (the later the better)."""
    assert score is not None
    if score.mate is None:
        assert score.cp is not None
        return score.cp
    return 1e9 - score.mate if score.mate > 0 else -1e9 - score.mate


def played_out(state: State, pv: tuple[str, ...]) -> None:
    """Assert that ``pv`` is a line of legal moves from ``state`` (which is left as it was)."""
    played = 0
    try:
        for text in pv:
            move = state.parse_move(text)  # raises for a move that is not legal here
            assert state.is_legal_move(move), (text, pv)
            state.play(move)
            played += 1
    finally:
        for _ in range(played):
            state.undo()


def check_lines(lines: list[str], variant: str, fen: str, wanted: int, depth: int) -> None:
    """Every iteration 1..``depth`` printed ``wanted`` ranked lines, numbered 1 to ``wanted``,
    each legal from ``fen``, scores best first, first moves distinct; the bestmove is the
    first move of the last iteration's line 1."""
    assert lines[-1].startswith("bestmove ")
    assert all(RANKED_RE.match(line) for line in lines[:-1]), lines
    groups = by_depth(lines[:-1])
    assert list(groups) == list(range(1, depth + 1))
    state = make_rules(variant).parse_position(fen)
    for group in groups.values():
        assert [info.multipv for info in group] == list(range(1, wanted + 1))
        assert len({info.pv[0] for info in group}) == wanted
        scores = [rank(info.score) for info in group]
        assert scores == sorted(scores, reverse=True)
        assert len({(info.nodes, info.time_ms) for info in group}) == 1  # reported together
        for info in group:
            played_out(state, info.pv)
    assert lines[-1] == f"bestmove {groups[depth][0].pv[0]}"


@pytest.mark.parametrize(
    "variant,fen",
    [("zola", ZOLA_START), ("zola", ZOLA_MIDGAME), ("zhadu", ZHADU_SET)],
)
def test_three_lines_per_depth(variant: str, fen: str) -> None:
    script = Script()
    assert (
        script.send("setoption name MultiPV value 3", f"setup {variant}", f"position fen {fen}")
        == []
    )
    check_lines(script.search("go depth 3"), variant, fen, 3, 3)


def test_more_lines_asked_than_moves_gives_one_per_move() -> None:
    script = Script()
    script.send("setoption name MultiPV value 32", f"position fen {ZOLA_THREE}")
    lines = script.search("go depth 4")
    check_lines(lines, "zola", ZOLA_THREE, 3, 4)
    last = by_depth(lines)[4]
    # The mate first, then the two moves that lose at once (mate -1), longest loss first.
    assert [info.score for info in last] == [Score(mate=2), Score(mate=-1), Score(mate=-1)]
    assert lines[-1] == "bestmove b4-a5"


def test_a_single_move_is_one_ranked_line() -> None:
    script = Script()
    script.send("setoption name MultiPV value 3", "position fen 6/6/6/6/6/rb4 r")
    lines = script.search("go depth 2")
    assert [line.split(" nps ")[0] for line in lines[:-1]] == [
        "info depth 1 seldepth 1 multipv 1 score mate 1 nodes 1",
        "info depth 2 seldepth 2 multipv 1 score mate 1 nodes 2",
    ]
    assert lines[-1] == "bestmove a1xb1"


def timeless(lines: list[str]) -> list[str]:
    """The lines with ``nps`` and ``time`` blanked (they vary with the machine)."""
    return [re.sub(r" (nps|time) \d+", r" \1 _", line) for line in lines]


@pytest.mark.parametrize("variant", ["zola", "zhadu"])
def test_multipv_1_prints_exactly_what_no_option_prints(variant: str) -> None:
    """Also after searches with more lines (the option set back on a searcher in use)."""
    plain, one = Script(), Script()
    plain.send(f"setup {variant}")
    one.send("setoption name MultiPV value 3", f"setup {variant}")
    assert " multipv 3 " in one.search("go depth 2")[-2]
    one.send("setoption name MultiPV value 1", "ucinewgame")
    for go in ("go depth 4", "go nodes 3000"):
        printed = plain.search(go)
        assert all(INFO_RE.match(line) for line in printed[:-1])
        assert " multipv " not in " ".join(printed)
        assert timeless(one.search(go)) == timeless(printed)


@pytest.mark.parametrize(
    "value,code",
    [
        ("0", "bad-value"),
        ("33", "bad-value"),
        ("-1", "bad-value"),
        ("3.5", "syntax"),
        ("x", "syntax"),
    ],
)
def test_bad_values_are_refused_and_change_nothing(value: str, code: str) -> None:
    script = Script()
    script.send("setoption name MultiPV value 2")
    reply = script.send(f"setoption name MultiPV value {value}")
    assert len(reply) == 1 and reply[0].startswith(f"error {code} option 'MultiPV' "), reply
    assert script.engine.option_value("MultiPV") == 2
    lines = script.search("go depth 1")
    assert [parse_info(line).multipv for line in lines[:-1]] == [1, 2]  # type: ignore[union-attr]


def test_searchmoves_bounds_the_lines() -> None:
    script = Script()
    script.send("setoption name MultiPV value 5")
    lines = script.search("go depth 2 searchmoves a3xa4 c1xd1")
    groups = by_depth(lines[:-1])
    assert all(
        sorted(info.pv[0] for info in group) == ["a3xa4", "c1xd1"] for group in groups.values()
    )
    assert lines[-1] == f"bestmove {groups[2][0].pv[0]}"


def test_a_stopped_search_reports_whole_iterations_and_their_best() -> None:
    """``go infinite`` then ``stop``: every iteration printed has its three lines (none cut
    short), and the bestmove is the first move of the last iteration's line 1."""
    script = Script()
    script.send("setoption name MultiPV value 3")
    start = script.mark()
    script.send("go infinite")
    deadline = time.monotonic() + PATIENCE
    while not any(line.startswith("info depth 5 ") for line in script.since(start)):
        assert time.monotonic() < deadline, script.since(start)
        time.sleep(0.01)
    script.send("stop")
    lines = script.since(start)
    assert (
        lines[-1].startswith("bestmove ")
        and sum(line.startswith("bestmove") for line in lines) == 1
    )
    groups = by_depth(lines[:-1])
    assert all([info.multipv for info in group] == [1, 2, 3] for group in groups.values())
    assert lines[-1] == f"bestmove {groups[max(groups)][0].pv[0]}"


def test_a_node_limit_reports_the_last_completed_iteration() -> None:
    """A node limit that ends the search inside an iteration: that iteration prints nothing
    (deterministic: the same lines every time)."""
    script = Script()
    script.send("setoption name MultiPV value 3")
    lines = script.search("go nodes 20000")
    groups = by_depth(lines[:-1])
    assert all([info.multipv for info in group] == [1, 2, 3] for group in groups.values())
    total = infos(lines)[-1].nodes
    assert total is not None and total < 20000  # the iteration under way at the limit: not shown
    assert lines[-1] == f"bestmove {groups[max(groups)][0].pv[0]}"
    again = Script()
    again.send("setoption name MultiPV value 3")
    assert timeless(again.search("go nodes 20000")) == timeless(lines)


def test_the_ponder_reply_is_line_1_s() -> None:
    script = Script()
    script.send("setoption name MultiPV value 3", "setoption name Ponder value true")
    lines = script.search("go depth 3")
    first = by_depth(lines[:-1])[3][0]
    assert lines[-1] == f"bestmove {first.pv[0]} ponder {first.pv[1]}"


def test_the_info_line_carries_multipv_after_seldepth() -> None:
    info = Info(depth=3, seldepth=5, multipv=2, score=Score(cp=7), nodes=9, pv=("a1xa2",))
    line = info.format()
    assert line == "info depth 3 seldepth 5 multipv 2 score cp 7 nodes 9 pv a1xa2"
    assert parse_info(line) == info
