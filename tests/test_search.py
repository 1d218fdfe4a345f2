"""The search: wins found, limits honoured, legal moves always, determinism, mate scores.

Oracles: a brute-force minimax (:func:`brute_force.wins_within`) decides the prepared wins
independently of the search; legality is checked against ``legal_moves``.
"""

from __future__ import annotations

import dataclasses
import gc
import random
import threading
import time
from collections import Counter, defaultdict

import pytest
from brute_force import wins_within

from zengine.engine import search as search_module
from zengine.engine.game import State
from zengine.engine.movepick import staged_moves
from zengine.engine.search import MATE, MAX_DEPTH, Searcher, SearchInfo, SearchResult, score_of
from zengine.engine.tt import DEPTH, EXACT, LOWER, MIN_ENTRIES, MOVE, UPPER, Table
from zengine.engine.values import GoLimits, Score
from zengine.engine.variants import make_rules, variant_names


def search(
    state: State,
    limits: GoLimits,
    searcher: Searcher | None = None,
    **options,
) -> SearchResult:
    """``state`` searched with its game's evaluation (by a fresh searcher unless given)."""
    searcher = searcher or Searcher()
    return searcher.search(state, limits, state.rules.evaluation(), **options)


def position(variant: str, text: str) -> State:
    return make_rules(variant).parse_position(text)


WIN_IN_ONE = [
    ("zola", "6/6/6/6/b5/r5 r"),
    ("zola-8", "8/8/8/8/8/8/b7/r7 r"),
    ("zhadu", "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4b1,123g0 w -/- 0 12"),  # first capture: the 4
    ("zhadu", "1a0,2a1,3a2,4a3,123b0/2h1,3b1,4h3,123g0 w 1/- 0 20"),  # sharing: 1 then 3
    ("zhadu-star", "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4b1,123g0 w -/- 0 12"),
]

WIN_IN_TWO = [
    ("zola", "4r1/r5/6/3b2/b5/6 r"),
    ("zola", "b5/6/1rb1r1/6/6/6 r"),
    ("zola", "1b3r/6/5r/5b/6/6 r"),
    ("zhadu", "1a1,2a2,3a0,4b0,123d1/1g0,2h2,3h1,4g3,123h0 w -/- 2 12"),
    ("zhadu", "1b0,2a3,3c0,4e2,123a0/1h2,2h0,3c3,4h1,123f3 w -/- 6 16"),
    ("zhadu-star", "1a2,2a0,3a1,4f0,123a3/1h0,2h2,3h1,4h3,123c3 b -/- 3 13"),
    ("zhadu-star", "1d1,2a0,3b0,4a1,123c1/1h2,2h1,3h0,4f3,123c3 b -/- 9 19"),
]


@pytest.mark.parametrize("variant,text", WIN_IN_ONE)
def test_finds_win_in_one(variant: str, text: str) -> None:
    state = position(variant, text)
    side = state.side_to_move
    result = search(state, GoLimits(depth=3))
    assert result.score == Score(mate=1)
    state.play(result.best)
    assert state.outcome() is not None and state.outcome().winner == side


@pytest.mark.parametrize("variant,text", WIN_IN_TWO)
def test_finds_win_in_two_and_the_loser_sees_it(variant: str, text: str) -> None:
    state = position(variant, text)
    side = state.side_to_move
    assert wins_within(state, 3, side) and not wins_within(state, 1, side)
    result = search(state, GoLimits(depth=4))
    assert result.score == Score(mate=2)
    state.play(result.best)
    assert wins_within(state, 2, side)  # the move keeps the forced win
    reply = search(state, GoLimits(depth=3))
    assert reply.score == Score(mate=-1)


def test_loser_with_only_a_pass_sees_mate_minus_one() -> None:
    state = position("zola", "6/6/6/6/b5/r5 b")  # Blue a2 cannot move: pass, then a1xa2
    result = search(state, GoLimits(depth=3))
    assert state.move_text(result.best) == "pass"
    assert result.score == Score(mate=-1)


