"""Pictures of positions (``State.svg``, ``zengine svg``), checked by reading the SVG back.

The oracle is the position string: every checker or stone the picture tags must be one the
position string names, on the point it names, drawn inside that square or on that point's
circle, and nothing else may be tagged. Positions come from seeded random playouts of every
variant; the last move's highlight, Zhadu's hands and first captures, its steps (against the
spec's adjacency table) and ``parse_last_move`` (against the naive oracles) are checked too.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator

import naive_zhadu
import naive_zola
import pytest
from click.testing import CliRunner

from zengine.cli import main
from zengine.engine.game import IllegalMoveError, InvalidMoveError, State
from zengine.engine.variants import make_rules, variant_names

VARIANTS = variant_names()
SVG = "{http://www.w3.org/2000/svg}"
COLOURS = {"red", "blue", "white", "black"}


# --- reading pictures back ---------------------------------------------------------------------
def parse(picture: str) -> ET.Element:
    """The root element; fails the test if the text is not well-formed XML."""
    return ET.fromstring(picture.encode("utf-8"))


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def tagged(root: ET.Element, name: str) -> list[ET.Element]:
    """Every element whose class list holds ``name``."""
    return [e for e in root.iter() if name in classes(e)]


def place(element: ET.Element) -> str | None:
    return element.get("data-square") or element.get("data-point")


def colour(element: ET.Element) -> str:
    (found,) = classes(element) & COLOURS
    return found


def drawn_pieces(root: ET.Element) -> list[tuple[str, str, str]]:
    """(square or point, colour, label) of every piece the picture tags on the board."""
    return [
        (place(e) or "", colour(e), e.get("data-stone", ""))
        for e in root.iter()
        if classes(e) & {"checker", "stone"}
    ]


def centre(element: ET.Element) -> tuple[float, float]:
    """The centre of a circle, or of the first circle inside a group."""
    circle = element if element.tag == SVG + "circle" else element.find(SVG + "circle")
    assert circle is not None
    return float(circle.get("cx", "nan")), float(circle.get("cy", "nan"))


# --- the oracle: pieces from the position string -----------------------------------------------
def zola_pieces(fen: str) -> set[tuple[str, str, str]]:
    grid, _ = naive_zola.parse(fen)
    return {
        (naive_zola.name(file, rank), {"r": "red", "b": "blue"}[cell], "")
        for rank, row in enumerate(grid)
        for file, cell in enumerate(row)
        if cell != "."
    }


def zhadu_pieces(fen: str) -> set[tuple[str, str, str]]:
    stones = fen.split()[0]
    pieces = set()
    for side, half in zip(("white", "black"), stones.split("/")):
        if half != "-":
            for token in half.split(","):
                pieces.add((token[-2:], side, token[:-2]))
    return pieces


#: Per game, the pieces a position string names; a new game adds its reader here.
READERS = {"zola": zola_pieces, "zhadu": zhadu_pieces}


def positions(variant: str, seed: int, games: int = 3, every: int = 3) -> Iterator[State]:
    """Positions of seeded random games (every few plies and the last), each with the
    history of the moves that reached it."""
    rng = random.Random(f"{variant}/{seed}")
    for _ in range(games):
        state = make_rules(variant).start()
        yield state.copy()
        ply = 0
        while state.legal_moves() and ply < 160:
            state.play(rng.choice(state.legal_moves()))
            ply += 1
            if ply % every == 0 or not state.legal_moves():
                yield state.copy()


def last_move(state: State) -> tuple[int, str] | None:
    """The move that reached ``state`` and its canonical text (from the position before)."""
    if not state.history_length:
        return None
    before = state.copy()
    before.undo()
    for move in before.legal_moves():
        after = before.copy()
        after.play(move)
        if after.key == state.key and after.position_text() == state.position_text():
            return move, before.move_text(move)
    raise AssertionError("no legal move leads here")


# --- every variant -----------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_pictures_show_exactly_the_pieces_and_the_last_move(variant: str) -> None:
    reader = READERS[make_rules(variant).game]
    for state in positions(variant, seed=1):
        played = last_move(state)
        fen = state.position_text()
        root = parse(state.svg(360, played[0] if played else None))
        assert root.tag == SVG + "svg"
        assert root.get("width") == "360"
        assert len(root.get("viewBox", "").split()) == 4
        title = root.find(SVG + "title")
        assert title is not None and fen in (title.text or "")
        pieces = drawn_pieces(root)
        assert len(pieces) == len(set(pieces)), "a piece drawn twice"
        assert set(pieces) == reader(fen), fen
        marked = {place(e) for e in tagged(root, "last-move") if place(e)}
        expected = set(re.findall(r"[a-z]\d+", played[1])) if played else set()
        assert marked == expected, (fen, played)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pictures_are_self_contained(variant: str) -> None:
    state = make_rules(variant).start()
    picture = state.svg(200)
    root = parse(picture)
    assert picture.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    for element in root.iter():
        assert element.tag.startswith(SVG), element.tag
        assert element.tag[len(SVG) :] not in ("image", "use", "script", "foreignObject", "style")
        for name in element.attrib:
            assert not name.endswith("href"), name
    assert "url(" not in picture and "@import" not in picture


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_last_move_is_recognised_from_the_position_alone(variant: str) -> None:
    for state in positions(variant, seed=2, games=2, every=1):
        played = last_move(state)
        if played is None:
            continue
        move, text = played
        alone = state.rules.parse_position(state.position_text())
        assert alone.parse_last_move(text) == move, (state.position_text(), text)
        assert alone.parse_last_move(f" {text.upper()} ") == move
        assert state.parse_last_move(text) == move
        # The interface's default (the history's last move) agrees.
        assert State.parse_last_move(state, text) == move


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_last_move_in_bad_notation_is_a_syntax_error(variant: str) -> None:
    state = make_rules(variant).start()
    for text in ("", "hello", "a1-", "z9-z8", "a1-a99", "@", "pass pass"):
        with pytest.raises(InvalidMoveError):
            state.parse_last_move(text)


def test_the_default_picture_is_the_diagram_as_text() -> None:
    state = make_rules("zola").start()
    state.play(state.parse_move("a1xa2"))
    root = parse(State.svg(state, 300, state.parse_last_move("a1xa2")))
    lines = [e.text or "" for e in root.iter(SVG + "text")]
    assert lines[: len(state.diagram().splitlines())] == state.diagram().splitlines()
    assert lines[-1] == "Last move: a1xa2"
    assert root.get("width") == "300"


def test_the_default_last_move_needs_the_history() -> None:
    state = make_rules("zola").start()
    state.play(state.parse_move("a1xa2"))
    with pytest.raises(IllegalMoveError):
        State.parse_last_move(state, "a1xb1")
    alone = state.rules.parse_position(state.position_text())
    with pytest.raises(IllegalMoveError):
        State.parse_last_move(alone, "a1xa2")
    with pytest.raises(InvalidMoveError):
        State.parse_last_move(alone, "a1-z1")


# --- Zola ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["zola", "zola-8", "zola-10"])
def test_zola_checkers_stand_inside_their_squares(variant: str) -> None:
    n = int(make_rules(variant).options["size"])
    for state in positions(variant, seed=3, games=1, every=7):
        root = parse(state.svg())
        squares = {e.get("data-square"): e for e in tagged(root, "square")}
        assert len(squares) == n * n
        cell = float(squares["a1"].get("width", "nan"))
        left, bottom = float(squares["a1"].get("x", "nan")), float(squares["a1"].get("y", "nan"))
        for name, rect in squares.items():
            assert name is not None
            file, rank = ord(name[0]) - 97, int(name[1:]) - 1
            assert float(rect.get("x", "nan")) == pytest.approx(left + file * cell)
            assert float(rect.get("y", "nan")) == pytest.approx(bottom - rank * cell)
        for checker in tagged(root, "checker"):
            rect = squares[checker.get("data-square")]
            x, y = centre(checker)
            assert float(rect.get("x", "nan")) < x < float(rect.get("x", "nan")) + cell
            assert float(rect.get("y", "nan")) < y < float(rect.get("y", "nan")) + cell


def test_zola_a_pass_highlights_nothing() -> None:
    # Red's a1 is in a corner (no step outward) and sees no Blue checker along a line.
    state = make_rules("zola").parse_position("2b3/6/6/6/6/r5 r")
    assert [state.move_text(m) for m in state.legal_moves()] == ["pass"]
    state.play(state.legal_moves()[0])
    alone = state.rules.parse_position(state.position_text())
    move = alone.parse_last_move("pass")
    assert alone.move_text(move) == "pass"
    root = parse(alone.svg(300, move))
    assert not tagged(root, "last-move")
    assert "Last move: pass" in [e.text for e in root.iter(SVG + "text")]
    # At the start Blue, like Red, has moves: no pass can have led there.
    with pytest.raises(IllegalMoveError):
        make_rules("zola").start().parse_last_move("pass")


def zola_fen(grid: list[list[str]], side: str) -> str:
    ranks = ("".join(row) for row in reversed(grid))
    board = "/".join(re.sub(r"\.+", lambda run: str(len(run[0])), rank) for rank in ranks)
    return f"{board} {side}"


def test_zola_last_move_agrees_with_the_naive_oracle() -> None:
    """Every square pair, written as a step, a capture or bare, against the naive move
    generator run on the position before it (rebuilt by hand: the checker back on the square
    it left and, for a capture, an enemy checker where it arrived)."""
    for variant in ("zola", "zola-8"):
        n = int(make_rules(variant).options["size"])
        sample = list(positions(variant, seed=5, games=1, every=9))
        assert sample[-1].is_over()
        for state in [*sample[1:3], sample[-1]]:
            grid, side = naive_zola.parse(state.position_text())
            mover = "b" if side == "r" else "r"
            squares = [(f, r) for r in range(n) for f in range(n)]
            for f0, r0 in squares:
                for f1, r1 in squares:
                    fr, to = naive_zola.name(f0, r0), naive_zola.name(f1, r1)
                    legal = []
                    if grid[r1][f1] == mover and grid[r0][f0] == ".":
                        for sep, victim in (("-", "."), ("x", side)):
                            before = [row[:] for row in grid]
                            before[r0][f0], before[r1][f1] = mover, victim
                            if f"{fr}{sep}{to}" in naive_zola.legal_moves(zola_fen(before, mover)):
                                legal.append(f"{fr}{sep}{to}")
                    assert len(legal) <= 1
                    for sep in ("-", "x", ""):
                        if legal:
                            move = state.parse_last_move(f"{fr}{sep}{to}")
                            assert state.move_text(move) == legal[0]
                        else:
                            with pytest.raises(IllegalMoveError):
                                state.parse_last_move(f"{fr}{sep}{to}")


# --- Zhadu ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["zhadu", "zhadu-star"])
def test_zhadu_board_has_its_points_steps_and_zones(variant: str) -> None:
    links = make_rules(variant).options["links"]
    root = parse(make_rules(variant).start().svg())
    points = {e.get("data-point"): centre(e) for e in tagged(root, "point")}
    names = {f"{t}{d}" for t in "abcdefgh" for d in "0123"}
    assert set(points) == names
    steps = tagged(root, "step")
    drawn = Counter(frozenset((e.get("data-from"), e.get("data-to"))) for e in steps)
    adjacency = naive_zhadu.adjacency_for(links)
    expected = {frozenset((a, b)) for a, near in adjacency.items() for b in near}
    assert len(steps) == (64 if links == "full" else 40) == len(expected)
    assert set(drawn) == expected and max(drawn.values()) == 1
    for line in steps:
        a, b = line.get("data-from"), line.get("data-to")
        assert (float(line.get("x1", "nan")), float(line.get("y1", "nan"))) == pytest.approx(
            points[a]
        )
        assert (float(line.get("x2", "nan")), float(line.get("y2", "nan"))) == pytest.approx(
            points[b]
        )
        assert ("link" in classes(line)) == (a is not None and b is not None and a[0] != b[0])
    # The steps between triangles are exactly the spec's 16 cross links.
    assert len(tagged(root, "link")) == 16
    # Every point inside its own triangle, White's end at the bottom.
    triangles = {e.get("data-triangle"): e for e in tagged(root, "triangle")}
    assert set(triangles) == set("abcdefgh")
    for name, (x, y) in points.items():
        assert name is not None
        corners = [
            tuple(map(float, pair.split(",")))
            for pair in triangles[name[0]].get("points", "").split()
        ]
        assert _inside((x, y), corners), name
    assert points["a1"][1] > points["h1"][1]
    # Points are spread out: no two circles overlap.
    radius = float(tagged(root, "point")[0].get("r", "nan"))
    spots = list(points.values())
    for i, (x0, y0) in enumerate(spots):
        for x1, y1 in spots[i + 1 :]:
            assert (x1 - x0) ** 2 + (y1 - y0) ** 2 > (2 * radius) ** 2
    # Zones: the points of a zone triangle plus the lone zone points.
    for side, code in (("white", "w"), ("black", "b")):
        zone = {place(e) for e in tagged(root, "zone") if side in classes(e) and place(e)}
        for triangle in tagged(root, "triangle"):
            if "zone" in classes(triangle) and side in classes(triangle):
                zone |= {f"{triangle.get('data-triangle')}{d}" for d in "0123"}
        assert zone == set(naive_zhadu.ZONE[code])


def _inside(point: tuple[float, float], corners: list[tuple[float, ...]]) -> bool:
    (px, py), ((ax, ay), (bx, by), (cx, cy)) = point, corners
    signs = [
        (bx - ax) * (py - ay) - (by - ay) * (px - ax),
        (cx - bx) * (py - by) - (cy - by) * (px - bx),
        (ax - cx) * (py - cy) - (ay - cy) * (px - cx),
    ]
    return all(s > 0 for s in signs) or all(s < 0 for s in signs)


@pytest.mark.parametrize("variant", ["zhadu", "zhadu-star"])
def test_zhadu_stones_hands_and_first_captures(variant: str) -> None:
    seen_setup = seen_first = False
    for state in positions(variant, seed=6, games=4, every=2):
        fen = state.position_text()
        _, _, firsts, _, ply_text = fen.split()
        root = parse(state.svg())
        points = {e.get("data-point"): centre(e) for e in tagged(root, "point")}
        for stone in tagged(root, "stone"):
            assert centre(stone) == pytest.approx(points[stone.get("data-point")])
        hands = Counter((colour(e), e.get("data-stone")) for e in tagged(root, "hand-stone"))
        captures = {
            (e.get("data-side"), colour(e), e.get("data-stone"))
            for e in tagged(root, "first-capture")
        }
        if int(ply_text) < 10:
            seen_setup = True
            on_board = zhadu_pieces(fen)
            expected = Counter(
                (side, value)
                for side in ("white", "black")
                for value in ("1", "2", "3", "4", "123")
                if not any(p[1:] == (side, value) for p in on_board)
            )
            assert hands == expected, fen
            assert not captures
        else:
            assert not hands, fen
            expected_captures = set()
            for side, enemy, first in zip(
                ("white", "black"), ("black", "white"), firsts.split("/")
            ):
                if first != "-":
                    expected_captures.add((side, enemy, first))
                    seen_first = True
            assert captures == expected_captures, fen
    assert seen_setup and seen_first


def test_zhadu_last_move_agrees_with_the_naive_walks() -> None:
    """Every point pair as the last move, against the naive walker on the position before it
    (the stone walked back; for a capture, an enemy stone on the point it ended on)."""
    for variant in ("zhadu", "zhadu-star"):
        links = make_rules(variant).options["links"]
        for state in list(positions(variant, seed=7, games=2, every=11))[2:]:
            fen = state.position_text()
            _, side, _, quiet, ply = fen.split()
            if int(ply) <= 10:
                continue
            mover = "b" if side == "w" else "w"
            naive = naive_zhadu.NaiveGame(fen, links)
            names = [f"{t}{d}" for t in "abcdefgh" for d in "0123"]
            for start in names:
                for end in names:
                    text = f"{start}-{end}"
                    expected = False
                    held = naive.stones.get(end)
                    captured = quiet == "0"
                    if held and held[0] == mover and (start == end or start not in naive.stones):
                        if not (captured and start == end):
                            walk = naive_zhadu.NaiveGame(fen, links)
                            del walk.stones[end]
                            walk.stones[start] = held
                            if captured:
                                walk.stones[end] = (side, "1")
                            stone = held[1]
                            lengths = [1, 2, 3] if stone == "123" else [int(stone)]
                            expected = any(end in walk.ends(start, n) for n in lengths)
                    if expected:
                        move = state.parse_last_move(text)
                        assert state.move_text(move) == f"{start}{'x' if captured else '-'}{end}"
                    else:
                        with pytest.raises(IllegalMoveError):
                            state.parse_last_move(text)


def test_zhadu_last_move_placements_and_passes() -> None:
    rules = make_rules("zhadu")
    setup = rules.parse_position("4a1/- b -/- 0 1")
    assert setup.move_text(setup.parse_last_move("4@a1")) == "4@a1"
    for text in ("4@a0", "1@a1", "a1-a1", "pass"):
        with pytest.raises(IllegalMoveError):
            setup.parse_last_move(text)
    with pytest.raises(InvalidMoveError):
        setup.parse_last_move("5@a1")
    with pytest.raises(IllegalMoveError):
        rules.start().parse_last_move("4@a1")
    after = rules.parse_position("1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10")
    assert after.move_text(after.parse_last_move("123@g0")) == "123@g0"
    with pytest.raises(IllegalMoveError):
        after.parse_last_move("g0-g0")
    # The spec's walled-in White: Black's last move cannot have been a pass (it could move),
    # but White's pass is recognised once Black has moved on.
    walled = rules.parse_position("1a0,2a2,3a3,4b0,123a1/1b1,2b2,3b3,4h3,123g0 w -/- 5 40")
    with pytest.raises(IllegalMoveError):
        walled.parse_last_move("pass")
    assert [walled.move_text(m) for m in walled.legal_moves()] == ["pass"]
    walled.play(walled.legal_moves()[0])
    assert walled.move_text(walled.parse_last_move("pass")) == "pass"


# --- the command -------------------------------------------------------------------------------
def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["svg", *args], prog_name="zengine")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def test_command_draws_after_moves_with_the_last_one_highlighted() -> None:
    code, out, err = run("--variant", "zola-8", "--moves", "a1xa2 b1xb2", "-m", "a3xa4")
    assert code == 0 and not err
    root = parse(out)
    state = make_rules("zola-8").start()
    for text in ("a1xa2", "b1xb2", "a3xa4"):
        state.play(state.parse_move(text))
    assert set(drawn_pieces(root)) == zola_pieces(state.position_text())
    assert {place(e) for e in tagged(root, "last-move") if place(e)} == {"a3", "a4"}
    assert root.get("width") == "480"


def test_command_last_move_option_and_file_output(tmp_path) -> None:
    fen = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"
    target = tmp_path / "board.svg"
    code, out, err = run(
        "-v",
        "zhadu-star",
        "--fen",
        fen,
        "--last-move",
        "123@g0",
        "--size",
        "300",
        "-o",
        str(target),
    )
    assert code == 0 and not out and not err
    root = parse(target.read_text(encoding="utf-8"))
    assert root.get("width") == "300"
    assert {place(e) for e in tagged(root, "last-move")} == {"g0"}
    code, out, _ = run("-v", "zhadu", "--fen", fen)
    assert code == 0 and not tagged(parse(out), "last-move")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--moves", "a1xa2 zz"], "move 2 of --moves: 'zz' is no zola move"),
        (["--moves", "a1xa2 a1xb1"], "move 2 of --moves: illegal move 'a1xb1'"),
        (["-v", "zhadu", "--moves", "4@a1 4@h1 4@a2"], "move 3 of --moves: illegal move '4@a2'"),
        (["-v", "chess"], "unknown game 'chess'"),
        (["--fen", "rrr/bbb/rrr r"], "unsupported board size 3"),
        (["-v", "zola-8", "--fen", "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"], "6x6"),
        (["--last-move", "q"], "--last-move: 'q' is no zola move"),
        (["--moves", "a1xa2", "--last-move", "a1xb1"], "--last-move: 'a1xb1' cannot be"),
    ],
)
def test_command_errors_are_one_line_and_exit_2(args: list[str], words: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and not out
    assert err.startswith("zengine svg: error: ") and err.count("\n") == 1, err
    assert words in err


def test_command_bad_options_and_unwritable_file(tmp_path) -> None:
    code, out, err = run("--size", "0")
    assert code == 2 and not out and "--size" in err and "Traceback" not in err
    code, out, err = run("-o", str(tmp_path / "missing" / "x.svg"))
    assert code == 2 and not out  # as zengine report's (it was 1)
    assert err.startswith("zengine svg: error: cannot write ") and err.count("\n") == 1
