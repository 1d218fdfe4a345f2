"""Playing one game between two engine processes, with the referee's clock and adjudication.

The referee keeps the authoritative position through the game interface only
(:mod:`engine.game`): every ``bestmove`` is checked with ``State.parse_move``; the game ends by
the rules (``State.outcome``/``termination``), by a ply limit, by adjudication on reported
scores, or by a failure of an engine, which then loses. Each ending carries a Termination
word (as in PGN) and an exact reason for people.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from zengine.engine.game import IllegalMoveError, InvalidMoveError, Rules
from zengine.tools.engine_process import EngineError, EngineProcess
from zengine.tools.schedule import Opening
from zengine.tools.tc import Clock, Limits, go_command

#: Mate scores are turned into centipawns this large (minus the distance) for adjudication.
MATE_CP = 100_000

# Termination words (the PGN tag); the reason text gives the detail.
NORMAL = "normal"
MAX_PLIES = "max plies"
ADJUDICATION = "adjudication"
TIME_FORFEIT = "time forfeit"
ILLEGAL_MOVE = "illegal move"
STALL = "stalled connection"
DISCONNECT = "disconnect"


@dataclass(frozen=True)
class Adjudication:
    """Optional adjudication by scores, as cutechess-cli's ``-resign`` and ``-draw``."""

    resign_movecount: int = 0  # 0 = off
    resign_score: int = 0
    resign_twosided: bool = False
    draw_movenumber: int = 0
    draw_movecount: int = 0  # 0 = off
    draw_score: int = 0
    max_plies: int = 0  # 0 = off


@dataclass(frozen=True)
class Timeouts:
    """Deadlines (seconds) of the waits that are not bounded by a clock."""

    start: float = 10.0  # uciok / readyok after start and before a game
    move: float = 60.0  # bestmove when the limits are depth/nodes only
    grace: float = 1.0  # extra wait past a clock before declaring a stall


@dataclass
class Player:
    """One side of a game: its process, limits and engine index."""

    engine: EngineProcess
    limits: Limits
    index: int


@dataclass
class GameOutcome:
    """What happened in one game."""

    result: str  # 1-0, 0-1, 1/2-1/2
    termination: str
    reason: str
    moves: list[str] = field(default_factory=list)
    times_ms: list[int] = field(default_factory=list)
    scores: list[str | None] = field(default_factory=list)  # "cp 35" / "mate -2" / None
    depths: list[int | None] = field(default_factory=list)
    start_fen: str = ""
    final_fen: str = ""
    failed: list[int] = field(default_factory=list)  # sides (0/1) whose process needs a restart
    overhead_s: list[float] = field(default_factory=list)  # bestmove read -> next go written


def _loss(side: int) -> str:
    return "0-1" if side == 0 else "1-0"


def score_cp(score: str | None) -> int | None:
    """A reported score (``cp 35`` / ``mate 3``) as centipawns for adjudication."""
    if score is None:
        return None
    kind, _, value = score.partition(" ")
    n = int(value)
    if kind == "mate":
        return MATE_CP - abs(n) if n > 0 else -(MATE_CP - abs(n))
    return n


def _streak(values: list[int | None], count: int, test) -> bool:
    if count <= 0 or len(values) < count:
        return False
    return all(v is not None and test(v) for v in values[-count:])


