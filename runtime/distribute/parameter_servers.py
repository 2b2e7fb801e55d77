"""TF_CONFIG clusters with ``ps`` tasks, run on ``ParameterServerStrategy``.

Estimator users started every task with the same program and a different
TF_CONFIG: the chief and the workers trained asynchronously with the variables
on the ``ps`` tasks, which served until the job was torn down. Here the chief
(or the legacy ``master``) is TensorFlow 2's coordinator: it creates the
variables on the ps tasks, schedules steps onto the workers and writes the
checkpoints. Workers and ps tasks serve the coordinator; they return once the
chief has come and gone (:func:`serve_until_chief_leaves`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import time

import tensorflow as tf

from estimator_revival.distribute import cluster
from estimator_revival.distribute.cluster import TaskType

log = logging.getLogger("tensorflow")

# How long workers and ps tasks keep serving after the chief went away: long
# enough for a chief that was restarted (its job resumes from its checkpoint)
# to come back.
CHIEF_GONE_GRACE_SECS = 30.0
POLL_SECS = 0.5


def is_parameter_server_strategy(strategy) -> bool:
    return isinstance(strategy, tf.distribute.experimental.ParameterServerStrategy)


def parameter_server_strategy(config) -> tf.distribute.Strategy:
    """The coordinator's strategy (this task is the chief)."""
    resolver = cluster.resolver_for(config)
    spec = resolver.cluster_spec()
    if not spec.as_dict().get(TaskType.WORKER):
        raise ValueError(
            "TF_CONFIG describes a cluster with `ps` tasks but no `worker` task: "
            "ParameterServerStrategy trains on workers only (the chief coordinates)."
        )
    log.info(
        "TF_CONFIG cluster with %d ps and %d worker tasks: this chief coordinates "
        "asynchronous training with ParameterServerStrategy.",
        len(spec.job_tasks(TaskType.PS)),
        len(spec.job_tasks(TaskType.WORKER)),
    )
    return tf.distribute.experimental.ParameterServerStrategy(resolver)


class Scheduler:
    """Runs the programs on the workers, scheduled by the chief's coordinator.

    The coordinator gives the steps of a worker that fails while running them
    to the others, and takes the worker back when it returns. A worker that
    fails after its steps ran but before the chief read their results takes
    the results with it: those steps run again on another worker (so, near the
    end, the global step may pass ``max_steps`` by them, as asynchronous
    Estimator workers could).
    """

    def __init__(self, strategy: tf.distribute.Strategy) -> None:
        self.coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
        self.num_workers = strategy._num_workers

    def run_each(self, calls: list[tuple]) -> list:
        """``program(*args)`` for each ``(program, args)`` of ``calls``, at the
        same time on the workers the coordinator has free; their results."""
        scheduled = [
            (program, args, self.coordinator.schedule(program, args=args))
            for program, args in calls
        ]
        return [self._results(*call) for call in scheduled]

    def _results(self, program, args: tuple, remote):
        """``remote``'s results; run again (once per worker at most, so that an
        error that is not a lost worker cannot loop) when a worker took them."""
        for retries_left in range(self.num_workers, -1, -1):
            try:
                return remote.fetch()
            except (tf.errors.UnavailableError, tf.errors.AbortedError) as error:
                if TaskType.PS in _lost_tasks(error.message) or not retries_left:
                    raise  # lost_tasks_named() says which task and what to do
                log.warning("A worker failed before the chief read its results; running again.")
                remote = self.coordinator.schedule(program, args=args)


@contextlib.contextmanager
def lost_tasks_named():
    """A ps task that stops answering fails the run (it holds variables): the
    error, wherever the coordinator meets it (a step, a checkpoint's reads),
    names the task and says how to go on."""
    try:
        yield
    except (tf.errors.UnavailableError, tf.errors.AbortedError) as error:
        raise type(error)(error.node_def, error.op, _lost_task_message(error.message)) from error


_TASK = re.compile(r"/job:(\w+)/replica:\d+/task:(\d+)")


def _lost_tasks(message: str) -> set[str]:
    """The jobs of the tasks TensorFlow's error message is about."""
    return {job for job, _ in _TASK.findall(message)}


def _lost_task_message(message: str) -> str:
    """Names the task TensorFlow's error is about (a ps task first: a worker's
    error about a ps it could not reach names both)."""
    tasks = [f"{job}:{index}" for job, index in _TASK.findall(message)]
    ps_tasks = [task for task in tasks if task.startswith(TaskType.PS)]
    lost = (ps_tasks or tasks or ["a task of the cluster"])[0]
    return (
        f"Training stopped: {lost} of the parameter-server cluster stopped answering. "
        "Restart it, then the chief: training resumes from the last checkpoint in "
        "model_dir."
    )


def log_placement(variables) -> None:
    """Logs which ps task holds each variable (round robin in creation order,
    as Estimator's ``replica_device_setter`` placed them)."""
    for variable in variables:
        log.info("Variable %s is on %s.", variable.name.split(":")[0], variable.device)


def serve_until_chief_leaves(config) -> None:
    """Runs this worker or ps task's server until the chief has finished.

    A legacy ps task served forever (``server.join()``) and its worker trained;
    here both serve the chief's coordinator, and return once the chief, seen
    at least once, has been unreachable for :data:`CHIEF_GONE_GRACE_SECS`.
    """
    resolver = cluster.resolver_for(config)
    server = tf.distribute.Server(
        resolver.cluster_spec(),
        job_name=resolver.task_type,
        task_index=resolver.task_id,
        protocol=resolver.rpc_layer,
    )
    log.info(
        "Serving as %s:%d of a parameter-server cluster until the chief finishes.",
        config.task_type,
        config.task_id,
    )
    chief = resolver.cluster_spec().job_tasks(TaskType.CHIEF)[0]
    seen, gone_since = False, None
    while True:
        if _reachable(chief):
            seen, gone_since = True, None
        elif seen:
            gone_since = gone_since or time.monotonic()
            if time.monotonic() - gone_since >= CHIEF_GONE_GRACE_SECS:
                log.info("The chief %s has finished; this task stops serving.", chief)
                del server  # held until here: the server runs as long as the object lives
                return
        time.sleep(POLL_SECS)


def _reachable(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=POLL_SECS):
            return True
    except OSError:
        return False
