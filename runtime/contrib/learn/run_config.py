"""``tf.contrib.learn.RunConfig``: TF 1.15's contrib arguments on the runtime's
RunConfig (its ``tf_config`` session options, the cluster read from TF_CONFIG as
contrib read it, and the ``uid()`` that ``learn_runner`` checks)."""

from __future__ import annotations

import json
import os

import tensorflow as tf

from estimator_revival.contrib.learn import cluster_config
from estimator_revival.distribute import cluster
from estimator_revival.engine import run_config

# The properties uid() leaves out by default: the ones a user may change
# between the runs of one experiment (TF 1.15's _DEFAULT_UID_WHITE_LIST).
_UID_WHITELIST = (
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
)
_USE_DEFAULT = 0


class RunConfig(run_config.RunConfig):
    def __init__(
        self,
        master=None,
        num_cores=0,
        log_device_placement=False,
        gpu_memory_fraction=1,
        tf_random_seed=None,
        save_summary_steps=100,
        save_checkpoints_secs=_USE_DEFAULT,
        save_checkpoints_steps=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        protocol=None,
        evaluation_master="",
        model_dir=None,
        session_config=None,
        session_creation_timeout_secs=7200,
    ) -> None:
        if save_checkpoints_secs == _USE_DEFAULT:
            save_checkpoints_secs = 600 if save_checkpoints_steps is None else None
        # what the cluster setting starts from (_cluster_setting)
        self._master = master
        self._evaluation_master = evaluation_master
        super().__init__(
            model_dir=model_dir,
            tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs,
            session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps,
            protocol=protocol,
            session_creation_timeout_secs=session_creation_timeout_secs,
        )
        self._tf_config = tf.compat.v1.ConfigProto(
            log_device_placement=log_device_placement,
            inter_op_parallelism_threads=num_cores,
            intra_op_parallelism_threads=num_cores,
            gpu_options=tf.compat.v1.GPUOptions(
                per_process_gpu_memory_fraction=gpu_memory_fraction
            ),
        )

    @staticmethod
    def _read_tf_config() -> dict:
        """TF_CONFIG, decoded; an empty one is none, as contrib read it."""
        return json.loads(os.environ.get("TF_CONFIG") or "{}")

    def _cluster_setting(self, tf_config: dict) -> cluster.ClusterSetting:
        self._environment = cluster_config.environment(tf_config)  # read with the cluster
        return cluster_config.cluster_setting(tf_config, self._master, self._evaluation_master)

    @property
    def tf_config(self) -> tf.compat.v1.ConfigProto:
        return self._tf_config

    @property
    def environment(self) -> str:
        return self._environment

    def uid(self, whitelist=None) -> str:
        """The fields' values, but the ``whitelist`` (default: the ones a user may
        change between runs), as one string: equal for a copy of this config."""
        whitelist = _UID_WHITELIST if whitelist is None else whitelist
        state = {key: value for key, value in vars(self).items() if not key.startswith("__")}
        for name in whitelist:
            state.pop("_" + name, None)
        if "_cluster_spec" in state:
            state["_cluster_spec"] = sorted(state["_cluster_spec"].as_dict().items())
        return ", ".join(f"{key}={value!r}" for key, value in sorted(state.items()))
