"""``tf.estimator.experimental.LinearSDCA``: the linear estimators trained by
stochastic dual coordinate ascent, as tensorflow-estimator 2.15 built them.

Each model weight has an ``<name>_unshrunk`` twin that the ``SdcaOptimizerV2``
kernel updates; the model's weights are then set from them, shrunk by the L1
regularization (TF ran that as a chief hook's op after the train op; here it is
part of the train op, which is what the Session ran in each step). Each example's
dual state lives in a dense hash table keyed by the fingerprint of its id,
sharded into ``ShardedMutableHashTable-<i>-of-<n>`` tables that checkpoints save.

The kernel visits a batch's examples in an order it draws from
``std::random_device`` (with ``adaptive=True``, it samples them so too), so that
TensorFlow's own runs of batches of many examples differ from each other; with one
example per step it is deterministic, and the runtime's numbers are TF's bit for bit.
"""

from typing import NamedTuple

import tensorflow as tf
from tensorflow.python.feature_column import feature_column_lib
from tensorflow.python.feature_column import feature_column_v2 as fc
from tensorflow.python.ops import gen_sdca_ops, lookup_ops

from estimator_revival.canned.heads import BinaryClassHead, RegressionHead
from estimator_revival.canned.partitions import is_partitioned, parts
from estimator_revival.canned.v1 import head as v1_head


class LinearSDCA:
    """What ``optimizer=`` of ``LinearClassifier`` (binary) and ``LinearRegressor``
    (one label dimension) takes to train by SDCA: each example needs a string id in
    the feature ``example_id_column``."""

    def __init__(
        self,
        example_id_column,
        num_loss_partitions=1,
        num_table_shards=None,
        symmetric_l1_regularization=0.0,
        symmetric_l2_regularization=1.0,
        adaptive=False,
    ):
        self._example_id_column = example_id_column
        self._num_loss_partitions = num_loss_partitions
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = symmetric_l1_regularization
        self._symmetric_l2_regularization = symmetric_l2_regularization
        self._adaptive = adaptive

    def get_train_step(
        self,
        state_manager,
        weight_column_name,
        loss_type,
        feature_columns,
        features,
        targets,
        bias_var,
        global_step,
    ):
        """The SDCA model of the linear model's columns and its train op."""
        batch_size = tf.compat.v1.shape(targets)[0]
        cache = fc.FeatureTransformationCache(features)
        sparse_features, sparse_weights, dense_features, dense_weights = [], [], [], []
        for column in sorted(feature_columns, key=lambda column: column.name):
            if isinstance(column, fc.CategoricalColumn):
                ids = column.get_sparse_tensors(cache, state_manager)
                sparse_features.append(_unique_valid_ids(ids))
                sparse_weights.append(state_manager.get_variable(column, "weights"))
            elif isinstance(column, fc.DenseColumn):
                if column.variable_shape.ndims != 1:
                    raise ValueError(
                        f"Column {type(column).__name__} has rank "
                        f"{column.variable_shape.ndims}, larger than 1."
                    )
                dense_features.append(column.get_dense_tensor(cache, state_manager))
                dense_weights.append(state_manager.get_variable(column, "weights"))
            else:
                raise ValueError(
                    f"LinearSDCA does not support column type {type(column).__name__}."
                )
        dense_features.append(tf.ones([batch_size, 1]))
        dense_weights.append(bias_var)
        if weight_column_name:
            example_weights = tf.reshape(features[weight_column_name], shape=[-1])
        else:
            example_weights = tf.ones([batch_size])
        model = SDCAModel(
            sparse_features=sparse_features,
            dense_features=dense_features,
            labels=tf.compat.v1.to_float(tf.reshape(targets, shape=[-1])),
            example_weights=example_weights,
            example_ids=features[self._example_id_column],
            sparse_weights=sparse_weights,
            dense_weights=dense_weights,
            loss_type=loss_type,
            l1=self._symmetric_l1_regularization,
            l2=self._symmetric_l2_regularization,
            num_loss_partitions=self._num_loss_partitions,
            num_table_shards=self._num_table_shards or 1,
            adaptive=self._adaptive,
        )
        return model, model.minimize(global_step=global_step)


class _SparseIds(NamedTuple):
    """A categorical column's batch: the example of each id, the id, its weight."""

    example_indices: tf.Tensor  # int64
    feature_indices: tf.Tensor  # int64
    feature_values: tf.Tensor  # float32


