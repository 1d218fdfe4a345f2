"""The protocol dispatcher in-process: scripted lines in, exact lines out (spec: protocol.md)."""

from __future__ import annotations

import importlib.metadata
import re
import time

import pytest
from test_protocol_helpers import Script

from zengine import DISTRIBUTION
from zengine.engine import facade
from zengine.engine.game import legal_moves_text
from zengine.engine.perft import divide
from zengine.engine.search import MAX_DEPTH, Searcher, SearchInfo
from zengine.engine.values import GoLimits, Info, parse_info
from zengine.engine.variants import make_rules, variant_names
from zengine.protocol.session import CODES, COMMANDS

ZOLA_START = "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"
ZOLA_WON = "6/6/6/6/6/r5 b"  # Blue has no checker left: Red has won
ZHADU_SET = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"
ZHADU_WON = "1a0,2a1,3a2,4a3,123b0/1h0,3h2,4h3 b 2/- 0 39"

OPTION_LINES = [
    "option name UCI_Variant type combo default zola var zola var zola-8 var zola-10 var zhadu"
    " var zhadu-star",
    "option name Zhadu Quiet type spin default 100 min 0 max 100000",
    "option name Hash type spin default 16 min 1 max 4096",
    "option name Threads type spin default 1 min 1 max 1",
    "option name Move Overhead type spin default 30 min 0 max 5000",
    "option name Seed type spin default 0 min 0 max 2147483647",
    "option name Ponder type check default false",
    "option name MultiPV type spin default 1 min 1 max 32",
    "option name TablePath type string default <empty>",
]


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.mark.parametrize("word,ok", [("uci", "uciok"), ("ugi", "ugiok"), ("UCI", "uciok")])
def test_handshake_lists_exactly_the_options(script: Script, word: str, ok: str) -> None:
    version = importlib.metadata.version(DISTRIBUTION)
    reply = script.send(word)
    assert reply[0] == f"id name zengine {version}"
    assert reply[1].startswith("id author ") and len(reply[1]) > len("id author ")
    assert reply[2:] == OPTION_LINES + [ok]


def test_isready_always_readyok(script: Script) -> None:
    assert script.send("isready", "nonsense", "isready", "  ISREADY \r") == [
        "readyok",
        "error unknown-command unknown command 'nonsense' (help lists the commands)",
        "readyok",
        "readyok",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "setup zola",
        "setup zola-8",
        "setup zhadu quiet 50",
        "setup zhadu-star quiet 50",
        "setup zhadu links star",
        "SETUP Zola SIZE 10",
        "setoption name Hash value 8",
        "setoption name hash VALUE 1",
        "setoption name Move Overhead value 0",
        "setoption name UCI_Variant value zhadu",
        "setoption name Seed value 7",
        "setoption name Zhadu Quiet value 0",
        "setoption name Threads value 1",
        "setoption name MultiPV value 32",
        "setoption name multipv value 1",
        "ucinewgame",
        "uginewgame",
        "newgame",
        "newgame zola-8",
        "newgame zhadu quiet 7",
        "position startpos",
        "position startpos moves a1xa2 b1xa2",
        f"position fen {ZOLA_START}",
        f"position fen {ZOLA_START} moves a1xa2",
        "move a1xa2",
        "play a1a2 B1XA2",
        "debug on",
        "debug off",
        "",
        "   ",
        "\t\r",
        "stop",
    ],
)
def test_state_commands_are_silent(script: Script, line: str) -> None:
    assert script.send(line) == []


def fen(script: Script) -> str:
    reply = script.one("query fen")
    assert reply.startswith("response ")
    return reply[len("response ") :]


HUGE = "9" * 5000

