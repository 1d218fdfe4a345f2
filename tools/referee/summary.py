"""The final table of a match: as JSON-able data (``summary.json``) and as text for people.

Both are made from the running counters (:class:`tools.referee.tally.MatchTally`), never by reading
the records again.
"""

from __future__ import annotations

from typing import Any

from zengine.tools.referee import stats
from zengine.tools.referee.config import MatchConfig
from zengine.tools.referee.tally import EncounterTally, MatchTally


def _wdl_dict(wdl: stats.WDL) -> dict[str, int]:
    return {"wins": wdl.wins, "draws": wdl.draws, "losses": wdl.losses}


def elo_text(elo: float | None, margin: float, los: float, draws: int, games: int) -> str:
    """cutechess's line: ``Elo difference: 31.4 +/- 45.2, LOS: 91.3 %, DrawRatio: 20.0 %``
    (``elo`` None: no complete pair yet)."""
    ratio = f"DrawRatio: {100 * draws / games:.1f} %" if games else "DrawRatio: -"
    if elo is None:
        return f"Elo difference: - (no complete pair yet), LOS: -, {ratio}"
    return (
        f"Elo difference: {stats.format_elo(elo)} +/- {margin:.1f}, LOS: {los * 100:.1f} %, {ratio}"
    )


def elo_line(estimate: stats.EloEstimate | None, wdl: stats.WDL) -> str:
    """The Elo line of an encounter: its regularised pairs, the draw ratio of its games."""
    if estimate is None:
        return elo_text(None, 0.0, 0.5, wdl.draws, wdl.games)
    return elo_text(estimate.elo, estimate.margin, estimate.los, wdl.draws, wdl.games)


def encounter_data(encounter: EncounterTally) -> dict[str, Any]:
    """Engine a against b: W/D/L (also per colour of a) and the pentanomial, from a's view."""
    wdl = encounter.wdl
    data: dict[str, Any] = {
        "a": encounter.a,
        "b": encounter.b,
        "games": wdl.games,
        "wins": wdl.wins,
        "draws": wdl.draws,
        "losses": wdl.losses,
        "points": wdl.points,
        "a_as_p1": _wdl_dict(encounter.as_p1),
        "a_as_p2": _wdl_dict(encounter.as_p2),
        "pentanomial": list(encounter.pentanomial),
    }
    estimate = encounter.elo()
    if estimate is not None:
        data.update(
            elo=estimate.elo,
            elo_low=estimate.low,
            elo_high=estimate.high,
            elo_margin=estimate.margin,
            los=estimate.los,
        )
    return data


