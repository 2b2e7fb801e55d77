"""Replays a graph tensorflow-estimator built (a MetaGraph) in a plain
``tf.compat.v1.Session``, on this interpreter's TensorFlow kernels.

``train MODEL_DIR OUT_DIR``: MODEL_DIR is a legacy run's model directory (run
through tests/standins/run_legacy.py, which keeps the train op in a collection of
the MetaGraph saved with each checkpoint). From the MetaGraph of its latest
checkpoint (every checkpoint saves the same graph), a fresh Session initializes
what the Estimator's session initialized (the Scaffold's global and local
variables and tables, the input hook's iterators) and runs what that session ran
each step until the global step reaches the latest checkpoint's, as StopAtStepHook
stopped the Estimator (or until the input ends). It writes
``OUT_DIR/summaries.json`` (``{tag: [value at each step]}``) and
``OUT_DIR/replay.ckpt``. Under TF 2.21 this is the legacy training on the new
kernels, which the runtime must equal bit for bit (tests/test_projects.py).

``outputs META CHECKPOINT OUT.npz``: the graph's state restored from CHECKPOINT
(a trained state: a model's first step, from zeros, is exact everywhere), every
float output of every stateless op, computed once, is saved. Ops whose outputs
differ between TF 2.15 and TF 2.21 while all their inputs are equal are the
kernels that changed (tests/kernel_drift.py).
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

TRAIN_OP_COLLECTION = "legacy_replay_train_op"  # tests/standins/run_legacy.py
GLOBAL_STEP_READ_COLLECTION = "global_step_read_op_cache"  # Estimator's, in TF's training_util


def replay_training(model_dir: str, out_dir: str) -> None:
    latest = tf.train.latest_checkpoint(model_dir)
    last_step = int(tf.train.load_variable(latest, "global_step"))
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.import_meta_graph(latest + ".meta")
        (train_op,) = graph.get_collection(TRAIN_OP_COLLECTION)
        # What the Estimator's session ran each step, for Grappler prunes and
        # rewrites the graph for the fetches it is asked for: the train op, the
        # loss (NanTensorHook, the last of LOSSES), the summaries
        # (SummarySaverHook) and the global step's read (its step counters).
        fetches = {
            "train_op": train_op,
            "loss": graph.get_collection(tf.compat.v1.GraphKeys.LOSSES)[-1],
            "summaries": tf.compat.v1.summary.merge_all(),
            "step": graph.get_collection(GLOBAL_STEP_READ_COLLECTION)[0],
        }
        global_step = tf.compat.v1.train.get_global_step()
        saver = tf.compat.v1.train.Saver()
        series: dict = {}
        with _session(graph) as session:
            while session.run(global_step) < last_step:
                try:
                    summary = session.run(fetches)["summaries"]
                except tf.errors.OutOfRangeError:
                    break
                for value in tf.compat.v1.Summary.FromString(summary).value:
                    if value.HasField("simple_value"):
                        series.setdefault(value.tag, []).append(value.simple_value)
            saver.save(session, os.path.join(out_dir, "replay.ckpt"))
    with open(os.path.join(out_dir, "summaries.json"), "w") as f:
        json.dump(series, f)


def replay_outputs(meta_path: str, checkpoint: str, out_path: str) -> None:
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.train.import_meta_graph(meta_path)
        wanted = _needed_float_outputs(graph.get_operations())
        with _session(graph, restored_from=checkpoint) as session:
            values = session.run({tensor.name: tensor for tensor in wanted})
    np.savez(out_path, **values)


def _session(graph: tf.Graph, *, restored_from: str | None = None) -> tf.compat.v1.Session:
    """A Session with Estimator's default config, set up as the Estimator's session
    was by its Scaffold and input hook: the global variables initialized (or
    ``restored_from`` a checkpoint), then the local ones, tables and iterators."""
    with graph.as_default():
        if restored_from:
            saver = tf.compat.v1.train.Saver()
        else:
            global_init = tf.compat.v1.global_variables_initializer()
        local_init = [
            tf.compat.v1.local_variables_initializer(),
            tf.compat.v1.tables_initializer(),
            *graph.get_collection(tf.compat.v1.GraphKeys.LOCAL_INIT_OP),
            *(op for op in graph.get_operations() if op.type == "MakeIterator"),
        ]
    session = tf.compat.v1.Session(graph=graph, config=_estimator_session_config())
    if restored_from:
        saver.restore(session, restored_from)
    else:
        session.run(global_init)
    session.run(local_init)
    return session


def _estimator_session_config() -> tf.compat.v1.ConfigProto:
    rewrite = rewriter_config_pb2.RewriterConfig(
        meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE
    )
    return tf.compat.v1.ConfigProto(
        allow_soft_placement=True, graph_options=tf.compat.v1.GraphOptions(rewrite_options=rewrite)
    )


# Ops that hold state rather than compute (and the imported Saver's, under save/,
# which read and write checkpoints).
_NOT_COMPUTED = ("VarHandleOp", "Placeholder")


def _needed_float_outputs(targets) -> list:
    """The float outputs of the stateless ops ``targets`` depend on, and of the
    variable reads among them that feed an op: a read after an update in the same
    run (a v1 metric's update op) carries what the update computed into the ops
    that read it."""
    seen, stack, found = set(), list(targets), []
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(tensor.op for tensor in op.inputs)
        computed = not op._is_stateful or (
            op.type == "ReadVariableOp" and any(t.consumers() for t in op.outputs)
        )
        if op.type in _NOT_COMPUTED or not computed or op.name.startswith("save"):
            continue
        found.extend(tensor for tensor in op.outputs if tensor.dtype.is_floating)
    return found


if __name__ == "__main__":
    if sys.argv[1] == "train":
        replay_training(sys.argv[2], sys.argv[3])
    else:
        replay_outputs(sys.argv[2], sys.argv[3], sys.argv[4])