def test_score_of_mate_distances() -> None:
    assert score_of(MATE - 1) == Score(mate=1)
    assert score_of(MATE - 3) == Score(mate=2)
    assert score_of(-(MATE - 2)) == Score(mate=-1)
    assert score_of(-(MATE - 4)) == Score(mate=-2)
    assert score_of(37) == Score(cp=37)


def random_positions(
    variant: str, count: int, seed: int, *, after_setup: bool = False
) -> list[State]:
    """Positions (games not over, past the setup if asked) from seeded random playouts."""
    rules = make_rules(variant)
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = rules.start()
        for _ in range(rng.randrange(0, 60)):
            moves = state.legal_moves()
            if not moves:
                break
            state.play(rng.choice(sorted(moves)))
        if state.outcome() is None and (
            not after_setup or state.history_length > rules.setup_plies
        ):
            found.append(state)
    return found


@pytest.mark.parametrize("variant", variant_names())
def test_equal_captures_is_true_to_the_rules(variant: str) -> None:
    # A game declaring every capture worth the same is ordered by history alone in
    # quiescence: its capture_value must then be one number over all captures.
    rules = make_rules(variant)
    values = {
        state.capture_value(move)
        for state in random_positions(variant, 30, seed=5)
        for move in state.captures()
    }
    assert values, "the random positions have captures"
    if rules.search_parameters().equal_captures:
        assert len(values) == 1
    else:
        assert len(values) > 1  # not declared where it would hold (it would be free speed)


@pytest.mark.parametrize("variant", variant_names())
def test_null_moves_only_where_the_game_allows_them(variant: str, monkeypatch) -> None:
    """The search tries null moves exactly where ``null_move_allowed`` says so (Zhadu after the
    setup: the depth-5 searches below try some; Zola never), and leaves the state as it was."""
    allowed: list[bool] = []
    cls = type(make_rules(variant).start())
    original = cls.play_null

    def counted(state: State) -> None:
        allowed.append(state.null_move_allowed())
        original(state)

    monkeypatch.setattr(cls, "play_null", counted)
    for state in random_positions(variant, 3, seed=7):
        before = (state.position_text(), state.key, state.history_length)
        search(state, GoLimits(depth=5 if "zhadu" in variant else 3))
        assert (state.position_text(), state.key, state.history_length) == before
    assert all(allowed)
    assert bool(allowed) == variant.startswith("zhadu")


@pytest.mark.parametrize(
    ("text", "score"),
    [
        # White is threatened (Black's 123 on e3 reaches the 4 on c2) and parries by taking it.
        ("1a0,2a1,3a2,4c2,123b0/1h0,2h1,3h2,4h3,123e3 w -/- 2 12", "mate 3"),
        # Black's every parry loses: seen at depth 2 only a ply past each parry.
        ("1a0,2b3,3a2,4c2,123e3/1h0,2h1,3h2,4f0 b 123/- 10 23", "mate -2"),
    ],
)
def test_threat_extension_sees_past_the_parry(text: str, score: str, monkeypatch) -> None:
    """Zhadu extends threatened nodes (``threat_extension``): a depth-2 search proves results
    that the same search without the extension leaves to depth 5 (checked by brute force)."""
    rules = make_rules("zhadu")
    assert rules.search_parameters().threat_extension
    state = rules.parse_position(text)
    assert search(state, GoLimits(depth=2)).score == Score.parse(score)
    plain = dataclasses.replace(rules.search_parameters(), threat_extension=False)
    monkeypatch.setattr(type(rules), "search_parameters", lambda self: plain)
    assert search(state, GoLimits(depth=2)).score.mate is None
    winner = state.side_to_move if score == "mate 3" else 1 - state.side_to_move
    assert wins_within(state, 5 if score == "mate 3" else 4, winner)


