"""``python -m zengine.tools.dev.tune``: fit evaluation weights to self-play results (Texel's method).

A development tool, not part of the engine. A game offers its evaluation's weights through its
rules (``Rules.tuning``: module constants of its evaluation); the evaluations are linear in
them, except a "wins at once" return (Zhadu's), whose positions are left out: so a position's feature vector is read off
the evaluation itself, by evaluating it with each weight set to 1 and the others to 0 (no second
copy of the evaluation to drift from the real one). Positions come from in-process self-play
games at a fixed depth from seeded random openings; each is labelled with the game's result for
its side to move. The fit minimises the mean squared error between the result and
``1 / (1 + 10^(-K * score / 400))``: first ``K`` for the current weights, then the weights by
coordinate descent in whole centipawns, as in Texel's tuning.

``play``: ``--variant zola --games 200 --depth 2 --out zola.data`` (one JSON line per position);
``records``: ``--variant zola --out zola.data MATCH_DIR...``, the same lines from the games of
``zengine match --out`` folders (games at a real time control, deeper than fixed-depth
self-play: measured, depth 5-7 at 5+0.05 against 2-3 for ``play`` in the same minutes);
``fit``: ``--variant zola zola.data`` prints the error before and after and the new weights.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import click

from zengine.engine.game import EvaluationTuning, GameError, Rules, State
from zengine.engine.parallel import parallel_map
from zengine.engine.search import Searcher
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules
from zengine.tools.referee.folder import GAMES_FILE
from zengine.tools.referee.records import GameRecord, RecordsError, read_games
from zengine.tools.referee.schedule import OpeningError, parse_opening_line, random_opening
from zengine.tools.referee.terminations import Termination

#: A self-play game longer than this is dropped (no result to learn from).
MAX_PLIES = 400


def tuning_of(variant: str) -> EvaluationTuning:
    """What the tuner may change in ``variant``'s evaluation (the game says, through its
    rules); a usage error for a game whose evaluation offers no weights."""
    rules = _rules(variant)
    tuning = rules.tuning()
    if tuning is None:
        raise click.BadParameter(
            f"the game '{rules.game}' offers no evaluation weights to tune",
            param_hint="'--variant'",
        )
    return tuning


def get_weights(tuning: EvaluationTuning) -> list[int]:
    """The current values of the tuned weights."""
    out = []
    for name, index in tuning.weights:
        value = getattr(tuning.module, name)
        out.append(value if index is None else value[index])
    return out


@contextmanager
def weights_set(tuning: EvaluationTuning, values: Sequence[int]) -> Iterator[None]:
    """Evaluate with ``values`` for the tuned weights inside the block."""
    module = tuning.module
    saved = {name: getattr(module, name) for name, _ in tuning.weights}
    win = tuning.win_constant
    saved_win = None if win is None else getattr(module, win)
    try:
        for (name, index), value in zip(tuning.weights, values, strict=True):
            if index is None:
                setattr(module, name, value)
            else:
                items = list(getattr(module, name))
                items[index] = value
                setattr(module, name, tuple(items))
        tuning.refresh()
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
        if win is not None:
            setattr(module, win, saved_win)
        tuning.refresh()


def features(states: Sequence[State], tuning: EvaluationTuning) -> list[list[int] | None]:
    """Each state's feature vector (None for a position the "wins at once" score decides)."""
    module, count, win = tuning.module, len(tuning.weights), tuning.win_constant
    evaluate = module.evaluate
    columns = []
    for i in range(count):
        unit = [0] * count
        unit[i] = 1
        with weights_set(tuning, unit):
            if win is not None:
                setattr(module, win, 0)
                tuning.refresh()
            columns.append([evaluate(s) for s in states])
    out: list[list[int] | None] = []
    for k, state in enumerate(states):
        row = [col[k] for col in columns]
        if win is not None:
            with weights_set(tuning, [0] * count):
                setattr(module, win, 1 << 30)
                tuning.refresh()
                if evaluate(state) >= 1 << 29:
                    out.append(None)
                    continue
        out.append(row)
    return out


