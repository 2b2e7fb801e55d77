"""TPUEstimator's steps on replicas from the discovery graph: model_fn built once.

On a TPU, TPUEstimator called model_fn once per call and the TPU ran that one
graph on every core (``tpu.split_compile_and_shard`` traced the computation
once). The runtime's replicas are ``tf.distribute`` devices; to call model_fn
once here too, the discovery graph is built as one core's graph, and the
programs run its slices (graph_slice.py) in every replica:

- **Evaluation.** Each core outfed its ``eval_metrics`` tensors, and the host
  called ``metric_fn`` once on their concatenation. Discovery calls metric_fn
  as the host did, on each tensor concatenated ``num_replicas`` times
  (:func:`host_inputs`). Each replica then runs the slice computing its
  tensors and loss; the host runs the slice of the metric updates on the real
  concatenation (and replica 0's loss, as TPUEstimator's ``loss`` metric).
- **Training.** ``CrossShardOptimizer`` scaled the loss by ``1 / num_shards``
  and summed each gradient across cores before the wrapped optimizer applied
  it. In discovery it does the same for one replica of N, the sum standing as
  an identity (:func:`summed_across_replicas`). Each replica runs the slice up
  to those gradients, the sums are taken across replicas (the strategy's
  all-reduce, as a v1 optimizer's under a strategy), and each replica runs the
  slice applying them to its copy of the variables. Random ops (dropout) run
  as each replica's trace of model_fn ran them: a kernel per replica, seeded
  as discovery's op.

Where the graph is not of that form (another optimizer, updates that do not
follow from the summed gradients), there is no slice, and the programs call
model_fn in every replica, as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import tensorflow as tf

from estimator_revival.distribute.replication import check_outfed
from estimator_revival.tf1 import graph_slice

# Graph collections of discovery's graph on replicas: (a core's tensor, the
# host's concatenation of it) per host-call tensor, and (a replica's gradient,
# its sum, the name of the variable it updates) per summed gradient
_HOST_CALL_TENSORS = "runtime_tpu_host_call_tensors"
_GRADIENT_SUMS = "runtime_tpu_gradient_sums"


def host_inputs(tensors, num_replicas: int):
    """``tensors`` (a host call's, in discovery) as the host received them: each
    concatenated across ``num_replicas`` cores on axis 0."""

    def on_host(tensor):
        tensor = tf.convert_to_tensor(tensor)
        check_outfed(tensor)
        concatenated = tf.concat([tensor] * num_replicas, axis=0)
        tf.compat.v1.add_to_collection(_HOST_CALL_TENSORS, (tensor, concatenated))
        return concatenated

    return tf.nest.map_structure(on_host, tensors)


def summed_across_replicas(grads_and_vars: list) -> list:
    """The pairs with each dense gradient standing for its sum across replicas
    (in discovery: an identity the programs replace by the sum)."""
    summed = []
    for grad, var in grads_and_vars:
        if isinstance(grad, tf.Tensor):
            total = tf.identity(grad, name="cross_replica_sum")
            tf.compat.v1.add_to_collection(_GRADIENT_SUMS, (grad, total, var.op.name))
            grad = total
        summed.append((grad, var))
    return summed


@dataclasses.dataclass(frozen=True)
class HostMetricUpdates:
    """``device``: a replica's host-call tensors and loss, from its inputs;
    ``host``: the metric updates, from those tensors concatenated across
    replicas and replica 0's loss."""

    device: graph_slice.GraphSlice
    host: graph_slice.GraphSlice


def host_metric_updates(
    graph: tf.Graph, updates: list, loss, model_inputs
) -> HostMetricUpdates | None:
    """The slices of an evaluation whose metric_fn discovery called as the host did."""
    pairs = graph.get_collection(_HOST_CALL_TENSORS)
    if not pairs:
        return None
    device_tensors, concatenated = zip(*pairs, strict=True)
    device = graph_slice.slice_of((list(device_tensors), loss), model_inputs)
    host_inputs = [*concatenated, loss]
    # v1 metrics update under control dependencies on their values
    computed = frozenset(tensor.op.name for tensor in host_inputs)
    host = graph_slice.slice_of(updates, host_inputs, writes=True, ran_before=computed)
    if device is None or host is None:
        return None
    return HostMetricUpdates(device, host)


@dataclasses.dataclass(frozen=True)
class ReplicatedStep:
    """``gradients``: a replica's gradients (to be summed) and loss, from its
    inputs; ``updates``: ``train_op``, from its inputs and the summed gradients
    (one per name of ``variables``, the variables they update)."""

    gradients: graph_slice.GraphSlice
    updates: graph_slice.GraphSlice
    variables: tuple[str, ...]


def replicated_step(
    graph: tf.Graph, spec, model_inputs, *, random: Mapping[str, int]
) -> ReplicatedStep | None:
    """The slices of a training step whose gradients discovery summed across
    replicas, when every variable the step writes is written after those sums
    (the optimizer's updates, its step counters, the global step) and the two
    slices share no op: the replicas then stay copies of each other. Its
    random ops (``random``: their occurrences, random_streams.py) run as the
    replicas' traces ran them: a kernel per replica, seeded as discovery's op."""
    sums = graph.get_collection(_GRADIENT_SUMS)
    if not sums:
        return None
    replica_gradients, summed, variables = zip(*sums, strict=True)
    gradients = graph_slice.slice_of(
        (list(replica_gradients), spec.loss), model_inputs, random=random
    )
    updates = graph_slice.slice_of(
        spec.train_op, [*model_inputs, *summed], writes=True, random=random
    )
    if gradients is None or updates is None or gradients.node_names() & updates.node_names():
        return None
    if not _all_writes_follow(updates, {tensor.op.name for tensor in summed}):
        return None
    return ReplicatedStep(gradients, updates, variables)


def _all_writes_follow(updates: graph_slice.GraphSlice, sums: set[str]) -> bool:
    """Whether every op of ``updates`` that writes a variable runs after one of
    the gradient sums (through its inputs or control inputs)."""
    after_a_sum: set[str] = set()
    for node in updates.nodes():  # creation order: an op's inputs come before it
        sources = {_op_name(source) for source in node.input}
        if sources & sums or sources & after_a_sum:
            after_a_sum.add(node.name)
        elif graph_slice.writes_variables(node.op):
            return False
    return True


def _op_name(input_name: str) -> str:
    return input_name.lstrip("^").split(":")[0]