@pytest.mark.parametrize(
    "text",
    [
        "1a0,2a1,3a2,4c2,123b0/1h0,2h1,3h2,4h3,123e3 w -/- 2 12",
        "1a0,2b3,3a2,4c2,123e3/1h0,2h1,3h2,4f0 b 123/- 10 23",
    ],
)
def test_win_detection_scores_won_nodes_unsearched(text: str, monkeypatch) -> None:
    """Zhadu's search scores a node whose side to move can win at once as won next move
    without searching it (``win_detection``): the same proven results at depths 2-5, from
    fewer nodes (at a threatened node every move but a parry leaves such a node)."""
    rules = make_rules("zhadu")
    assert rules.search_parameters().win_detection
    states = [rules.parse_position(text) for _ in range(4)]
    detected = [search(state, GoLimits(depth=depth)) for depth, state in enumerate(states, 2)]
    plain = dataclasses.replace(rules.search_parameters(), win_detection=False)
    monkeypatch.setattr(type(rules), "search_parameters", lambda self: plain)
    for depth, (state, found) in enumerate(zip(states, detected, strict=True), 2):
        again = search(state, GoLimits(depth=depth))
        assert found.score == again.score and found.score.mate is not None
        assert found.nodes < again.nodes


@pytest.mark.parametrize("variant", variant_names())
def test_captures_first_keeps_the_order(variant: str, monkeypatch) -> None:
    """Trying the captures before generating the quiet moves (``captures_first``, both games)
    searches the moves in the order of all at once: at depth 3 (where the history a node
    sorts by cannot change while its captures are searched) the same tree, node for node."""
    rules = make_rules(variant)
    assert rules.search_parameters().captures_first
    states = random_positions(variant, 12, seed=11)
    staged = [search(s, GoLimits(depth=3)) for s in states]
    plain = dataclasses.replace(rules.search_parameters(), captures_first=False)
    monkeypatch.setattr(type(rules), "search_parameters", lambda self: plain)
    for state, result in zip(states, staged, strict=True):
        again = search(state, GoLimits(depth=3))
        assert (again.best, again.score, again.nodes) == (result.best, result.score, result.nodes)


def variants_asking(parameter: str) -> list[str]:
    """The variants whose game asks the search for ``parameter`` (a SearchParameters flag)."""
    return [v for v in variant_names() if getattr(make_rules(v).search_parameters(), parameter)]


@pytest.mark.parametrize("variant", variants_asking("counter_moves"))
def test_counter_move_is_the_first_quiet_move_after_the_killers(variant: str, monkeypatch) -> None:
    """The counter move of the opponent's last move (``counter_moves``, Zhadu) is the first
    quiet move searched when no killer is known, ahead of the history order (all zero here:
    then the generation order, whose last move is made the counter)."""
    state = random_positions(variant, 1, seed=5, after_setup=True)[0]
    reply = next(m for m in state.legal_moves() if not state.is_capture(m))
    state.play(reply)
    quiet = state.quiet_moves()
    assert len(quiet) > 1
    counter = quiet[-1]
    state.undo()
    plies = state.history_length + 1
    cls = type(state)
    original = cls.play
    played: list[int] = []

    def logged(self: State, move: int) -> None:
        if self.history_length == plies and not self.is_capture(move):
            played.append(move)
        original(self, move)

    monkeypatch.setattr(cls, "play", logged)
    searcher = Searcher()
    searcher._counters[1 - state.side_to_move][reply] = counter
    search(state, GoLimits(depth=2), searcher, moves=[reply])
    assert played[0] == counter
    played.clear()
    search(state, GoLimits(depth=2), Searcher(), moves=[reply])
    assert played[0] == quiet[0]


@pytest.mark.parametrize("variant", variants_asking("counter_moves"))
def test_a_counter_move_is_never_played_where_illegal(variant: str, only_legal_plays) -> None:
    """Counter moves come from other positions: one is tried only where it is generated."""

    class Foreign(dict):
        def get(self, key, default=None):
            return foreign  # a placement: never legal after the setup

    foreign = make_rules(variant).start().legal_moves()[0]
    searcher = Searcher()
    searcher._counters = [Foreign(), Foreign()]
    for state in random_positions(variant, 3, seed=13, after_setup=True):
        result = search(state, GoLimits(depth=4), searcher)
        assert result.best in state.legal_moves()