def self_play(args: tuple[str, int, int, str | None]) -> list[tuple[list[int], float]]:
    """One fixed-depth self-play game from an opening (the given line of an openings file, or
    seeded random moves): (features, result) per position past the opening, the result
    (1, 1/2, 0) for that position's side to move."""
    variant, depth, seed, line = args
    rules = make_rules(variant)
    tuning = tuning_of(variant)
    if line is None:
        opening = random_opening(rules, rules.setup_plies + 4, random.Random(seed))
    else:
        opening = parse_opening_line(rules, line)
    state = opening.state(rules)
    searcher = Searcher(hash_mb=8, seed=seed + 1, overhead_ms=0)
    evaluate = rules.evaluation()
    positions: list[State] = []
    while not state.is_over() and len(positions) < MAX_PLIES:
        positions.append(state.copy())
        result = searcher.search(state.copy(), GoLimits(depth=depth), evaluate)
        assert result.best is not None
        state.play(result.best)
    outcome = state.outcome()
    if outcome is None:
        return []
    return labelled(positions, outcome.winner, tuning)


def labelled(
    states: Sequence[State], winner: int | None, tuning: EvaluationTuning
) -> list[tuple[list[int], float]]:
    """(features, result) of each state, the result (1, 1/2, 0) of the game that ``winner``
    (0 = p1, 1 = p2, None: drawn) won, for the state's side to move."""
    rows = []
    for state, row in zip(states, features(states, tuning), strict=True):
        if row is None:
            continue
        side = state.side_to_move
        label = 0.5 if winner is None else (1.0 if winner == side else 0.0)
        rows.append((row, label))
    return rows


def record_states(record: GameRecord, rules: Rules) -> list[State]:
    """The positions of a match record after its opening, each before its move; raises
    :class:`GameError` when the record does not replay under ``rules``."""
    state = rules.parse_position(record.start_fen) if record.start_fen else rules.start()
    for text in record.opening_moves:
        state.play(state.parse_move(text))
    states = []
    for text in record.moves:
        states.append(state.copy())
        state.play(state.parse_move(text))
    return states


def error(data: Sequence[tuple[Sequence[int], float]], values: Sequence[int], k: float) -> float:
    """Mean squared error of the logistic of the score against the results."""
    total = 0.0
    scale = -k * math.log(10) / 400
    for row, label in data:
        score = sum(w * f for w, f in zip(values, row, strict=True))
        x = scale * score
        p = 1 / (1 + math.exp(max(-60.0, min(60.0, x))))
        total += (label - p) ** 2
    return total / len(data)