# (lines before, the failing line, its code)
ERRORS = [
    ([], "frobnicate", "unknown-command"),
    ([], "ucinewgame now", "syntax"),
    ([], "uci extra", "syntax"),
    ([], "legalmoves a1xa2", "syntax"),
    ([], "setup", "syntax"),
    ([], "setup chess", "unknown-game"),
    ([], "setup zola size", "syntax"),
    ([], "setup zola size 7", "bad-value"),
    ([], "setup zola colour red", "unknown-option"),
    ([], "setup zhadu quiet -1", "bad-value"),
    ([], "setup zhadu quiet many", "bad-value"),
    ([], "setup zhadu links ring", "bad-value"),
    ([], "newgame go", "unknown-game"),
    ([], "setoption", "syntax"),
    ([], "setoption Hash value 3", "syntax"),
    ([], "setoption name", "syntax"),
    ([], "setoption name Hash", "syntax"),
    ([], "setoption name Hash value", "syntax"),
    ([], "setoption name Hash value 1 2", "syntax"),
    ([], "setoption name Hash value lots", "syntax"),
    ([], "setoption name Hash value 0", "bad-value"),
    ([], "setoption name Hash value 4097", "bad-value"),
    ([], "setoption name Hash value 99999999999999999999999999", "bad-value"),
    ([], "setoption name Threads value 2", "bad-value"),
    ([], "setoption name MultiPV value 0", "bad-value"),
    ([], "setoption name MultiPV value 33", "bad-value"),
    ([], "setoption name MultiPV value -3", "bad-value"),
    ([], "setoption name MultiPV value three", "syntax"),
    ([], "setoption name MultiPV", "syntax"),
    ([], "setoption name Seed value -1", "bad-value"),
    ([], "setoption name Zhadu Quiet value 100001", "bad-value"),
    ([], "setoption name UCI_Variant value chess", "bad-value"),
    ([], "position", "syntax"),
    ([], "position startpos extra", "syntax"),
    ([], "position fen", "syntax"),
    ([], "position fen moves a1xa2", "syntax"),
    ([], "position somewhere", "syntax"),
    ([], "position startpos moves a1xa2 zz", "syntax"),
    ([], "position startpos moves a1xa2 a1xa2", "illegal-move"),
    ([], "position startpos moves a1xb2", "illegal-move"),
    ([], "position startpos moves pass", "illegal-move"),
    ([], "position fen brbrbr/rbrbrb r", "bad-position"),
    ([], "position fen brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrq r", "bad-position"),
    (
        [],
        "position fen brbrbrbr/rbrbrbrb/brbrbrbr/rbrbrbrb/brbrbrbr/rbrbrbrb/brbrbrbr/rbrbrbrb r",
        "bad-position",
    ),
    ([], f"position fen {ZHADU_SET}", "bad-position"),
    ([], "move", "syntax"),
    ([], "move a1xa2 q9", "syntax"),
    ([], "move a1xa2 a1xa2", "illegal-move"),
    ([], "play z1xa2", "syntax"),
    ([f"position fen {ZOLA_WON}"], "move a1-a2", "illegal-move"),
    ([f"position fen {ZOLA_WON}"], "move pass", "illegal-move"),
    ([], "undo", "cannot-undo"),
    (["move a1xa2"], "undo 2", "cannot-undo"),
    ([], "undo 0", "bad-value"),
    ([], "undo -1", "bad-value"),
    ([], "undo one", "syntax"),
    ([], "undo 1 2", "syntax"),
    ([], "query", "syntax"),
    ([], "query colour", "syntax"),
    ([], "query fen now", "syntax"),
    ([], "query islegal", "syntax"),
    ([], "query islegal a1xa2 b2xb1", "syntax"),
    ([], "go ponder ponder x", "syntax"),
    ([], "setoption name Ponder value yes", "bad-value"),
    ([], "go mate 3", "syntax"),
    ([], "go depth", "syntax"),
    ([], "go depth x", "syntax"),
    ([], "go depth 0", "bad-value"),
    ([], "go depth -2", "bad-value"),
    ([], "go depth 3.5", "syntax"),
    ([], "go nodes 0", "bad-value"),
    ([], "go movetime -1", "bad-value"),
    ([], "go movetime 99999999999999999999", "bad-value"),
    ([], "go wtime 1000 winc -5", "bad-value"),
    ([], "go movestogo 0", "bad-value"),
    ([], "go sideways", "syntax"),
    ([], "go searchmoves", "syntax"),
    ([], "go searchmoves a1xa2 zz", "syntax"),
    ([], "go searchmoves a1xa2 a1xb2", "illegal-move"),
    ([], "go depth \u0661", "syntax"),
    ([], "go nodes \uff11\uff10", "syntax"),
    ([], "perft", "syntax"),
    ([], "perft x", "syntax"),
    ([], "perft -1", "bad-value"),
    ([], "perft 65", "bad-value"),
    ([], "perft 1 2", "syntax"),
    ([], "go perft", "syntax"),
    ([], "d now", "syntax"),
    ([], "bench 0", "bad-value"),
    ([], "bench two", "syntax"),
    ([], "debug", "syntax"),
    ([], "debug maybe", "syntax"),
    ([], "\u2603 snowman", "unknown-command"),
    ([], "\x00\x01\x1b[2J", "unknown-command"),
    (["setup zhadu"], "position fen " + ZOLA_START, "bad-position"),
    (["setup zhadu"], "move 5@a0", "syntax"),
    (["setup zhadu"], "move 1@h0", "illegal-move"),
    (["setup zhadu"], "setoption name Zhadu Quiet value -3", "bad-value"),
    # Letters and digits of other scripts are never read as the ASCII ones they resemble or
    # fold to (str.lower makes 'k' of the Kelvin sign, U+212A)
    ([], "setup zhadu lin\u212as star", "unknown-option"),
    (["setup zola"], "position fen \u00b2r3r/6/6/6/6/r5 r", "bad-position"),
    ([], f"setoption name Seed value {HUGE}", "bad-value"),
    ([], f"setoption name Move Overhead value -{HUGE}", "bad-value"),
    (["setup zhadu"], f"setup zhadu quiet {HUGE}", "bad-value"),
    ([], f"go movetime {HUGE}", "bad-value"),
    ([], f"go winc {HUGE}", "bad-value"),
    ([], f"undo -{HUGE}", "bad-value"),
    ([], "setup zhadu links \u017ftar", "bad-value"),
    ([], "newgame zhadu qui\u0435t 5", "unknown-option"),  # a Cyrillic e
    ([], "setup zhadu quiet \u00b2", "bad-value"),
    ([], "setoption name UCI_Variant value zhadu-\u017ftar", "bad-value"),
    ([], "setoption name Seed value \u0967", "syntax"),  # a Devanagari one
    ([], "go movetime \U0001d7d1", "syntax"),  # a mathematical bold three
    ([], "undo \u00b9", "syntax"),
    ([], "perft \u0662", "syntax"),
    ([], "bench \uff12", "syntax"),
    ([], "\u212auit", "unknown-command"),
    ([], "position fen 6/6/6/6/6/r\u0665 b", "bad-position"),
    (["setup zhadu"], "position fen -/- w -/- 0 \u0660", "bad-position"),
]


