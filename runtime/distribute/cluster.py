"""Reads the cluster layout from TF_CONFIG the way ``tf.estimator.RunConfig`` did.

Returns a plain value object; RunConfig copies it onto itself. Error texts match
``tensorflow_estimator``'s ``run_config.py``.
"""

from __future__ import annotations

import dataclasses

import tensorflow as tf

LOCAL_MASTER = ""
GRPC_SCHEME = "grpc://"


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


@dataclasses.dataclass(frozen=True)
class ClusterSetting:
    cluster_spec: tf.train.ClusterSpec
    task_type: str
    task_id: int
    master: str
    evaluation_master: str
    num_ps_replicas: int
    num_worker_replicas: int
    global_id_in_cluster: int | None
    is_chief: bool
    service: dict | None


def from_tf_config(tf_config: dict) -> ClusterSetting:
    """Parses a decoded TF_CONFIG dict (``{}`` means local training)."""
    service = tf_config.get("service")
    if service is not None and not isinstance(service, dict):
        raise TypeError(
            f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}'
        )
    cluster_spec = tf.train.ClusterSpec(tf_config.get("cluster", {}))
    task_env = tf_config.get("task", {})
    if not cluster_spec:
        return _local(tf_config, task_env, service)
    if TaskType.MASTER in cluster_spec.jobs:
        return _with_master(tf_config, cluster_spec, task_env, service)
    task_type, task_id = _validate_task(cluster_spec, task_env, TaskType.CHIEF)
    evaluation_master = _evaluation_master(task_type, tf_config)
    if task_type == TaskType.EVALUATOR:
        # The evaluator is not part of the training cluster.
        return ClusterSetting(
            cluster_spec=tf.train.ClusterSpec({}),
            task_type=task_type,
            task_id=task_id,
            master=LOCAL_MASTER,
            evaluation_master=evaluation_master,
            num_ps_replicas=0,
            num_worker_replicas=0,
            global_id_in_cluster=None,
            is_chief=False,
            service=service,
        )
    return ClusterSetting(
        cluster_spec=cluster_spec,
        task_type=task_type,
        task_id=task_id,
        master=_session_master(cluster_spec, task_type, task_id, tf_config),
        evaluation_master=evaluation_master,
        num_ps_replicas=len(cluster_spec.as_dict().get(TaskType.PS, [])),
        num_worker_replicas=_count_workers(cluster_spec, TaskType.CHIEF),
        global_id_in_cluster=_global_id(cluster_spec, task_type, task_id, TaskType.CHIEF),
        is_chief=task_type == TaskType.CHIEF,
        service=service,
    )


def _local(tf_config: dict, task_env: dict, service) -> ClusterSetting:
    task_type = task_env.get("type", TaskType.WORKER)
    task_id = int(task_env.get("index", 0))
    if task_type != TaskType.WORKER:
        raise ValueError('If "cluster" is not set in TF_CONFIG, task type must be WORKER.')
    if task_id != 0:
        raise ValueError('If "cluster" is not set in TF_CONFIG, task index must be 0.')
    return ClusterSetting(
        cluster_spec=tf.train.ClusterSpec({}),
        task_type=task_type,
        task_id=task_id,
        master=tf_config.get("session_master", LOCAL_MASTER),
        evaluation_master=tf_config.get("eval_session_master", LOCAL_MASTER),
        num_ps_replicas=0,
        num_worker_replicas=1,
        global_id_in_cluster=0,
        is_chief=True,
        service=service,
    )


def _with_master(tf_config, cluster_spec, task_env, service) -> ClusterSetting:
    """The legacy layout where a ``master`` job plays the chief's role."""
    if TaskType.CHIEF in cluster_spec.jobs:
        raise ValueError("If `master` node exists in `cluster`, job `chief` is not supported.")
    task_type, task_id = _validate_task(cluster_spec, task_env, TaskType.MASTER)
    if task_type == TaskType.EVALUATOR:
        raise ValueError(
            "If `master` node exists in `cluster`, task_type `evaluator` is not supported."
        )
    return ClusterSetting(
        cluster_spec=cluster_spec,
        task_type=task_type,
        task_id=task_id,
        master=_session_master(cluster_spec, task_type, task_id, tf_config),
        evaluation_master=_evaluation_master(task_type, tf_config),
        num_ps_replicas=len(cluster_spec.as_dict().get(TaskType.PS, [])),
        num_worker_replicas=_count_workers(cluster_spec, TaskType.MASTER),
        global_id_in_cluster=_global_id(cluster_spec, task_type, task_id, TaskType.MASTER),
        is_chief=task_type == TaskType.MASTER,
        service=service,
    )


