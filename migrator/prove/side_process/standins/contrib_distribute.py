"""``tf.contrib.distribute``'s strategies for the legacy side, written from what TF
1.15's ``contrib/distribute/python/mirrored_strategy.py``, ``one_device_strategy.py``
and ``tpu_strategy.py`` and core's ``cross_device_ops.choose_the_best`` did
(migrator/prove/side_process/standins/README.md). The runtime side uses runtime/contrib/."""

import tensorflow as tf
from tensorflow.python.client import device_lib
from tensorflow.python.distribute import device_util

# TF 1.15's contrib names for core strategies with the same arguments
OneDeviceStrategy = tf.compat.v1.distribute.OneDeviceStrategy
TPUStrategy = tf.compat.v1.distribute.experimental.TPUStrategy


def MirroredStrategy(  # noqa: N802 - TF 1.15's class name
    devices=None,
    num_gpus=None,
    num_gpus_per_worker=None,
    cross_device_ops=None,
    auto_shard_dataset=False,
    cross_tower_ops=None,
):
    """TF 1.15's contrib MirroredStrategy: ``devices``, else ``num_gpus`` (or
    ``num_gpus_per_worker``) GPUs named ``/device:GPU:i`` whether or not this machine
    has them (all its GPUs when neither is given; the CPU for 0), and without
    ``cross_device_ops`` the ones ``choose_the_best`` picked for those devices."""
    del auto_shard_dataset  # the contrib strategy's own input splitting: not the Estimator's
    assert not (cross_device_ops and cross_tower_ops)
    if num_gpus is not None and num_gpus_per_worker is not None:
        raise ValueError("You cannot specify both `num_gpus` and `num_gpus_per_worker`.")
    if num_gpus is None:
        num_gpus = num_gpus_per_worker
    if devices is None:
        if num_gpus is None:
            num_gpus = len(tf.config.list_physical_devices("GPU"))
        devices = tuple(f"/device:GPU:{index}" for index in range(num_gpus)) or ("/device:CPU:0",)
    cross_device_ops = cross_device_ops or cross_tower_ops or choose_the_best(devices)
    return tf.compat.v1.distribute.MirroredStrategy(devices, cross_device_ops=cross_device_ops)


def choose_the_best(devices):
    """TF 1.15's choice: reduce to one device unless every requested device is a
    GPU this machine has; then NCCL all-reduce."""
    requested = {device_util.canonicalize(device) for device in devices}
    present = {
        device_util.canonicalize(device.name): device.device_type
        for device in device_lib.list_local_devices()
    }
    if not requested <= present.keys():
        return tf.distribute.ReductionToOneDevice()
    if any(present[device] != "GPU" for device in requested):
        return tf.distribute.ReductionToOneDevice()
    return tf.distribute.NcclAllReduce(num_packs=1)