# Numbers of 5,000 digits: a clean range error wherever a number is read, never 'internal'.
ERRORS += [
    ([], f"go depth {HUGE}", "bad-value"),
    ([], f"go nodes {HUGE}", "bad-value"),
    ([], f"go wtime -{HUGE}", "bad-value"),
    ([], f"go movestogo {HUGE}", "bad-value"),
    ([], f"undo {HUGE}", "bad-value"),
    ([], f"perft {HUGE}", "bad-value"),
    ([], f"go perft {HUGE}", "bad-value"),
    ([], f"bench {HUGE}", "bad-value"),
    ([], f"setoption name Hash value {HUGE}", "bad-value"),
    (["setup zhadu"], f"setoption name Zhadu Quiet value {HUGE}", "bad-value"),
]


@pytest.mark.parametrize(
    "before,line,code",
    ERRORS,
    ids=[f"{line[:40]}{'...' if len(line) > 40 else ''}" for _, line, _ in ERRORS],
)
def test_each_error_is_one_line_and_changes_nothing(
    script: Script, before: list[str], line: str, code: str
) -> None:
    """... but a failed ``position``, which leaves no position (docs/protocol.md)."""
    assert script.send(*before) == []
    position, history = fen(script), script.engine.state.history_length
    rules = script.engine.rules
    reply = script.send(line)
    assert len(reply) == 1, reply
    assert reply[0].startswith(f"error {code} "), reply
    assert reply[0].isprintable() and len(reply[0].split()) >= 3
    if line.split()[0] == "position":
        assert script.send("d", "query fen")[0] == "no position"
    else:
        assert fen(script) == position and script.engine.state.history_length == history
    assert script.engine.rules == rules
    assert script.send("isready") == ["readyok"]


#: Every command that takes no argument (from the command registry), and a case-changed
#: spelling of some.
NO_ARGUMENTS = [
    *(name for command in COMMANDS if not command.takes_arguments for name in command.names),
    "QUIT",
    "IsReady",
]


def test_the_registry_lists_each_command_once_with_a_method_and_in_help(script: Script) -> None:
    """The dispatch, the checks and ``help`` all come from ``COMMANDS``: every spelling is
    unique, every command but ``quit`` runs a method of the session, and help names each."""
    names = [name for command in COMMANDS for name in command.names]
    assert len(names) == len(set(names)) and "quit" in names and "go" in names
    help_text = "\n".join(script.send("help"))
    for command in COMMANDS:
        assert command.method is None or callable(getattr(script.session, command.method))
        assert all(name in help_text for name in command.names)


@pytest.mark.parametrize("word", NO_ARGUMENTS)
@pytest.mark.parametrize("extra", ["x", "now please", "1", "\u0661"])
def test_a_command_without_arguments_refuses_any(script: Script, word: str, extra: str) -> None:
    script.send("move a1xa2")
    position = fen(script)
    # ``quit x`` is no quit: the session goes on (``send`` asserts it)
    assert script.send(f"{word} {extra}") == [
        f"error syntax unexpected '{extra.split()[0]}': {word.lower()} takes no argument"
    ]
    assert fen(script) == position and script.send("isready") == ["readyok"]


