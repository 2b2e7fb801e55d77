"""``RunConfig``: checkpoint, summary and cluster settings (``tf.estimator.RunConfig``).

Defaults, validation messages, ``replace`` and TF_CONFIG parsing follow
``tensorflow_estimator`` 2.15 (docs/estimator_contract.md §1.3).
"""

from __future__ import annotations

import copy
import inspect
import json
import os

import tensorflow as tf

from estimator_revival.distribute import cluster, tf1_cross_device_ops
from estimator_revival.distribute.cluster import TaskType

__all__ = ["RunConfig", "TaskType"]

_USE_DEFAULT = object()

REPLACEABLE = [
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
]
_CLUSTER_FIELDS = [f.name for f in cluster.ClusterSetting.__dataclass_fields__.values()]

_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."

# (property, condition, message): checked on every construction and replace().
_VALIDATIONS = [
    ("model_dir", lambda v: v, "model_dir should be non-empty"),
    ("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0"),
    ("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0"),
    ("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0"),
    (
        "session_config",
        lambda v: isinstance(v, tf.compat.v1.ConfigProto),
        "session_config must be instance of ConfigProto",
    ),
    ("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0"),
    (
        "keep_checkpoint_every_n_hours",
        lambda v: v > 0,
        "keep_checkpoint_every_n_hours should be > 0",
    ),
    ("log_step_count_steps", lambda v: v > 0, "log_step_count_steps should be > 0"),
    ("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer."),
    (
        "experimental_max_worker_delay_secs",
        lambda v: isinstance(v, int),
        "experimental_max_worker_delay_secs must be an integer if set.",
    ),
    (
        "session_creation_timeout_secs",
        lambda v: v > 0,
        "session_creation_timeout_secs should be > 0",
    ),
    (
        "device_fn",
        lambda v: callable(v) and list(inspect.signature(v).parameters) == ["op"],
        'device_fn must be callable with exactly one argument "op".',
    ),
    (
        "protocol",
        lambda v: v in (None, "grpc", "grpc+verbs"),
        "protocol should be grpc or grpc+verbs",
    ),
]


class RunConfig:
    """Configuration of an Estimator run (``tf.estimator.RunConfig``)."""

    def __init__(
        self,
        model_dir=None,
        tf_random_seed=None,
        save_summary_steps=100,
        save_checkpoints_steps=_USE_DEFAULT,
        save_checkpoints_secs=_USE_DEFAULT,
        session_config=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        train_distribute=None,
        device_fn=None,
        protocol=None,
        eval_distribute=None,
        experimental_distribute=None,
        experimental_max_worker_delay_secs=None,
        session_creation_timeout_secs=7200,
        checkpoint_save_graph_def=True,
    ):
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
        for strategy in (train_distribute, eval_distribute):
            if isinstance(strategy, tf.distribute.experimental.ParameterServerStrategy):
                raise ValueError(
                    "Please use `tf.compat.v1.distribute.experimental.ParameterServerStrategy` "
                    "for parameter server strategy with estimator."
                )
        tf_config = self._read_tf_config()
        self._set(
            model_dir=_model_dir(tf_config, model_dir),
            tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs,
            session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps,
            train_distribute=train_distribute,
            device_fn=device_fn,
            protocol=protocol,
            eval_distribute=eval_distribute,
            experimental_distribute=experimental_distribute,
            experimental_max_worker_delay_secs=experimental_max_worker_delay_secs,
            session_creation_timeout_secs=session_creation_timeout_secs,
            checkpoint_save_graph_def=checkpoint_save_graph_def,
        )
        setting = self._cluster_setting(tf_config)
        for name in _CLUSTER_FIELDS:
            setattr(self, "_" + name, getattr(setting, name))

    @staticmethod
    def _read_tf_config() -> dict:
        """TF_CONFIG, decoded (an empty one is not JSON)."""
        return json.loads(os.environ.get("TF_CONFIG", "{}"))

    def _cluster_setting(self, tf_config: dict) -> cluster.ClusterSetting:
        """This task's place in the cluster TF_CONFIG describes (contrib's
        RunConfig read it otherwise: runtime/contrib/learn/cluster_config.py)."""
        return cluster.from_tf_config(tf_config)

    def replace(self, **kwargs) -> RunConfig:
        """Returns a copy with the given properties replaced (only REPLACEABLE ones)."""
        return copy.deepcopy(self)._set(**kwargs)

    def _set(self, **kwargs) -> RunConfig:
        for key, value in kwargs.items():
            if key not in REPLACEABLE:
                raise ValueError(
                    f"Replacing {key} is not supported. Allowed properties are {REPLACEABLE}."
                )
            if key in ("train_distribute", "eval_distribute"):
                value = tf1_cross_device_ops.as_tf1_chose(value)
            setattr(self, "_" + key, value)
        steps_given = "save_checkpoints_steps" in kwargs
        secs_given = "save_checkpoints_secs" in kwargs
        if steps_given and secs_given:
            if self._save_checkpoints_steps is not None and self._save_checkpoints_secs is not None:
                raise ValueError(_SAVE_CKPT_ERR)
        elif steps_given and self._save_checkpoints_steps is not None:
            self._save_checkpoints_secs = None
        elif secs_given and self._save_checkpoints_secs is not None:
            self._save_checkpoints_steps = None
        for name, condition, message in _VALIDATIONS:
            value = getattr(self, "_" + name)
            if value is not None and not condition(value):
                raise ValueError(message)
        return self


def _read_only(name: str) -> property:
    return property(lambda self: getattr(self, "_" + name))


for _name in REPLACEABLE + _CLUSTER_FIELDS:
    setattr(RunConfig, _name, _read_only(_name))


def _model_dir(tf_config: dict, model_dir) -> str | None:
    if hasattr(model_dir, "__fspath__"):
        model_dir = os.fspath(model_dir)
    if model_dir == "":
        raise ValueError("model_dir should be non-empty.")
    from_tf_config = tf_config.get("model_dir")
    if from_tf_config == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if from_tf_config and model_dir and from_tf_config != model_dir:
        raise ValueError(
            "`model_dir` provided in RunConfig construct, if set, must have the same value "
            f"as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
            f'TF_CONFIG["model_dir"]: {from_tf_config}.\n'
        )
    return model_dir or from_tf_config
