"""The scalar summaries of an Estimator's first training step, computed again by its
own graph in a plain Session: ``python first_step_replay.py MODEL_DIR OUT.npz
KERNEL[,KERNEL...] [FED.npz]``.

The graph and the variables are those the Estimator saved before its first step
(``model.ckpt-0`` and its ``.meta``), the input its dataset's first batch (the
iterator made again): each scalar summary's value is the one the Estimator
recorded at step 1. OUT.npz holds them (``summary/<tag>``) and the outputs of every
op of the ``KERNEL`` types (``kernel/<op name>``). Given FED.npz (another TensorFlow's OUT.npz),
those outputs are fed instead of computed: the summaries then follow from the other
TensorFlow's values of that kernel and this one's of every other op
(tests/equivalence/test_canned_estimators.py).
"""

import os
import sys

import numpy as np
import tensorflow as tf


def scalar_summaries(graph: tf.Graph) -> dict:
    """``{tag: the tensor its scalar summary records}``."""
    return {
        np.asarray(tf.get_static_value(op.inputs[0])).item().decode(): op.inputs[1]
        for op in graph.get_operations()
        if op.type == "ScalarSummary"
    }


def main(model_dir: str, out_path: str, kernels: str, fed_path: str | None = None) -> None:
    tf.compat.v1.disable_eager_execution()
    checkpoint = os.path.join(model_dir, "model.ckpt-0")
    graph = tf.Graph()
    with graph.as_default():
        saver = tf.compat.v1.train.import_meta_graph(checkpoint + ".meta")
        operations = graph.get_operations()
        types = set(kernels.split(","))
        outputs = {op.name: op.outputs[0] for op in operations if op.type in types}
        with tf.compat.v1.Session(graph=graph) as session:
            saver.restore(session, checkpoint)
            session.run(
                [tf.compat.v1.tables_initializer(), tf.compat.v1.local_variables_initializer()]
            )
            session.run([op for op in operations if op.type == "MakeIterator"])
            feed = {}
            if fed_path is not None:
                fed = np.load(fed_path)
                feed = {tensor: fed[f"kernel/{name}"] for name, tensor in outputs.items()}
            summaries, kernel_values = session.run((scalar_summaries(graph), outputs), feed)
    np.savez(
        out_path,
        **{f"summary/{tag}": value for tag, value in summaries.items()},
        **{f"kernel/{name}": value for name, value in kernel_values.items()},
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
