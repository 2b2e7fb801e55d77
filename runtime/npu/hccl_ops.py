"""``npu_bridge.hccl.hccl_ops``: HCCL collectives across the Ascend ranks, as
collectives across the replicas of the ``tf.distribute`` strategy (one replica,
no strategy: the tensor itself)."""

from __future__ import annotations

import tensorflow as tf

_REDUCE_ACROSS_GATHERED = {"max": tf.reduce_max, "min": tf.reduce_min, "prod": tf.reduce_prod}


def allreduce(tensor, reduction, fusion=1, fusion_id=-1, group="hccl_world_group"):
    """``tensor`` reduced across replicas by ``reduction`` ("sum", "max", "min" or
    "prod"). ``fusion`` and ``fusion_id`` only grouped HCCL transfers; ``group``
    must be the world group (sub-groups of ranks have no strategy equivalent)."""
    if reduction != "sum" and reduction not in _REDUCE_ACROSS_GATHERED:
        raise ValueError(
            f"hccl_ops.allreduce(reduction={reduction!r}): use 'sum', 'max', 'min' or 'prod'."
        )
    if group != "hccl_world_group":
        raise NotImplementedError(
            f"hccl_ops.allreduce(group={group!r}): the runtime reduces across all replicas "
            "of the strategy, not sub-groups (docs/runtime.md, 'What the runtime refuses')."
        )
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return tf.identity(tensor)
    if reduction == "sum":
        return context.all_reduce(tf.distribute.ReduceOp.SUM, tensor)
    gathered = context.all_gather(tf.expand_dims(tensor, 0), axis=0)
    return _REDUCE_ACROSS_GATHERED[reduction](gathered, axis=0)


def allgather(tensor, rank_size, group="hccl_world_group"):
    """``tensor`` of every replica, concatenated along its first axis in replica
    order (``rank_size`` is the number of ranks, which the strategy knows)."""
    del rank_size
    if group != "hccl_world_group":
        raise NotImplementedError(
            f"hccl_ops.allgather(group={group!r}): the runtime gathers across all replicas "
            "of the strategy, not sub-groups (docs/runtime.md, 'What the runtime refuses')."
        )
    tensor = tf.convert_to_tensor(tensor)
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return tf.identity(tensor)
    return context.all_gather(tensor, axis=0)
