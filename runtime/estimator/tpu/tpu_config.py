"""``tf.compat.v1.estimator.tpu``'s configuration: TPUConfig, InputPipelineConfig,
and the TPU RunConfig (docs/estimator_contract.md §1.10)."""

from __future__ import annotations

import collections
import json
import logging
import os
import re

import numpy as np

from estimator_revival.engine.run_config import RunConfig as _RunConfig
from estimator_revival.engine.run_config import TaskType

log = logging.getLogger("tensorflow")


class InputPipelineConfig:
    """How input_fn is called per host or per shard."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


_ITERATIONS = re.compile(r"^([1-9]\d*)([smh]?)$")
_VALID_CORES_PER_REPLICA = (1, 2, 4, 8, 16, 32, 64, 128)


class TPUConfig(
    collections.namedtuple(
        "TPUConfig",
        [
            "iterations_per_loop",
            "num_shards",
            "num_cores_per_replica",
            "per_host_input_for_training",
            "tpu_job_name",
            "initial_infeed_sleep_secs",
            "input_partition_dims",
            "eval_training_input_configuration",
            "experimental_host_call_every_n_steps",
            "experimental_allow_per_host_v2_parallel_get_next",
            "experimental_feed_hook",
        ],
    )
):
    """TPU related configuration (``tf.compat.v1.estimator.tpu.TPUConfig``)."""

    def __new__(
        cls,
        iterations_per_loop=2,
        num_shards=None,
        num_cores_per_replica=None,
        per_host_input_for_training=True,
        tpu_job_name=None,
        initial_infeed_sleep_secs=None,
        input_partition_dims=None,
        eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
        experimental_host_call_every_n_steps=1,
        experimental_allow_per_host_v2_parallel_get_next=False,
        experimental_feed_hook=None,
    ):
        parse_iterations_per_loop(iterations_per_loop)
        if num_shards is not None:
            check_positive_integer(num_shards, "TPUConfig num_shards")
        if input_partition_dims is not None:
            _check_input_partition_dims(
                input_partition_dims, per_host_input_for_training, num_cores_per_replica
            )
        if (
            num_cores_per_replica is not None
            and num_cores_per_replica not in _VALID_CORES_PER_REPLICA
        ):
            raise ValueError(
                f"num_cores_per_replica must be 1, 2, 4, 8, 16, 32, 64, 128; got {num_cores_per_replica}"
            )
        if eval_training_input_configuration not in (
            InputPipelineConfig.PER_HOST_V1,
            InputPipelineConfig.SLICED,
        ):
            raise ValueError(
                "eval_training_input_configuration must be PER_HOST_V1 or SLICED; got "
                f"{eval_training_input_configuration}"
            )
        if per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        elif per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        if initial_infeed_sleep_secs:
            check_positive_integer(initial_infeed_sleep_secs, "TPUConfig initial_infeed_sleep_secs")
        tpu_job_name = tpu_job_name or _tpu_job_name_from_tf_config()
        return super().__new__(
            cls,
            iterations_per_loop,
            num_shards,
            num_cores_per_replica,
            per_host_input_for_training,
            tpu_job_name,
            initial_infeed_sleep_secs,
            input_partition_dims,
            eval_training_input_configuration,
            experimental_host_call_every_n_steps,
            experimental_allow_per_host_v2_parallel_get_next,
            experimental_feed_hook,
        )


def _check_input_partition_dims(dims, per_host_input_for_training, num_cores_per_replica):
    if len(dims) not in (1, 2):
        raise ValueError("input_partition_dims must be a list/tuple with one or two elements.")
    if per_host_input_for_training is not InputPipelineConfig.PER_HOST_V2:
        raise ValueError("input_partition_dims is only supported in PER_HOST_V2 mode.")
    if num_cores_per_replica is None:
        raise ValueError("input_partition_dims requires setting num_cores_per_replica.")


def check_positive_integer(value, name: str) -> None:
    """TPUEstimator's check of counts and sizes: an int (TypeError), above 0 (ValueError)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be int, got {type(value)}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")


def _tpu_job_name_from_tf_config() -> str | None:
    """TF_CONFIG's ``service.tpu_worker_job_name``, which TPUConfig read as the default."""
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    job_name = tf_config.get("service", {}).get("tpu_worker_job_name")
    if job_name:
        log.info("Load TPU job name from TF_CONFIG: %s", job_name)
    return job_name


def parse_iterations_per_loop(value) -> tuple[int, str]:
    """``(count, "count")`` or ``(seconds, "seconds")`` from ``100`` or ``"30s"``/``"5m"``/``"1h"``."""
    match = _ITERATIONS.match(str(value))
    if match is None:
        raise ValueError(
            "Invalid TPUConfig `iterations_per_loop` value. Value must be positive integer "
            "value or time-based value `<N><s|m|h>` where <N> is anypositive integer and "
            "`s`, `m`, `h` are unit of time in seconds, minutes, hours respectively. "
            "Examples of valid values: `3600s`, `60m`, `1h`."
        )
    count, unit = int(match.group(1)), match.group(2)
    if not unit:
        return count, "count"
    return count * {"s": 1, "m": 60, "h": 3600}[unit], "seconds"


class RunConfig(_RunConfig):
    """RunConfig with TPU settings (``tf.compat.v1.estimator.tpu.RunConfig``)."""

    def __init__(
        self, tpu_config=None, evaluation_master=None, master=None, cluster=None, **kwargs
    ):
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        self._cluster = cluster
        if master is not None and cluster is not None:
            raise ValueError("Both master and cluster are set.")
        if cluster is not None:
            master = cluster.master()
        self._tpu_master = master
        if master is not None:
            self._master = master
        if evaluation_master is not None:
            self._evaluation_master = evaluation_master
        elif not self._evaluation_master and self.task_type != TaskType.EVALUATOR:
            # Without a cluster manager's TF_CONFIG naming an evaluator, TPU
            # RunConfig evaluated on the training master.
            self._evaluation_master = self._master

    @property
    def tpu_config(self) -> TPUConfig:
        return self._tpu_config

    @property
    def cluster(self):
        return self._cluster

    @property
    def tpu_master(self) -> str | None:
        """The TPU given as ``master`` or by ``cluster`` (None: none given)."""
        return self._tpu_master

    def replace(self, **kwargs) -> RunConfig:
        if "tpu_config" not in kwargs:
            return super().replace(**kwargs)
        tpu_config = kwargs.pop("tpu_config")
        new = super().replace(**kwargs)
        new._tpu_config = tpu_config
        return new