#: Whether the search runs compiled: its negamax then calls itself natively, past any recorder
#: a test puts on the class (the test below needs the interpreted build).
SEARCH_COMPILED = not search_module.__file__.endswith(".py")


@pytest.mark.parametrize("variant", variants_asking("history_lmr"))
def test_the_reduction_of_a_late_move(variant: str) -> None:
    """``reduction``: a capture loses a ply from ``LMR_CAPTURE_FROM`` on, a quiet move one,
    two when deep and late, one less when its history beats ``HISTORY_LMR`` depth squared."""
    states = random_positions(variant, 30, seed=3, after_setup=True)
    state = next(s for s in states if s.captures() and s.quiet_moves())
    capture, quiet = state.captures()[0], state.quiet_moves()[0]
    late, deep = search_module.LMR_DEEP_FROM, search_module.LMR_DEEP_DEPTH
    assert search_module.reduction(6, search_module.LMR_CAPTURE_FROM - 1, capture, state, None) == 0
    assert search_module.reduction(6, search_module.LMR_CAPTURE_FROM, capture, state, None) == 1
    assert search_module.reduction(deep, late - 1, quiet, state, None) == 1
    assert search_module.reduction(deep, late, quiet, state, None) == 2
    assert search_module.reduction(deep - 1, late, quiet, state, None) == 1
    history: defaultdict[int, int] = defaultdict(int)
    history[quiet] = search_module.HISTORY_LMR * deep * deep
    assert search_module.reduction(deep, late, quiet, state, history) == 2
    history[quiet] += 1
    assert search_module.reduction(deep, late, quiet, state, history) == 1


