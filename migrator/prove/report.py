"""The proof's report: JSON for CI, and HTML for people, rendered from
templates/prove.html.j2 (autoescaped; the plots are SVG built by plot.py)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from pathlib import Path

import jinja2

from estimator_revival.migrator.command.report import TEMPLATE_DIRECTORIES
from estimator_revival.migrator.prove import plot, verdict
from estimator_revival.migrator.prove.comparison import Comparison, Difference
from estimator_revival.migrator.source.text import write_atomically

SHOWN_DIFFERENCES = 40
# What the counts of each kind of compared thing count
COUNTED = {
    "summary": "summary values",
    "checkpoint": "variables of checkpoints and exports",
    "export": "exports",
    "evaluation": "evaluation metrics",
    "prediction": "prediction outputs",
}
# A training loss's summary: `loss` as the Estimator names it (`loss_1` when the
# model_fn took the name), or a host_call's `train/loss`
LOSS_TAG = re.compile(r"(^|/)(total_)?loss(_\d+)?$")


def loss_series(summaries: dict) -> tuple[str, str] | None:
    """``(event folder, tag)`` of the training loss the plot shows: of the loss
    tags of the training folders, the one with the most steps, ``loss`` itself
    first, then the shortest name."""
    found = [
        (-len(series[tag]), tag != "loss", len(tag), folder, tag)
        for folder, series in summaries.items()
        if not any(part.startswith("eval") for part in folder.split("/"))
        for tag in series
        if LOSS_TAG.search(tag)
    ]
    if not found:
        return None
    *_, folder, tag = min(found)
    return folder, tag


def plots(outputs: dict) -> dict:
    """The loss plot and the difference plot of the reference's loss series (the
    sides whose steps are the reference's)."""
    chosen = loss_series(outputs["reference"].summaries)
    if chosen is None:
        return {}
    folder, tag = chosen
    reference = outputs["reference"].summaries[folder][tag]
    steps = [step for step, _ in reference]
    series = {}
    for name, side in outputs.items():
        values = side.summaries.get(folder, {}).get(tag, [])
        if [step for step, _ in values] == steps:
            series[name] = [value for _, value in values]
    others = {name: values for name, values in series.items() if name != "reference"}
    return {
        "folder": folder,
        "tag": tag,
        "steps": steps,
        "series": series,
        "loss_svg": plot.loss_plot(steps, series, tag),
        "difference_svg": plot.difference_plot(steps, series["reference"], others),
    }


def comparison_summary(comparison: Comparison) -> dict:
    first = comparison.first()
    return {
        "compared": comparison.compared,
        "differences": len(comparison.differences),
        "first": _difference(first) if first else None,
        "shown": [_difference(d) for d in _worst_first(comparison.differences)],
    }


def _worst_first(differences: list[Difference]) -> list[Difference]:
    """By kind, the largest relative difference first; at most SHOWN_DIFFERENCES."""
    ranked = sorted(
        differences,
        key=lambda d: (d.kind, -(d.relative if d.relative is not None else math.inf), d.where),
    )
    return ranked[:SHOWN_DIFFERENCES]


def _difference(difference: Difference) -> dict:
    found = dataclasses.asdict(difference)
    if found["relative"] is not None and math.isinf(found["relative"]):
        found["relative"] = "inf"
    return found


def write(report: dict, html_path: Path | None, json_path: Path | None) -> None:
    if json_path is not None:
        write_atomically(
            json_path, (json.dumps(_without_svg(report), indent=2, default=str) + "\n").encode()
        )
    if html_path is not None:
        environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(d) for d in TEMPLATE_DIRECTORIES]),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        template = environment.get_template("prove.html.j2")
        page = template.render(report=report, counted=COUNTED)
        write_atomically(html_path, page.encode())


def _without_svg(report: dict) -> dict:
    plots_found = {k: v for k, v in report.get("plot", {}).items() if not k.endswith("_svg")}
    return {**report, "plot": plots_found}


def quiet_tensorflow() -> None:
    """Reading checkpoints and loading exports needs TensorFlow in prove's own
    process: without its start-up notes and its warnings about TF 1 variables."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")


def runtime_part(exact: Comparison, classified: str) -> dict:
    """The report's part on the runtime against the reference."""
    return {
        "verdict": classified,
        "explanation": _explanation(classified),
        **comparison_summary(exact),
    }


def legacy_part(across: Comparison, classified: str, drift: verdict.Drift) -> dict:
    """The report's part on the legacy run against the reference: a difference
    that is not a race is TensorFlow's change."""
    changed = classified == verdict.NOT_EXPLAINED
    return {
        "verdict": verdict.EXPLAINED if changed else classified,
        "explanation": _drift_explanation(drift) if changed else _explanation(classified),
        "kernels": [
            {"name": name, "rtol": change.rtol, "what": change.what, "where": change.where.value}
            for name, change in drift.kernels.items()
        ],
        "onset": drift.onset,
        "within_bound": drift.within_bound,
        **comparison_summary(across),
    }


def _explanation(classified: str) -> str:
    if classified == verdict.RACED:
        return (
            "Only summaries of training steps differ, and every variable of every checkpoint, "
            "every evaluation, prediction and export is equal: reads TF 1's Session ran with "
            "no order against the step's update (docs/prove.md, 'What it cannot see')."
        )
    if classified == verdict.NOT_EXPLAINED:
        return "The migrated program must give the Estimator's numbers on the same TensorFlow."
    return "Every value is equal, bit for bit."


def _drift_explanation(drift: verdict.Drift) -> str:
    text = "The same program on two TensorFlow versions: what differs is TensorFlow's change."
    if not drift.kernels:
        return text + " No kernel of the table of known changes is in its graphs (docs/prove.md)."
    text += f" Its graphs compute with {', '.join(drift.kernels)}, which changed"
    if drift.onset is not None:
        inside = "within" if drift.within_bound else "beyond"
        text += (
            f"; at the first differing step ({drift.onset}) every value is {inside} their "
            f"bound ({drift.bound:g} of the value)"
        )
    return text + "."


def headline(overall: str, exact: Comparison, drift: verdict.Drift) -> str:
    """The verdict's line: the first difference, or what equals what."""
    if overall == verdict.NOT_EXPLAINED:
        first = exact.first()
        at = f" at step {first.step}" if first.step is not None else ""
        values = f": {first.expected!r} (Estimator) vs {first.actual!r} (migrated)"
        return f"first difference{at}: {first.kind} {first.name} in {first.where}{values}"
    if overall == verdict.IDENTICAL:
        return "the migrated program gives the Estimator's numbers bit for bit, on both TensorFlows"
    kernels = f" ({', '.join(drift.kernels)})" if drift.kernels else ""
    return (
        "the migrated program gives the Estimator's numbers bit for bit on the same "
        f"TensorFlow; TensorFlow 2.15's differ by TensorFlow's own change{kernels}"
    )
