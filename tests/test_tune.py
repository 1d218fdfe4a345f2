"""The tuner's features (tools/dev/tune.py): read off the evaluation itself, they must give back the
evaluation with the current weights (the linearity the fit rests on), and leave the module as
it was."""

from __future__ import annotations

import json
import random

import pytest

from zengine.engine import zola_eval
from zengine.engine.variants import make_rules, variant_names
from zengine.tools.dev.tune import error, features, get_weights, tuning_of


def positions(variant: str, count: int, seed: int) -> list:
    rules = make_rules(variant)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = rules.start()
        for _ in range(rng.randrange(rules.setup_plies, rules.setup_plies + 40)):
            moves = state.legal_moves()
            if not moves or state.is_over():
                break
            state.play(rng.choice(sorted(moves)))
        if not state.is_over():
            out.append(state)
    return out


@pytest.mark.parametrize("variant", variant_names())
def test_features_times_the_weights_give_the_evaluation(variant: str) -> None:
    tuning = tuning_of(variant)
    module = tuning.module
    before = get_weights(tuning)
    evaluate = make_rules(variant).evaluation()
    states = positions(variant, 80, seed=11)
    rows = features(states, tuning)
    assert get_weights(tuning) == before
    checked = 0
    for state, row in zip(states, rows, strict=True):
        if row is None:  # Zhadu: the mover captures a winning stone next (not linear)
            assert evaluate(state) >= module.WIN_NEXT // 2
            continue
        assert sum(w * f for w, f in zip(before, row, strict=True)) == evaluate(state)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("variant", ["zola", "zola-8", "zola-10"])
def test_zola_features_alike_in_both_evaluation_forms(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fit changes the weights and rebuilds the tables of both forms (the compiled build
    # evaluates in machine words, engine/zola_eval.py).
    tuning = tuning_of(variant)
    states = positions(variant, 40, seed=12)
    monkeypatch.setattr(zola_eval, "evaluate", zola_eval.evaluate_ints)
    in_ints = features(states, tuning)
    monkeypatch.setattr(zola_eval, "evaluate", zola_eval.evaluate_words)
    assert features(states, tuning) == in_ints


def test_error_is_least_for_the_right_sign() -> None:
    data = [([1], 1.0), ([-1], 0.0), ([2], 1.0)]
    assert error(data, [100], 1.0) < error(data, [0], 1.0) < error(data, [-100], 1.0)


# --- bad input: one line, no traceback ------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["play", "--variant", "nope", "--out", "{tmp}/x"], 2, "unknown game 'nope'"),
        (["play", "--variant", "zola", "--out", "{tmp}/no/x"], 1, "Could not open file"),
        (
            ["play", "--variant", "zola", "--out", "{tmp}/x", "--openings", "{tmp}/bad"],
            1,
            "line 1: neither a position string",
        ),
        (["fit", "--variant", "zola", "{tmp}/missing"], 1, "Could not open file"),
        (["fit", "--variant", "zola", "{tmp}/bad"], 1, "line 1 is not a [features, result] line"),
        (["fit", "--variant", "zhadu", "{tmp}/zola"], 1, "not of a zhadu evaluation"),
        (["records", "--variant", "zola", "--out", "{tmp}/x", "{tmp}"], 1, "no games.jsonl"),
        (["records", "--variant", "zola", "--out", "{tmp}/x", "{tmp}/bad"], 1, "not a game record"),
    ],
)
def test_bad_input_is_one_line(tmp_path, args: list[str], code: int, says: str) -> None:
    from click.testing import CliRunner

    from zengine.tools.dev.tune import tune_command

    (tmp_path / "bad").write_text("garbage\n")
    (tmp_path / "zola").write_text("[[1, 2, 3, 4, 5, 6, 7], 1]\n")
    result = CliRunner().invoke(tune_command, [a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert says in result.output and "Traceback" not in result.output


# --- positions from match records ---------------------------------------------------------


def legal_record(**changes: object):
    """The sample record with a legal Zola game: one opening move, then three moves (the
    first legal ones in code-point order)."""
    from sample_records import sample_record

    from zengine.engine.game import sorted_moves

    state = make_rules("zola").start()
    texts = []
    for _ in range(4):
        text, move = sorted_moves(state)[0]
        texts.append(text)
        state.play(move)
    fields: dict[str, object] = dict(
        opening=texts[0], opening_moves=(texts[0],), moves=tuple(texts[1:])
    )
    fields.update(changes)
    return sample_record(**fields)


def test_records_give_each_position_after_the_opening_with_its_result(tmp_path) -> None:
    """``tune records`` reads a match folder: a position per move after the opening, labelled
    with the result for its side to move; games of another variant or ended other than by the
    rules are left out."""
    from click.testing import CliRunner

    from zengine.engine.values import Result
    from zengine.tools.dev.tune import record_states, tune_command
    from zengine.tools.referee.records import append_game
    from zengine.tools.referee.terminations import Termination

    folder = tmp_path / "match"
    folder.mkdir()
    jsonl, pgn = str(folder / "games.jsonl"), str(folder / "games.pgn")
    kept = legal_record(id=0, result=Result.P2_WIN)
    append_game(jsonl, pgn, kept)
    append_game(jsonl, pgn, legal_record(id=1, termination=Termination.TIME_FORFEIT))
    append_game(jsonl, pgn, legal_record(id=2, variant="zola size 8", variant_name="zola-8"))
    out = tmp_path / "zola.data"
    result = CliRunner().invoke(
        tune_command, ["records", "--variant", "zola", "--out", str(out), str(folder)]
    )
    assert result.exit_code == 0, result.output
    assert "3 positions from 1 of 3 games" in result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    rules = make_rules("zola")
    states = record_states(kept, rules)
    assert [s.side_to_move for s in states] == [1, 0, 1]  # after the opening's one move
    tuning = tuning_of("zola")
    assert [row for row, _ in rows] == features(states, tuning)
    assert [label for _, label in rows] == [1.0, 0.0, 1.0]  # Blue won


def test_records_of_a_game_that_does_not_replay_are_one_line(tmp_path) -> None:
    from click.testing import CliRunner

    from zengine.tools.dev.tune import tune_command
    from zengine.tools.referee.records import append_game

    jsonl = tmp_path / "games.jsonl"
    bad = legal_record(moves=legal_record().moves[:2] + ("a1-a2",))
    append_game(str(jsonl), str(tmp_path / "games.pgn"), bad)
    result = CliRunner().invoke(
        tune_command, ["records", "--variant", "zola", "--out", str(tmp_path / "x"), str(jsonl)]
    )
    assert result.exit_code == 1
    assert "game 0: " in result.output and "Traceback" not in result.output