def play_game(
    rules: Rules,
    opening: Opening,
    players: tuple[Player, Player],
    adjudication: Adjudication,
    timeouts: Timeouts,
    names: tuple[str, str],
) -> GameOutcome:
    """Play a game from ``opening`` between ``players[0]`` (p1) and ``players[1]`` (p2).

    The processes must have completed their handshake. Never raises for engine failures: they
    end the game. ``names`` are the players' names for the reason texts.
    """
    state = opening.state(rules)
    start_fen = (
        rules.parse_position(opening.fen) if opening.fen else rules.start()
    ).position_text()
    base_cmd = f"position fen {opening.fen}" if opening.fen is not None else "position startpos"
    history = list(opening.moves)
    out = GameOutcome("*", "", "", start_fen=start_fen)
    extra = {}
    for option in type(rules).ENGINE_OPTIONS:
        value = rules.options.get(option.rule)
        if value is not None and value != str(option.default):
            extra[option.option] = value

    def finish(result: str, termination: str, reason: str) -> GameOutcome:
        out.result, out.termination, out.reason = result, termination, reason
        out.final_fen = state.position_text()
        return out

    # New game for both, p1 first.
    for side in (0, 1):
        try:
            players[side].engine.new_game(rules.name, extra, timeouts.start)
        except EngineError as exc:
            out.failed.append(side)
            return finish(_loss(side), STALL if exc.kind == "stall" else DISCONNECT, str(exc))

    clocks = (Clock(players[0].limits), Clock(players[1].limits))
    cps: tuple[list[int | None], list[int | None]] = ([], [])
    last_read: float | None = None
    while True:
        outcome = state.outcome()
        if outcome is not None:
            return finish(outcome.result.pgn, NORMAL, outcome.reason())
        played = len(out.moves)
        if adjudication.max_plies and played >= adjudication.max_plies:
            return finish("1/2-1/2", MAX_PLIES, f"draw: {played} plies played, the limit")
        side = state.side_to_move
        engine, name = players[side].engine, names[side]
        position = base_cmd + (" moves " + " ".join(history) if history else "")
        go = go_command(engine.spec.proto, side, clocks)
        allowed = clocks[side].allowed_ms()
        if allowed is not None:
            wait_s = allowed / 1000 + timeouts.grace
        else:
            wait_s = timeouts.move
        sent = time.monotonic()
        try:
            engine.send(position)
            sent = engine.send(go)
            if last_read is not None:
                out.overhead_s.append(sent - last_read)
            deadline = sent + wait_s
            score: str | None = None
            depth: int | None = None
            while True:
                stamp, line = engine.read_line(deadline, "bestmove in time")
                tokens = line.split()
                if not tokens:
                    continue
                if tokens[0] == "info":
                    if len(tokens) > 1 and tokens[1] != "string":  # free text may say anything
                        score, depth = _parse_info(tokens, score, depth)
                    continue
                if tokens[0] == "bestmove":
                    break
        except EngineError as exc:
            elapsed_ms = int((time.monotonic() - sent) * 1000)
            if exc.kind == "stall":
                out.failed.append(side)
                if allowed is not None:
                    clocks[side].spend(elapsed_ms)
                    return finish(
                        _loss(side),
                        TIME_FORFEIT,
                        f"{name} lost on time: no bestmove after {elapsed_ms} ms, {allowed} ms allowed",
                    )
                return finish(
                    _loss(side), STALL, f"{name} stalled: no bestmove within {timeouts.move:g} s"
                )
            out.failed.append(side)
            return finish(_loss(side), DISCONNECT, str(exc))
        last_read = stamp
        elapsed_ms = max(0, round((stamp - sent) * 1000))
        move_text = tokens[1] if len(tokens) > 1 else ""
        if move_text in ("(none)", "0000", "none"):
            return finish(
                _loss(side),
                ILLEGAL_MOVE,
                f"{name} played no move ('bestmove {move_text}') while legal moves exist",
            )
        try:
            move = state.parse_move(move_text)
        except InvalidMoveError:
            return finish(
                _loss(side), ILLEGAL_MOVE, f"{name} played an unparsable move: '{line.strip()}'"
            )
        except IllegalMoveError:
            return finish(
                _loss(side), ILLEGAL_MOVE, f"{name} played an illegal move: '{move_text}'"
            )
        in_time = clocks[side].spend(elapsed_ms)
        canonical = state.move_text(move)
        if not in_time:
            return finish(
                _loss(side),
                TIME_FORFEIT,
                f"{name} lost on time: {elapsed_ms} ms used, {allowed} ms allowed",
            )
        state.play(move)
        history.append(canonical)
        out.moves.append(canonical)
        out.times_ms.append(elapsed_ms)
        out.scores.append(score)
        out.depths.append(depth)
        cps[side].append(score_cp(score))

        adjudged = _adjudicate(
            adjudication, cps, side, len(out.moves), state.outcome() is not None, names
        )
        if adjudged is not None:
            return finish(*adjudged)


def _adjudicate(
    adj: Adjudication, cps, side: int, plies: int, over: bool, names
) -> tuple[str, str, str] | None:
    """Resign/draw adjudication after ``side`` moved (``plies`` made in the game so far)."""
    if over:
        return None
    if adj.resign_movecount:
        threshold = adj.resign_score
        loser_low = _streak(cps[side], adj.resign_movecount, lambda v: v <= -threshold)
        other_high = (not adj.resign_twosided) or _streak(
            cps[1 - side], adj.resign_movecount, lambda v: v >= threshold
        )
        if loser_low and other_high:
            return (
                _loss(side),
                ADJUDICATION,
                f"{names[side]} resigns: score <= -{threshold} cp for {adj.resign_movecount} moves",
            )
    if adj.draw_movecount and (plies + 1) // 2 >= adj.draw_movenumber:
        within = lambda v: abs(v) <= adj.draw_score  # noqa: E731
        if _streak(cps[0], adj.draw_movecount, within) and _streak(
            cps[1], adj.draw_movecount, within
        ):
            return (
                "1/2-1/2",
                ADJUDICATION,
                f"draw: both scores within {adj.draw_score} cp for {adj.draw_movecount} moves",
            )
    return None


def _parse_info(
    tokens: list[str], score: str | None, depth: int | None
) -> tuple[str | None, int | None]:
    """The score and depth of an ``info`` line (unchanged if it has none or is malformed)."""
    for i, token in enumerate(tokens):
        try:
            if token == "score" and tokens[i + 1] in ("cp", "mate"):
                score = f"{tokens[i + 1]} {int(tokens[i + 2])}"
            elif token == "depth":
                depth = int(tokens[i + 1])
        except (IndexError, ValueError):
            continue
    return score, depth