def _validate_task(cluster_spec, task_env: dict, chief_task_type: str) -> tuple[str, int]:
    if chief_task_type not in cluster_spec.jobs:
        raise ValueError(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief_task_type}" node.'
        )
    if len(cluster_spec.job_tasks(chief_task_type)) > 1:
        raise ValueError(f'The "cluster" in TF_CONFIG must have only one "{chief_task_type}" node.')
    task_type = task_env.get("type")
    task_id = task_env.get("index")
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError("Task index must be non-negative number.")
    if task_type == TaskType.EVALUATOR:
        return task_type, task_id
    check_in_cluster(cluster_spec, task_type, task_id)
    return task_type, task_id


TF_CONFIG_NOTE = "Note that these values may be coming from the TF_CONFIG environment variable."


def check_in_cluster(
    cluster_spec: tf.train.ClusterSpec, task_type: str, task_id: int, *, task_id_note=TF_CONFIG_NOTE
) -> None:
    """RunConfig's errors for a task ``cluster_spec`` lacks (``task_id_note``: the
    last line of the task_id's, which contrib's RunConfig worded otherwise)."""
    if task_type not in cluster_spec.jobs:
        raise ValueError(
            f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster_spec}\n\n"
            + TF_CONFIG_NOTE
        )
    if not 0 <= task_id < len(cluster_spec.job_tasks(task_type)):
        raise ValueError(
            f"{task_id} is not a valid task_id for task_type {task_type} in the "
            f"cluster_spec:\n{cluster_spec}\n\n{task_id_note}"
        )


def _session_master(cluster_spec, task_type: str, task_id: int, tf_config: dict) -> str:
    if "session_master" in tf_config:
        return tf_config["session_master"]
    jobs = cluster_spec.jobs
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return LOCAL_MASTER
    return GRPC_SCHEME + cluster_spec.job_tasks(task_type)[task_id]


def _evaluation_master(task_type: str, tf_config: dict) -> str:
    if task_type == TaskType.EVALUATOR:
        return tf_config.get("eval_session_master", LOCAL_MASTER)
    return LOCAL_MASTER


def _count_workers(cluster_spec, chief_task_type: str) -> int:
    jobs = cluster_spec.as_dict()
    return len(jobs.get(TaskType.WORKER, [])) + len(jobs.get(chief_task_type, []))


def _global_id(cluster_spec, task_type: str, task_id: int, chief_task_type: str) -> int:
    """Chief first, the other jobs alphabetically, ps last."""
    ordered = [chief_task_type]
    ordered += [t for t in sorted(cluster_spec.jobs) if t not in (chief_task_type, TaskType.PS)]
    if TaskType.PS in cluster_spec.jobs:
        ordered.append(TaskType.PS)
    next_id = 0
    for job in ordered:
        if job == task_type:
            return next_id + task_id
        next_id += len(cluster_spec.job_tasks(job))
    raise RuntimeError(
        f"Internal Error: `task_type` ({task_type}) is not in cluster_spec ({cluster_spec})."
    )


def with_chief(cluster_spec: tf.train.ClusterSpec) -> tf.train.ClusterSpec:
    """The training cluster as ``tf.distribute`` names it: the legacy ``master``
    job is the ``chief``, and the ``evaluator`` is not part of it."""
    jobs = dict(cluster_spec.as_dict())
    if TaskType.MASTER in jobs:
        jobs[TaskType.CHIEF] = jobs.pop(TaskType.MASTER)
    jobs.pop(TaskType.EVALUATOR, None)
    return tf.train.ClusterSpec(jobs)


def chief_named(task_type: str) -> str:
    """``task_type`` as ``tf.distribute`` names it (``master`` is the ``chief``)."""
    return TaskType.CHIEF if task_type == TaskType.MASTER else task_type


def resolver_for(config) -> tf.distribute.cluster_resolver.ClusterResolver:
    """This task's place in the training cluster, as ``tf.distribute`` reads it."""
    return tf.distribute.cluster_resolver.SimpleClusterResolver(
        with_chief(config.cluster_spec),
        task_type=chief_named(config.task_type),
        task_id=config.task_id,
        rpc_layer="grpc",
    )
