"""What a legacy Estimator's distributed training graph drew, for MirroredStrategy.

``Estimator(config=RunConfig(train_distribute=MirroredStrategy(...)))`` built its
training graph in another order than its one-device graph: input_fn first,
through ``strategy.make_input_fn_iterator``, then the global step, then model_fn
once per replica through ``call_for_each_replica``, with mirrored variables that
add ops of their own. Unseeded initializers and random ops take their op seeds
from the graph's op count, so they drew other numbers than on one device, and
each replica's random ops other seeds than the replica before it.

:func:`replicated_draws` builds that graph in a throwaway ``tf.Graph`` with the
same strategy and takes from it the variables' initial values, input_fn's op
seeds and each replica's model_fn seeds; the replicas' model_fn calls move
Python's and numpy's generators on as they did. Everything else (which variables,
collections, summaries) stays as one-device discovery found it.
"""

from __future__ import annotations

import collections
import dataclasses

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_revival.calls.model_fn_call import split_features_labels
from estimator_revival.distribute.replication import components, replica_index
from estimator_revival.tf1 import global_random, seeds, session_config
from estimator_revival.tf1.discovery import Blueprint, CreationLog, VariableRecord

MIRRORED_STRATEGIES = (tf.distribute.MirroredStrategy, tf.compat.v1.distribute.MirroredStrategy)


def builds_its_own_graph(strategy: tf.distribute.Strategy) -> bool:
    """Whether the legacy Estimator trained on ``strategy`` in a graph of this
    process alone (MirroredStrategy; a multi-worker graph's initializers wait
    for the other workers)."""
    return isinstance(strategy, MIRRORED_STRATEGIES)


@dataclasses.dataclass(frozen=True)
class ReplicatedDraws:
    """What the legacy distributed training graph drew."""

    initial_values: dict  # {TF 1 name: value}; partitioners are off under a strategy
    input_seeds: tuple
    replica_model_seeds: tuple[tuple, ...]

    def applied_to(self, blueprint: Blueprint) -> Blueprint:
        return dataclasses.replace(
            blueprint,
            variables=tuple(self._with_initial_value(record) for record in blueprint.variables),
            input_seeds=self.input_seeds,
            replica_model_seeds=self.replica_model_seeds,
        )

    def _with_initial_value(self, record: VariableRecord) -> VariableRecord:
        if record.partition is not None:  # one slice of the whole variable
            full_name, _, offset, shape = record.partition
            if full_name not in self.initial_values:
                return record
            part = tuple(
                slice(start, start + size) for start, size in zip(offset, shape, strict=True)
            )
            return _with_initial(record, self.initial_values[full_name][part])
        if record.name not in self.initial_values:
            return record
        return _with_initial(record, self.initial_values[record.name])


def _with_initial(record: VariableRecord, value) -> VariableRecord:
    return dataclasses.replace(record, initial=lambda: value)


def replicated_draws(
    mode: str,
    *,
    strategy: tf.distribute.Strategy,
    input_fn_result,
    call_model_fn,
    random_seed: int | None,
) -> ReplicatedDraws:
    """Builds the legacy distributed graph of ``mode``. input_fn has been called
    already (its draws from Python's and numpy's generators are not repeated);
    model_fn's calls in every replica move the generators on as they did in the
    legacy graph (tf_keras draws unseeded initializers' seeds from them).
    ``input_fn_result(input_context)`` calls the user's input_fn;
    ``call_model_fn(features, labels, mode)`` model_fn."""
    graph = tf.Graph()
    creations = CreationLog()
    input_seeds: list = []
    replica_seeds: list = []
    with graph.as_default(), strategy.scope(), strategy._scale_loss_for_estimator_enabled():
        tf.compat.v1.random.set_random_seed(random_seed)
        with seeds.recording(input_seeds), global_random.unchanged():
            iterator = strategy.make_input_fn_iterator(input_fn_result)
        global_step = tf.compat.v1.train.create_global_step(graph)
        tf.compat.v1.add_to_collection(
            training_util.GLOBAL_STEP_READ_KEY, strategy.extended.read_var(global_step)
        )
        features, labels = split_features_labels(iterator.get_next())
        skip_initializers = lambda: creations.depth > 0  # noqa: E731
        with (
            seeds.recording(replica_seeds, skip_while=skip_initializers, tag=replica_index),
            tf.variable_creator_scope(creations.creator),
        ):
            strategy.extended.call_for_each_replica(call_model_fn, args=(features, labels, mode))
    return ReplicatedDraws(
        initial_values=_initial_values(graph, [variable for _, variable in creations.created]),
        input_seeds=tuple(input_seeds),
        replica_model_seeds=_by_replica(replica_seeds, strategy.num_replicas_in_sync),
    )


def _by_replica(tagged_seeds: list, num_replicas: int) -> tuple:
    drawn = collections.defaultdict(list)
    for replica, seed_pair in tagged_seeds:
        drawn[replica].append(seed_pair)
    return tuple(tuple(drawn[replica]) for replica in range(num_replicas))


def _initial_values(graph: tf.Graph, variables: list) -> dict:
    """``{TF 1 name: initial value}`` of the variables (replica 0's copy)."""
    primaries = [components(variable)[0] for variable in variables]
    with tf.compat.v1.Session(graph=graph, config=session_config.placement_config()) as session:
        session.run(tf.compat.v1.variables_initializer(variables))
        values = session.run([primary.value() for primary in primaries])
    return {primary.op.name: value for primary, value in zip(primaries, values, strict=True)}
