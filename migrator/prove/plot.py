"""The report's two plots, as inline SVG: each side's per-step loss, and the
difference of the legacy and the runtime run from the reference, relative to the
reference's value, on a log scale (an identical step sits on the floor line)."""

from __future__ import annotations

import html
import math

COLORS = {"legacy": "#1f6fd1", "reference": "#8c8c8c", "runtime": "#d62f2f"}
# Drawn in this order, each narrower than the one below: identical series stay
# visible as nested lines
WIDTHS = {"legacy": 7.0, "reference": 4.5, "runtime": 2.0}
WIDTH, HEIGHT, MARGIN = 760, 240, 48
FLOOR = 1e-9  # relative differences below it (and zero) are drawn on the floor line
TICKS = ((1e-3, "1e-3"), (1e-6, "1e-6"))  # of the difference plot, with a grid line


def _x(step: int, steps: list[int]) -> float:
    first, last = steps[0], steps[-1]
    return MARGIN + (WIDTH - 2 * MARGIN) * ((step - first) / ((last - first) or 1))


def _svg(body: list[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{html.escape(title)}">'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff" stroke="#dddddd"/>'
        f'<text x="{MARGIN}" y="18" font-size="13" font-family="sans-serif">'
        f"{html.escape(title)}</text>{''.join(body)}</svg>"
    )


def _line(points: list[tuple[float, float]], side: str) -> str:
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return (
        f'<polyline points="{path}" fill="none" stroke="{COLORS[side]}" '
        f'stroke-width="{WIDTHS[side]}" stroke-linejoin="round"/>'
    )


def _legend(names: list[str]) -> str:
    items = []
    for index, name in enumerate(names):
        x = WIDTH - MARGIN - 110 * (len(names) - index)
        items.append(
            f'<rect x="{x}" y="8" width="14" height="4" fill="{COLORS[name]}"/>'
            f'<text x="{x + 18}" y="14" font-size="11" font-family="sans-serif">{name}</text>'
        )
    return "".join(items)


def _axis_labels(steps: list[int], top: str, bottom: str) -> str:
    return (
        f'<text x="4" y="{MARGIN - 8}" font-size="10" font-family="sans-serif">{top}</text>'
        f'<text x="4" y="{HEIGHT - MARGIN + 4}" font-size="10" font-family="sans-serif">'
        f"{bottom}</text>"
        f'<text x="{MARGIN}" y="{HEIGHT - 12}" font-size="10" font-family="sans-serif">'
        f"step {steps[0]}</text>"
        f'<text x="{WIDTH - MARGIN - 40}" y="{HEIGHT - 12}" font-size="10" '
        f'font-family="sans-serif">step {steps[-1]}</text>'
    )


def _tick(y: float, label: str) -> str:
    return (
        f'<line x1="{MARGIN}" x2="{WIDTH - MARGIN}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eeeeee"/>'
        f'<text x="4" y="{y + 4:.1f}" font-size="10" font-family="sans-serif">{label}</text>'
    )


def loss_plot(steps: list[int], series: dict[str, list[float]], tag: str) -> str:
    """Each side's value of ``tag`` at each step."""
    finite = [v for values in series.values() for v in values if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    span = (high - low) or 1.0

    def y(value: float) -> float:
        value = value if math.isfinite(value) else high
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (value - low) / span

    body = [
        _line(
            [(_x(s, steps), y(v)) for s, v in zip(steps, values, strict=True)],
            name,
        )
        for name, values in series.items()
    ]
    body += [_legend(list(series)), _axis_labels(steps, f"{high:.4g}", f"{low:.4g}")]
    return _svg(body, f"{tag} at every step")


def difference_plot(steps: list[int], reference: list[float], others: dict) -> str:
    """``|side - reference| / |reference|`` at each step, log scale from FLOOR to 1."""

    def y(value: float, expected: float) -> float:
        if value == expected:
            relative = FLOOR
        elif expected == 0 or not math.isfinite(value) or not math.isfinite(expected):
            relative = 1.0
        else:
            relative = min(max(abs(value - expected) / abs(expected), FLOOR), 1.0)
        return MARGIN + (HEIGHT - 2 * MARGIN) * (math.log10(relative) / math.log10(FLOOR))

    body = [
        _line(
            [(_x(s, steps), y(v, e)) for s, v, e in zip(steps, values, reference, strict=True)],
            name,
        )
        for name, values in others.items()
    ]
    grid = [_tick(y(1 + relative, 1.0), label) for relative, label in TICKS]
    body = [*grid, *body, _legend(list(others)), _axis_labels(steps, "1", "identical")]
    return _svg(body, "difference from the reference, relative to its value (log scale)")
