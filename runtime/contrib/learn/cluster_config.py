"""How ``tf.contrib.learn.RunConfig`` read TF_CONFIG: TF 1.15's ``ClusterConfig``
(``contrib/learn/python/learn/estimators/run_config.py``), which never ran the
core RunConfig's parsing. So none of the core checks apply (no ``chief`` or
``master`` is required, an ``evaluator`` may sit anywhere), and:

- ``task_type`` is None without a task, ``task_id`` 0 when the index is absent or 0;
- ``master`` is the task's own address (``grpc://``), '' on a one-task cluster,
  and a task type the cluster lacks is an error unless ``master`` is given;
- ``num_worker_replicas`` counts the ``worker`` and ``master`` jobs (0 with no cluster);
- ``is_chief`` depends on the ``environment``: with no task, task 0 is the chief;
  in ``"cloud"``, ``master`` 0; anywhere else, ``worker`` 0.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.distribute.cluster import (
    GRPC_SCHEME,
    LOCAL_MASTER,
    ClusterSetting,
    TaskType,
    check_in_cluster,
)

CLOUD = "cloud"
LOCAL = "local"


def environment(tf_config: dict) -> str:
    """Where the job runs (``Environment``): ``TF_CONFIG["environment"]``, else ``"local"``."""
    return tf_config.get("environment", LOCAL)


def cluster_setting(tf_config: dict, master, evaluation_master) -> ClusterSetting:
    """This task's place in the cluster, as contrib's ``ClusterConfig(master,
    evaluation_master)`` set it from the decoded TF_CONFIG."""
    task_env = tf_config.get("task", {})
    task_type = task_env.get("type")
    task_id = int(task_env["index"]) if task_env.get("index") else 0
    cluster_spec = tf.train.ClusterSpec(tf_config.get("cluster", {}))
    jobs = cluster_spec.as_dict()
    return ClusterSetting(
        cluster_spec=cluster_spec,
        task_type=task_type,
        task_id=task_id,
        master=master if master is not None else _master(cluster_spec, task_type, task_id),
        evaluation_master=evaluation_master or LOCAL_MASTER,
        num_ps_replicas=len(jobs.get(TaskType.PS, [])),
        num_worker_replicas=len(jobs.get(TaskType.WORKER, [])) + len(jobs.get(TaskType.MASTER, [])),
        global_id_in_cluster=None,
        is_chief=_is_chief(environment(tf_config), task_type, task_id),
        service=None,
    )


def _master(cluster_spec: tf.train.ClusterSpec, task_type, task_id: int) -> str:
    jobs = cluster_spec.jobs
    if not jobs or not task_type:
        return LOCAL_MASTER
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return LOCAL_MASTER  # one task: run in process
    check_in_cluster(
        cluster_spec,
        task_type,
        task_id,
        task_id_note="Note that these value may be coming from the TF_CONFIG environment variable.",
    )
    return GRPC_SCHEME + cluster_spec.job_tasks(task_type)[task_id]


def _is_chief(environment_name: str, task_type, task_id: int) -> bool:
    if task_type is None:
        return task_id == 0
    if environment_name == CLOUD:
        return task_type == TaskType.MASTER and task_id == 0
    return task_type == TaskType.WORKER and task_id == 0
