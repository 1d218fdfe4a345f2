"""``zengine match`` with a bad command line or configuration: one line, exit code 2, nothing
played and nothing written.

Each case runs the real command line in this process (``main.main``, as ``zengine match ...``
would) from an empty working directory, and checks the whole of what a user sees: stderr is
one line ``zengine match: error: <option as written>: <what it must be>``, stdout is empty, and
no output folder was made. ``config.json`` is checked by changing every value of a real one to
values of every wrong kind: each reads back or is a ConfigError, never another exception.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_match import DATA, FAKE, MATCH_CLI, cli

from zengine.engine.variants import variant_names
from zengine.tools.referee import schedule as schedule_module
from zengine.tools.referee.config import (
    ConfigError,
    MatchConfig,
    OpeningsConfig,
    Tournament,
)
from zengine.tools.referee.options import (
    NOT_FIELDS,
    OPTIONS,
    parse_command_line,
    resume_refusal,
    split_options,
)
from zengine.tools.referee.schedule import (
    MAX_OPENING_LINE,
    MAX_OPENINGS_BYTES,
    match_schedule,
    openings_for,
    openings_needed,
    schedule,
)

#: Two engines that would play (the built-in one): each case adds or overrides one thing.
TWO = ["--engine", "name=a", "--engine", "name=b", "--each", "depth=1", "--games", "2"]


def refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a refused command line (after checking how it was refused)."""
    code, out, err = cli(args, capsys)
    assert code == 2, (out, err)
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("zengine match: error: "), err
    assert "Traceback" not in err
    assert not Path("matches").exists()  # nothing made, nothing played
    return err.removeprefix("zengine match: error: ").rstrip("\n")


@pytest.fixture(autouse=True)
def in_empty_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- numbers: unit and range, finite, named as written ---------------------------------------

SECONDS = "must be a finite number of seconds from"


