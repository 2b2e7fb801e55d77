"""Which TensorFlow kernels give other bits on TF 2.21 than on TF 2.15, shown on a
program's own graph: the graph tensorflow-estimator built (a MetaGraph), restored
from a trained checkpoint and replayed once in a plain Session on each version
(tests/programs/legacy_graph_replay.py). An op whose outputs differ while all of
its inputs (variable reads included) are equal is a kernel that changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import tensorflow as tf
from harness import LEGACY_GRAPH_REPLAY, LEGACY_PYTHON, MAIN_PYTHON, program_env


def changed_kernels(meta: Path, checkpoint: str, directory: Path) -> set[str]:
    """The op types whose kernels changed, in the graph of ``meta`` restored from
    ``checkpoint``; ``directory`` keeps each version's outputs."""
    directory.mkdir(parents=True, exist_ok=True)
    outputs = {}
    for version, python in (("2.15", LEGACY_PYTHON), ("2.21", MAIN_PYTHON)):
        outputs[version] = directory / f"{version}.npz"
        subprocess.run(
            [python, LEGACY_GRAPH_REPLAY, "outputs", meta, checkpoint, outputs[version]],
            env=program_env(legacy=python == LEGACY_PYTHON),
            check=True,
        )
    with np.load(outputs["2.15"]) as old, np.load(outputs["2.21"]) as new:
        assert old.files and sorted(old.files) == sorted(new.files)
        differing = {name for name in old.files if not _same_bits(old[name], new[name])}
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.import_meta_graph(str(meta))
    ops = {graph.get_tensor_by_name(name).op for name in differing}
    return {
        op.type
        for op in ops
        if op.type != "ReadVariableOp"  # a variable an earlier op of the run updated
        and not any(t.name in differing for t in op.inputs)
    }


def _same_bits(old: np.ndarray, new: np.ndarray) -> bool:
    """Equal to the bit (a NaN equal to a NaN: a metric's 0/0 before any update)."""
    return old.dtype == new.dtype and old.tobytes() == new.tobytes()
