"""Pondering: the option Ponder, ``go ponder``, ``ponderhit`` and ``bestmove <m> ponder <r>``
(docs/protocol.md, "Pondering"), line by line."""

from __future__ import annotations

import time

from test_protocol_helpers import INFO_RE, Script

#: Generous: only for what must happen (no timing is asserted).
PATIENCE = 60


def wait_for(script: Script, start: int, word: str) -> list[str]:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        lines = script.since(start)
        if any(line.split()[0] == word for line in lines):
            return lines
        time.sleep(0.01)
    raise AssertionError(f"no {word} line: {script.since(start)}")


def test_without_the_option_bestmove_is_as_before():
    script = Script()
    lines = script.search("go depth 3")
    assert lines[-1] == "bestmove c1xd1"
    assert len(lines[-2].split(" pv ")[1].split()) > 1  # a reply was expected, and not said


def test_with_the_option_bestmove_names_the_expected_reply():
    script = Script()
    plain = script.search("go depth 3")
    assert script.send("setoption name Ponder value true", "ucinewgame") == []
    pondering = script.search("go depth 3")
    strip = [line.split(" nps ")[0] for line in plain[:-1]]
    assert [line.split(" nps ")[0] for line in pondering[:-1]] == strip  # the same search
    pv = pondering[-2].split(" pv ")[1].split()
    assert pondering[-1] == f"bestmove {pv[0]} ponder {pv[1]}" == "bestmove c1xd1 ponder c6xd6"


def test_go_ponder_searches_until_ponderhit_then_on_its_limits():
    script = Script()
    script.send("setoption name Ponder value true", "position startpos moves c1xd1 c6xd6")
    start = script.mark()
    script.send("go ponder depth 2")
    wait_for(script, start, "info")
    assert script.engine.searching and script.engine.search_unbounded
    assert script.send("isready")[-1] == "readyok"
    assert not any(line.startswith("bestmove") for line in script.since(start))
    assert not [line for line in script.send("ponderhit") if not line.startswith("info ")]
    script.session.finish()  # bounded now: it ends by itself at depth 2
    out = script.since(start)
    bestmoves = [line for line in out if line.startswith("bestmove")]
    assert len(bestmoves) == 1 and out[-1] == bestmoves[0]
    infos = [line for line in out if line.startswith("info")]
    assert all(INFO_RE.match(line) for line in infos)
    # After the ponderhit the search runs again from depth 1 to the go's depth 2.
    assert [int(line.split()[2]) for line in infos][-2:] == [1, 2]
    last_pv = infos[-1].split(" pv ")[1].split()
    assert out[-1].split()[:2] == ["bestmove", last_pv[0]]


def test_stop_while_pondering_answers_at_once():
    script = Script()
    start = script.mark()
    script.send("go ponder wtime 100000 btime 100000")
    wait_for(script, start, "info")
    script.send("stop")
    out = script.since(start)
    assert out[-1].startswith("bestmove ") and sum(line.startswith("bestmove") for line in out) == 1
    assert not script.engine.searching
    # The option is off: no ponder word.
    assert len(out[-1].split()) == 2


def test_ponderhit_without_a_ponder_search_does_nothing():
    script = Script()
    assert script.send("ponderhit") == []
    assert script.one("ponderhit x").startswith("error syntax ")
    lines = script.search("go depth 2")
    assert lines[-1] == "bestmove c1xd1"
    start = script.mark()
    script.send("go infinite")
    wait_for(script, start, "info")
    script.send("ponderhit")
    assert script.engine.search_unbounded  # go infinite stays unbounded
    script.send("stop")
    assert script.since(start)[-1].startswith("bestmove ")
