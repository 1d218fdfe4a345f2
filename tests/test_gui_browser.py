"""``zengine gui`` in headless Chromium: games played by clicking, watched, analysed, faults."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gui_pages import click, fake, gui, make_browser, moves, text, wait

from zengine.engine.variants import make_rules, variant_names

pytest.importorskip("aiohttp")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = make_browser()
    try:
        yield driver
    finally:
        driver.quit()


def open_page(browser: Any, address: str, ready: str = "position") -> None:
    browser.get(address)
    wait(browser, lambda d: text(d, ready).strip() not in ("", "connecting…"), "the first state")


def click_move(browser: Any, state: Any, move: int) -> None:
    """Make ``move`` by clicking what it is made of, as the rules say."""
    stone = state.move_stone(move)
    if stone is not None:
        click(browser, f'#board .hand-stone[data-stone="{stone}"]')
    squares = state.move_squares(move)
    for square in squares:
        click(browser, f'#board [data-square="{square}"]')
    if stone is None and not squares:
        click(browser, "#pass")


def play_to_the_end(browser: Any, variant: str, seed: int) -> None:
    """The person plays p1 at random, by clicking; the built-in engine (depth 1) answers."""
    rules = make_rules(variant)
    chooser = random.Random(seed)
    played = 0
    while True:
        # The page is ready for a click when it shows a position where p1 is to move.
        wait(
            browser,
            lambda d: "to move" not in text(d, "status") or "(human) to move" in text(d, "status"),
            "p1's turn or the end",
        )
        status = text(browser, "status")
        if "to move" not in status:
            break
        state = rules.parse_position(text(browser, "position"))
        before = len(moves(browser))
        assert state.side_to_move == 0 and not state.is_over()
        move = chooser.choice(sorted(state.legal_moves()))
        expected = state.move_text(move)
        click_move(browser, state, move)
        wait(browser, lambda d, n=before: len(moves(d)) > n, f"the move {expected} in the list")
        assert moves(browser)[before] == expected
        played += 1
    final = rules.parse_position(text(browser, "position"))
    assert final.is_over(), status
    assert status.startswith(final.outcome().result.pgn)  # type: ignore[union-attr]
    assert played > 0


#: The bigger Zola boards make longer games (20 to 40 s each here): they run with the slow tests.
LONG = ("zola-8", "zola-10")


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, marks=pytest.mark.slow) if v in LONG else v for v in variant_names()],
)
def test_a_whole_game_by_clicking(browser, variant):
    with gui("--engine", "depth=1", "--variant", variant) as address:
        open_page(browser, address)
        play_to_the_end(browser, variant, seed=7)


def final_result(browser: Any, variant: str) -> str:
    """Wait for the end of the game; the result the page states."""
    wait(browser, lambda d: "to move" not in text(d, "status"), "the end of the game")
    return text(browser, "status").split(":")[0]


def test_two_engines_play_a_game_to_its_end_and_a_reload_shows_it(browser):
    with gui("--human", "none", "--engine", "depth=1") as address:
        open_page(browser, address)
        result = final_result(browser, "zola")
        rules = make_rules("zola")
        state = rules.start()
        for move in moves(browser):
            state.play(state.parse_move(move))
        assert state.is_over() and result == state.outcome().result.pgn
        assert text(browser, "position") == state.position_text()
        played = moves(browser)
        browser.refresh()
        wait(browser, lambda d: moves(d) == played, "the same game after a reload")
        assert text(browser, "status").startswith(result)


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("crash", ["disconnect", "fake: crashing as asked"]),
        ("hang", ["gave no 'bestmove' within 3 s"]),
        ("illegal", ["played an illegal move"]),
    ],
)
def test_a_faulty_engine_is_named_and_the_game_stops(browser, mode, words):
    engine = ["--engine", "name=faulty", fake(mode), "timeout.move=3", "depth=1"]
    with gui(*engine, "--human", "p2") as address:
        open_page(browser, address)
        wait(browser, lambda d: text(d, "fault") != "", "the fault")
        fault = text(browser, "fault")
        assert fault.startswith("faulty ") and "\n" not in fault
        for word in words:
            assert word in fault, fault
        assert text(browser, "status").startswith("0-1: faulty ")
        assert (
            browser.execute_script("return document.querySelector('#moves').children.length") == 0
        )


def test_following_a_match_in_progress(browser, tmp_path):
    from fake_match import fake as fake_cmd
    from fake_match import pair, start_match

    hold = tmp_path / "hold"
    hold.write_text("")
    out = tmp_path / "m"
    engines = pair(
        fake_cmd("--hold", str(hold), "--score", "33"),
        fake_cmd("--hold", str(hold), "--score", "-5"),
        names=("A", "B"),
    )
    with gui("--watch", str(out)) as address:
        open_page(browser, address, ready="status")
        # The page is the match's: the game's board and controls are not shown.
        assert browser.find_element("id", "watch").is_displayed()
        assert not browser.find_element("id", "game").is_displayed()
        match = start_match(
            *engines,
            *("--each", "tc=60+1", "--games", "2", "--concurrency", "2", "--openings", "none"),
            *("--out", str(out), "--seed", "5", "--maxplies", "12"),
        )
        try:
            count = "return document.querySelectorAll('#live-games .live-game').length"
            wait(browser, lambda d: d.execute_script(count) == 2, "two games in progress")
            info = text(browser, "live-games")
            assert "game 1: " in info and "game 2: " in info and "1:00" in info
            hold.unlink()
            finished = "return document.querySelectorAll('#finished > li').length"
            wait(browser, lambda d: d.execute_script(finished) == 2, "two finished games")
            assert match.wait(120) == 0
        finally:
            if match.poll() is None:
                match.kill()
                match.wait()
        wait(browser, lambda d: d.execute_script(count) == 0, "no game in progress")
        rows = browser.execute_script(
            "return Array.from(document.querySelectorAll('#standings tr'))"
            ".map(r => Array.from(r.cells).map(c => c.textContent))"
        )
        # Twelve plies and a draw by the ply limit, twice: one point each.
        assert rows[1:] == [["A", "2", "1", "50.0%"], ["B", "2", "1", "50.0%"]]
        assert text(browser, "status") == "2 games finished, 0 in progress"


def analysed_lines(browser: Any) -> list[str]:
    return list(
        browser.execute_script(
            "return Array.from(document.querySelectorAll('#lines > li')).map(e => e.textContent)"
        )
    )


def test_analysis_shows_the_engines_lines_live_and_follows_the_position_shown(browser):
    with gui("--human", "both") as address:
        open_page(browser, address)
        for move in ("a1xa2", "b1xa2"):  # two people: the moves by clicking
            rules_state = make_rules("zola").parse_position(text(browser, "position"))
            click_move(browser, rules_state, rules_state.parse_move(move))
            wait(browser, lambda d, m=move: moves(d)[-1:] == [m], f"the move {move}")
        browser.find_element("id", "analysis-on").click()
        # Deep enough to be the engine's own line, not a first guess: depth 4 at least.
        deep = r"^[+-]\d+\.\d\d d([4-9]|\d\d) "
        wait(
            browser,
            lambda d: any(re.match(deep, line) for line in analysed_lines(d)),
            "a line of depth 4",
        )
        lines = analysed_lines(browser)
        state = make_rules("zola").parse_position(text(browser, "position"))
        first = lines[0].split()[2]
        assert first in {state.move_text(m) for m in state.legal_moves()}
        # The evaluation graph has its line.
        assert browser.execute_script("return document.querySelector('#graph polyline') !== null")
        # Back to the start position: the analysis follows it.
        click(browser, '#moves > li[data-ply="1"]')
        start = make_rules("zola").start()
        start.play(start.parse_move("a1xa2"))
        wait(browser, lambda d: text(d, "position") == start.position_text(), "ply 1 shown")
        legal = {start.move_text(m) for m in start.legal_moves()}
        wait(
            browser,
            lambda d: any(line.split()[2] in legal for line in analysed_lines(d)[:1]),
            "a line of the position shown",
        )


@pytest.mark.slow
def test_screenshots_for_the_documentation(browser, tmp_path):
    """The pictures of docs/gui.md, taken in this browser. They go to the folder that
    ZENGINE_GUI_SCREENSHOTS names (docs/img to refresh them), else to a temporary one."""
    folder = Path(os.environ.get("ZENGINE_GUI_SCREENSHOTS") or tmp_path)
    browser.set_window_size(1100, 820)
    try:
        with gui("--engine", "depth=3", "--variant", "zhadu") as address:
            open_page(browser, address)
            state = make_rules("zhadu").parse_position(text(browser, "position"))
            click_move(browser, state, state.parse_move("123@b0"))
            wait(browser, lambda d: len(moves(d)) >= 2, "the engine's reply")
            click(browser, '#board .hand-stone[data-stone="4"]')
            browser.save_screenshot(str(folder / "gui-zhadu.png"))
        with gui("--human", "both") as address:
            open_page(browser, address)
            for move in ("a1xa2", "b1xa2", "c1xd1", "c6xd6"):
                state = make_rules("zola").parse_position(text(browser, "position"))
                click_move(browser, state, state.parse_move(move))
                wait(browser, lambda d, m=move: moves(d)[-1:] == [m], f"the move {move}")
            browser.find_element("id", "analysis-on").click()
            deep = r"^[+-]\d+\.\d\d d([5-9]|\d\d) "
            wait(
                browser,
                lambda d: re.match(deep, analysed_lines(d)[0] if analysed_lines(d) else ""),
                "depth 5",
            )
            browser.save_screenshot(str(folder / "gui-analysis.png"))
    finally:
        browser.set_window_size(1200, 1000)
    for name in ("gui-zhadu.png", "gui-analysis.png"):
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_analysis_with_three_lines_shows_three(browser):
    """An engine offering MultiPV (the fake engine's 'lines') is asked for three lines."""
    with gui("--engine", "name=lines", fake("lines"), "depth=1", "--human", "both") as address:
        open_page(browser, address)
        ask_for_lines(browser, 3)
        wait(browser, lambda d: len(analysed_lines(d)) == 3 and " d3 " in analysed_lines(d)[2], "3")
        assert analysed_lines(browser) == [
            "+0.53 d3  a1xa2",
            "+0.43 d3  a1xb1",
            "+0.33 d3  a3xa4",
        ]
        assert text(browser, "note") == ""


def ask_for_lines(browser: Any, count: int) -> None:
    """Set the number of lines on the page and start the analysis."""
    field = browser.find_element("id", "analysis-lines")
    field.clear()
    field.send_keys(str(count))
    browser.find_element("id", "analysis-on").click()


def test_the_built_in_engine_analyses_with_three_lines(browser):
    """zengine itself (its option MultiPV): three lines of one depth, each with another legal
    first move, the best first."""
    deep = re.compile(r"^([+-]?\d+\.\d\d) d(\d+)  (\S+)")

    def three_deep_lines(d: Any) -> list[re.Match[str]] | None:
        found = [deep.match(line) for line in analysed_lines(d)]
        if len(found) != 3 or not all(found):
            return None
        matches = [m for m in found if m is not None]
        depths = {int(m.group(2)) for m in matches}
        return matches if len(depths) == 1 and min(depths) >= 4 else None

    with gui("--human", "both") as address:
        open_page(browser, address)
        ask_for_lines(browser, 3)
        matches = wait(browser, three_deep_lines, "three lines of one depth, 4 or more")
        state = make_rules("zola").parse_position(text(browser, "position"))
        legal = {state.move_text(m) for m in state.legal_moves()}
        firsts = [m.group(3) for m in matches]
        assert len(set(firsts)) == 3 and set(firsts) <= legal, firsts
        scores = [float(m.group(1)) for m in matches]
        assert scores == sorted(scores, reverse=True)
        assert text(browser, "note") == ""


def test_an_engine_without_multipv_shows_one_line_and_says_so(browser):
    """An engine that refuses the option (the fake engine's 'lines' without it) is asked for
    three lines: the page says so and shows its one line."""
    plain = fake("lines", "--refuse-option", "multipv")
    with gui("--engine", "name=plain", plain, "--human", "both") as address:
        open_page(browser, address)
        ask_for_lines(browser, 3)
        wait(browser, lambda d: "MultiPV" in text(d, "note"), "the note")
        assert text(browser, "note") == "plain shows one line only (it refused the option MultiPV)"
        wait(browser, lambda d: analysed_lines(d) == ["+0.53 d3  a1xa2"], "one line, of depth 3")


#: The rotation of each of the board's texts as drawn: the board's turn and its own, composed.
TEXT_TURNS = """
const board = new DOMMatrix(getComputedStyle(document.querySelector('#board svg')).transform);
return [...document.querySelectorAll('#board svg text')].map(t => {
  const own = getComputedStyle(t).transform;
  const m = own === 'none' ? board : board.multiply(new DOMMatrix(own));
  const r = t.getBoundingClientRect();
  return [t.textContent, Math.round(m.a), Math.round(m.d), r.x + r.width / 2, r.y + r.height / 2];
});
"""


def test_a_flipped_board_reads_upright_and_takes_clicks(browser):
    """Flip turns the board half a turn: the points and stones go to the other side, but the
    letters and numbers on it still read upright, and a move is still made by clicking."""
    with gui("--human", "both") as address:
        open_page(browser, address)
        assert not browser.find_element("id", "watch").is_displayed()
        before = browser.execute_script(TEXT_TURNS)
        assert before and all(a == 1 and d == 1 for _, a, d, _, _ in before)
        click(browser, "#flip")
        wait(
            browser, lambda d: "flipped" in d.find_element("id", "board").get_attribute("class"), ""
        )
        after = browser.execute_script(TEXT_TURNS)
        assert [t[0] for t in after] == [t[0] for t in before]
        assert all(a == 1 and d == 1 for _, a, d, _, _ in after), after
        # Each text is now on the other side of the board's centre.
        box = browser.execute_script(
            "const r = document.querySelector('#board svg').getBoundingClientRect();"
            "return [r.x + r.width / 2, r.y + r.height / 2];"
        )
        for (_, _, _, x0, y0), (_, _, _, x1, y1) in zip(before, after):
            assert abs((x0 + x1) / 2 - box[0]) < 3 and abs((y0 + y1) / 2 - box[1]) < 3
        state = make_rules("zola").parse_position(text(browser, "position"))
        click_move(browser, state, state.parse_move("a1xa2"))
        wait(
            browser,
            lambda d: moves(d)[-1:] == ["a1xa2"],
            "the move a1xa2, clicked on a flipped board",
        )


def test_clocks_read_as_a_chess_clock(browser):
    """The page's clock text (gui.js formatMs): whole seconds rounded down, tenths under ten."""
    with gui("--human", "both") as address:
        open_page(browser, address)
        shown = browser.execute_async_script(
            "const done = arguments[0];"
            "import(document.querySelector('script[type=module]').src)"
            ".then(m => done([9700, 9999, 10000, 59999, 60000, 65400, 600000, -1500, 0]"
            ".map(m.formatMs)));"
        )
        assert shown == [
            "0:09.7",
            "0:09.9",
            "0:10",
            "0:59",
            "1:00",
            "1:05",
            "10:00",
            "-0:01.5",
            "0:00.0",
        ]