def test_a_bug_is_one_internal_error_line_and_the_session_goes_on(
    script: Script, monkeypatch
) -> None:
    def broken() -> list[str]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(script.engine, "legal_moves", broken)
    assert script.send("legalmoves", "isready") == ["error internal a bug", "readyok"]


def test_error_codes_are_the_specs() -> None:
    assert CODES == (
        "unknown-command",
        "syntax",
        "unknown-game",
        "unknown-option",
        "bad-value",
        "bad-position",
        "illegal-move",
        "cannot-undo",
        "busy",
    )


NO_POSITION = "error bad-position no position (a position command failed; send a new one)"


@pytest.mark.parametrize(
    "failing",
    [
        "position startpos moves a1xa2 b1xa2 zz",
        "position startpos moves a1xa2 a1xa2",
        "position fen 6/6 r",
        "position fen \u00b2r3r/6/6/6/6/r5 r",  # a superscript two is no run of two
        "position startpos moves 1@a0",  # a Zhadu opening sent to Zola
        "position startpos extra",
        "position nowhere",
        "position",
    ],
)
def test_a_failed_position_leaves_no_position(script: Script, failing: str) -> None:
    script.send("setup zola-8", "setoption name Seed value 5", "position startpos moves a1xa2")
    assert script.one(failing).startswith("error ")
    assert script.send(
        "d",
        "query gameover",
        "query result",
        "query p1turn",
        "query fen",
        "legalmoves",
        "query islegal a2xa3",
        "go depth 3",
        "go",
        "go searchmoves a2xa3",
        "move a2xa3",
        "undo",
        "perft 1",
        "go perft 1",
        "isready",
    ) == [
        "no position",
        "response true",
        "response draw",
        "response true",
        NO_POSITION,
        NO_POSITION,
        "response false",
        "bestmove (none)",
        "bestmove (none)",
        "bestmove (none)",
        NO_POSITION,
        NO_POSITION,
        NO_POSITION,
        NO_POSITION,
        "readyok",
    ]
    assert not script.engine.searching
    # the game and the options are kept; the next position is as good as ever
    assert script.engine.rules.name == "zola-8" and script.engine.option_value("Seed") == 5
    assert script.send("position startpos moves a1xa2", "query gameover") == ["response false"]
    assert script.engine.state.history_length == 1


@pytest.mark.parametrize(
    "restore",
    [
        "setup zhadu",
        "newgame",
        "newgame zola-10",
        "ucinewgame",
        "uginewgame",
        "setoption name UCI_Variant value zola",
        "position fen 6/6/6/6/b5/r5 r",
    ],
)
def test_what_sets_a_position_again(script: Script, restore: str) -> None:
    script.send("position startpos moves zz", restore)
    assert script.send("query gameover") == ["response false"]
    assert fen(script) == script.engine.state.position_text()


@pytest.mark.parametrize(
    "other",
    [
        "move a1xa2",
        "setup chess",
        "newgame zola size 7",
        "setoption name Hash value 0",
        "undo",
        "query fen",
        "perft 2",
        "go depth 2",
        "frobnicate",
    ],
)
def test_other_commands_neither_set_nor_drop_a_position(script: Script, other: str) -> None:
    script.send("position startpos moves zz", other)
    script.finish()
    assert script.send("d") == ["no position"]
    script.send("position startpos moves a1xa2", other)
    script.finish()
    assert script.send("query gameover") == ["response false"]


def test_the_quiet_option_with_no_position(script: Script) -> None:
    script.send("setup zhadu", "position startpos moves 1@z9")
    assert script.send("setoption name Zhadu Quiet value 7", "d") == ["no position"]
    script.send("position startpos")
    assert script.engine.rules.options["quiet"] == "7"


def test_a_runner_that_ignores_errors_stops_at_once(script: Script) -> None:
    """The loop of a UGI runner (cutegames) that neither checks moves nor reads ``error``
    lines: position, ask whether the game is over, else ``go`` and play on. A Zhadu opening
    sent to an engine still set to Zola once looped thousands of times; now the failed
    ``position`` leaves no position and the first ``query gameover`` ends the game."""
    moves: list[str] = ["1@a0", "4@h3"]  # a Zhadu opening; the engine plays Zola
    rounds = 0
    while rounds < 50:
        rounds += 1
        script.send("uginewgame", "position startpos moves " + " ".join(moves))
        if script.send("query gameover") == ["response true"]:
            break
        reply = script.search("go depth 1")
        moves.append(reply[-1].split()[1])
    assert rounds == 1
    assert script.send("query result") == ["response draw"]


def test_move_is_all_or_none(script: Script) -> None:
    assert script.one("move a1xa2 b1xa2 a1xa2").startswith("error illegal-move")
    assert fen(script) == ZOLA_START
    assert script.send("move a1xa2 b1xa2") == []
    state = make_rules("zola").start()
    for text in ("a1xa2", "b1xa2"):
        state.play(state.parse_move(text))
    assert fen(script) == state.position_text()