@pytest.mark.skipif(SEARCH_COMPILED, reason="the compiled negamax calls itself natively")
@pytest.mark.parametrize("variant", variants_asking("history_lmr"))
@pytest.mark.parametrize("history_lmr", [False, True])
def test_a_quiet_move_with_a_high_history_is_reduced_a_ply_less(
    variant: str, history_lmr: bool, monkeypatch
) -> None:
    """``history_lmr`` (Zhadu): a late quiet move whose history exceeds 4 depth squared is
    searched a ply deeper than a late quiet move without history; without the parameter both
    are reduced alike. One node of depth 6 (not won at once: it would not be searched), its
    children not searched but recorded."""
    states = random_positions(variant, 8, seed=7, after_setup=True)
    state = next(s for s in states if not s.wins_at_once())
    rules = state.rules
    parameters = dataclasses.replace(rules.search_parameters(), history_lmr=history_lmr)
    monkeypatch.setattr(type(rules), "search_parameters", lambda self: parameters)

    def child_key(move: int) -> int:
        state.play(move)
        key = state.key
        state.undo()
        return key

    # Moves after which the position is one no other move (nor the null move) leads to.
    keys = Counter(child_key(m) for m in state.legal_moves())
    state.play_null()
    keys[state.key] += 1
    state.undo_null()
    quiet = [m for m in state.quiet_moves() if keys[child_key(m)] == 1]
    # Enough moves ahead of the two compared that both come late enough for the deeper
    # reduction (the captures are searched first).
    ahead = max(3, search_module.LMR_DEEP_FROM - len(state.captures()))
    assert len(quiet) >= ahead + 2
    searcher = Searcher()
    history = searcher._history[state.side_to_move]
    for move in quiet[:ahead]:
        history[move] = 10**7
    favoured, plain = quiet[ahead], quiet[ahead + 1]
    history[favoured] = search_module.HISTORY_LMR * 6 * 6 + 1  # just above, at depth 6
    depths: dict[int, int] = {}
    original = search_module._Search.negamax

    def recorded(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        if ply == 1:
            return original(self, depth, alpha, beta, ply, pv_node)
        depths[self.state.key] = depth
        return 100  # every move fails low: the node searches all of them, none again

    monkeypatch.setattr(search_module._Search, "negamax", recorded)
    # No null move: the node searches its moves.
    monkeypatch.setattr(type(state), "null_move_allowed", lambda self: False)
    node = search_module._Search(
        searcher,
        state,
        GoLimits(depth=6),
        rules.evaluation(),
        state.legal_moves(),
        False,
        None,
        None,
        time.perf_counter(),
    )
    node.negamax(6, 0, 1, 1, False)
    gap = depths[child_key(favoured)] - depths[child_key(plain)]
    assert gap == (1 if history_lmr else 0)


@pytest.mark.parametrize("variant", variant_names())
def test_always_a_legal_move_under_tiny_limits(variant: str) -> None:
    searcher = Searcher(hash_mb=1)
    for index, state in enumerate(random_positions(variant, 12, seed=len(variant))):
        before = (state.position_text(), state.key, state.history_length)
        limits = [GoLimits(nodes=1), GoLimits(depth=1), GoLimits(movetime=0), GoLimits(nodes=50)][
            index % 4
        ]
        infos: list[SearchInfo] = []
        result = search(state, limits, searcher, on_info=infos.append)
        assert result.best in state.legal_moves()
        assert result.depth >= 1 and infos and infos[-1].pv[0] == result.best
        assert (state.position_text(), state.key, state.history_length) == before


def test_game_over_returns_none_without_info() -> None:
    state = position("zola", "6/6/6/6/6/r5 b")
    infos: list[SearchInfo] = []
    result = search(state, GoLimits(depth=3), on_info=infos.append)
    assert result.best is None and infos == []


def test_node_limit_is_exact_after_depth_one() -> None:
    state = make_rules("zola").start()
    first = search(state, GoLimits(depth=1)).nodes
    for limit in (first + 1, first + 333, 5000):
        result = search(state, GoLimits(nodes=limit))
        assert result.nodes == limit


def test_depth_limit_and_info_lines() -> None:
    state = make_rules("zhadu").start()
    infos: list[SearchInfo] = []
    result = search(state, GoLimits(depth=3), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3] and result.depth == 3
    assert infos[-1].nodes == result.nodes and infos[-1].pv[0] == result.best
    assert all(i.seldepth >= i.depth for i in infos)


def test_stop_event_ends_an_infinite_search() -> None:
    state = make_rules("zola-8").start()
    stop = threading.Event()
    infos: list[SearchInfo] = []

    def stop_after_depth_two(info: SearchInfo) -> None:
        infos.append(info)
        if info.depth == 2:
            stop.set()

    result = search(state, GoLimits(infinite=True), stop=stop, on_info=stop_after_depth_two)
    assert stop.is_set() and result.best in state.legal_moves()
    assert result.depth >= 2 and infos[-1].depth <= 3


def test_stop_set_before_still_completes_depth_one() -> None:
    state = make_rules("zhadu").parse_position(
        "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"
    )
    stop = threading.Event()
    stop.set()
    result = search(state, GoLimits(), stop=stop)
    assert result.depth == 1 and result.best in state.legal_moves()


def test_zero_clock_moves_after_depth_one() -> None:
    state = make_rules("zola").start()
    result = search(state, GoLimits(p1time=-5, p2time=1000))
    assert result.depth == 1 and result.best in state.legal_moves()


def test_searchmoves_restricts_the_root() -> None:
    state = make_rules("zola").start()
    only = state.parse_move("f6xe6")
    result = search(state, GoLimits(depth=3), moves=[only])
    assert result.best == only


@pytest.mark.parametrize("variant", variant_names())
def test_fixed_depth_is_deterministic(variant: str) -> None:
    state = random_positions(variant, 1, seed=7)[0]
    first = search(state, GoLimits(depth=3))
    second = search(state, GoLimits(depth=3))
    assert (first.best, first.nodes, first.pv) == (second.best, second.nodes, second.pv)


def test_seed_varies_reproducibly() -> None:
    state = make_rules("zola").start()
    choices = set()
    for seed in range(1, 9):
        a = search(state, GoLimits(depth=2), Searcher(seed=seed))
        b = search(state, GoLimits(depth=2), Searcher(seed=seed))
        assert (a.best, a.nodes) == (b.best, b.nodes)
        choices.add(a.best)
    assert len(choices) > 1  # the start is symmetric: many moves are equal


def test_clear_and_resize_keep_results() -> None:
    state = make_rules("zola").start()
    searcher = Searcher(hash_mb=2)
    first = search(state, GoLimits(depth=3), searcher)
    searcher.set_hash(4)
    again = search(state, GoLimits(depth=3), searcher)
    searcher.clear()
    third = search(state, GoLimits(depth=3), searcher)
    assert first.nodes == again.nodes == third.nodes and first.best == third.best


def test_repetition_on_the_path_is_a_draw_not_a_loop() -> None:
    # Two lone stones each: any quiet shuffle repeats; the search must still end and move.
    state = position("zhadu", "1a0,123a1/1h0,123h1 w 3/3 0 40")
    result = search(state, GoLimits(depth=6))
    assert result.best in state.legal_moves()


@pytest.fixture
def only_legal_plays(monkeypatch):
    """Make every game's ``play`` fail the test when given a move not legal in the position."""
    for cls in {type(make_rules(variant).start()) for variant in variant_names()}:
        original = cls.play

        def checked(self, move: int, original=original) -> None:
            assert move in self.legal_moves(), f"{move} is not legal in {self.position_text()}"
            original(self, move)

        monkeypatch.setattr(cls, "play", checked)


@pytest.mark.parametrize("variant", variant_names())
def test_an_illegal_table_move_is_never_played(variant: str, only_legal_plays) -> None:
    # Poison the table: the root and every position one ply on get an entry with a well-formed
    # move of the game that is not legal there (as a key collision would bring); the search
    # meets them from depth 2 on, and the pv walk at depth 1.
    state = random_positions(variant, 1, seed=11)[0]
    searcher = Searcher()
    table = searcher._table
    foreign = make_rules(variant).start().legal_moves()

    def poison(at: State) -> None:
        illegal = next(m for m in foreign if m not in at.legal_moves())
        table.store(at.key, 0, EXACT, 0, illegal)
        assert table.probe(at.key) is not None

    poison(state)
    for move in state.legal_moves():
        state.play(move)
        if state.outcome() is None:
            poison(state)
        state.undo()
    infos: list[SearchInfo] = []
    result = search(state, GoLimits(depth=3), searcher, on_info=infos.append)
    assert result.best in state.legal_moves()
    for info in infos:  # each pv is a line of legal moves (``play`` checks them)
        for move in info.pv:
            state.play(move)
        for _ in info.pv:
            state.undo()


def test_shared_keys_of_two_variants_never_give_an_illegal_move(only_legal_plays) -> None:
    # One searcher over the same position text in variants with other moves: whatever the
    # table remembers from one variant, the other only ever plays its own legal moves.
    text = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"
    searcher = Searcher()
    for variant in ("zhadu", "zhadu-star", "zhadu", "zhadu-star"):
        state = position(variant, text)
        result = search(state, GoLimits(depth=4), searcher)
        assert result.best in state.legal_moves()


def search_in_thread(state: State, limits: GoLimits, until_depth: int):
    """Start an unbounded search on a thread; wait (generously) for its info of ``until_depth``.

    Returns the thread, the stop event, the infos so far and a list that gets the result.
    """
    stop = threading.Event()
    reached = threading.Event()
    infos: list[SearchInfo] = []
    results: list[SearchResult] = []

    def on_info(info: SearchInfo) -> None:
        infos.append(info)
        if info.depth >= until_depth:
            reached.set()

    def run() -> None:
        results.append(search(state, limits, stop=stop, on_info=on_info))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert reached.wait(120), "the search never got that deep"
    return thread, stop, infos, results


@pytest.mark.parametrize(
    "text,limits",
    [
        ("6/6/6/6/b5/r5 b", GoLimits(p1time=1000)),  # Blue to move: Red's clock bounds nothing
        ("6/6/6/6/b5/r5 r", GoLimits(p2time=100_000)),  # Red to move: Blue's clock
        ("6/6/6/6/b5/r5 r", GoLimits(infinite=True, depth=2)),
    ],
)
def test_unbounded_search_waits_for_stop_even_after_a_proven_mate(
    text: str, limits: GoLimits
) -> None:
    state = position("zola", text)
    assert limits.unbounded(state.side_to_move)
    # The mate (for or against the side to move) is proven by depth 3; a bounded search would
    # have returned then. This one goes on to MAX_DEPTH (or its depth) and waits there.
    deepest = limits.depth or MAX_DEPTH
    thread, stop, infos, results = search_in_thread(state, limits, deepest)
    assert infos[-1].score.mate is not None and infos[-1].depth == deepest
    assert thread.is_alive() and not results  # still waiting for stop
    stop.set()
    thread.join(60)
    assert not thread.is_alive() and results[0].best in state.legal_moves()
    assert results[0].best == infos[-1].pv[0]


def test_bounded_search_ends_after_a_proven_mate() -> None:
    state = position("zola", "6/6/6/6/b5/r5 r")
    infos: list[SearchInfo] = []
    result = search(state, GoLimits(p1time=100_000), on_info=infos.append)
    assert result.score == Score(mate=1) and result.depth == infos[-1].depth < MAX_DEPTH


def test_unbounded_search_needs_a_stop_event() -> None:
    state = make_rules("zola").start()
    with pytest.raises(ValueError):
        search(state, GoLimits(p2time=1000))


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["zola", "zhadu"])
def test_strength_against_random_and_greedy(variant: str) -> None:
    from zengine.tools.dev.strength import Player, run_pairing

    engine = Player("engine-depth", 2)
    for opponent in ("random", "greedy"):
        score, _, _ = run_pairing(
            variant, engine, Player(opponent), games=10, jobs=1, emit=lambda _: None
        )
        assert score >= 0.9


