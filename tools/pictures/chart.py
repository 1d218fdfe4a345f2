"""A line chart as inline SVG, for the report's course of the match: x the games played, y a
score or an Elo, one line per engine with an optional shaded band (an interval) under it."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zengine.engine.svg import escape, number


def nice_step(span: float, most: int) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving at most ``most`` ticks."""
    raw = max(span / most, 1e-9)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


@dataclass
class Series:
    """One engine's line in a chart, with an optional band (``x, low, high``) under it."""

    name: str
    colour: str
    points: Sequence[tuple[float, float]]
    band: Sequence[tuple[float, float, float]] = ()


@dataclass(frozen=True)
class Axis:
    """A chart's y axis: its name, range (values are clipped to it), tick step and labels,
    and where the dashed reference line goes (50%, Elo 0)."""

    name: str
    low: float
    high: float
    step: float
    label: Callable[[float], str]
    reference: float


def chart(title: str, series: list[Series], games: int, axis: Axis) -> str:
    """A line chart as inline SVG: games played on x, ``axis`` on y, a legend of the series
    in rows under the title, a shaded band per series where it has one."""
    width, height = 560.0, 320.0
    left, right, bottom = 64.0, 16.0, 44.0
    legend: list[str] = []
    x, y = left, 40.0
    for s in series:
        room = 34 + 7.2 * len(s.name)
        if x + room > width - right and x > left:
            x, y = left, y + 18
        legend.append(
            f'<line x1="{number(x)}" x2="{number(x + 18)}" y1="{number(y - 4)}" '
            f'y2="{number(y - 4)}" stroke="{s.colour}" stroke-width="3"/>'
            f'<text class="legend" x="{number(x + 24)}" y="{number(y)}">{escape(s.name)}</text>'
        )
        x += room
    top = y + 14
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(value: float) -> float:
        return left + (value / max(games, 1)) * plot_w

    def py(value: float) -> float:
        value = min(max(value, axis.low), axis.high)
        return top + (axis.high - value) / (axis.high - axis.low) * plot_h

    parts = [
        f'<text class="chart-title" x="{number(left)}" y="18">{escape(title)}</text>',
        *legend,
        f'<rect class="plot" x="{number(left)}" y="{number(top)}" width="{number(plot_w)}" '
        f'height="{number(plot_h)}"/>',
    ]
    for i in range(round((axis.high - axis.low) / axis.step) + 1):
        value = axis.low + i * axis.step
        parts.append(
            f'<line class="gridline" x1="{number(left)}" x2="{number(left + plot_w)}" '
            f'y1="{number(py(value))}" y2="{number(py(value))}"/>'
            f'<text class="tick" x="{number(left - 6)}" y="{number(py(value) + 4)}" '
            f'text-anchor="end">{escape(axis.label(value))}</text>'
        )
    step = max(1, round(nice_step(games, 8)))
    for value in range(0, games + 1, step):
        parts.append(
            f'<line class="axis" x1="{number(px(value))}" x2="{number(px(value))}" '
            f'y1="{number(top + plot_h)}" y2="{number(top + plot_h + 4)}"/>'
            f'<text class="tick" x="{number(px(value))}" y="{number(top + plot_h + 17)}" '
            f'text-anchor="middle">{value}</text>'
        )
    middle = top + plot_h / 2
    parts += [
        f'<text class="axis-label" x="{number(left + plot_w / 2)}" y="{number(height - 6)}" '
        'text-anchor="middle">games played</text>',
        f'<text class="axis-label" x="14" y="{number(middle)}" text-anchor="middle" '
        f'transform="rotate(-90 14 {number(middle)})">{escape(axis.name)}</text>',
        f'<line class="reference" x1="{number(left)}" x2="{number(left + plot_w)}" '
        f'y1="{number(py(axis.reference))}" y2="{number(py(axis.reference))}"/>',
    ]
    for s in series:
        if s.band:
            upper = " ".join(f"{number(px(x))},{number(py(hi))}" for x, _, hi in s.band)
            lower = " ".join(f"{number(px(x))},{number(py(lo))}" for x, lo, _ in reversed(s.band))
            parts.append(
                f'<polygon class="band" points="{upper} {lower}" fill="{s.colour}" '
                'fill-opacity="0.15"/>'
            )
        if s.points:
            path = " ".join(f"{number(px(x))},{number(py(y))}" for x, y in s.points)
            parts.append(
                f'<polyline class="series" data-engine="{escape(s.name)}" points="{path}" '
                f'stroke="{s.colour}"/>'
            )
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {number(width)} '
        f'{number(height)}" role="img" aria-label="{escape(title)}">' + "".join(parts) + "</svg>"
    )
