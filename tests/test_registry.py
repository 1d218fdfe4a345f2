"""The registry and the rules' declarations: rule options checked from ``Rules.RULES``, games
added by ``register_game`` and by installed plugins (entry points, found in-process here), a
broken plugin leaving only itself out, and the default variant."""

from __future__ import annotations

import os
import sys
from typing import ClassVar

import hexapawn
import pytest
from click.testing import CliRunner

from zengine.engine import variants
from zengine.engine.game import BadRuleValueError, Rule, UnknownGameError, UnknownRuleError
from zengine.engine.perft import perft
from zengine.engine.variants import (
    PluginError,
    default_variant,
    make_rules,
    plugin_errors,
    register_game,
    resolve,
    variant_names,
)
from zengine.engine.zola import ZolaRules
from zengine.tools.engine_commands import perft_command

BUILT_IN = ["zola", "zola-8", "zola-10", "zhadu", "zhadu-star"]


@pytest.fixture
def registry(monkeypatch):
    """The registry as at start-up, before plugins are looked up; restored afterwards."""
    saved = dict(variants.GAMES)
    monkeypatch.setattr(variants, "_plugins_found", False)
    monkeypatch.setattr(variants, "_PLUGINS", set())
    monkeypatch.setattr(variants, "_BROKEN", {})
    variants.GAMES.clear()
    variants.GAMES.update({g: v for g, v in saved.items() if g in ("zola", "zhadu")})
    yield variants
    variants.GAMES.clear()
    variants.GAMES.update(saved)


# --- rule options ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rule,text,value",
    [
        (Rule("size", "6", ("6", "8", "10")), " 8 ", "8"),
        (Rule("links", "full", ("full", "star")), "STAR", "star"),
        (Rule("quiet", "100", low=0, high=100000), "007", "7"),
        (Rule("quiet", "100", low=0, high=100000), "100000", "100000"),
        # integers are read as the protocol's numbers: optionally signed
        (Rule("quiet", "100", low=0, high=100000), "+50", "50"),
        (Rule("quiet", "100", low=0, high=100000), "-0", "0"),
    ],
)
def test_rule_values_are_canonical(rule: Rule, text: str, value: str) -> None:
    assert rule.value(text) == value