def test_undo_walks_the_history_of_position_and_move(script: Script) -> None:
    script.send("position startpos moves a1xa2 b1xa2", "move c1xc2")
    assert script.one("undo 4").startswith("error cannot-undo")
    assert script.send("undo 3") == [] and fen(script) == ZOLA_START
    script.send(f"position fen {ZOLA_START}")
    assert script.one("undo").startswith("error cannot-undo")


def test_canonical_moves_and_legalmoves(script: Script) -> None:
    assert script.one("legalmoves") == "legalmoves " + " ".join(
        legal_moves_text(make_rules("zola").start())
    )
    script.send("position fen 6/6/br4/6/1b4/6 r")
    assert script.one("legalmoves") == "legalmoves b4-a3 b4-a5 b4-b5"
    script.send("position fen 1r3r/6/6/6/2r2b/5r b")
    assert script.one("legalmoves") == "legalmoves f2xb6 f2xc2"
    script.send(f"position fen {ZOLA_WON}")
    assert script.one("legalmoves") == "legalmoves"


@pytest.mark.parametrize("variant", variant_names())
def test_legalmoves_match_the_rules_core(script: Script, variant: str) -> None:
    script.send(f"setup {variant}")
    state = make_rules(variant).start()
    assert script.one("legalmoves") == " ".join(["legalmoves", *legal_moves_text(state)])
    assert fen(script) == state.position_text()


def test_queries(script: Script) -> None:
    assert script.send(
        "query gameover",
        "query p1turn",
        "query result",
        "query islegal a1xa2",
        "query islegal A1A2",
        "query islegal a1-b2",
        "query islegal \u2603",
        "QUERY P1TURN",
    ) == [
        "response false",
        "response true",
        "response none",
        "response true",
        "response true",
        "response false",
        "response false",
        "response true",
    ]
    script.send("move a1xa2")
    assert script.send("query p1turn") == ["response false"]
    script.send(f"position fen {ZOLA_WON}")
    assert script.send(
        "query gameover", "query result", "query p1turn", "query islegal pass", "query fen"
    ) == [
        "response true",
        "response p1win",
        "response false",
        "response false",
        f"response {ZOLA_WON}",
    ]


def test_queries_on_zhadu(script: Script) -> None:
    script.send("setup zhadu", f"position fen {ZHADU_WON}")
    assert script.send("query gameover", "query result", "query fen", "legalmoves") == [
        "response true",
        "response p1win",
        f"response {ZHADU_WON}",
        "legalmoves",
    ]


@pytest.mark.parametrize("variant", ["zola", "zhadu"])
def test_d_draws_then_fen_turn_result(script: Script, variant: str) -> None:
    script.send(f"setup {variant}")
    state = make_rules(variant).start()
    reply = script.send("d")
    assert reply == [
        *state.diagram().splitlines(),
        f"fen {state.position_text()}",
        "turn p1",
        "result none",
    ]
    assert script.send("show") == reply and script.send("DISPLAY") == reply


def test_perft_lists_divide_then_total(script: Script) -> None:
    state = make_rules("zola").start()
    rows = divide(state, 2)
    expected = [f"{text}: {count}" for text, count in rows] + ["", "Nodes searched: 1296"]
    assert script.search("perft 2") == expected
    assert script.search("go perft 2") == expected
    assert script.search("perft 0") == ["Nodes searched: 1"]
    script.send("setup zhadu")
    assert script.search("perft 1")[-1] == "Nodes searched: 25"
    script.send(f"position fen {ZHADU_WON}")
    assert script.search("perft 1") == ["", "Nodes searched: 0"]


@pytest.mark.parametrize("variant", variant_names())
def test_perft_beyond_the_grain_matches_the_rules_core(
    script: Script, variant: str, monkeypatch
) -> None:
    # with a grain of 1, depth 3 goes through two stoppable levels above the counted subtrees
    monkeypatch.setattr(facade, "PERFT_GRAIN", 1)
    state = make_rules(variant).start()
    for _ in range(12):  # into Zhadu's movement phase; a few captures into Zola
        state.play(sorted(state.legal_moves())[0])
    script.send(f"setup {variant}", f"position fen {state.position_text()}")
    expected = [f"{text}: {count}" for text, count in divide(state.copy(), 3)]
    assert script.search("perft 3") == [
        *expected,
        "",
        f"Nodes searched: {sum(int(x.split()[1]) for x in expected)}",
    ]


