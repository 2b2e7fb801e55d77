"""``tf.contrib.distribute``'s MirroredStrategy with TF 1.15's arguments.

TF 2's ``tf.distribute.MirroredStrategy`` takes only ``devices`` and
``cross_device_ops``; Estimator code of 2018-2019 wrote
``tf.contrib.distribute.MirroredStrategy(num_gpus=4)`` into
``RunConfig(train_distribute=...)``. TF 1.15 chose the devices so: the given
``devices``; else ``num_gpus`` (or ``num_gpus_per_worker``) GPUs, all GPUs when
neither is given, the CPU when that count is 0; and the cross-device ops as TF
1.15's ``choose_the_best`` did (:mod:`estimator_revival.distribute.tf1_cross_device_ops`:
``ReductionToOneDevice`` when a named GPU is not on this machine, whose replica
soft placement ran on the CPU). ``auto_shard_dataset`` only
concerned the contrib strategy's own input distribution, which the runtime does
as the Estimator did.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.distribute import tf1_cross_device_ops


class MirroredStrategy(tf.distribute.MirroredStrategy):
    def __init__(
        self,
        devices=None,
        num_gpus=None,
        num_gpus_per_worker=None,
        cross_device_ops=None,
        auto_shard_dataset=False,
        cross_tower_ops=None,
    ) -> None:
        if cross_device_ops is not None and cross_tower_ops is not None:
            raise ValueError("Give cross_device_ops or its old name cross_tower_ops, not both.")
        if num_gpus is not None and num_gpus_per_worker is not None:
            raise ValueError("You cannot specify both `num_gpus` and `num_gpus_per_worker`.")
        if devices is None:
            devices = _gpus_or_cpu(num_gpus if num_gpus is not None else num_gpus_per_worker)
        cross_device_ops = cross_device_ops or cross_tower_ops
        if cross_device_ops is None and tf1_cross_device_ops.reduces_to_one_device(devices):
            cross_device_ops = tf.distribute.ReductionToOneDevice()
        super().__init__(devices=devices, cross_device_ops=cross_device_ops)


def _gpus_or_cpu(count: int | None) -> list[str]:
    if count is None:
        count = len(tf.config.list_logical_devices("GPU"))
    return [f"/device:GPU:{index}" for index in range(count)] or ["/device:CPU:0"]
