"""Finds the TensorFlow kernels that give other bits on TF 2.15 and TF 2.21 in a
canned estimator's own training graph.

``export META`` (TF 2.15, tensorflow-estimator): the binary DNNClassifier of
canned_estimators.py builds its TRAIN graph on the fixture's first batch, exported
as a MetaGraph. ``replay META OUT.npz`` (either version, a plain Session): the
graph's variables are initialized by its own seeded initializers, and every float
output of every op the loss and its gradients need is saved. Ops whose outputs
differ between the versions while all their inputs are equal are the kernels that
changed (tests/test_canned_estimators.py).
"""

import sys

import numpy as np
import tensorflow as tf


def export(meta_path: str) -> None:
    import canned_estimators as fixture

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(7)
        features = {key: tf.constant(value[:8]) for key, value in fixture.FEATURES.items()}
        labels = tf.constant(fixture.INCOME[:8])
        est = tf.estimator.DNNClassifier([8, 4], fixture.columns())
        spec = est.model_fn(features, labels, tf.estimator.ModeKeys.TRAIN, est.config)
        tf.compat.v1.add_to_collection("probe_loss", spec.loss)
        tf.compat.v1.train.export_meta_graph(meta_path, graph=graph)


def replay(meta_path: str, out_path: str) -> None:
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.import_meta_graph(meta_path)
        (loss,) = tf.compat.v1.get_collection("probe_loss")
        gradients = [op for op in graph.get_operations() if "gradients" in op.name]
        wanted = _needed_float_outputs([loss.op, *gradients])
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(tf.compat.v1.tables_initializer())
            values = session.run({tensor.name: tensor for tensor in wanted})
    np.savez(out_path, **values)


def _needed_float_outputs(targets) -> list:
    """The float outputs of the stateless ops ``targets`` depend on."""
    seen, stack, found = set(), list(targets), []
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(tensor.op for tensor in op.inputs)
        if op.type in ("VarHandleOp", "ReadVariableOp", "Placeholder") or op._is_stateful:
            continue
        found.extend(tensor for tensor in op.outputs if tensor.dtype.is_floating)
    return found


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        replay(sys.argv[2], sys.argv[3])