@pytest.mark.parametrize(
    "words,message",
    [
        (["--each", "st=inf"], f"--each: st=inf: {SECONDS} 0.001 to 86400"),
        (["--each", "st=nan"], f"--each: st=nan: {SECONDS} 0.001 to 86400"),
        (["--each", "st=1e20"], f"--each: st=1e20: {SECONDS} 0.001 to 86400"),
        (["--each", "st=abc"], f"--each: st=abc: {SECONDS} 0.001 to 86400"),
        (["--each", "st=-1"], f"--each: st=-1: {SECONDS} 0.001 to 86400"),
        (["--each", "st=0"], f"--each: st=0: {SECONDS} 0.001 to 86400"),
        (["--each", "st=86401"], f"--each: st=86401: {SECONDS} 0.001 to 86400"),
        (
            ["--each", "tc=99999999999999"],
            "--each: tc=99999999999999: the base and the increment must be at most "
            "2147483.647 seconds",
        ),
        (
            ["--each", "tc=3000000"],
            "--each: tc=3000000: the base and the increment must be at most 2147483.647 seconds",
        ),
        (
            ["--each", "tc=99999999999/10"],
            "--each: tc=99999999999/10: moves per period must be from 0 to 2147483647",
        ),
        (["--each", "tc=1:60"], "--each: tc=1:60: the seconds of m:ss must be below 60"),
        (["--each", "tc=0+0"], "--each: tc=0: no time at all (give a base or an increment)"),
        (["--each", "tc=1e3"], "--each: tc=1e3: must be [moves/]base[+inc] in seconds"),
        (["--timeout", "start=inf"], f"--timeout start=inf: {SECONDS} 0.001 to 86400"),
        (["--timeout", "start=nan"], f"--timeout start=nan: {SECONDS} 0.001 to 86400"),
        (["--timeout", "start=0"], f"--timeout start=0: {SECONDS} 0.001 to 86400"),
        (["--timeout", "move=1e300"], f"--timeout move=1e300: {SECONDS} 0.001 to 86400"),
        (["--timeout", "grace=-5"], f"--timeout grace=-5: {SECONDS} 0 to 86400"),
        (["--timeout", "ready=86400.5"], f"--timeout ready=86400.5: {SECONDS} 0.001 to 86400"),
        (["--each", "timeout.move=0"], f"--each: timeout.move=0: {SECONDS} 0.001 to 86400"),
        (["--each", "depth=abc"], "--each: depth=abc: must be a whole number from 1 to 1000"),
        (["--each", "depth=1.5"], "--each: depth=1.5: must be a whole number from 1 to 1000"),
        (["--each", "depth=1001"], "--each: depth=1001: must be a whole number from 1 to 1000"),
        (
            ["--each", "nodes=1.5"],
            "--each: nodes=1.5: must be a whole number from 1 to 9223372036854775807",
        ),
        (
            ["--each", "nodes=" + "9" * 30],
            f"--each: nodes={'9' * 30}: must be a whole number from 1 to 9223372036854775807",
        ),
        (
            ["--each", "timemargin=-1"],
            "--each: timemargin=-1: must be a whole number of milliseconds from 0 to",
        ),
        (["--games", "100000000"], "--games 100000000: must be a whole number from 1 to 1000000"),
        (["--games", "0"], "--games 0: must be a whole number from 1 to 1000000"),
        (["--rounds", "x"], "--rounds x: must be a whole number from 1 to 1000000"),
        (
            ["--games", "1000", "--rounds", "1001"],
            "1001000 games in all: at most 1000000 (--games x --rounds x encounters)",
        ),
        (["--concurrency", "0"], "--concurrency 0: must be a whole number from 1 to 64"),
        (["--seed", "-1"], "--seed -1: must be a whole number from 0 to 9223372036854775807"),
        (["--maxplies", "1e3"], "--maxplies 1e3: must be a whole number from 0 to 1000000"),
        (
            ["--resign", "score=-5"],
            "--resign score=-5: must be a whole number of centipawns from 0 to 100000",
        ),
        (["--resign", "twosided=maybe"], "--resign twosided=maybe: must be true or false"),
        (["--draw", "movecount=0"], "--draw movecount=0: must be a whole number from 1 to 1000"),
        (
            ["--openings", "plies=9999"],
            "--openings plies=9999: must be a whole number from 0 to 1000",
        ),
        (
            ["--openings", "none", "plies=3"],
            "--openings none: plies= does not apply (it is for random or file openings)",
        ),
        (
            ["--openings", "random", "order=random"],
            "--openings random: order= does not apply (it is for file= openings)",
        ),
        (
            ["--openings", "file=book.txt", "plies=x"],
            "--openings plies=x: must be a whole number from 0 to 1000",
        ),
        (
            ["--openings", "none", "file=book.txt"],
            "--openings: none and file= do not go together",
        ),
        (
            ["--openings", "random", "plies=2", "file=book.txt"],
            "--openings: random and file= do not go together",
        ),
        (["--sprt", "elo0=0"], "--sprt: give elo0= and elo1= together (or neither, for"),
        (["--sprt", "elo1=10"], "--sprt: give elo0= and elo1= together (or neither, for"),
        (
            ["--sprt", "elo0=-inf", "elo1=inf"],
            "--sprt elo0=-inf: must be a finite number from -2000 to 2000",
        ),
        (
            ["--sprt", "elo0=0", "elo1=1e9"],
            "--sprt elo1=1e9: must be a finite number from -2000 to 2000",
        ),
        (["--sprt", "alpha=nan"], "--sprt alpha=nan: must be a finite number between 0 and 1"),
        (["--sprt", "beta=1"], "--sprt beta=1: must be a finite number between 0 and 1"),
        (["--sprt", "elo0=5", "elo1=5"], "--sprt: need elo1 > elo0"),
        (["--tournament", "swiss"], "--tournament swiss: must be round-robin or gauntlet"),
    ],
)
def test_bad_values_are_one_line_naming_the_option(
    words: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refused([*TWO, *words], capsys).startswith(message)


def test_an_unknown_variant_lists_the_variants_once(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused([*TWO, "--variant", "chess"], capsys)
    known = ", ".join(variant_names())
    assert line == f"--variant/--rule: unknown game 'chess' (known: {known})"


# --- engines: their programs exist before anything is played ----------------------------------


def test_a_missing_engine_is_refused_before_the_match(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused([*TWO, "--engine", "cmd=/no/such/engine", "name=c", "depth=1"], capsys)
    assert line == "--engine c: cmd=/no/such/engine: No such file or directory"


def test_a_program_not_on_path_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused([*TWO, "--engine", "cmd=no-such-program-zz --x", "name=c", "depth=1"], capsys)
    assert line == "--engine c: cmd=no-such-program-zz: no such program on PATH (give its path)"


def test_a_file_that_may_not_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "engine.py"
    program.write_text("print('uciok')\n")
    program.chmod(0o644)
    line = refused([*TWO, "--engine", f"cmd={program}", "name=c", "depth=1"], capsys)
    assert line.startswith(f"--engine c: cmd={program}: not executable")
    line = refused([*TWO, "--engine", f"cmd={tmp_path}", "name=c", "depth=1"], capsys)
    assert line == f"--engine c: cmd={tmp_path}: not a file"


def test_an_engine_program_is_found_from_its_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ./engine is started in dir=, so it is looked for there (not in the referee's folder).
    line = refused(
        [*TWO, "--engine", "cmd=./engine", f"dir={tmp_path}/none", "name=c", "depth=1"], capsys
    )
    assert line == f"--engine c: dir={tmp_path}/none: no such directory"
    (tmp_path / "sub").mkdir()
    line = refused(
        [*TWO, "--engine", "cmd=./engine", f"dir={tmp_path}/sub", "name=c", "depth=1"], capsys
    )
    assert line == "--engine c: cmd=./engine: No such file or directory"


def test_the_fake_engine_command_passes_the_check() -> None:
    from zengine.tools.referee.programs import check_commands

    config = parse_command_line(
        ["--engine", f"cmd={sys.executable} {FAKE}", "--engine", "cmd=zengine", "--each", "depth=1"]
    )
    check_commands(config.engines)  # a program on PATH and the built-in engine


# --- control characters: no second PGN tag, no protocol line injected -------------------------


@pytest.mark.parametrize(
    "words,message",
    [
        (
            ["--engine", 'name=x\n[Result "1-0"]', "depth=1"],
            '--engine x\\n[Result "1-0"]: name=x\\n[Result "1-0"]: must hold no control '
            "character (it has U+000A)",
        ),
        (
            ["--event", 'E"]\n[Result "0-1'],
            '--event E"]\\n[Result "0-1: must hold no control character (it has U+000A)',
        ),
        (
            ["--engine", "name=c", "depth=1", "option.Hash=8\nquit"],
            "--engine c: option.Hash=8\\nquit: must hold no control character (it has U+000A)",
        ),
        (
            ["--engine", "name=c", "depth=1", "option.Ha\rsh=8"],
            "--engine c: option.Ha\\rsh: must hold no control character (it has U+000D)",
        ),
        (
            ["--engine", "name=c", "depth=1", "cmd=zengine\nquit"],
            "--engine cmd=zengine\\nquit: must hold no control character (it has U+000A)",
        ),
        (
            ["--engine", "name=c\x1b[2J", "depth=1"],
            "--engine c\\x1b[2J: name=c\\x1b[2J: must hold no control character (it has U+001B)",
        ),
        (
            ["--engine", "name=c\u2028d", "depth=1"],
            "--engine c\\u2028d: name=c\\u2028d: must hold no control character (it has U+2028)",
        ),
        (
            ["--variant", "zhadu", "--rule", "quiet=5\n"],
            "--rule quiet=5\\n: must hold no control character (it has U+000A)",
        ),
    ],
)
def test_control_characters_are_refused(
    words: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refused([*TWO, *words], capsys) == message


def test_config_json_with_a_control_character_is_refused() -> None:
    data = parse_command_line(TWO).to_json()
    for change in (
        {"event": "a\nb"},
        {"engines": [{**data["engines"][0], "name": "a\nb"}, data["engines"][1]]},
        {"engines": [{**data["engines"][0], "options": {"H": "1\n"}}, data["engines"][1]]},
        {"engines": [{**data["engines"][0], "cmd": ["x", "\n"]}, data["engines"][1]]},
    ):
        with pytest.raises(ConfigError, match="must hold no control character"):
            MatchConfig.from_json({**data, **change})


# --- openings files ---------------------------------------------------------------------------


def test_an_openings_device_is_refused_unread(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused([*TWO, "--openings", "file=/dev/zero"], capsys)
    assert line == "--openings: openings file '/dev/zero' is not a regular file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_openings_fifo_is_refused_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "book"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer: it is not opened
    line = refused([*TWO, "--openings", f"file={fifo}"], capsys)
    assert line == f"--openings: openings file '{fifo}' is not a regular file"


def test_an_openings_file_too_large_or_with_a_huge_line_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.truncate(MAX_OPENINGS_BYTES + 1)  # sparse: costs no disk
    line = refused([*TWO, "--openings", f"file={big}"], capsys)
    assert line == f"--openings: openings file '{big}' is larger than 64 MiB"
    long = tmp_path / "long.txt"
    long.write_text("a1xa2\n" + "x" * (MAX_OPENING_LINE + 1) + "\n")
    line = refused([*TWO, "--openings", f"file={long}"], capsys)
    assert line == f"--openings: {long}:2: a line longer than {MAX_OPENING_LINE} characters"
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"a1xa2\n\xff\xfe\n")
    line = refused([*TWO, "--openings", f"file={binary}"], capsys)
    assert line == f"--openings: {binary}:2: not UTF-8 text"
    line = refused([*TWO, "--openings", f"file={tmp_path}/none"], capsys)
    assert line == (
        f"--openings: cannot read openings file '{tmp_path}/none': No such file or directory"
    )


# --- the schedule is made lazily: a million games start at once ------------------------------


def test_a_million_game_schedule_draws_only_what_it_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    real = schedule_module.random_opening

    def counting(*args: Any, **kwargs: Any) -> Any:
        drawn.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(schedule_module, "random_opening", counting)
    config = parse_command_line([*TWO, "--games", "1000000", "--seed", "3"])
    games = match_schedule(config, config.make_rules())
    assert len(games) == 1_000_000 and len(drawn) == 1  # the first, to check the setting
    last = games[-1]
    assert (last.id, last.pair, last.opening_index) == (999_999, 499_999, 499_999)
    assert len(drawn) == 2


@pytest.mark.parametrize(
    "engines,tournament,rounds,games",
    [
        (2, Tournament.ROUND_ROBIN, 2, 3),
        (4, Tournament.ROUND_ROBIN, 2, 2),
        (4, Tournament.GAUNTLET, 3, 1),
    ],
)
def test_the_lazy_schedule_is_the_listed_one(
    engines: int, tournament: Tournament, rounds: int, games: int
) -> None:
    words = [w for i in range(engines) for w in ("--engine", f"name=e{i}", "depth=1")]
    config = parse_command_line(
        [*words, "--tournament", tournament.value, "--rounds", str(rounds), "--games", str(games)]
        + ["--seed", "7"]
    )
    rules = config.make_rules()
    lazy = match_schedule(config, rules)
    book = openings_for(rules, OpeningsConfig(), openings_needed(rounds, games), 7)
    listed = schedule(engines, tournament, rounds, games, book)
    assert list(lazy) == listed
    assert [lazy.players(g.id) for g in listed] == [(g.p1, g.p2) for g in listed]
    assert lazy[-1] == listed[-1] and lazy[1:3] == listed[1:3]
    with pytest.raises(IndexError):
        lazy[len(listed)]


# --- help and options read as words -----------------------------------------------------------


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli([*TWO, flag], capsys)
    assert code == 0 and err == "" and out.startswith("Usage: zengine match")
    assert "Exit codes:" in out


def test_the_adjudication_defaults_are_those_the_help_and_the_docs_state(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # --resign and --draw alone use defaults: what they are must be written somewhere.
    adjudication = parse_command_line([*TWO, "--resign", "--draw"]).adjudication
    assert adjudication.resign is not None and adjudication.draw is not None
    resign = f"movecount={adjudication.resign.movecount} score={adjudication.resign.score}"
    draw = (
        f"movenumber={adjudication.draw.movenumber} movecount={adjudication.draw.movecount}"
        f" score={adjudication.draw.score}"
    )
    _, out, _ = cli([*TWO, "--help"], capsys)
    docs = (Path(__file__).parent.parent / "docs" / "referee.md").read_text()
    for text in (out, docs):
        assert "movecount=N score=CP [twosided=true]" in text
        assert resign in text and draw in text


def test_a_name_given_twice_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["--engine", "name=a", "--engine", "name=a", "--each", "depth=1"], capsys)
    assert line == "--engine name=a: two engines are named so (give each its own name=)"


def test_errors_say_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An option misspelt after an engine's words is an unknown option, as after --games 2.
    unknown = refused(["--engine", "depth=1", "-repaet"], capsys)
    assert unknown == "unknown option '-repaet' (did you mean -repeat?)"
    assert refused([*TWO, "-repaet"], capsys) == unknown
    far = refused([*TWO, "--xyzzy"], capsys)
    assert far.startswith("unknown option '--xyzzy' (known: --engine, --each, ")
    # A file is not a folder that is missing.
    (tmp_path / "afile").write_text("x\n")
    assert refused(["--resume", "afile"], capsys) == "--resume afile: not a folder"
    # file= with nothing after it named the current directory.
    line = refused([*TWO, "--openings", "file="], capsys)
    assert line == "--openings file=: the file name is empty"


def test_a_folder_starting_with_a_dash_is_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    # -dashdir holds an h: read as letters it would be a request for help.
    assert refused(["--resume", "-dashdir"], capsys) == "--resume -dashdir: no such folder"
    assert refused(["--resume", "-h", "--games", "2"], capsys) == (
        "--resume takes the stored configuration; drop --games "
        "(it takes only --concurrency, --ratinginterval, --wait, --outcomeinterval, "
        "--report, --output and --cluster)"
    )


def test_the_options_table_drives_the_command_line_the_resume_rule_and_the_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fields = {f.name for f in dataclasses.fields(MatchConfig)}
    _, help_text, _ = cli([*TWO, "--help"], capsys)
    for option in OPTIONS:
        # A row sets a field of the configuration or a word the parser makes into one.
        assert option.target in fields or option.target in NOT_FIELDS, option
        # A refused option (cutechess's chess-only ones) is left out of the help.
        assert (f"--{option.name} {option.args}".strip() in help_text) == bool(option.help)
        if not option.resume:
            words = ["--resume", "m", f"--{option.name}", *["1"] * (option.arity or 0)]
            assert refused(words, capsys) == resume_refusal(option)
    # The rule is the rows': --cluster (played elsewhere) goes with --resume, and says so.
    allowed = [o.name for o in OPTIONS if o.resume]
    assert allowed == [
        "concurrency", "ratinginterval", "resume", "wait", "outcomeinterval", "report",
        "output", "config", "cluster",
    ]  # fmt: skip
    assert "--cluster" in resume_refusal(OPTIONS[0]) and "--cluster" in help_text


def test_single_dash_spellings_are_the_same_options() -> None:
    two = ["--engine", "cmd=zengine", "name=a", "--engine", "cmd=zengine", "name=b"]
    words = [*two, "--each", "depth=2", "--games", "6", "--seed", "4", "--variant", "zhadu"]
    words += ["--repeat", "3"]  # (what is left out takes cutechess's defaults with one dash)
    single = [w[1:] if w.startswith("--") else w for w in words]
    assert single[0] == "-engine" and single[-2] == "-repeat"
    assert parse_command_line(single) == parse_command_line(words)
    assert [o.name for o, _ in split_options(["-games", "2", "---ROUNDS", "3"])] == [
        "games",
        "rounds",
    ]


# --- config.json: any wrong value is a ConfigError ---------------------------------------------

WRONG: list[Any] = [
    None,
    "x",
    "",
    1,
    -1,
    1.5,
    float("nan"),
    float("inf"),
    True,
    [],
    [1],
    {},
    {"x": 1},
    "a\nb",
]


def _paths(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*path, index))


def _changed(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    data = copy.deepcopy(data)
    where = data
    for key in path[:-1]:
        where = where[key]
    if value is _DELETE:
        if isinstance(where, dict):
            del where[path[-1]]
        else:
            where.pop(path[-1])
    else:
        where[path[-1]] = value
    return data


_DELETE = object()


def _full_config() -> dict[str, Any]:
    return parse_command_line(
        ["--engine", "cmd=x", "name=a", "tc=40/10+0.1", "option.Hash=8", "timeout.move=5"]
        + ["--engine", "cmd=y", "st=1", "dir=/tmp"]
        + ["--sprt", "elo0=0", "elo1=5", "--resign", "movecount=3", "score=500"]
        + ["--draw", "movenumber=3", "movecount=2", "score=1", "--seed", "3"]
    ).to_json()


@pytest.mark.parametrize("name", ["full", "previous version"])
def test_every_wrong_value_of_config_json_is_a_config_error(name: str) -> None:
    base = (
        _full_config()
        if name == "full"
        else json.loads((DATA / "old_match" / "config.json").read_text())
    )
    tried = 0
    for path in list(_paths(base)):
        for value in [*WRONG, _DELETE] if path else WRONG:
            changed = _changed(base, path, value)
            try:
                MatchConfig.from_json(changed)
            except ConfigError:
                pass
            tried += 1
    # Unknown keys of the settings made into dataclasses.
    for key in ("resign", "draw", "sprt", "timeout"):
        if isinstance(base.get(key), dict):
            with pytest.raises(ConfigError):
                MatchConfig.from_json({**base, key: {**base[key], "bogus": 1}})
    assert tried > 500


def test_config_json_sprt_needs_every_setting() -> None:
    data = _full_config()
    with pytest.raises(ConfigError, match="configuration: 'elo1' is not a number"):
        MatchConfig.from_json({**data, "sprt": {"elo0": 0}})


def test_a_name_that_is_not_utf8_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A name read from argv with bytes that are not UTF-8 (surrogate escapes in Python) went
    # into the records, and the report crashed writing it after both games were played.
    out = tmp_path / "sur"
    args: list[str | bytes] = [*MATCH_CLI, "--engine", "cmd=zengine", b"name=bad\xed\xa0\x80name"]
    args += ["--engine", "cmd=zengine", "name=ok", "--each", "depth=1", "--games", "2"]
    done = subprocess.run([*args, "--out", str(out)], capture_output=True, timeout=120)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        "zengine match: error: --engine bad\\udced\\udca0\\udc80name: "
        "name=bad\\udced\\udca0\\udc80name: must be UTF-8 text (it holds bytes that are not)"
    ]
    assert not out.exists()
    # And so is any other text that goes into the records or to the engines.
    for words in (
        ["--event", "e\udcff"],
        ["--rule", "quiet=\udcff"],
        ["--each", "option.H=\udcff"],
        ["--out", str(tmp_path / "x\udcff")],  # its name goes into the report
    ):
        line = refused([*TWO, *words], capsys)
        assert "must be UTF-8 text" in line, line
