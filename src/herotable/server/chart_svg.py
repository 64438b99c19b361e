"""Charts drawn on the server as SVG, from the numbers alone: a die's faces against what a fair die expects, and a
game's charts (`herotable.table.series`), bars or lines. No game is named here: every game's charts are drawn alike.

Each drawing is an image to assistive technology (`role="img"`) named by its `<title>` and described by its `<desc>`;
the page puts a table of the same numbers under it. Colours come from the page's stylesheet (`charts.css`) through
classes and `currentColor`, never fixed in the drawing, so a chart reads in the dark theme as in the light one; the
series also differ by the order of their bars and the shape of their markers, not by colour alone."""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

from herotable.odds.fairness import DieTest
from herotable.table.series import Chart, Kind

WIDTH = 340  # about a phone's width of text: the drawing scales, its words stay readable at either width
HEIGHT = 190
LEFT, RIGHT, TOP, BOTTOM = 34, 8, 10, 34
PALETTE = 6  # series classes s0…s5 in charts.css; more series take them again, with other markers
MARKERS = ("circle", "square", "diamond")


def nice_top(most: float) -> tuple[float, float]:
    """A round top for a y axis at or above `most`, and the step of at most five ticks up to it."""
    if most <= 0:
        return 1.0, 1.0
    rough = most / 4
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    step = max(step, 1.0)  # counts are whole numbers
    return step * math.ceil(most / step), step


def _number(value: float) -> str:
    return f"{value:g}"


def _text(cls: str, x: float, y: float, words: str, anchor: str = "middle") -> str:
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(words)}</text>'


def _bar(cls: str, x: float, y: float, width: float, height: float, tip: str) -> str:
    """A bar, with its number in words as its tooltip."""
    box = f'x="{x:.2f}" y="{y:.2f}" width="{width:.2f}" height="{height:.2f}"'
    return f'<rect class="{cls}" {box}><title>{escape(tip)}</title></rect>'


PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
BASE = TOP + PLOT_H  # the x axis's height in the drawing


def _frame(key: str, title: str, desc: str, top: float, step: float, unit: str, along: str) -> list[str]:
    """The drawing's opening: its name and description, the y axis with its ticks and grid, and the x axis's name."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{key}-t {key}-d" focusable="false">',
        f'<title id="{key}-t">{escape(title)}</title>',
        f'<desc id="{key}-d">{escape(desc)}</desc>',
    ]
    ticks = round(top / step)
    for i in range(ticks + 1):
        y = BASE - PLOT_H * i / ticks
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(_text("tick", LEFT - 4, y + 4, _number(i * step), "end"))
    middle = TOP + PLOT_H / 2
    upright = f'transform="translate(10 {middle:.1f}) rotate(-90)"'
    parts.append(f'<text class="unit" {upright} text-anchor="middle">{escape(unit)}</text>')
    parts.append(f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{BASE}" y2="{BASE}"/>')
    parts.append(_text("axis-name", LEFT + PLOT_W / 2, HEIGHT - 4, along))
    return parts


def _labelled(n: int) -> set[int]:
    """Which of n positions along the x axis carry a label: all of a few; of many, the first, the last and round
    steps between (a d20 shows 1, 5, 10, 15, 20)."""
    if n <= 12:
        return set(range(n))
    step = 5 if n <= 60 else max(1, 10 ** math.floor(math.log10(n)) // 2)
    return {0, n - 1} | {i for i in range(n) if (i + 1) % step == 0}


def fairness_chart(d: DieTest, key: str) -> Markup:
    """A die size's faces as bars against the dashed line of what a fair die expects of each."""
    top, step = nice_top(max(max(d.counts, default=0), d.expected))
    title = f"d{d.sides}: {d.rolled} rolled, {d.says}"
    desc = (
        f"How often each face of the d{d.sides} came up, against the {d.expected:.1f} a fair die expects of each: "
        + ", ".join(f"{face} came up {n}" for face, n in enumerate(d.counts, 1))
        + "."
    )
    parts = _frame(key, title, desc, top, step, "rolls", "face")
    slot = PLOT_W / d.sides
    gap = slot * 0.15 if slot > 4 else 0
    labelled = _labelled(d.sides)
    for i, n in enumerate(d.counts):
        x, h = LEFT + i * slot, PLOT_H * n / top
        parts.append(_bar("s0", x + gap / 2, BASE - h, slot - gap, h, f"{i + 1}: {n}"))
        if i in labelled:
            parts.append(_text("tick", x + slot / 2, BASE + 13, str(i + 1)))
    y = BASE - PLOT_H * d.expected / top
    parts.append(f'<line class="expected" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.2f}" y2="{y:.2f}"/>')
    parts.append("</svg>")
    return Markup("".join(parts))


def history_chart(c: Chart, key: str) -> Markup:
    """A game's chart: for bars, each series' bar side by side in each stretch; for a line, each series' points
    joined, broken where a series has no number."""
    values = [v for s in c.series for v in s.values if v is not None]
    top, step = nice_top(max(values, default=0))
    desc = " ".join([c.about, *(_said(s.name, s.values) for s in c.series)])
    along = c.x_label.lower()
    parts = _frame(key, c.title, desc, top, step, c.unit, along)
    slot = PLOT_W / max(len(c.x), 1)
    for i in sorted(_labelled(len(c.x))):
        parts.append(_text("tick", LEFT + (i + 0.5) * slot, BASE + 13, c.x[i]))

    def y_of(v: int) -> float:
        return BASE - PLOT_H * v / top

    if c.kind is Kind.BARS:
        width = slot * 0.8 / max(len(c.series), 1)
        for j, s in enumerate(c.series):
            for i, v in enumerate(s.values):
                if v:
                    x = LEFT + i * slot + slot * 0.1 + j * width
                    tip = f"{s.name}, {along} {c.x[i]}: {v}"
                    parts.append(_bar(f"s{j % PALETTE}", x, y_of(v), width, PLOT_H * v / top, tip))
    else:
        for j, s in enumerate(c.series):
            points = [(LEFT + (i + 0.5) * slot, y_of(v)) if v is not None else None for i, v in enumerate(s.values)]
            run: list[str] = []
            for point in [*points, None]:
                if point is not None:
                    run.append(f"{point[0]:.1f},{point[1]:.1f}")
                    continue
                if len(run) > 1:
                    parts.append(f'<polyline class="line s{j % PALETTE}" points="{" ".join(run)}"/>')
                run = []
            for i, point in enumerate(points):
                if point is not None:
                    parts.append(_marker(j, *point, f"{s.name}, {along} {c.x[i]}: {s.values[i]}"))
    parts.append("</svg>")
    return Markup("".join(parts))


def _marker(j: int, x: float, y: float, said: str) -> str:
    """A point of series j: its colour and its shape tell it from the others."""
    cls = f"marker s{j % PALETTE}"
    tip = f"<title>{escape(said)}</title>"
    shape = MARKERS[(j + j // PALETTE) % len(MARKERS)]
    if shape == "circle":
        return f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="4">{tip}</circle>'
    if shape == "square":
        return f'<rect class="{cls}" x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7">{tip}</rect>'
    corners = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
    return f'<polygon class="{cls}" points="{corners}">{tip}</polygon>'


def _said(name: str, values: Sequence[int | None]) -> str:
    """A series in words, for the description: "Squall: 0, 3 and 1"."""
    words = ["none" if v is None else str(v) for v in values]
    run = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"{name}: {run}." if words else f"{name}: nothing."
