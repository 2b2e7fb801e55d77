"""How a TPUEstimator run on replicas lays out its batches, and the
``params["context"]`` object model_fn and input_fn receive
(``tf.compat.v1.estimator.tpu.TPUContext``; docs/estimator_contract.md §1.10)."""

from __future__ import annotations

import dataclasses

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.estimator.tpu.tpu_config import InputPipelineConfig


@dataclasses.dataclass(frozen=True)
class ReplicaLayout:
    """The batch sizes of one mode on ``num_replicas`` replicas fed by
    ``num_hosts`` input pipelines (one per worker)."""

    mode: str
    global_batch_size: int
    num_replicas: int
    num_hosts: int
    per_host_input: int  # an InputPipelineConfig value

    def __post_init__(self) -> None:
        if self.per_host_input == InputPipelineConfig.BROADCAST:
            raise NotImplementedError(
                "TPUConfig(per_host_input_for_training=BROADCAST) (Mesh-TensorFlow's "
                "replicated input) is not supported by the runtime (docs/runtime.md, "
                "'What the runtime refuses')."
            )
        if self.global_batch_size % self.num_replicas:
            raise ValueError(
                f"{self.mode} batch size {self.global_batch_size} must be divisible by "
                f"number of replicas {self.num_replicas}"
            )

    @property
    def batch_size_for_model_fn(self) -> int:
        """Per shard: the global batch split across the replicas."""
        return self.global_batch_size // self.num_replicas

    @property
    def input_per_replica(self) -> bool:
        """Whether input_fn yields one replica's batches (PER_HOST_V2, and
        PER_SHARD_V1 in training) rather than one host's (PER_HOST_V1)."""
        if self.per_host_input == InputPipelineConfig.PER_HOST_V2:
            return True
        return self.mode == ModeKeys.TRAIN and (
            self.per_host_input == InputPipelineConfig.PER_SHARD_V1
        )

    @property
    def batch_size_for_input_fn(self) -> int:
        if self.input_per_replica:
            return self.batch_size_for_model_fn
        return self.global_batch_size // self.num_hosts

    @property
    def num_of_replicas_per_host(self) -> int:
        return self.num_replicas // self.num_hosts


class TPUContext:
    """``params["context"]``: the replica layout, and for input_fn the host it
    runs for (TensorFlow's TPUContext raises when model_fn asks for those)."""

    def __init__(self, layout: ReplicaLayout, *, host_id: int | None = None) -> None:
        self._layout = layout
        self._host_id = host_id

    @property
    def num_replicas(self) -> int:
        return self._layout.num_replicas

    @property
    def num_hosts(self) -> int:
        return self._layout.num_hosts

    @property
    def num_of_replicas_per_host(self) -> int:
        return self._layout.num_of_replicas_per_host

    @property
    def current_host(self) -> int:
        return self._from_input_fn(self._host_id)

    def current_input_fn_deployment(self) -> tuple:
        """``(host device, invocation index, invocation count, replicas it feeds)``."""
        host_id = self._from_input_fn(self._host_id)
        layout = self._layout
        replicas_fed = 1 if layout.input_per_replica else layout.num_of_replicas_per_host
        return f"/job:worker/task:{host_id}/device:CPU:0", host_id, layout.num_hosts, replicas_fed

    @property
    def device_assignment(self):
        """None: replicas are placed by the tf.distribute strategy."""
        if self._host_id is not None:
            raise RuntimeError("This TPUContext instance must not be called from input_fn.")
        return None

    def _from_input_fn(self, value):
        if self._host_id is None:
            raise RuntimeError("This TPUContext instance must not be called from model_fn.")
        return value