def test_table_keeps_one_entry_per_slot_and_answers_only_its_key() -> None:
    table = Table(1)
    size = len(table.entries)
    assert size == table.mask + 1 and size & (size - 1) == 0 and size >= MIN_ENTRIES
    key, other = 12345, 12345 + size  # the same slot
    table.store(key, 3, LOWER, 70, 9)
    entry = table.probe(key)
    assert entry is not None
    assert entry == (key, 3, LOWER, 70, 9) and entry[DEPTH] == 3 and entry[MOVE] == 9
    gc.collect()  # an entry of ints is garbage the collector need not follow: it stops tracking it
    assert not gc.is_tracked(entry)
    assert table.probe(other) is None
    table.store(other, 1, UPPER, -5, None)
    assert table.probe(key) is None and table.probe(other) is not None
    assert table.hashfull() == 1000 // min(size, 1000)
    entries = table.entries
    table.clear()
    assert table.entries is entries and table.probe(other) is None and table.hashfull() == 0


@pytest.mark.parametrize("variant", variant_names())
@pytest.mark.parametrize("captures_first", [True, False])
def test_staged_moves_hand_out_every_legal_move_once(variant: str, captures_first: bool) -> None:
    # The table move first, then (captures first) every capture before any quiet move.
    for state in random_positions(variant, 6, seed=3):
        legal = state.legal_moves()
        tt_move = legal[-1]
        history: defaultdict[int, int] = defaultdict(int, {m: i for i, m in enumerate(legal)})
        stages = list(staged_moves(state, tt_move, history, None, None, None, captures_first, True))
        moves = [m for stage in stages for m in stage]
        assert moves[0] == tt_move and sorted(moves) == sorted(legal)
        if captures_first:
            kinds = [state.is_capture(m) for m in moves[1:]]
            assert kinds == sorted(kinds, reverse=True)