@pytest.mark.parametrize("line", ["perft 64", "go perft 64", "bench 64"])
def test_deep_perft_and_bench_run_like_a_search(script: Script, line: str) -> None:
    script.send("setup zhadu", "position startpos moves 1@a0")
    position = fen(script)
    assert script.send(line) == [] or line.startswith("bench")  # bench may print a variant
    assert script.engine.searching
    counted = re.compile(r"\S+: \d+( nodes \d+ nps)?")  # a perft row, a bench line
    reply = [
        x for x in script.send("isready", "query fen", "setup zola") if not counted.fullmatch(x)
    ]
    assert reply[:2] == ["readyok", f"response {position}"]
    assert reply[2].startswith("error busy ")
    stopped = script.send("stop")
    word = line.split()[-2]
    assert stopped[-1] == f"info string {word} stopped"
    assert not any(x.startswith("Nodes searched") for x in stopped)
    assert not script.engine.searching and fen(script) == position
    assert script.send("stop", "isready") == ["readyok"]


def test_zhadu_quiet_option_is_the_default_quiet_rule(script: Script) -> None:
    script.send("setup zhadu")
    assert script.engine.rules.options["quiet"] == "100"
    script.send("setoption name Zhadu Quiet value 40")
    assert script.engine.rules.options["quiet"] == "40"  # the current game follows at once
    script.send("setup zhadu-star")
    assert script.engine.rules.options == {"links": "star", "quiet": "40"}
    script.send("setup zhadu quiet 7", "setoption name zhadu quiet value 9")
    assert script.engine.rules.options["quiet"] == "7"  # the explicit rule wins for this game
    script.send("newgame zhadu")
    assert script.engine.rules.options["quiet"] == "9"
    script.send("setup zola", "setoption name Zhadu Quiet value 11")
    assert script.engine.rules.options == {"size": "6"}


def test_zhadu_quiet_change_keeps_the_position(script: Script) -> None:
    moves = "1@b0 1@g0 2@a1 2@h1 3@a2 3@h2 4@a3 4@h3 123@a0 123@h0 b0-b1 g0-g1"
    script.send("setup zhadu", f"position startpos moves {moves}")
    position = fen(script)
    script.send("setoption name Zhadu Quiet value 50")
    assert fen(script) == position and script.engine.state.history_length == 12
    # two quiet plies played: a limit of 1 would have ended the game already
    reply = script.send("setoption name Zhadu Quiet value 1")
    assert reply[0].startswith("error bad-value") and len(reply) == 1
    assert fen(script) == position and script.engine.rules.options["quiet"] == "50"


def test_uci_variant_selects_the_game(script: Script) -> None:
    script.send("setoption name UCI_Variant value ZOLA-10")
    assert script.engine.rules.name == "zola-10"
    assert len(fen(script).split()[0].split("/")) == 10
    script.send("move a1xa2", "ucinewgame")
    assert script.engine.rules.name == "zola-10" and script.engine.state.history_length == 0


def test_position_keeps_the_game(script: Script) -> None:
    script.send("setup zola-8", "position startpos")
    assert script.engine.rules.name == "zola-8"
    assert script.one(f"position fen {ZOLA_START}").startswith("error bad-position")


def test_help_lists_every_command(script: Script) -> None:
    text = "\n".join(script.send("help"))
    for word in (
        "uci",
        "ugi",
        "isready",
        "setup",
        "setoption",
        "ucinewgame",
        "uginewgame",
        "newgame",
        "position",
        "move",
        "play",
        "undo",
        "legalmoves",
        "query",
        "go",
        "stop",
        "perft",
        "show",
        "display",
        "bench",
        "debug",
        "help",
        "quit",
    ):
        assert word in text
    assert all(variant in text for variant in variant_names())


def test_quit_ends_the_session(script: Script) -> None:
    assert script.session.handle("QUIT now") is True  # a token too many: error syntax
    assert script.session.handle("quit") is False
    assert Script().session.handle(" Quit \r") is False


# --- search ---------------------------------------------------------------------------------
INFO_FIELDS = ["info", "depth", "seldepth", "score", "nodes", "nps", "time"]


def check_search(reply: list[str], state) -> str:
    """Info lines (each pv legal from ``state``), then exactly one legal bestmove; its move."""
    assert len(reply) >= 2 and reply[-1].startswith("bestmove ")
    assert sum(line.startswith("bestmove") for line in reply) == 1
    legal = legal_moves_text(state)
    for line in reply[:-1]:
        tokens = line.split()
        assert tokens[0:2] == ["info", "depth"] and tokens[2].isdigit()
        assert [tokens[i] for i in (0, 1, 3, 5, 8, 10, 12)] == INFO_FIELDS[:4] + [
            "nodes",
            "nps",
            "time",
        ], line
        assert tokens[6] in ("cp", "mate") and re.fullmatch(r"-?[0-9]+", tokens[7]), line
        assert tokens[6] == "cp" or tokens[7] not in ("0", "-0"), line  # no mate in 0
        rest = tokens[14:]
        if rest[:1] == ["hashfull"]:
            assert 0 <= int(rest[1]) <= 1000
            rest = rest[2:]
        assert rest[0] == "pv"
        copy = state.copy()
        for text in rest[1:]:
            assert text in legal_moves_text(copy), (line, text)
            copy.play(copy.parse_move(text))
    best = reply[-1].split()[1]
    assert best in legal
    return best


