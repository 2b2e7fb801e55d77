"""NPUEstimator and NPUEstimatorSpec on tf.estimator: a spec's ``host_call`` runs
with every step, as TPUEstimatorSpec's does on CPU."""

import tensorflow as tf


def NPUEstimatorSpec(mode, host_call=None, **kwargs):  # noqa: N802 -- npu_bridge's name
    if host_call is None:
        return tf.estimator.EstimatorSpec(mode, **kwargs)
    spec = tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, host_call=host_call, **kwargs)
    return spec.as_estimator_spec()


class NPUEstimator(tf.estimator.Estimator):
    def __init__(
        self,
        model_fn=None,
        model_dir=None,
        config=None,
        params=None,
        job_start_file="",
        warm_start_from=None,
    ):
        super().__init__(
            model_fn=model_fn,
            model_dir=model_dir,
            config=config,
            params=params,
            warm_start_from=warm_start_from,
        )
