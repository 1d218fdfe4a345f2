"""cutechess-cli's and fastchess's command lines, run by ``zengine match`` in their place.

The command lines are written as cutechess-cli's documentation and typical test scripts write
them (single dashes, ``-each``, ``-repeat``, ``-pgnout FILE min``...), against the built-in
engine at depth 1, a few games each; the checks are what such scripts read: the exit code, the
PGN file, and the lines they grep (``Started game``, ``Finished game``, ``Score of``, ``Elo
difference``, the ranking, ``Finished match``). Every option refused as chess's is tested too.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import signal
from pathlib import Path

import pytest
from fake_match import cli, fake, match_cli, start_match, wait_for_games

from zengine.engine.variants import make_rules, variant_names
from zengine.tools.referee.config import ConfigError, MatchConfig, Tournament
from zengine.tools.referee.match import run_match
from zengine.tools.referee.options import parse_command_line
from zengine.tools.referee.runner import ExitReason
from zengine.tools.referee.schedule import Schedule, random_opening

#: What every script here sets for its engines: the built-in engine, fast.
EACH = "-each proto=uci depth=1"


def run(line: str, cwd: Path) -> tuple[int, list[str], str]:
    """``zengine match`` run as a script runs cutechess-cli: exit code, stdout lines, stderr."""
    words = shlex.split(line)
    assert words[0] == "cutechess-cli"
    done = match_cli(*words[1:], "--out", str(cwd / "m"), timeout=300)
    return done.returncode, done.stdout.splitlines(), done.stderr


def pgn_games(path: Path) -> list[str]:
    """The games of a PGN file, each from its Event tag."""
    return ["[Event" + g for g in path.read_text().split("[Event")[1:]]


def test_a_gauntlet(tmp_path: Path) -> None:
    code, out, err = run(
        "cutechess-cli -engine cmd=zengine name=base -engine cmd=zengine name=v1 "
        f"-engine cmd=zengine name=v2 {EACH} -tournament gauntlet -games 2 -rounds 1 "
        f"-concurrency 2 -maxmoves 30 -ratinginterval 0 -pgnout {tmp_path / 'g.pgn'}",
        tmp_path,
    )
    assert code == 0, err
    assert sum(line.startswith("Started game") for line in out) == 4
    assert "Started game 1 of 4 (base vs v1)" in out
    finished = [line for line in out if line.startswith("Finished game")]
    assert len(finished) == 4 and all("base" in line for line in finished)
    assert re.fullmatch(
        r"Finished game \d \((base|v\d) vs (base|v\d)\): (1-0|0-1|1/2-1/2) \{.+\}", finished[0]
    )
    # The ranking at the end (no interval asked for), then cutechess's last line.
    rank = out.index(next(line for line in out if line.startswith("Rank ")))
    assert out[rank].split()[:7] == ["Rank", "Name", "Elo", "+/-", "Games", "Score", "Draws"]
    assert sorted(row.split()[1] for row in out[rank + 1 : rank + 4]) == ["base", "v1", "v2"]
    assert "Finished match" in out[rank:]
    games = pgn_games(tmp_path / "g.pgn")
    assert len(games) == 4 and all("base" in g for g in games)


def test_a_round_robin_of_three_ranks_at_each_interval(tmp_path: Path) -> None:
    code, out, err = run(
        "cutechess-cli -engine cmd=zengine name=A -engine cmd=zengine name=B "
        f"-engine cmd=zengine name=C {EACH} -games 2 -maxmoves 20 -concurrency 2 -ratinginterval 3 "
        "-outcomeinterval 6 -srand 11 -event rr3 -site lab",
        tmp_path,
    )
    assert code == 0, err
    assert sum(line.startswith("Finished game") for line in out) == 6
    # After games 3 and 6, not again at the end (cutechess prints it once there).
    ranks = [i for i, line in enumerate(out) if line.startswith("Rank ")]
    assert len(ranks) == 2
    assert sum(line.startswith("Finished game") for line in out[: ranks[0]]) == 3
    assert out[ranks[0] - 1].startswith("Finished game")
    for i in ranks:
        rows = [row.split() for row in out[i + 1 : i + 4]]
        assert [row[0] for row in rows] == ["1", "2", "3"]
        assert sorted(row[1] for row in rows) == ["A", "B", "C"]
    final = out[ranks[1] + 1 : ranks[1] + 4]
    assert sum(float(row.split()[-1]) for row in final) == 6  # points: one per game
    assert [line for line in out if line.startswith("Player: ")] == [
        "Player: A",
        "Player: B",
        "Player: C",
    ]
    assert out[out.index("Player: C") + 1].startswith('   "')
    assert "Finished match" in out
    pgn = (tmp_path / "m" / "games.pgn").read_text()
    assert pgn.count('[Event "rr3"]') == 6 and pgn.count('[Site "lab"]') == 6


def test_an_sprt_between_two(tmp_path: Path) -> None:
    code, out, err = run(
        "cutechess-cli -engine cmd=zengine name=new -engine cmd=zengine name=old "
        f"{EACH} -games 2 -rounds 2 -repeat -maxmoves 30 -concurrency 2 -ratinginterval 2 "
        "-sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 -recover",
        tmp_path,
    )
    assert code == 0, err
    scores = [line for line in out if line.startswith("Score of new vs old: ")]
    assert len(scores) == 4
    assert re.fullmatch(r"Score of new vs old: \d - \d - \d  \[\d\.\d{3}\] 4", scores[-1])
    assert sum(line.startswith("Elo difference: ") for line in out) >= 2
    assert sum(line.startswith("SPRT: llr ") for line in out) >= 2
    assert out[-1].startswith("Report: ") and "Finished match" in out


def test_openings_from_a_file_with_repeat(tmp_path: Path) -> None:
    rules = make_rules(variant_names()[0])
    lines = [" ".join(random_opening(rules, 4, random.Random(i)).moves) for i in range(2)]
    book = tmp_path / "book.epd"
    book.write_text("\n".join(lines) + "\n")
    code, _out, err = run(
        "cutechess-cli -engine cmd=zengine name=A -engine cmd=zengine name=B "
        f"{EACH} -openings file={book} format=epd order=sequential plies=4 -repeat 2 "
        "-games 2 -rounds 2 -maxmoves 30 -concurrency 2",
        tmp_path,
    )
    assert code == 0, err
    games = [json.loads(g) for g in (tmp_path / "m" / "games.jsonl").read_text().splitlines()]
    by_id = {g["id"]: g for g in games}
    # Each opening twice, colours swapped; the second round takes the file's next line.
    assert [by_id[i]["opening"] for i in range(4)] == [lines[0], lines[0], lines[1], lines[1]]
    assert [by_id[i]["p1"] for i in range(4)] == ["A", "B", "A", "B"]


def test_pgnout_min_appends_and_the_engine_keys_work(tmp_path: Path) -> None:
    pgnout = tmp_path / "all.pgn"
    pgnout.write_text('[Event "earlier"]\n\n1-0\n\n')
    stderr = tmp_path / "engine-stderr.txt"
    code, _out, err = run(
        "cutechess-cli -engine cmd=zengine name=A restart=on 'initstr=setoption name Hash value 8' "
        f"-engine cmd=zengine name=B stderr={stderr} {EACH} -games 2 -maxmoves 20 "
        f"-pgnout {pgnout} min fi -epdout {tmp_path / 'end.epd'} -wait 10 -debug",
        tmp_path,
    )
    assert code == 0, err
    text = pgnout.read_text()
    assert text.startswith('[Event "earlier"]')  # appended, as cutechess does
    games = pgn_games(pgnout)
    assert len(games) == 3
    movetext = [g.split("\n\n", 1)[1] for g in games[1:]]
    assert all("{" not in m and m.strip() for m in movetext)  # min: no comments
    minimal = ["Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN", "SetUp"]
    for game in games[1:]:  # and cutechess's minimal tags
        assert re.findall(r"^\[(\w+) ", game, re.M) == [*minimal, "Variant"]
    assert "{" in (tmp_path / "m" / "games.pgn").read_text()  # the folder's own keeps them
    assert len((tmp_path / "end.epd").read_text().splitlines()) == 2
    assert stderr.exists()
    traffic = (tmp_path / "m" / "traffic.log").read_text()
    # restart=on: A is started for each game (and sent its initstr), B once.
    assert len(re.findall(r" A > uci$", traffic, re.M)) == 2
    assert len(re.findall(r" B > uci$", traffic, re.M)) == 1
    assert len(re.findall(r" A > setoption name Hash value 8$", traffic, re.M)) == 2


def test_one_game_a_round_as_cutechess_plays_it(tmp_path: Path) -> None:
    # cutechess's counts: no -games, no -repeat: one game a round, a new opening each game,
    # colours alternating; two games in a row (across rounds) make the pair the Elo needs.
    code, out, err = run(
        f"cutechess-cli -engine cmd=zengine name=A -engine cmd=zengine name=B {EACH} "
        "-rounds 4 -maxmoves 20 -ratinginterval 2 -srand 5",
        tmp_path,
    )
    assert code == 0, err
    assert sum(line.startswith("Finished game") for line in out) == 4
    elo = [line for line in out if line.startswith("Elo difference: ")]
    assert len(elo) >= 2 and not any("no complete pair" in line for line in elo)
    games = [json.loads(g) for g in (tmp_path / "m" / "games.jsonl").read_text().splitlines()]
    by_id = {g["id"]: g for g in games}
    assert [by_id[i]["p1"] for i in range(4)] == ["A", "B", "A", "B"]
    assert [by_id[i]["opening_index"] for i in range(4)] == [0, 1, 2, 3]
    assert len({by_id[i]["opening"] for i in range(4)}) == 4
    assert [(by_id[i]["round"], by_id[i].get("pair_round")) for i in range(4)] == [
        (0, None), (1, 0), (2, None), (3, 2),
    ]  # fmt: skip
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert sum(summary["encounters"][0]["pentanomial"]) == 2


@pytest.mark.parametrize("fi", [False, True])
def test_pgnout_keeps_a_game_the_match_stopped_unless_fi(tmp_path: Path, fi: bool) -> None:
    # cutechess writes a game it stopped (result "*") to -pgnout; with fi, finished games only.
    # The folder's own records keep finished games alone (the stopped one is replayed).
    pgnout = tmp_path / "all.pgn"
    slow = fake("--delay", "40")
    proc = start_match(
        *("-engine", slow, "name=A", "-engine", slow, "name=B", "-each", "depth=1"),
        *("-games", "4", "-maxmoves", "200", "-pgnout", str(pgnout), *(["fi"] if fi else [])),
        *("--out", str(tmp_path / "m")),
    )
    wait_for_games(tmp_path / "m", 1, proc)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    kept = (tmp_path / "m" / "games.jsonl").read_text().count("\n")
    games = pgn_games(pgnout)
    results = [re.search(r'\[Result "(.*)"\]', g)[1] for g in games]  # type: ignore[index]
    assert "*" not in results[:kept] and len(games) == kept + (0 if fi else 1)
    if not fi:
        assert results[-1] == "*" and '[Termination "abandoned"]' in games[-1]
        assert '[Reason "not finished: the match stopped (interrupted)"]' in games[-1]
        assert games[-1].rstrip().endswith(" *")
    assert '[Result "*"]' not in (tmp_path / "m" / "games.pgn").read_text()


def test_an_engine_that_cannot_start_says_to_correct_it(tmp_path: Path) -> None:
    code, out, _ = run(
        "cutechess-cli -engine cmd=zengine name=A -engine name=B "
        "cmd='python3 -c pass' -each depth=1 -games 2",
        tmp_path,
    )
    assert code == 3
    line = next(line for line in out if line.startswith("An engine could not be started"))
    assert "Correct its command" in line and line.endswith("and start again.")
    assert not any("Resume with" in line for line in out)


# --- the command line alone: nothing is played ---------------------------------------------

TWO = "-engine cmd=zengine name=a -engine cmd=zengine name=b -each depth=1"


def config(line: str):  # type: ignore[no-untyped-def]
    return parse_command_line(shlex.split(f"{TWO} {line}"))


def test_cutechess_counts_and_spellings() -> None:
    c = config("-games 4 -rounds 3 -repeat -srand 9 -maxmoves 50 -noswap -reverse -wait 5")
    assert (c.games, c.rounds, c.repeat, c.seed) == (4, 3, 2, 9)
    assert c.adjudication.max_plies == 100  # full moves
    assert (c.swap, c.reverse, c.wait_ms) == (False, True, 5)
    assert config("-repeat 4").repeat == 4
    # 0/ is the whole game in one period (cutechess's tc=0/20+0.2).
    assert (
        config("-each tc=0/20+0.2").engines[0].limits == config("-each tc=20+0.2").engines[0].limits
    )
    assert config("--seed 3") == config("-srand 3")
    c = config("-tournament gauntlet -concurrency 2 -event E -site S -outcomeinterval 5")
    assert (c.tournament, c.concurrency, c.event, c.site) == (Tournament.GAUNTLET, 2, "E", "S")
    assert config("-sprt elo0=0 elo1=5 model=logistic -report penta=true").sprt is not None
    c = config("-each arg=--quiet -engine cmd=zengine name=c arg=x arg='y z' whitepov")
    assert c.engines[0].cmd[-1] == "--quiet"
    assert c.engines[2].cmd[-3:] == ("--quiet", "x", "y z") and c.engines[2].whitepov
    # fastchess's args= (one word, split as a shell would) and plies= (its depth=).
    c = config("-engine cmd=zengine name=c \"args=-a 'b c'\" plies=3")
    assert c.engines[2].cmd[-2:] == ("-a", "b c") and c.engines[2].limits.search.depth == 3


def games_of(line: str) -> list[tuple[int, int, int, int, tuple[int, int]]]:
    """The schedule of a command line: per game its round, players, opening and pair."""
    c = parse_command_line(shlex.split(line))
    s = Schedule(
        len(c.engines), c.tournament, c.rounds, c.games, lambda i: i,  # type: ignore[arg-type,return-value]
        c.repeat, c.swap, c.reverse,
    )  # fmt: skip
    keys = [(g.round if g.pair_round is None else g.pair_round, g.pair) for g in s]
    return [(g.round, g.p1, g.p2, g.opening_index, key) for g, key in zip(s, keys)]


def test_a_cutechess_command_line_counts_as_cutechess() -> None:
    # cutechess-cli: -games 1, -rounds 1, no -repeat (a new opening every game), colours
    # alternating from one game of an encounter to the next, also across rounds.
    c = config("")
    assert (c.games, c.rounds, c.repeat, c.swap) == (1, 1, 1, True)
    # -games 2 -rounds 3 -repeat: 6 games, 3 openings each played twice, colours swapped.
    assert games_of(f"{TWO} -games 2 -rounds 3 -repeat") == [
        (0, 0, 1, 0, (0, 0)), (0, 1, 0, 0, (0, 0)),
        (1, 0, 1, 1, (1, 0)), (1, 1, 0, 1, (1, 0)),
        (2, 0, 1, 2, (2, 0)), (2, 1, 0, 2, (2, 0)),
    ]  # fmt: skip
    # -games 1 -rounds 4: 4 games, 4 openings; the colours still alternate, and two games in
    # a row are a pair (across the round's end) for the Elo and the SPRT.
    assert games_of(f"{TWO} -games 1 -rounds 4") == [
        (0, 0, 1, 0, (0, 0)), (1, 1, 0, 1, (0, 0)),
        (2, 0, 1, 2, (2, 0)), (3, 1, 0, 3, (2, 0)),
    ]  # fmt: skip
    # -games 4 -repeat: 4 games, each opening twice; -repeat 4: one opening for all four.
    assert [g[3] for g in games_of(f"{TWO} -games 4 -repeat")] == [0, 0, 1, 1]
    assert [g[3] for g in games_of(f"{TWO} -games 4 -repeat 4")] == [0, 0, 0, 0]
    # An odd number of games a round: the count goes on over the rounds, as cutechess's.
    assert games_of(f"{TWO} -games 3 -rounds 2 -repeat") == [
        (0, 0, 1, 0, (0, 0)), (0, 1, 0, 0, (0, 0)), (0, 0, 1, 1, (0, 1)),
        (1, 1, 0, 1, (0, 1)), (1, 0, 1, 2, (1, 0)), (1, 1, 0, 2, (1, 0)),
    ]  # fmt: skip
    # -noswap: the first engine always first; -reverse: every game's colours the other way.
    assert [g[1] for g in games_of(f"{TWO} -rounds 4 -noswap")] == [0, 0, 0, 0]
    assert [g[1] for g in games_of(f"{TWO} -rounds 4 -reverse")] == [1, 0, 1, 0]
    # A round robin of three: games x rounds x 3 encounters, each encounter's games
    # alternating colours and meeting the same openings.
    three = f"{TWO} -engine cmd=zengine name=c"
    assert len(games_of(three)) == 3 and len(games_of(f"{three} -rounds 2")) == 6
    rr = games_of(f"{three} -games 2 -rounds 2 -repeat")
    assert len(rr) == 12
    assert [(g[1], g[2], g[3]) for g in rr[:6]] == [
        (0, 1, 0), (1, 0, 0), (0, 2, 0), (2, 0, 0), (1, 2, 0), (2, 1, 0),
    ]  # fmt: skip
    assert {g[3] for g in rr[6:]} == {1}
    assert len(games_of(f"{three} -tournament gauntlet -games 4 -rounds 3")) == 2 * 4 * 3


def test_zengine_s_own_spelling_keeps_its_pairs() -> None:
    # Two dashes: a colour-swapped pair on each opening, as before; one single-dash option
    # anywhere makes the line cutechess's. The demonstration keeps its four games in pairs.
    double = "--engine cmd=zengine name=a --engine cmd=zengine name=b --each depth=1"
    c = parse_command_line(shlex.split(double))
    assert (c.games, c.rounds, c.repeat) == (2, 1, 2)
    assert [g[3] for g in games_of(f"{double} --rounds 2")] == [0, 0, 1, 1]
    c = parse_command_line(shlex.split(f"{double} -rounds 2"))
    assert (c.games, c.rounds, c.repeat) == (1, 2, 1)
    for line in ([], ["-concurrency", "1"], ["--concurrency", "1"]):
        c = parse_command_line(line)
        assert (c.games, c.repeat) == (4, 2), line


def test_the_endgame_tables_of_tb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # -tb DIR is --tables DIR for a folder of zengine's tables (an empty one holds none);
    # -tbpieces N keeps the positions of at most N pieces; Syzygy's folder is refused.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ours").mkdir()
    c = config("-tb ours -tbpieces 3")
    assert c.adjudication.tables == str(tmp_path / "ours") and c.adjudication.tb_pieces == 3
    assert c.adjudication.tables == config("--tables ours").adjudication.tables
    assert MatchConfig.from_json(json.loads(json.dumps(c.to_json()))) == c
    assert "tbpieces" not in config("-tb ours").to_json()
    (tmp_path / "syzygy").mkdir()
    (tmp_path / "syzygy" / "KQvK.rtbw").write_bytes(b"")
    for option in ("-tb", "--tables"):
        with pytest.raises(ConfigError, match=f"^{option} syzygy: Syzygy tables are chess's"):
            config(f"{option} syzygy")


def test_repeat_noswap_and_reverse_shape_the_schedule() -> None:
    def players(**kw: object) -> list[tuple[int, int, int]]:
        s = Schedule(2, Tournament.ROUND_ROBIN, 1, 4, lambda i: i, **kw)  # type: ignore[arg-type]
        return [(g.p1, g.p2, g.opening_index) for g in s]

    assert players() == [(0, 1, 0), (1, 0, 0), (0, 1, 1), (1, 0, 1)]
    assert players(repeat=1) == [(0, 1, 0), (1, 0, 1), (0, 1, 2), (1, 0, 3)]
    assert players(repeat=4) == [(0, 1, 0), (1, 0, 0), (0, 1, 0), (1, 0, 0)]
    assert players(swap=False) == [(0, 1, 0), (0, 1, 0), (0, 1, 1), (0, 1, 1)]
    assert players(reverse=True) == [(1, 0, 0), (0, 1, 0), (1, 0, 1), (0, 1, 1)]


def test_an_engine_of_engines_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    engines = [
        {
            "name": "zen",
            "command": "zengine",
            "protocol": "uci",
            "workingDirectory": str(tmp_path),
            "initStrings": ["isready"],
            "restart": "on",
            "ponder": True,
            "options": [{"name": "Hash", "type": "spin", "default": 16, "value": 32}],
        }
    ]
    (tmp_path / "engines.json").write_text(json.dumps(engines))
    c = parse_command_line(shlex.split("-engine conf=zen -engine conf=zen name=z2 -each depth=1"))
    first = c.engines[0]
    assert first.name == "zen" and first.workdir == str(tmp_path)
    assert first.options == {"Hash": "32"} and first.init_strings == ("isready",) and first.restart
    assert first.ponder
    assert c.engines[1].name == "z2"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("-variant standard", "--variant standard: a chess variant; this referee plays "),
        ("-tournament knockout", "--tournament knockout: not offered (its pairings depend"),
        ("-tournament pyramid", "--tournament pyramid: not offered"),
        ("-tb /tb/3-4-5:/tb/6", "-tb /tb/3-4-5:/tb/6: Syzygy tables are chess's (give a folder"),
        ("-tb 'C:\\tb;D:\\tb'", "-tb C:\\tb;D:\\tb: Syzygy tables are chess's"),
        ("-tb nowhere", "-tb: no such folder '/"),
        ("-tbpieces 6", "-tbpieces limits the endgame tables' adjudication: give the tables too"),
        ("-tbpieces 1 -tb .", "--tbpieces 1: must be a whole number from 2 to 100"),
        ("-tbignore50", "-tbignore50: the tables here are exact under the game's own rules"),
        ("-tbadjudicate BOTH", "-tbadjudicate: the tables here hold no draws"),
        ("-epdin pos.epd", "-epdin: EPD positions are chess's"),
        ("-pgnin games.pgn", "-pgnin: PGN games are chess's"),
        ("-bookmode ram", "-bookmode: Polyglot books are chess's"),
        ("-seeds 2", "-seeds: seeded players are for knockout tournaments"),
        ("-resultformat default", "-resultformat: the PGN result comments here"),
        ("-each book=book.bin", "--each: book=: Polyglot opening books are chess's"),
        ("-each bookdepth=8", "--each: bookdepth=: Polyglot opening books are chess's"),
        ("-each ponder ponder", "--each: ponder is given twice (give it once)"),
        ("-engine cmd=zengine name=c ponder Ponder", "--engine: ponder is given twice"),
        ("-each ponder=false", "--each: ponder=false: ponder stands alone, without a value"),
        ("-engine cmd=zengine name=c whitepov=no", "--engine c: whitepov=no: whitepov stands"),
        ("-each proto=xboard", "--each: proto=xboard: must be uci or ugi (xboard is not"),
        ("-each tscale=2", "--each: tscale=: not offered"),
        ("-openings file=b.pgn format=pgn", "--openings format=pgn: PGN books hold chess games"),
        ("-openings file=b.epd policy=round", "--openings policy=round: only policy=default"),
        ("-sprt model=normalized", "--sprt model=normalized: the SPRT here uses the logistic"),
        ("-report penta=false", "--report penta=false: the Elo and the SPRT here are"),
        ("-output format=fastchess", "--output: the live lines here are cutechess-cli's"),
        ("-engine cmd=zengine name=c name=d", "--engine: name is given twice (give it once)"),
        ("-each tc=1+0.1 tc=2+0.1", "--each: tc is given twice (give it once)"),
        ("-each st=inf", "--each: st=inf: must be a finite number of seconds"),
        ("-engine cmd=zengine name=c st=0", "--engine c: st=0: must be a finite number"),
        ("-each restart=maybe", "--each: restart=maybe: must be on, off or auto"),
        ("-engine conf=nothing", "--engine conf=nothing: no engines.json here or in"),
        ("-gmaes 2", "unknown option '-gmaes' (did you mean -games?)"),
        ("--ratinginteval 2", "unknown option '--ratinginteval' (did you mean --ratinginterval?)"),
        ("-pgnout", "--pgnout: give the file (FILE or file=FILE)"),
        ("-pgnout file=a.pgn notation=san", "--pgnout: unknown key notation (keys: fi, file, min)"),
        ("-each plies=2", "--each: plies= and depth= are one limit: give one"),
        ("-engine cmd=zengine plies=2 depth=2", "--engine: plies= and depth= are one limit"),
        ("-repeat 2 3", "--repeat takes at most one number"),
        ("-maxmoves x", "--maxmoves x: must be a whole number from 0 to"),
        ("-wait 100000", "--wait 100000: must be a whole number from 0 to 60000"),
        (
            "-config file=nowhere/config.json",
            "--resume takes the stored configuration; drop --engine",
        ),
    ],
)
def test_refused_options_say_why(
    line: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, out, err = cli(shlex.split(f"{TWO} {line}"), capsys)
    assert code == 2 and out == "", (out, err)
    assert err.count("\n") == 1 and err.startswith(f"zengine match: error: {message}"), err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_new_settings_go_through_config_json() -> None:
    c = config(
        "-repeat 3 -noswap -reverse -site S -pgnout all.pgn min -epdout end.epd -wait 7 "
        "-outcomeinterval 4 -engine cmd=zengine name=c restart=on initstr=x stderr=e.txt whitepov "
        "ponder"
    )
    assert c.engines[2].ponder and not c.engines[0].ponder
    assert MatchConfig.from_json(json.loads(json.dumps(c.to_json()))) == c


def test_a_folder_of_the_version_before_still_resumes() -> None:
    # The digest kept in config.json by the version before cutechess's options: settings at
    # their defaults must not change it, or --resume would refuse every earlier folder.
    c = parse_command_line(shlex.split("--engine name=a --engine name=b --each depth=1 --seed 3"))
    assert c.games_digest() == "6fc1afe3d6ad15d16c0da7323f6bc445c8d62cf26088b771d088d377ccc1f908"
    assert config("-seed 3 -repeat 1").games_digest() != config("-seed 3 -repeat 2").games_digest()
    # ponder came later still: its default leaves the digest as it was; set, it changes it.
    assert config("-seed 3 -each ponder").games_digest() != config("-seed 3").games_digest()


@pytest.mark.parametrize("whitepov", [False, True])
def test_whitepov_scores_are_made_the_movers(tmp_path: Path, whitepov: bool) -> None:
    # Both claim +2000 every move. Read as its own view, nobody resigns; B's read as player
    # 1's view (whitepov) is -2000 for B, player 2 here, which resigns.
    claim = fake("--score", "2000")
    words = [
        *("-engine", claim, "name=A", "-engine", claim, "name=B"),
        *(["whitepov"] if whitepov else []),
        *("-each", "depth=1", "-games", "1", "-resign", "movecount=3", "score=1000"),
        *("-maxmoves", "10", "-ratinginterval", "0", "--out", str(tmp_path / "m")),
    ]
    result = run_match(words, emit=lambda _line: None, progress=False)
    assert result.reason is ExitReason.COMPLETED
    game = json.loads((tmp_path / "m" / "games.jsonl").read_text())
    if whitepov:
        assert game["reason"] == "B resigns: score <= -1000 cp for 3 moves"
        assert game["scores"][1] == "cp -2000"
    else:
        assert game["termination"] != "adjudication", game["reason"]