def _unique_valid_ids(id_weight_pair) -> _SparseIds:
    """Each example's ids once (their weights summed), without the negative ids an
    out-of-vocabulary lookup gives."""
    id_tensor = id_weight_pair.id_tensor
    if id_weight_pair.weight_tensor:
        weights = id_weight_pair.weight_tensor.values
    else:
        weights = tf.ones([tf.compat.v1.shape(id_tensor.indices)[0]], tf.float32)
    example_ids = tf.reshape(id_tensor.indices[:, 0], [-1])
    flat_ids = tf.cast(tf.reshape(id_tensor.values, [-1]), dtype=tf.int64)
    valid = tf.math.greater_equal(flat_ids, 0)
    flat_ids = tf.compat.v1.boolean_mask(flat_ids, valid)
    example_ids = tf.compat.v1.boolean_mask(example_ids, valid)
    weights = tf.compat.v1.boolean_mask(weights, valid)
    # One number per (example, id), so that unique() merges an example's repeats.
    projection_length = tf.math.reduce_max(flat_ids) + 1
    projected_ids = projection_length * example_ids + flat_ids
    ids, index = tf.unique(projected_ids)
    count = tf.compat.v1.shape(ids)[0]
    examples = tf.math.unsorted_segment_min(example_ids, index, count)
    return _SparseIds(
        examples,
        ids - projection_length * examples,
        tf.reshape(tf.math.unsorted_segment_sum(weights, index, count), [-1]),
    )


def _as_tensor(value):
    """A tensor, or a weight's value (a partitioned one's parts concatenated)."""
    if is_partitioned(value):
        value = tf.concat(parts(value), axis=0)
    return tf.convert_to_tensor(value)


def _base_name(variable) -> str:
    """A variable's name without the ``:0`` (a graph variable's op name)."""
    return variable.name.rsplit(":", 1)[0]


class SDCAModel:
    """The kernel's inputs, the ``_unshrunk`` weights it updates, and the table of
    each example's dual state."""

    def __init__(
        self,
        *,
        sparse_features,
        dense_features,
        labels,
        example_weights,
        example_ids,
        sparse_weights,
        dense_weights,
        loss_type,
        l1,
        l2,
        num_loss_partitions,
        num_table_shards,
        adaptive,
    ):
        if l2 <= 0.0:
            raise ValueError("symmetric_l2_regularization should be positive.")
        if l2 <= 1.0:
            tf.compat.v1.logging.warn(
                "symmetric_l2_regularization for SDCA should typically be larger than "
                "for online optimization methods. Recommended value is of the order of "
                "the average L2 norm of the training examples."
            )
        if l1 < 0.0:
            raise ValueError("symmetric_l1_regularization should be non-negative.")
        self._sparse_features = sparse_features
        self._dense_features = dense_features
        self._labels = labels
        self._example_weights = example_weights
        self._example_ids = example_ids
        self._weights = {"sparse": sparse_weights, "dense": dense_weights}
        self._loss_type = loss_type
        self._l1 = l1
        self._l2 = l2
        self._num_loss_partitions = num_loss_partitions
        self._adaptive = adaptive
        self._unshrunk = {kind: [_unshrunk(w) for w in ws] for kind, ws in self._weights.items()}
        self._table = _ShardedDenseHashTable(num_table_shards)
        # What the summaries read (the table, the weights) is read before the step
        # updates it: TF 1's Session raced them, and this was its usual outcome.
        self._summarized = (self.approximate_duality_gap(), self._table.size())
        tf.compat.v1.summary.scalar("approximate_duality_gap", self._summarized[0])
        tf.compat.v1.summary.scalar("examples_seen", self._summarized[1])

    def _every_weight(self) -> list:
        return [
            part for kind in ("sparse", "dense") for w in self._weights[kind] for part in parts(w)
        ]

    def _regularization(self, scope: str, penalty) -> tf.Tensor:
        with tf.compat.v1.name_scope(scope):
            return tf.math.add_n(
                [
                    tf.math.reduce_sum(penalty(tf.cast(tf.convert_to_tensor(w), tf.float64)))
                    for w in self._every_weight()
                ]
            )

    def _l1_loss(self) -> tf.Tensor:
        return self._l1 * self._regularization("sdca/l1_loss", tf.math.abs)

    def _l2_loss(self) -> tf.Tensor:
        return self._l2 * self._regularization("sdca/l2_loss", tf.math.square) / 2.0

    def approximate_duality_gap(self) -> tf.Tensor:
        """(primal loss + dual loss + regularization) over the examples' weights, as
        the table holds them."""
        with tf.compat.v1.name_scope("sdca/approximate_duality_gap"):
            sums = []
            for values in self._table.exported_values():
                with tf.control_dependencies(sums):
                    sums.append(tf.math.reduce_sum(tf.cast(values, dtype=tf.float64), 0))
            total = tf.math.add_n(sums)
            primal_loss, dual_loss, example_weights = total[1], total[2], total[3]
            return (
                primal_loss + dual_loss + self._l1_loss() + 2.0 * self._l2_loss()
            ) / example_weights

    def minimize(self, global_step):
        """Runs the kernel on the batch; updates the unshrunk weights, the examples'
        states and the global step."""
        with tf.compat.v1.name_scope(None, "sdca/minimize"):
            example_ids = gen_sdca_ops.sdca_fprint(tf.convert_to_tensor(self._example_ids))
            states = self._table.lookup(example_ids)
            unique_ids, placements = [], []
            for unshrunk, sparse in zip(
                self._unshrunk["sparse"], self._sparse_features, strict=True
            ):
                ids = tf.cast(tf.unique(tf.cast(sparse.feature_indices, tf.int32))[0], tf.int64)
                unique_ids.append(ids)
                kind = _Placement if is_partitioned(unshrunk) else _Whole
                placements.append(kind(unshrunk, ids))
            gathered = [placement.gather() for placement in placements]
            new_states, sparse_updates, dense_updates = gen_sdca_ops.sdca_optimizer_v2(
                [f.example_indices for f in self._sparse_features],
                [f.feature_indices for f in self._sparse_features],
                [f.feature_values for f in self._sparse_features],
                [_as_tensor(f) for f in self._dense_features],
                tf.convert_to_tensor(self._example_weights),
                tf.convert_to_tensor(self._labels),
                unique_ids,
                gathered,
                [_as_tensor(w) for w in self._unshrunk["dense"]],
                states,
                loss_type=self._loss_type,
                l1=self._l1,
                l2=self._l2,
                num_loss_partitions=self._num_loss_partitions,
                num_inner_iterations=1,
                adaptive=self._adaptive,
            )
            with tf.control_dependencies([new_states, *self._summarized]):
                updates = [self._table.insert(example_ids, new_states)]
                for placement, update in zip(placements, sparse_updates, strict=True):
                    updates += placement.scatter_add(update)
                for unshrunk, update in zip(self._unshrunk["dense"], dense_updates, strict=True):
                    updates += _assign_add(unshrunk, update)
            with tf.control_dependencies(updates):
                return tf.compat.v1.assign_add(global_step, 1).op

    def update_weights(self, train_op, loss):
        """Sets the weights from their unshrunk twins after ``train_op`` and after
        the step's ``loss``, then shrinks them towards zero by l1 / l2.

        TF 1's Session raced the loss's reads of the weights with this update
        (its chief hook's), and the reads usually came first. The dependency on
        the loss makes that order hold by data, not only by a function's
        automatic control dependencies: a clean-clone CI run once saw one step's
        loss computed from one weight as updated (docs/canned.md)."""
        with tf.control_dependencies([train_op, loss]):
            updates = [
                part.assign(unshrunk_part)
                for kind in ("sparse", "dense")
                for w, unshrunk in zip(self._weights[kind], self._unshrunk[kind], strict=True)
                for part, unshrunk_part in zip(parts(w), parts(unshrunk), strict=True)
            ]
        if self._l1 <= 0:
            return tf.group(*updates)
        shrinkage = self._l1 / self._l2
        with tf.control_dependencies(updates):
            return tf.group(
                *[
                    w.assign(tf.math.sign(w) * tf.math.maximum(0.0, tf.math.abs(w) - shrinkage))
                    for w in self._every_weight()
                ]
            )