@pytest.mark.parametrize(
    "rule,text,message",
    [
        (Rule("size", "6", ("6", "8", "10")), "06", "bad value '06' for rule 'size' (6, 8 or 10)"),
        (Rule("links", "full", ("full", "star")), "ring", "(full or star)"),
        (Rule("quiet", "100", low=0, high=100000), "100001", "(an integer 0..100000)"),
        (Rule("quiet", "100", low=0, high=100000), "-1", "for rule 'quiet'"),
        (Rule("quiet", "100", low=0, high=100000), "٣", "for rule 'quiet'"),  # not ASCII
        (Rule("quiet", "100", low=0, high=100000), "", "for rule 'quiet'"),
        (Rule("quiet", "100", low=0, high=100000), "１", "bad value '１' for rule 'quiet'"),
        (Rule("quiet", "100", low=0, high=100000), "9" * 5000, "bad value '9999999"),
        (Rule("links", "full", ("full", "star")), "ſtar", "(full or star)"),  # a long s
    ],
)
def test_rule_values_out_of_range(rule: Rule, text: str, message: str) -> None:
    with pytest.raises(BadRuleValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rule.value(text)


def test_rules_declare_their_options_and_defaults() -> None:
    assert ZolaRules.rule_values({}) == {"size": "6"}
    assert hexapawn.HexapawnRules.rule_values({"STALEMATE": "Draw"}) == {
        "size": "3",
        "stalemate": "draw",
    }
    with pytest.raises(
        UnknownRuleError, match=r"unknown rule 'speed' for hexapawn \(rules: size, "
    ):
        hexapawn.HexapawnRules.rule_values({"speed": "1"})


# --- registering games ---------------------------------------------------------------------------
def test_register_game_adds_after_the_built_in_games(registry) -> None:
    register_game(hexapawn.HexapawnRules)
    assert variant_names() == [*BUILT_IN, "hexapawn", "octapawn"]
    assert resolve("OctaPawn") == ("hexapawn", {"size": "4"})
    assert default_variant() == "zola"


def test_register_game_refuses_what_cannot_be_a_game(registry) -> None:
    class Unnamed(hexapawn.HexapawnRules):
        game = "Hexa Pawn"
        VARIANTS: ClassVar = {"Hexa Pawn": {}}

    class NotItsVariant(hexapawn.HexapawnRules):
        game = "pawns"

    class TakesAVariant(hexapawn.HexapawnRules):
        game = "pawns"
        VARIANTS: ClassVar = {"pawns": {}, "zola-8": {}}

    with pytest.raises(TypeError):
        register_game(dict)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is no name"):
        register_game(Unnamed)
    with pytest.raises(ValueError, match="not one of its VARIANTS"):
        register_game(NotItsVariant)
    with pytest.raises(ValueError, match="variant names already taken: zola-8"):
        register_game(TakesAVariant)
    register_game(hexapawn.HexapawnRules)
    with pytest.raises(ValueError, match="already registered"):
        register_game(hexapawn.HexapawnRules)
    assert variant_names() == [*BUILT_IN, "hexapawn", "octapawn"]


# --- installed plugins -------------------------------------------------------------------------
def test_installed_plugins_are_found_in_name_order(registry, make_plugin, monkeypatch) -> None:
    where = make_plugin(
        {"hexapawn": "hexapawn:HexapawnRules", "zola": "hexapawn:HexapawnRules"}, "hexapawn.py"
    )
    monkeypatch.syspath_prepend(str(where))
    assert variant_names() == [*BUILT_IN, "hexapawn", "octapawn"]  # zola stays the built-in
    assert make_rules("octapawn").start().position_text() == "bbbb/4/4/wwww w"
    assert plugin_errors() == []


def test_a_broken_plugin_leaves_only_itself_out(registry, make_plugin, monkeypatch) -> None:
    where = make_plugin(
        {
            "absent": "no_such_module_here:Rules",
            "hexapawn": "hexapawn:HexapawnRules",
            "nothing": "hexapawn:NoSuchClass",
            "wrong": "hexapawn:HexapawnState",
        },
        "hexapawn.py",
    )
    monkeypatch.syspath_prepend(str(where))
    assert variant_names() == [*BUILT_IN, "hexapawn", "octapawn"]
    errors = plugin_errors()
    assert len(errors) == 3 and "No module named 'no_such_module_here'" in errors[0]
    with pytest.raises(PluginError, match="game 'nothing': None is no Rules class"):
        make_rules("nothing")
    with pytest.raises(UnknownGameError, match=r"game 'wrong': .* is no Rules class"):
        make_rules("WRONG")
    with pytest.raises(UnknownGameError, match="unknown game 'other'"):
        make_rules("other")


def test_plugins_are_looked_up_once(registry, make_plugin, monkeypatch) -> None:
    assert variant_names() == BUILT_IN
    monkeypatch.syspath_prepend(str(make_plugin({"hexapawn": "hexapawn:HexapawnRules"})))
    assert variant_names() == BUILT_IN  # installed after the look-up: seen by new processes


# --- the default game ----------------------------------------------------------------------------
def test_perft_defaults_to_the_first_registered_variant() -> None:
    done = CliRunner().invoke(perft_command, ["2"])
    assert done.exit_code == 0
    expected = perft(make_rules(variant_names()[0]).start(), 2)
    assert f"Nodes searched: {expected}" in done.output


def test_key_salts_are_the_same_in_every_process() -> None:
    # Keys must not depend on Python's per-process string hashing.
    import subprocess

    code = (
        "from zengine.engine.variants import make_rules; print(make_rules('zhadu-star').key_salt)"
    )
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=120,
        )
        assert done.stdout.strip() == str(make_rules("zhadu-star").key_salt), done.stderr