def summary(
    config: MatchConfig, tally: MatchTally, scheduled: int, extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the final table shows, as JSON-able data."""
    engines = []
    for index, name in enumerate(config.names):
        total = tally.wdl(index)
        engines.append(
            {
                "name": name,
                "games": total.games,
                "points": total.points,
                "wins": total.wins,
                "draws": total.draws,
                "losses": total.losses,
                "as_p1": _wdl_dict(tally.as_p1[index]),
                "as_p2": _wdl_dict(tally.as_p2[index]),
            }
        )
    out: dict[str, Any] = {
        "variant": config.variant,
        "rules": dict(config.rules),
        "seed": config.seed,
        "games_scheduled": scheduled,
        "games_played": tally.games,
        "engines": engines,
        "encounters": [encounter_data(tally.encounters[k]) for k in sorted(tally.encounters)],
        "terminations": {t.value: n for t, n in tally.terminations.items()},
    }
    if tally.overhead_moves:
        out["referee_overhead_ms"] = {
            "mean": tally.overhead_ms_sum / tally.overhead_moves,
            "moves": tally.overhead_moves,
            "max_game_mean": tally.overhead_ms_max,
        }
    if config.sprt is not None:
        state = tally.sprt(config.sprt)
        out["sprt"] = {
            **config.sprt.to_json(),
            "llr": state.llr,
            "lower": state.lower,
            "upper": state.upper,
            "verdict": state.verdict,
        }
    out.update(extra)
    return out


def count_games(count: int) -> str:
    """``1 game``, ``2 games``: a count of games as the summary lines say it."""
    return f"{count} game" if count == 1 else f"{count} games"


def summary_text(data: dict[str, Any]) -> str:
    """The final table for people."""
    lines = [
        f"Variant {data['variant']}{' ' + str(data['rules']) if data['rules'] else ''}, seed {data['seed']}: "
        f"{data['games_played']} of {data['games_scheduled']} games"
    ]
    width = max(6, max(len(e["name"]) for e in data["engines"])) + 2
    lines.append(
        f"{'Engine':<{width}}{'Games':>6}{'Points':>8}  {'W-D-L':<12}{'as P1 W-D-L':<13}{'as P2 W-D-L'}"
    )
    for e in sorted(data["engines"], key=lambda e: -e["points"]):
        p1, p2 = e["as_p1"], e["as_p2"]
        wdl = f"{e['wins']}-{e['draws']}-{e['losses']}"
        wdl1 = f"{p1['wins']}-{p1['draws']}-{p1['losses']}"
        wdl2 = f"{p2['wins']}-{p2['draws']}-{p2['losses']}"
        lines.append(
            f"{e['name']:<{width}}{e['games']:>6}{e['points']:>8.1f}  {wdl:<12}{wdl1:<13}{wdl2}"
        )
    names = [e["name"] for e in data["engines"]]
    if len(names) > 2:
        lines += ["", "Cross table (points of the row engine against the column engine):"]
        lines.append(" " * width + " ".join(f"{n[:8]:>8}" for n in names))
        table = {(enc["a"], enc["b"]): enc for enc in data["encounters"]}
        for i, name in enumerate(names):
            cells = []
            for j in range(len(names)):
                enc = table.get((min(i, j), max(i, j)))
                if i == j:
                    cells.append(f"{'-':>8}")
                elif enc is not None:
                    points = enc["points"] if i < j else enc["games"] - enc["points"]
                    cell = f"{points:.1f}/{enc['games']}"
                    cells.append(f"{cell:>8}")
                else:
                    cells.append(f"{'':>8}")
            lines.append(f"{name:<{width}}" + " ".join(cells))
    for enc in data["encounters"]:
        a, b = names[enc["a"]], names[enc["b"]]
        text = (
            f"{a} vs {b}: {enc['wins']}-{enc['draws']}-{enc['losses']} (W-D-L of {a}), "
            f"pairs [0, 1/2, 1, 3/2, 2] = {enc['pentanomial']}"
        )
        if "elo" in enc:
            line = elo_text(enc["elo"], enc["elo_margin"], enc["los"], enc["draws"], enc["games"])
            text += f"\n  {line}"
        lines.append(text)
    if "sprt" in data:
        s = data["sprt"]
        verdict = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)", None: "undecided"}[
            s["verdict"]
        ]
        lines.append(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
            f"LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f}) {verdict}"
        )
    if data["terminations"]:  # none before the first game ends
        lines.append(
            "Terminations: "
            + ", ".join(f"{k} {v}" for k, v in sorted(data["terminations"].items()))
        )
    if "referee_overhead_ms" in data:
        o = data["referee_overhead_ms"]
        lines.append(
            f"Referee overhead per move (bestmove read -> next go written): {o['mean']:.3f} ms "
            f"mean over {o['moves']} moves"
        )
    if "games_per_minute" in data:
        lines.append(
            f"This run: {count_games(data['games_this_run'])} in {data['wall_s']:.1f} s, "
            f"{data['games_per_minute']:.1f} games/min at concurrency {data['concurrency']}"
        )
    if data.get("stopped"):
        lines.append(f"Stopped: {data['stopped']}")
    return "\n".join(lines)
