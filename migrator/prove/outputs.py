"""What one side's run left, read the same way for every side: scalar summaries
by event folder, checkpoints, exported SavedModels, and what the proof's settings
recorded (evaluations, predictions). Paths are relative to the side's output
folder (``out/...``) or to its copy of the repository (``repo/...``), so the
sides' artefacts pair up by name."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np

from estimator_revival.migrator.prove.side_process.proving import EVALUATIONS

# Timing rates and the fill level of TF 1 input queues: not numbers of the model
_NOT_COMPARED = re.compile(r"(/sec$)|(fraction_over_)")
_EVENTS = "events.out.tfevents.*"


@dataclasses.dataclass
class SideOutputs:
    """``summaries``: {event folder: {tag: [(step, value)]}}; ``checkpoints``:
    {checkpoint prefix: path}; ``exports``: {export: folder}; ``evaluations``:
    [{metric: value}] in call order; ``predictions``: [{key: array}] in call order."""

    summaries: dict
    checkpoints: dict
    exports: dict
    evaluations: list
    predictions: list
    graph_ops: set


def read(roots: dict[str, Path], record: Path) -> SideOutputs:
    """``roots``: {label: folder}, e.g. {"out": output folder, "repo": the copy}."""
    summaries, checkpoints, exports, ops = {}, {}, {}, set()
    for label, root in roots.items():
        for folder in sorted({path.parent for path in root.rglob(_EVENTS)}):
            name = f"{label}/{folder.relative_to(root).as_posix()}"
            summaries[name], folder_ops = scalar_summaries(folder)
            ops |= folder_ops
        for index in sorted(root.rglob("*.index")):
            if index.parent.name != "variables":  # a SavedModel's are its export's
                checkpoints[f"{label}/{index.relative_to(root).with_suffix('').as_posix()}"] = (
                    index.with_suffix("")
                )
        for model in sorted(root.rglob("saved_model.pb")):
            name = f"{label}/{_export_name(root, model.parent)}"
            exports[name] = model.parent
            variables = model.parent / "variables" / "variables.index"
            if variables.exists():
                checkpoints[f"{name}/variables/variables"] = variables.with_suffix("")
    evaluations_file = record / EVALUATIONS
    evaluations = json.loads(evaluations_file.read_text()) if evaluations_file.exists() else []
    predictions = []
    for path in sorted(record.glob("predict-*.npz"), key=lambda p: int(p.stem.split("-")[1])):
        with np.load(path, allow_pickle=False) as arrays:
            predictions.append({key: arrays[key] for key in arrays.files})
    return SideOutputs(summaries, checkpoints, exports, evaluations, predictions, ops)


def _export_name(root: Path, export: Path) -> str:
    """An export's path with each timestamped folder (they differ between runs)
    replaced by its place among its siblings: ``export/best/#0``."""
    parts = export.relative_to(root).parts
    named = []
    for index, part in enumerate(parts):
        if part.isdigit():
            versions = [p.name for p in root.joinpath(*parts[:index]).iterdir()]
            part = f"#{sorted((v for v in versions if v.isdigit()), key=int).index(part)}"
        named.append(part)
    return "/".join(named)


def scalar_summaries(folder: Path) -> tuple[dict, set]:
    """``({tag: [(step, value)]}, op types)`` of the event files in ``folder``:
    every scalar (TF 1's ``simple_value`` or a scalar tensor) in the order
    written, and the op types of the graphs written there."""
    import tensorflow as tf

    series, ops = {}, set()
    for path in sorted(folder.glob(_EVENTS)):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            if event.graph_def:
                graph = tf.compat.v1.GraphDef.FromString(event.graph_def)
                ops |= {node.op for node in graph.node}
                ops |= {n.op for f in graph.library.function for n in f.node_def}
            for value in event.summary.value:
                number = _scalar(value)
                if number is not None and not _NOT_COMPARED.search(value.tag):
                    series.setdefault(value.tag, []).append((int(event.step), number))
    return series, ops


def _scalar(value) -> float | None:
    import tensorflow as tf

    if value.HasField("simple_value"):
        return float(value.simple_value)
    if value.HasField("tensor") and not value.tensor.tensor_shape.dim:
        array = tf.make_ndarray(value.tensor)
        if array.dtype.kind in "fiub":
            return float(array)
    return None
