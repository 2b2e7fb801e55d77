"""Which ``tf.distribute`` strategy a training run uses, decided in one place.

- ``RunConfig(train_distribute=...)``: the user's strategy, as Estimator used it
  (also the override for a TPUEstimator).
- A model_fn written for replicas (``TPUEstimator(use_tpu=True)``) with a TPU
  named by ``tpu.RunConfig(cluster=TPUClusterResolver(...))`` or
  ``tpu.RunConfig(master=...)``: connect, initialize the TPU system,
  ``TPUStrategy``.
- A TF_CONFIG cluster whose training tasks are ``chief``/``worker`` (no ``ps``):
  synchronous training on every worker with ``MultiWorkerMirroredStrategy``,
  which reads the same TF_CONFIG. (A legacy Estimator ran such a cluster as
  between-graph replication, which needs parameter servers to share variables.)
- A cluster with ``ps`` tasks: asynchronous training with
  ``ParameterServerStrategy``, the chief (or legacy ``master``) coordinating;
  workers and ps tasks serve it (:mod:`estimator_revival.distribute.parameter_servers`).
- A model_fn written for replicas on a machine with several GPUs:
  ``MirroredStrategy`` over them. (A plain Estimator stays on one GPU there, as
  it did: its model_fn never asked for replicas.)
- Otherwise no strategy: one device.
"""

from __future__ import annotations

import logging

import tensorflow as tf
from tensorflow.python.eager import context

from estimator_revival.distribute import cluster, parameter_servers
from estimator_revival.distribute.cluster import TaskType

log = logging.getLogger("tensorflow")

TRAINING_TASKS = (TaskType.CHIEF, TaskType.WORKER)


def training_strategy(
    config, *, replicated_model_fn: bool = False
) -> tf.distribute.Strategy | None:
    """The strategy training runs on (None: one device, no strategy). Built
    eagerly, as connecting to a cluster must be, in a TF 1 program too
    (``disable_v2_behavior()``)."""
    with context.eager_mode():
        return _training_strategy(config, replicated_model_fn)


def _training_strategy(config, replicated_model_fn: bool) -> tf.distribute.Strategy | None:
    if config.train_distribute is not None:
        return config.train_distribute
    if replicated_model_fn:
        resolver = tpu_cluster_resolver(config)
        if resolver is not None:
            return tpu_strategy(resolver)
    if config.cluster_spec and config.num_ps_replicas > 0:
        if config.is_chief:
            return parameter_servers.parameter_server_strategy(config)
        return None  # a worker or ps task serves the chief
    if config.cluster_spec and config.task_type in (*TRAINING_TASKS, TaskType.MASTER):
        return _multi_worker_strategy(config)
    if replicated_model_fn:
        gpus = tf.config.list_logical_devices("GPU")
        if len(gpus) > 1:
            log.info("Training on %d GPUs with MirroredStrategy.", len(gpus))
            return tf.distribute.MirroredStrategy([gpu.name for gpu in gpus])
    return None


def tpu_cluster_resolver(config):
    """The TPU a TPU RunConfig names (None when it names none)."""
    cluster = getattr(config, "cluster", None)
    if cluster is not None:
        return cluster
    master = getattr(config, "tpu_master", None)
    if not master:
        return None
    return tf.distribute.cluster_resolver.TPUClusterResolver(tpu=master)


def tpu_strategy(resolver) -> tf.distribute.Strategy:
    """Connects to the TPU, initializes its system and returns a TPUStrategy on it."""
    if resolver.master() not in ("", "local"):
        tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    log.info("Training on TPU %s with TPUStrategy.", resolver.master())
    return tf.distribute.TPUStrategy(resolver)


def _multi_worker_strategy(config) -> tf.distribute.Strategy:
    log.info(
        "TF_CONFIG task %s:%d of %d workers: training with MultiWorkerMirroredStrategy.",
        config.task_type,
        config.task_id,
        config.num_worker_replicas,
    )
    if TaskType.MASTER in config.cluster_spec.jobs:
        # The legacy `master` job is the chief (MultiWorkerMirroredStrategy's own
        # TF_CONFIG reading knows no `master`).
        return tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=cluster.resolver_for(config)
        )
    return tf.distribute.MultiWorkerMirroredStrategy()


def is_multi_worker(strategy: tf.distribute.Strategy | None) -> bool:
    return strategy is not None and strategy.extended._in_multi_worker_mode()
