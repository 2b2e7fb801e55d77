"""input_fn's dataset as the legacy graph built it, opened for the traced programs.

Estimator called input_fn once per ``train``/``evaluate``/``predict`` call,
inside the graph it ran. The runtime needs input_fn's dataset in two places: in
the legacy graph, where model_fn's graph is discovered, and eagerly, where the
traced programs iterate it. Calling input_fn a second time for the second would
repeat its side effects (a file opened, a counter in ``params`` bumped, a line
printed). Instead the dataset input_fn built in the legacy graph is serialized
with tf.data's own serialization (the one the tf.data service and
``ClusterCoordinator`` use to move a dataset) and opened eagerly: the same ops,
op seeds and functions, so the same elements as the Estimator's iterator over it.

A dataset that reads state of its graph (a lookup table or a variable, which
the Estimator's session initialized, or a placeholder a hook fed) cannot leave
that graph; :func:`reopened` says so with None, and input_fn is called again.
"""

from __future__ import annotations

import tensorflow as tf

_FED = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})


def reopened(dataset: tf.data.Dataset) -> tf.data.Dataset | None:
    """``dataset`` (built in a graph) as an eager dataset of the same elements,
    or None when it reads state of its graph."""
    variant = dataset._variant_tensor
    graph = variant.graph
    ops = tf.compat.v1.graph_util.extract_sub_graph(graph.as_graph_def(), [variant.op.name])
    if any(_reads_graph_state(graph.get_operation_by_name(node.name)) for node in ops.node):
        return None
    serialized = _serialized(ops, variant.name)
    opened = tf.data.experimental.from_variant(
        tf.raw_ops.DatasetFromGraph(graph_def=serialized), dataset.element_spec
    )
    # Its Python functions (from_generator's, py_func's) are registered for as
    # long as the graph that built them lives; the iterator keeps its dataset.
    opened._legacy_graph = graph
    return opened


def _reads_graph_state(op: tf.Operation) -> bool:
    return op.type in _FED or any(output.dtype == tf.resource for output in op.outputs)


def _serialized(ops: tf.compat.v1.GraphDef, variant_name: str) -> bytes:
    """The dataset graph of the variant ``variant_name`` among ``ops``."""
    with tf.Graph().as_default() as graph:
        tf.graph_util.import_graph_def(ops, name="")
        serialize = tf.raw_ops.DatasetToGraphV2(
            input_dataset=graph.get_tensor_by_name(variant_name),
            external_state_policy=tf.data.experimental.ExternalStatePolicy.IGNORE.value,
            strip_device_assignment=True,
        )
        with tf.compat.v1.Session(graph=graph) as session:
            return session.run(serialize)
