"""Hooks and listeners that look the model's graph up in every method, as TF 1
code did under MonitoredSession: prints, as JSON, what each method found and
what its fetches returned. Run under both interpreters; the outputs must match
(tests/runtime/test_runtime_hooks_graph.py).

Usage: python hooks_graph_lookups.py legacy|runtime MODEL_DIR
"""

import json
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

PROBE = "probe_tensors"


def model_fn(features, labels, mode):
    dense = tf.compat.v1.layers.Dense(1, name="dense", kernel_initializer=tf.ones_initializer())
    predictions = dense(features["x"])
    if labels is None:  # predict: the hooks still find an "mse" tensor
        labels = tf.zeros_like(predictions)
    loss = tf.reduce_mean(tf.square(predictions - labels), name="mse")
    with tf.name_scope("probes"):
        tf.compat.v1.add_to_collection(PROBE, tf.reduce_sum(predictions, name="prediction_sum"))
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
    return estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, predictions={"y": predictions}
    )


def input_fn():
    x = np.arange(8, dtype=np.float32).reshape(8, 1)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x + 1)).batch(2).repeat()


def graph_view():
    """What a hook finds in the default graph."""
    graph = tf.compat.v1.get_default_graph()
    return {
        "global_step": tf.compat.v1.train.get_global_step() is not None,
        "probe": [t.name for t in tf.compat.v1.get_collection(PROBE)],
        "mse": graph.get_tensor_by_name("mse:0").name,
    }


class LookupHook(tf.compat.v1.train.SessionRunHook):
    """Looks tensors up in before_run (not in begin) and records what it got."""

    def __init__(self, record):
        self.record = record

    def begin(self):
        self.record.append(["begin", graph_view()])

    def after_create_session(self, session, coord):
        self.record.append(["after_create_session", graph_view()])

    def before_run(self, run_context):
        graph = tf.compat.v1.get_default_graph()
        return tf.compat.v1.train.SessionRunArgs(
            {
                "probe": tf.compat.v1.get_collection(PROBE)[0],
                "mse": graph.get_tensor_by_name("mse:0"),
                "scoped": graph.get_tensor_by_name("probes/prediction_sum:0"),
            }
        )

    def after_run(self, run_context, run_values):
        values = {k: float(v) for k, v in sorted(run_values.results.items())}
        self.record.append(["after_run", graph_view(), values])

    def end(self, session):
        self.record.append(["end", graph_view()])


class SessionReadHook(tf.compat.v1.train.SessionRunHook):
    """Reads the global step and a weight with the session it is handed, in every
    method that has one, as ETA and early-stopping hooks do: before the step, after
    it (the state the step left), at the end (the final state)."""

    def __init__(self, record):
        self.record = record

    def begin(self):
        self._step = tf.compat.v1.train.get_global_step()
        (self._kernel,) = [v for v in tf.compat.v1.global_variables() if "kernel" in v.name]

    def _read(self, method, session):
        step, kernel = session.run([self._step, self._kernel])
        self.record.append([method, int(step), np.ravel(kernel).tolist()])

    def after_create_session(self, session, coord):
        self._read("after_create_session", session)

    def before_run(self, run_context):
        self._read("before_run", run_context.session)

    def after_run(self, run_context, run_values):
        self._read("after_run", run_context.session)

    def end(self, session):
        self._read("end", session)


class LookupListener(tf.compat.v1.train.CheckpointSaverListener):
    def __init__(self, record):
        self.record = record

    def begin(self):
        self.record.append(["listener begin", graph_view()])

    def before_save(self, session, global_step_value):
        self.record.append(["before_save", int(global_step_value), graph_view()])


def main() -> None:
    config = estimator.RunConfig(save_checkpoints_steps=2, tf_random_seed=1)
    model = estimator.Estimator(model_fn, model_dir=sys.argv[2], config=config)
    records = {"train": [], "evaluate": [], "predict": [], "session": []}
    model.train(
        input_fn,
        steps=3,
        hooks=[LookupHook(records["train"]), SessionReadHook(records["session"])],
        saving_listeners=[LookupListener(records["train"])],
    )
    model.evaluate(
        input_fn,
        steps=2,
        hooks=[LookupHook(records["evaluate"]), SessionReadHook(records["session"])],
    )

    def predict_input_fn():
        return input_fn().map(lambda features, labels: features).take(2)

    predictions = model.predict(predict_input_fn, hooks=[LookupHook(records["predict"])])
    list(predictions)
    print(json.dumps(records))


if __name__ == "__main__":
    main()