def _unshrunk(weights):
    """A weight's (or each part's) ``<name>_unshrunk`` twin, zeros."""
    twins = [
        tf.Variable(tf.zeros(part.shape, tf.float32), name=_base_name(part) + "_unshrunk")
        for part in parts(weights)
    ]
    return twins if is_partitioned(weights) else twins[0]


def _assign_add(unshrunk, update) -> list:
    if not is_partitioned(unshrunk):
        return [tf.compat.v1.assign_add(unshrunk, update)]
    updates = tf.split(update, num_or_size_splits=[part.shape.as_list()[0] for part in unshrunk])
    return [tf.compat.v1.assign_add(part, u) for part, u in zip(unshrunk, updates, strict=True)]


class _Whole:
    """A batch's feature ids in a weight of one part: its rows."""

    def __init__(self, variable, ids):
        self._variable = variable
        self._ids = ids

    def gather(self):
        return tf.compat.v1.gather(tf.convert_to_tensor(self._variable), self._ids)

    def scatter_add(self, update) -> list:
        return [tf.compat.v1.scatter_add(self._variable, self._ids, update)]


class _Placement:
    """Where a batch's feature ids fall in a partitioned weight: the part (ids are
    split into contiguous ranges, the first parts one longer) and the row in it."""

    def __init__(self, variable_parts: list, ids):
        self._parts = variable_parts
        count = len(variable_parts)
        flat_ids = tf.reshape(ids, [-1])
        rows = sum(part.shape[0] for part in variable_parts)
        total = tf.constant(rows, flat_ids.dtype)
        per_part = total // count
        extras = total % count
        assignments = tf.math.maximum(flat_ids // (per_part + 1), (flat_ids - extras) // per_part)
        rows_in_part = tf.where(
            assignments < extras, flat_ids % (per_part + 1), (flat_ids - extras) % per_part
        )
        self._assignments = tf.cast(assignments, tf.int32)
        self._rows = tf.dynamic_partition(rows_in_part, self._assignments, count)
        self._positions = tf.dynamic_partition(
            tf.range(tf.compat.v1.shape(rows_in_part)[0]), self._assignments, count
        )

    def gather(self):
        gathered = [
            tf.compat.v1.gather(part, rows)
            for part, rows in zip(self._parts, self._rows, strict=True)
        ]
        return tf.dynamic_stitch(self._positions, gathered)

    def scatter_add(self, update) -> list:
        updates = tf.dynamic_partition(update, self._assignments, len(self._parts))
        return [
            tf.compat.v1.scatter_add(part, rows, u)
            for part, rows, u in zip(self._parts, self._rows, updates, strict=True)
        ]


class _ShardedDenseHashTable:
    """Each example's dual state (4 floats) by the fingerprint of its id (2 int64s),
    in ``shards`` dense hash tables; a key's shard is its first half mod ``shards``."""

    def __init__(self, shards: int, name: str = "ShardedMutableHashTable"):
        with tf.compat.v1.name_scope(name, "sharded_mutable_hash_table"):
            self._shards = [
                lookup_ops.DenseHashTable(
                    tf.int64,
                    tf.float32,
                    default_value=[0.0, 0.0, 0.0, 0.0],
                    empty_key=[0, 0],
                    deleted_key=[1, 1],
                    name=f"{name}-{i + 1}-of-{shards}",
                )
                for i in range(shards)
            ]

    def size(self):
        with tf.compat.v1.name_scope(None, "sharded_mutable_hash_table_size"):
            return tf.math.add_n([shard.size() for shard in self._shards])

    def _shard_of(self, keys):
        first_halves = tf.reshape(tf.slice(keys, [0, 0], [-1, 1]), [-1])
        return tf.cast(tf.math.floormod(tf.math.abs(first_halves), len(self._shards)), tf.int32)

    def lookup(self, keys):
        if len(self._shards) == 1:
            return self._shards[0].lookup(keys)
        shard_of = self._shard_of(keys)
        count = len(self._shards)
        values = [
            shard.lookup(shard_keys)
            for shard, shard_keys in zip(
                self._shards, tf.dynamic_partition(keys, shard_of, count), strict=True
            )
        ]
        positions = tf.dynamic_partition(tf.range(tf.compat.v1.shape(keys)[0]), shard_of, count)
        return tf.dynamic_stitch(positions, values)

    def insert(self, keys, values):
        if len(self._shards) == 1:
            return self._shards[0].insert(keys, values)
        shard_of = self._shard_of(keys)
        count = len(self._shards)
        key_shards = tf.dynamic_partition(keys, shard_of, count)
        value_shards = tf.dynamic_partition(values, shard_of, count)
        return tf.group(
            *[
                shard.insert(k, v)
                for shard, k, v in zip(self._shards, key_shards, value_shards, strict=True)
            ]
        )

    def exported_values(self) -> list:
        """Each shard's values, buckets by row (the shape stated: a traced step cannot
        infer it from a table made outside it)."""
        return [tf.reshape(shard.export()[1], [-1, 4]) for shard in self._shards]


def loss_type_of(head) -> str:
    """The kernel's loss for a binary or a one-dimensional regression head, TF 2's
    or TF 1's."""
    if isinstance(head, BinaryClassHead | v1_head._BinaryHead):
        return "logistic_loss"
    if isinstance(head, RegressionHead | v1_head._RegressionHead) and head.logits_dimension == 1:
        return "squared_loss"
    raise ValueError(f"Unsupported head type: {head}")


def check_arguments(optimizer, feature_columns, sparse_combiner, *, n_classes=2, label_dimension=1):
    """What ``LinearClassifier`` and ``LinearRegressor`` refuse with SDCA, as TF did
    when they were made."""
    if not isinstance(optimizer, LinearSDCA):
        return
    if sparse_combiner != "sum":
        raise ValueError('sparse_combiner must be "sum" when optimizer is a LinearSDCA object.')
    if not feature_column_lib.is_feature_column_v2(feature_columns):
        raise ValueError("V2 feature columns required when optimizer is a LinearSDCA object.")
    if n_classes > 2:
        raise ValueError("LinearSDCA cannot be used in a multi-class setting.")
    if label_dimension > 1:
        raise ValueError("LinearSDCA can only be used with one-dimensional label.")
