"""Which ``tf.distribute`` strategy a training run uses, decided in one place.

- ``RunConfig(train_distribute=...)``: the user's strategy, as Estimator used it.
- A TF_CONFIG cluster whose training tasks are ``chief``/``worker`` (no ``ps``):
  synchronous training on every worker with ``MultiWorkerMirroredStrategy``,
  which reads the same TF_CONFIG. (A legacy Estimator ran such a cluster as
  between-graph replication, which needs parameter servers to share variables.)
- A cluster with ``ps`` tasks: a clear error; ParameterServerStrategy runs user
  code on a coordinator only, a different process model from Estimator's.
- Otherwise no strategy: one device.
"""

from __future__ import annotations

import logging

import tensorflow as tf

from runtime.cluster import TaskType

log = logging.getLogger("runtime")

TRAINING_TASKS = (TaskType.CHIEF, TaskType.WORKER)


def training_strategy(config) -> tf.distribute.Strategy | None:
    if config.train_distribute is not None:
        return config.train_distribute
    if not config.cluster_spec or config.task_type not in (*TRAINING_TASKS, TaskType.MASTER):
        return None
    if config.num_ps_replicas > 0:
        raise ValueError(
            "TF_CONFIG describes a cluster with `ps` tasks (asynchronous parameter-server "
            "training), which the runtime does not run: ParameterServerStrategy executes "
            "model_fn on a coordinator only. Drop the `ps` job to train synchronously on "
            "every chief/worker task with MultiWorkerMirroredStrategy."
        )
    if config.task_type == TaskType.MASTER:
        raise ValueError(
            "TF_CONFIG uses the legacy `master` job; name it `chief` to train on several "
            "workers with MultiWorkerMirroredStrategy."
        )
    log.info(
        "TF_CONFIG task %s:%d of %d workers: training with MultiWorkerMirroredStrategy.",
        config.task_type,
        config.task_id,
        config.num_worker_replicas,
    )
    return tf.distribute.MultiWorkerMirroredStrategy()


def is_multi_worker(strategy: tf.distribute.Strategy | None) -> bool:
    return strategy is not None and strategy.extended._in_multi_worker_mode()
