"""Finds the TensorFlow kernels that give other bits on TF 2.15 and TF 2.21 in a
canned estimator's own training graph.

``export NAME MODE META`` (TF 2.15, tensorflow-estimator): estimator NAME of
canned_estimators.py builds its graph for MODE (train or eval) on the fixture's
first batch, exported as a MetaGraph. ``replay META CHECKPOINT OUT.npz`` (either version, a plain
Session): the graph's variables are restored from the legacy run's checkpoint (a
trained state: a linear model's first step, from zeros, is exact everywhere), and
every float output of every stateless op is saved (the metrics' local variables
start at zero). Ops whose outputs
differ between the versions while all their inputs are equal are the kernels that
changed (tests/test_canned_estimators.py).
"""

import sys

import numpy as np
import tensorflow as tf


def export(name: str, mode: str, meta_path: str) -> None:
    import canned_estimators as fixture

    make_estimator, all_labels, *feature_names = fixture.ESTIMATORS[name]
    names = feature_names[0] if feature_names else fixture.FEATURES
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(7)
        features = {key: tf.constant(fixture.FEATURES[key][:8]) for key in names}
        labels = tf.constant(all_labels[:8])
        est = make_estimator(None)
        est.model_fn(features, labels, mode, est.config)
        tf.compat.v1.train.export_meta_graph(meta_path, graph=graph)


def replay(meta_path: str, checkpoint: str, out_path: str) -> None:
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.import_meta_graph(meta_path)
        wanted = _needed_float_outputs(graph.get_operations())
        with tf.compat.v1.Session(graph=graph) as session:
            tf.compat.v1.train.Saver().restore(session, checkpoint)
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(tf.compat.v1.tables_initializer())
            values = session.run({tensor.name: tensor for tensor in wanted})
    np.savez(out_path, **values)


# Ops that hold or read state rather than compute (and the imported Saver's, under
# save/, which read and write checkpoints).
_NOT_COMPUTED = ("VarHandleOp", "ReadVariableOp", "Placeholder")


def _needed_float_outputs(targets) -> list:
    """The float outputs of the stateless ops ``targets`` depend on."""
    seen, stack, found = set(), list(targets), []
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(tensor.op for tensor in op.inputs)
        if op.type in _NOT_COMPUTED or op._is_stateful or op.name.startswith("save"):
            continue
        found.extend(tensor for tensor in op.outputs if tensor.dtype.is_floating)
    return found


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        replay(sys.argv[2], sys.argv[3], sys.argv[4])