@pytest.mark.parametrize("variant", variant_names())
def test_go_depth_gives_info_then_one_legal_bestmove(script: Script, variant: str) -> None:
    script.send(f"setup {variant}")
    state = make_rules(variant).start()
    check_search(script.search("go depth 2"), state)


@pytest.mark.parametrize(
    "go",
    [
        "go nodes 30",
        "go movetime 30",
        "go wtime 300 btime 300",
        "go p1time 200 p2time 100000",
        "go wtime -50 btime -50",
        "go wtime 0 btime 0 winc 0 binc 0",
        "go depth 1 nodes 1",
        "go movetime 0",
        "go depth 2 movetime 100000",
        "go wtime 1000 btime 1000 movestogo 1",
        "go searchmoves a1xa2 b2xc2 depth 2",
        "go depth 1 searchmoves f6xf5",
    ],
)
def test_every_limit_ends_in_a_legal_move(script: Script, go: str) -> None:
    reply = script.search(go)
    best = check_search(reply, make_rules("zola").start())
    if "searchmoves" in go:
        listed = go.split("searchmoves")[1].split()
        assert best in [m for m in listed if "x" in m or "-" in m]


def test_go_builds_the_limits(script: Script, monkeypatch) -> None:
    seen = []
    monkeypatch.setattr(script.engine, "go", lambda limits, on_info, on_done: seen.append(limits))
    script.send(
        "go",
        "go wtime 10 p1time 20 btime 30 binc 7 p2inc 8 movestogo 3",
        "go depth 4 nodes 99 movetime 5 infinite",
        "go wtime -40 p2time -1",
        "go searchmoves a1xa2 a1xa2 b2xc2 depth 3",
    )
    bare, clocks, fixed, negative, moves = seen
    assert bare == GoLimits()
    assert clocks == GoLimits(p1time=20, p2time=30, p2inc=8, movestogo=3)
    assert fixed == GoLimits(depth=4, nodes=99, movetime=5, infinite=True)
    assert negative == GoLimits(p1time=0, p2time=0)
    # the texts as given: the facade makes moves of them (tests/test_facade.py)
    assert moves == GoLimits(depth=3, searchmoves=("a1xa2", "a1xa2", "b2xc2"))


def test_info_lines_are_what_the_search_reported(script: Script, monkeypatch) -> None:
    # The line the engine writes is Info.format() of the search's report, and parse_info (the
    # referee's reader) gives that Info back.
    reported: list[SearchInfo] = []
    search = Searcher.search

    def recording(self, *args, on_info, **kwargs):
        def record(info: SearchInfo) -> None:
            reported.append(info)
            on_info(info)

        return search(self, *args, on_info=record, **kwargs)

    monkeypatch.setattr(Searcher, "search", recording)
    script.send("setup zhadu", "position startpos moves 1@b0 1@g0")
    state = make_rules("zhadu").start()
    for text in ("1@b0", "1@g0"):
        state.play(state.parse_move(text))
    lines = [line for line in script.search("go depth 4") if line.startswith("info ")]
    assert len(lines) == len(reported) == 4
    for line, found in zip(lines, reported):
        texts = []
        for move in found.pv:
            texts.append(state.move_text(move))
            state.play(move)
        for _ in found.pv:
            state.undo()
        expected = Info(
            depth=found.depth,
            seldepth=found.seldepth,
            score=found.score,
            nodes=found.nodes,
            nps=found.nps,
            time_ms=found.time_ms,
            hashfull=found.hashfull,
            pv=tuple(texts),
        )
        assert line == expected.format()
        assert parse_info(line) == expected


