"""How the compiled steps run on a ``tf.distribute`` strategy.

With the default strategy (one device) model_fn is called directly, exactly as
before any strategy existed, so single-device runs stay bit-identical to the
legacy Estimator. With a replicated strategy (MirroredStrategy,
MultiWorkerMirroredStrategy, TPUStrategy) it is called in every replica through
``strategy.run``, as ``Estimator(config=RunConfig(train_distribute=...))`` called
it through ``call_for_each_replica``: input_fn receives a
``tf.distribute.InputContext`` and yields per-replica batches, v1 optimizers scale
the loss by ``1 / num_replicas`` and sum the gradients across replicas, and the
reported loss is reduced across replicas as the Estimator reduced it.
"""

from __future__ import annotations

import contextlib
import threading

import tensorflow as tf

from estimator_revival.distribute import parameter_servers


class Replication:
    """Runs replica functions and input pipelines on one strategy."""

    def __init__(self, strategy: tf.distribute.Strategy | None = None) -> None:
        self.strategy = strategy or tf.distribute.get_strategy()
        self.replicated = strategy is not None
        # On ParameterServerStrategy the programs run on the workers, scheduled
        # by this (the chief's) coordinator.
        self.scheduler = (
            parameter_servers.Scheduler(strategy)
            if parameter_servers.is_parameter_server_strategy(strategy)
            else None
        )

    @property
    def num_replicas(self) -> int:
        return self.strategy.num_replicas_in_sync

    @contextlib.contextmanager
    def scope(self):
        """The strategy's scope with the Estimator's v1 loss scaling enabled (on a
        parameter-server cluster, errors name a task that stopped answering)."""
        if not self.replicated:
            yield
            return
        with self.strategy.scope(), self.strategy._scale_loss_for_estimator_enabled():
            if self.scheduler is None:
                yield
                return
            with parameter_servers.lost_tasks_named():
                yield

    def input_context(self) -> tf.distribute.InputContext | None:
        """The context input_fn gets on this worker (None without replication)."""
        if not self.replicated:
            return None
        extended = self.strategy.extended
        if hasattr(extended, "_make_input_context"):  # multi-worker: this worker's pipeline
            return extended._make_input_context()
        return tf.distribute.InputContext(
            num_input_pipelines=1,
            input_pipeline_id=0,
            num_replicas_in_sync=self.num_replicas,
        )

    def distribute(self, dataset_fn):
        """A distributed dataset from ``dataset_fn(input_context)``; replica i of
        step k gets element ``k * num_replicas + i`` of this worker's dataset."""
        if self.scheduler is not None:  # one dataset on every worker
            return self.scheduler.coordinator.create_per_worker_dataset(
                lambda: self.strategy.distribute_datasets_from_function(dataset_fn)
            )
        return self.strategy.distribute_datasets_from_function(dataset_fn)

    @property
    def num_workers(self) -> int:
        """The workers programs run on at the same time (the coordinator's)."""
        return 1 if self.scheduler is None else self.scheduler.num_workers

    def call(self, program, *args):
        """``program(*args)``, on a worker when the coordinator schedules it."""
        return self.call_each([(program, args)])[0]

    def call_each(self, calls: list[tuple]) -> list:
        """``program(*args)`` for each ``(program, args)`` of ``calls``; scheduled
        by the coordinator, they run at the same time on the workers it has free."""
        if self.scheduler is None:
            return [program(*args) for program, args in calls]
        return self.scheduler.run_each(calls)

    def run(self, fn, element):
        if not self.replicated:
            return fn(element)
        return self.strategy.run(fn, args=(element,))

    def reduce_loss(self, per_replica_loss):
        """The reported loss (``_get_loss_reduce_op_for_reporting`` in Estimator):
        the mean across replicas when a v1 optimizer scaled the loss, else the sum."""
        if not self.replicated:
            return per_replica_loss
        graph = tf.compat.v1.get_default_graph()
        if getattr(graph, "_is_loss_scaled_by_optimizer", False):
            reduce_op = tf.compat.v1.distribute.get_loss_reduction()
        else:
            reduce_op = tf.distribute.ReduceOp.SUM
        return self.strategy.reduce(reduce_op, per_replica_loss, axis=None)

    def local_results(self, value) -> list:
        """The values of this worker's replicas."""
        if not self.replicated:
            return [value]
        return list(self.strategy.experimental_local_results(value))

    def concatenate(self, per_replica):
        """This worker's replica values of ``per_replica`` concatenated on axis 0,
        as TPUEstimator's outfeed combined host-call tensors (scalars cannot be)."""
        values = self.local_results(per_replica)
        if self.replicated and not isinstance(per_replica, tf.distribute.DistributedValues):
            # every replica returned this same tensor (strategy.run collapses them)
            values = values * len(self.strategy.extended.worker_devices)
        check_outfed(values[0])
        return values[0] if len(values) == 1 else tf.concat(values, axis=0)

    def first_replica(self, value):
        """Replica 0's value of a per-replica or mirrored result."""
        if not self.replicated:
            return value
        return tf.nest.map_structure(
            lambda v: self.strategy.experimental_local_results(v)[0], value
        )


def check_outfed(tensor) -> None:
    """Raises TPUEstimator's error for a host-call tensor without a batch
    dimension to concatenate replicas on (a scalar)."""
    if tensor.shape.rank == 0:
        raise RuntimeError(
            "All tensors outfed from TPU should preserve batch size dimension, "
            f"but got scalar {tensor}"
        )


def assign_in_own_scope(variable, value) -> None:
    """``variable.assign(value)`` in the scope of the strategy that created it
    (a distributed variable assigned outside it would update one replica only)."""
    strategy = getattr(variable, "_distribute_strategy", None)
    scope = strategy.scope() if strategy is not None else contextlib.nullcontext()
    with scope:
        variable.assign(value)


@contextlib.contextmanager
def on_host():
    """Builds ops as a one-device program on the host CPU inside a replicated
    trace, where TPUEstimator ran host calls: the graph's strategy stack is
    cleared, so ``tf.compat.v1.metrics`` and summaries see the default strategy
    and its replica context."""
    graph = tf.compat.v1.get_default_graph()
    strategies = graph._distribution_strategy_stack
    graph._distribution_strategy_stack = []
    try:
        with tf.device("/cpu:0"):
            yield
    finally:
        graph._distribution_strategy_stack = strategies


def replica_index() -> int:
    """This worker's index of the replica whose thread is running (0 outside
    replica threads: the main thread, also where ``merge_call`` functions run)."""
    return getattr(threading.current_thread(), "replica_id", 0)


def components(variable) -> tuple:
    """The per-device variables of a distributed variable (itself otherwise)."""
    if isinstance(variable, tf.distribute.DistributedValues):
        return tuple(variable.values)
    return (variable,)