def fit_k(data: Sequence[tuple[Sequence[int], float]], values: Sequence[int]) -> float:
    """The K that fits the current weights best (golden-section search on [0.05, 5])."""
    lo, hi = 0.05, 5.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(30):
        a = hi - ratio * (hi - lo)
        b = lo + ratio * (hi - lo)
        if error(data, values, a) < error(data, values, b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def fit(
    data: Sequence[tuple[Sequence[int], float]],
    values: list[int],
    k: float,
    emit: Callable[[str], None],
    rounds: int = 20,
) -> list[int]:
    """Coordinate descent: each weight moved by a step while the error falls, steps halving."""
    best = error(data, values, k)
    step = max(1, max(abs(v) for v in values) // 8)
    for _ in range(rounds):
        improved = False
        for i in range(len(values)):
            for delta in (step, -step):
                trial = list(values)
                trial[i] += delta
                e = error(data, trial, k)
                while e < best:
                    best, values, improved = e, trial, True
                    trial = list(values)
                    trial[i] += delta
                    e = error(data, trial, k)
        emit(f"step {step}: error {best:.6f} weights {values}")
        if not improved:
            if step == 1:
                break
            step = max(1, step // 2)
    return values


@click.group("tune")
def tune_command() -> None:
    """Fit evaluation weights to self-play results."""


@tune_command.command("play")
@click.option("--variant", required=True)
@click.option("--games", type=click.IntRange(1, 100_000), default=100, show_default=True)
@click.option("--depth", type=click.IntRange(1, 20), default=2, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**31), default=1, show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=1, show_default=True)
@click.option("--openings", type=click.Path(dir_okay=False, exists=True), default=None)
@click.option("--out", type=click.Path(dir_okay=False), required=True)
def play_command(
    variant: str, games: int, depth: int, seed: int, jobs: int, openings: str | None, out: str
) -> None:
    """Self-play games; write one JSON line [features, result] per position.

    With ``--openings``, game i starts from line i of the file (cycling), else from random moves.
    """
    rules = _rules(variant)
    tuning_of(variant)  # a game without weights is refused before any file is written
    lines: list[str | None] = [None]
    if openings is not None:
        try:
            with open(openings, encoding="utf-8") as f:
                lines = [t for t in (x.strip() for x in f) if t and not t.startswith("#")]
            for number, line in enumerate(lines, 1):  # checked here, not in a worker
                try:
                    parse_opening_line(rules, line or "")
                except (OpeningError, GameError) as exc:
                    raise click.ClickException(f"{openings}: line {number}: {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise click.FileError(openings, getattr(exc, "strerror", None) or str(exc)) from None
        if not lines:
            raise click.ClickException(f"{openings}: no openings")
    tasks = [(variant, depth, seed * 100_000 + i, lines[i % len(lines)]) for i in range(games)]
    try:
        with open(out, "w", encoding="utf-8") as f:
            for rows in parallel_map(self_play, tasks, jobs):
                for row, label in rows:
                    f.write(json.dumps([row, label]) + "\n")
    except OSError as exc:
        raise click.FileError(out, exc.strerror or str(exc)) from None


@tune_command.command("records")
@click.option("--variant", required=True)
@click.option("--out", type=click.Path(dir_okay=False), required=True)
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
def records_command(variant: str, out: str, paths: tuple[str, ...]) -> None:
    """Write one JSON line [features, result] per position of the games in PATHS.

    A path is a ``zengine match --out`` folder or its ``games.jsonl``. Only games of
    VARIANT's rules that ended by the rules are used (not a time loss, a crash or an
    adjudication: their result says little about the positions).
    """
    rules = _rules(variant)
    tuning = tuning_of(variant)
    games = used = positions = 0
    try:
        with open(out, "w", encoding="utf-8") as f:
            for path in paths:
                jsonl = os.path.join(path, GAMES_FILE) if os.path.isdir(path) else path
                if not os.path.exists(jsonl):
                    raise click.ClickException(f"{path}: no {GAMES_FILE} (not a match folder)")
                try:
                    records = read_games(jsonl)
                except RecordsError as exc:
                    raise click.ClickException(str(exc)) from None
                for record in records:
                    games += 1
                    if record.variant_name != variant or record.termination != Termination.RULES:
                        continue
                    try:
                        states = record_states(record, rules)
                    except GameError as exc:
                        raise click.ClickException(f"{jsonl}: game {record.id}: {exc}") from None
                    rows = labelled(states, record.result.winner, tuning)
                    for row, label in rows:
                        f.write(json.dumps([row, label]) + "\n")
                    used += 1
                    positions += len(rows)
    except OSError as exc:
        raise click.FileError(out, exc.strerror or str(exc)) from None
    click.echo(f"{positions} positions from {used} of {games} games")


def _rules(variant: str) -> Rules:
    """The rules of ``variant``, or a usage error naming the known ones."""
    try:
        return make_rules(variant)
    except GameError as exc:
        raise click.BadParameter(str(exc), param_hint="'--variant'") from None


def _positions(path: str) -> list[tuple[list[int], float]]:
    """The ``[features, result]`` lines of a ``tune play`` file."""
    data: list[tuple[list[int], float]] = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                try:
                    row, label = json.loads(text)
                    if not (
                        isinstance(row, list)
                        and all(isinstance(x, int) for x in row)
                        and isinstance(label, int | float)
                    ):
                        raise ValueError
                except ValueError:
                    raise click.ClickException(
                        f"{path}: line {number} is not a [features, result] line of 'tune play'"
                    ) from None
                data.append((row, float(label)))
    except (OSError, UnicodeDecodeError) as exc:
        raise click.FileError(path, getattr(exc, "strerror", None) or str(exc)) from None
    return data


@tune_command.command("fit")
@click.option("--variant", required=True)
@click.argument("paths", nargs=-1, required=True)
def fit_command(variant: str, paths: tuple[str, ...]) -> None:
    """Fit K, then the weights, to the positions of PATHS."""
    tuning = tuning_of(variant)
    data: list[tuple[list[int], float]] = []
    for path in paths:
        data.extend(_positions(path))
    if not data:
        raise click.ClickException("no positions to fit")
    if any(len(row) != len(tuning.weights) for row, _ in data):
        raise click.ClickException(f"the positions are not of a {variant} evaluation")
    values = get_weights(tuning)
    k = fit_k(data, values)
    click.echo(
        f"{len(data)} positions; K {k:.3f}; error {error(data, values, k):.6f} with {values}"
    )
    new = fit(data, values, k, click.echo)
    names = [name if index is None else f"{name}[{index}]" for name, index in tuning.weights]
    click.echo("fitted: " + ", ".join(f"{n}={v}" for n, v in zip(names, new, strict=True)))


if __name__ == "__main__":
    tune_command.main(prog_name="python -m zengine.tools.dev.tune")