def wait_for_line(script: Script, prefix: str, timeout: float = 120.0) -> list[str]:
    """Every line printed until one starts with ``prefix`` (a generous deadline)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with script._lock:
            lines = list(script.out)
        if any(line.startswith(prefix) for line in lines):
            return lines
        time.sleep(0.05)
    raise AssertionError(f"no line starting with {prefix!r}")


@pytest.mark.parametrize(
    "fen,go",
    [
        ("6/6/6/6/b5/r5 b", "go p1time 1000"),  # Blue to move: Red's clock bounds nothing
        ("6/6/6/6/b5/r5 r", "go btime 100000"),  # Red to move: Blue's clock bounds nothing
        ("6/6/6/6/b5/r5 r", "go infinite"),
    ],
)
def test_a_search_unbounded_for_the_side_to_move_waits_like_infinite(
    script: Script, fen: str, go: str
) -> None:
    script.send(f"position fen {fen}", go)
    assert script.engine.search_unbounded
    # The mate is proven by depth 3; the search goes on to its deepest iteration and waits.
    lines = wait_for_line(script, f"info depth {MAX_DEPTH} ")
    assert not any(line.startswith("bestmove") for line in lines)
    assert script.engine.searching
    reply = script.finish()  # end of input stops it, as it stops go infinite
    state = make_rules("zola").parse_position(fen)
    assert len(reply) == 1 and reply[0].split()[1] in legal_moves_text(state)
    assert not script.engine.searching


def test_mate_is_found_and_scored(script: Script) -> None:
    script.send("position fen 6/6/6/6/6/rb4 r")
    reply = script.search("go depth 3")
    assert reply[-1] == "bestmove a1xb1"
    assert "score mate 1" in reply[-2]


def test_finished_game_answers_bestmove_none_at_once(script: Script) -> None:
    script.send(f"position fen {ZOLA_WON}")
    assert script.send("go infinite", "go depth 4", "go") == ["bestmove (none)"] * 3
    assert not script.engine.searching
    script.send("setup zhadu", f"position fen {ZHADU_WON}")
    assert script.send("go wtime 100 btime 100") == ["bestmove (none)"]


def test_during_a_search_only_readers_answer(script: Script) -> None:
    script.send("go infinite")
    for line in (
        "setup zhadu",
        "setoption name Hash value 2",
        "ucinewgame",
        "uginewgame",
        "newgame",
        "position startpos",
        "move a1xa2",
        "play a1xa2",
        "undo",
        "go depth 1",
        "perft 1",
        "go perft 1",
        "bench 1",
        "debug on",
        "uci",
        "ugi",
    ):
        reply = [x for x in script.send(line) if not x.startswith("info ")]
        assert len(reply) == 1 and reply[0].startswith("error busy "), (line, reply)
    reply = [
        x
        for x in script.send(
            "isready", "legalmoves", "query fen", "query islegal a1xa2", "d", "help"
        )
        if not x.startswith("info ")
    ]
    assert reply[0] == "readyok" and reply[1].startswith("legalmoves a1xa2 ")
    assert reply[2] == f"response {ZOLA_START}" and reply[3] == "response true"
    assert f"fen {ZOLA_START}" in reply
    assert script.send("frobnicate")[-1].startswith("error unknown-command")
    stopped = script.send("stop")
    assert stopped[-1].startswith("bestmove ")  # printed before stop returns
    assert script.send("position startpos moves a1xa2", "query fen")[-1].startswith("response ")
    assert script.finish() == []


def test_stop_without_search_and_second_stop_are_silent(script: Script) -> None:
    assert script.send("stop") == []
    script.send("go depth 1")
    script.finish()
    assert script.send("stop", "stop") == []


def test_exactly_one_bestmove_per_go(script: Script) -> None:
    accepted = 0
    for line in ("go depth 1", "go nodes 20", "go infinite", "go movetime 10", "go depth 2"):
        for _ in range(2):  # the second is busy unless the first search has ended already
            before = len(script.out)
            script.session.handle(line)
            reply = [x for x in script.out[before:] if not x.startswith(("info ", "bestmove "))]
            assert len(reply) <= 1 and all(x.startswith("error busy ") for x in reply)
            accepted += not reply
        script.send("isready", "stop")
    script.finish()
    assert sum(1 for x in script.out if x.startswith("bestmove ")) == accepted >= 5


def test_debug_on_gives_info_strings(script: Script) -> None:
    script.send("debug on")
    reply = script.search("go depth 1")
    assert any(line.startswith("info string ") for line in reply)
    script.send("debug off")
    assert not any(line.startswith("info string ") for line in script.search("go depth 1"))


def test_bench_leaves_the_session_alone(script: Script) -> None:
    script.send("setup zola-8", "move a1xa2")
    position = fen(script)
    reply = script.search("bench 1")
    assert [line.split(":")[0] for line in reply[:-1]] == variant_names()
    for line in reply[:-1]:
        tokens = line.split()
        assert len(tokens) == 5
        assert tokens[2] == "nodes" and tokens[4] == "nps" and tokens[1].isdigit()
    total = reply[-1].split()
    assert len(total) == 4 and total[1] == "nodes" and total[3] == "nps"
    assert int(total[0]) == sum(int(line.split()[1]) for line in reply[:-1])
    again = script.search("bench 1")
    assert [line.split()[:2] for line in again[:-1]] == [line.split()[:2] for line in reply[:-1]]
    assert fen(script) == position and script.engine.rules.name == "zola-8"
