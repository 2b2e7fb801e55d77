"""How a MirroredStrategy reduces across its replicas, as TF 1.15 chose it.

TF 1.15's MirroredStrategy, when not given ``cross_device_ops``, picked them with
``cross_device_ops.choose_the_best(devices)``: ``ReductionToOneDevice`` when a
requested device is not visible to TensorFlow (``GPU:1`` on a machine with one GPU
or none: soft placement put that replica's ops on the CPU) or is not a GPU; NCCL
all-reduce only when every requested GPU exists. TF 2's MirroredStrategy picks
collective all-reduce instead, which on devices that do not exist waits forever
for replicas that share one device. Where TF 1.15 chose ``ReductionToOneDevice``
the runtime chooses it too; where it chose NCCL, TF 2's collective NCCL all-reduce
is the same reduction and is kept.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.distribute import device_util

_MIRRORED = (tf.distribute.MirroredStrategy, tf.compat.v1.distribute.MirroredStrategy)


def reduces_to_one_device(devices) -> bool:
    """Whether TF 1.15's ``choose_the_best`` picked ``ReductionToOneDevice`` for
    ``devices``: one is not visible here, or one is not a GPU."""
    requested = {device_util.canonicalize(device) for device in devices}
    visible = {device_util.canonicalize(device.name) for device in tf.config.list_logical_devices()}
    return not requested <= visible or any("GPU" not in device.upper() for device in requested)


def as_tf1_chose(strategy):
    """``strategy``, or for a single-machine MirroredStrategy whose cross-device ops
    TF 2 chose where TF 1.15 chose ``ReductionToOneDevice``, the same strategy
    reducing to one device as TF 1.15's did."""
    if type(strategy) not in _MIRRORED:
        return strategy
    extended = strategy.extended
    # TF 2 sets _cross_device_ops to its own collective ops when none were given
    chosen_by_tf2 = extended._cross_device_ops is extended._collective_ops
    devices = extended.worker_devices
    on_this_machine = all(device.startswith("/job:localhost/") for device in devices)
    if not (chosen_by_tf2 and on_this_machine and len(devices) > 1):
        return strategy
    if not reduces_to_one_device(devices):
        return strategy
    return type(strategy)(devices=devices, cross_device_ops=tf.distribute.ReductionToOneDevice())
