"""``npu_bridge.hccl.hccl_ops`` on one rank (the legacy side runs one process): an
all-reduce over a single rank returns its tensor."""

import tensorflow as tf


def allreduce(tensor, reduction, fusion=1, fusion_id=-1, group="hccl_world_group"):
    if reduction not in ("sum", "prod", "max", "min"):
        raise ValueError(f"unsupported reduction {reduction}")
    return tf.identity(tensor)


def allgather(tensor, rank_size, group="hccl_world_group"):
    if rank_size != 1:
        raise NotImplementedError("more than one Ascend rank needs HCCL")
    return tf.identity(tensor)
