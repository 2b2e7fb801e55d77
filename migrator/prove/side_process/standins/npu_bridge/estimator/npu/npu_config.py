"""NPURunConfig: tf.estimator.RunConfig with npu_bridge's defaults; the
Ascend-only options are accepted and have no effect here."""

import inspect

import tensorflow as tf

RUN_CONFIG_ARGS = frozenset(inspect.signature(tf.estimator.RunConfig).parameters)


class NPURunConfig(tf.estimator.RunConfig):
    def __init__(
        self,
        iterations_per_loop=1,
        save_checkpoints_steps=None,
        save_checkpoints_secs=None,
        save_summary_steps=0,
        **kwargs,
    ):
        run_config_args = {
            name: kwargs.pop(name) for name in list(kwargs) if name in RUN_CONFIG_ARGS
        }
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            save_checkpoints_steps = 100
        self.iterations_per_loop = iterations_per_loop
        self.ascend_options = kwargs
        super().__init__(
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs,
            save_summary_steps=save_summary_steps,
            **run_config_args,
        )


class DumpConfig:
    """Which ops' data the NPU dumped; nothing is dumped here."""

    def __init__(self, **options):
        self.options = options


class ProfilingConfig:
    """What the Ascend profiler recorded; it does not run here."""

    def __init__(self, enable_profiling=False, profiling_options=None):
        self.enable_profiling = enable_profiling
        self.profiling_options = profiling_options
