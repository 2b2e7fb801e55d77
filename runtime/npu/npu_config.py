"""``NPURunConfig``: npu_bridge's RunConfig (``npu_bridge.estimator.npu.npu_config``).

Its defaults differ from ``tf.estimator.RunConfig``: ``iterations_per_loop=1``,
``save_summary_steps=0``, and checkpoints every 100 steps when neither
``save_checkpoints_steps`` nor ``save_checkpoints_secs`` is given. The many
Ascend-only options (precision mode, dump/profiling, graph memory, HCCL, ...)
are accepted so that legacy code runs unchanged; off an Ascend NPU they have no
effect, and the ones set are named once in a warning.
"""

from __future__ import annotations

import logging

from estimator_revival.engine.run_config import RunConfig

log = logging.getLogger("tensorflow")

DEFAULT_CHECKPOINT_STEPS = 100

# npu_bridge's NPURunConfig arguments that only configure the Ascend stack.
ASCEND_ONLY_OPTIONS = frozenset(
    [
        "enable_data_pre_proc",
        "precision_mode",
        "enable_reduce_precision",
        "variable_format_optimize",
        "mix_compile_mode",
        "hcom_parallel",
        "graph_memory_max_size",
        "variable_memory_max_size",
        "auto_tune_mode",
        "dump_config",
        "stream_max_parallel_num",
        "is_tailing_optimization",
        "horovod_mode",
        "graph_run_mode",
        "op_debug_level",
        "enable_scope_fusion_passes",
        "enable_exception_dump",
        "op_select_implmode",
        "optypelist_for_implmode",
        "dynamic_input_config",
        "aoe_mode",
        "work_path",
        "buffer_optimize",
        "enable_small_channel",
        "fusion_switch_file",
        "enable_compress_weight",
        "compress_weight_conf",
        "op_compiler_cache_mode",
        "op_compiler_cache_dir",
        "debug_dir",
        "hcom_multi_mode",
        "dynamic_input",
        "dynamic_graph_execute_mode",
        "dynamic_inputs_shape_range",
        "local_rank_id",
        "local_device_list",
        "session_device_id",
        "distribute_config",
        "modify_mixlist",
        "op_precision_mode",
        "device_type",
        "soc_config",
        "hccl_timeout",
        "op_wait_timeout",
        "op_execute_timeout",
        "HCCL_algorithm",
        "customize_dtypes",
        "op_debug_config",
        "memory_config",
        "experimental_config",
        "topo_sorting_mode",
        "jit_compile",
    ]
)


class NPURunConfig(RunConfig):
    """RunConfig with npu_bridge's defaults and Ascend-only options."""

    def __init__(
        self,
        iterations_per_loop=1,
        profiling_config=None,
        model_dir=None,
        tf_random_seed=None,
        save_summary_steps=0,
        save_checkpoints_steps=None,
        save_checkpoints_secs=None,
        session_config=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        distribute=None,
        train_distribute=None,
        eval_distribute=None,
        **ascend_options,
    ):
        unknown = sorted(set(ascend_options) - ASCEND_ONLY_OPTIONS)
        if unknown:
            raise TypeError(f"NPURunConfig got unexpected keyword arguments: {', '.join(unknown)}")
        if not isinstance(iterations_per_loop, int) or iterations_per_loop < 1:
            raise ValueError(
                f"NPURunConfig(iterations_per_loop=...) must be an int >= 1; got "
                f"{iterations_per_loop!r}."
            )
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            save_checkpoints_steps = DEFAULT_CHECKPOINT_STEPS
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
            train_distribute=train_distribute,
            eval_distribute=eval_distribute,
        )
        self.iterations_per_loop = iterations_per_loop
        self.profiling_config = profiling_config
        self.distribute = distribute
        self.ascend_options = dict(ascend_options)
        given = {"profiling_config": profiling_config, "distribute": distribute}
        warn_ascend_only(
            "NPURunConfig", [*ascend_options, *(name for name, v in given.items() if v is not None)]
        )


class DumpConfig:
    """npu_bridge's dump settings (which ops' data to dump, where, at which steps):
    kept as attributes; nothing is dumped off an Ascend NPU."""

    def __init__(self, **options) -> None:
        self.__dict__.update(options)
        warn_ascend_only("DumpConfig", [name for name, value in options.items() if value])


class ProfilingConfig:
    """npu_bridge's profiling settings: kept as attributes; the Ascend profiler
    does not run off an Ascend NPU (``tf.profiler`` does, on any device)."""

    def __init__(self, **options) -> None:
        self.__dict__.update(options)
        warn_ascend_only("ProfilingConfig", [name for name, value in options.items() if value])


def warn_ascend_only(owner: str, options) -> None:
    """Names, once per call, the options given that only the Ascend stack reads."""
    options = sorted(options)
    if options:
        log.warning(
            "%s: Ascend-only options %s have no effect off an Ascend NPU.",
            owner,
            ", ".join(options),
        )
