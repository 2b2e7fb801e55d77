"""Prints, as JSON, what EstimatorSpec and RunConfig do with each row of the
contract's validation table. Run under both interpreters; the outputs must match.

Usage: python validation_table.py legacy|runtime
"""

import json
import os
import re
import sys
import tempfile
import types

import numpy as np
import tensorflow as tf

from fixtures.equivalence.recording import scalar_summaries

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
    from estimator_revival.estimator import tpu
    from estimator_revival.estimator.tpu import ExportSavedModelApiVersion
else:
    from tensorflow_estimator.python.estimator.tpu.tpu_estimator import (
        ExportSavedModelApiVersion,
    )

    estimator = tf.estimator
    tpu = tf.compat.v1.estimator.tpu

ModeKeys = estimator.ModeKeys
Spec = estimator.EstimatorSpec


def outcome(build):
    """``["ok", summary]`` or ``[exception type, message]``; object addresses in
    texts (``<function f at 0x7f...>``) differ between processes and are masked."""
    graph = tf.Graph()
    try:
        with graph.as_default():
            result = ["ok", build()]
    except Exception as error:  # noqa: BLE001 - the table records every outcome
        result = [type(error).__name__, str(error)]
    return json.loads(re.sub(r" at 0x[0-9a-f]+", " at 0x...", json.dumps(result)))


def loss():
    return tf.constant(1.0, name="loss")


def train_op():
    return tf.no_op(name="train")


def other_graph_tensor():
    with tf.Graph().as_default():
        return tf.constant(1.0, name="elsewhere")


class Hook(tf.compat.v1.train.SessionRunHook):
    pass


def spec_rows():
    keras_mean = lambda: tf.keras.metrics.Mean(name="unused_mean")  # noqa: E731
    return {
        "train without train_op": lambda: Spec(ModeKeys.TRAIN, loss=loss()) and None,
        "train_op not an op": lambda: Spec(ModeKeys.TRAIN, loss=loss(), train_op="op") and None,
        "train_op from another graph": lambda: (
            Spec(ModeKeys.TRAIN, loss=loss(), train_op=other_graph_tensor()) and None
        ),
        "train without loss": lambda: Spec(ModeKeys.TRAIN, train_op=train_op()) and None,
        "eval without loss": lambda: Spec(ModeKeys.EVAL) and None,
        "loss not a tensor": lambda: Spec(ModeKeys.EVAL, loss=1.0) and None,
        "loss not scalar": lambda: (
            Spec(ModeKeys.EVAL, loss=tf.constant([1.0, 2.0], name="l2")) and None
        ),
        "loss of shape [1] is reshaped": lambda: Spec(
            ModeKeys.EVAL, loss=tf.constant([1.0], name="l1")
        ).loss.shape.as_list(),
        "loss from another graph": lambda: Spec(ModeKeys.EVAL, loss=other_graph_tensor()) and None,
        "predict without predictions": lambda: Spec(ModeKeys.PREDICT) and None,
        "prediction value not a tensor": lambda: (
            Spec(ModeKeys.PREDICT, predictions={"p": 1.0}) and None
        ),
        "prediction not a tensor": lambda: Spec(ModeKeys.PREDICT, predictions=[1.0]) and None,
        "prediction from another graph": lambda: (
            Spec(ModeKeys.PREDICT, predictions={"p": other_graph_tensor()}) and None
        ),
        "predictions default to {} outside predict": lambda: (
            Spec(ModeKeys.EVAL, loss=loss()).predictions
        ),
        "default export output": lambda: sorted(
            Spec(ModeKeys.PREDICT, predictions={"p": loss()}).export_outputs
        ),
        "export_outputs not a dict": lambda: (
            Spec(ModeKeys.PREDICT, predictions={"p": loss()}, export_outputs=["x"]) and None
        ),
        "export_outputs value not an ExportOutput": lambda: (
            Spec(ModeKeys.PREDICT, predictions={"p": loss()}, export_outputs={"a": "x"}) and None
        ),
        "single export output is aliased to serving_default": lambda: sorted(
            Spec(
                ModeKeys.PREDICT,
                predictions={"p": loss()},
                export_outputs={"head": estimator.export.PredictOutput({"p": loss()})},
            ).export_outputs
        ),
        "several export outputs without a default": lambda: (
            Spec(
                ModeKeys.PREDICT,
                predictions={"p": loss()},
                export_outputs={
                    "a": estimator.export.PredictOutput({"p": loss()}),
                    "b": estimator.export.PredictOutput({"p": loss()}),
                },
            )
            and None
        ),
        "hook not a SessionRunHook": lambda: (
            Spec(ModeKeys.TRAIN, loss=loss(), train_op=train_op(), training_hooks=["hook"]) and None
        ),
        "hooks become tuples": lambda: (
            type(
                Spec(
                    ModeKeys.TRAIN, loss=loss(), train_op=train_op(), training_hooks=[Hook()]
                ).training_hooks
            ).__name__
        ),
        "eval_metric_ops not a dict": lambda: (
            Spec(ModeKeys.EVAL, loss=loss(), eval_metric_ops=[1]) and None
        ),
        "metric value not a pair": lambda: (
            Spec(ModeKeys.EVAL, loss=loss(), eval_metric_ops={"m": (loss(),)}) and None
        ),
        "keras metric never updated": lambda: (
            Spec(ModeKeys.EVAL, loss=loss(), eval_metric_ops={"m": keras_mean()}) and None
        ),
        "scaffold of the wrong type": lambda: (
            Spec(ModeKeys.EVAL, loss=loss(), scaffold="s") and None
        ),
        "default scaffold": lambda: type(Spec(ModeKeys.EVAL, loss=loss()).scaffold).__name__,
        "replace mode": lambda: (
            Spec(ModeKeys.EVAL, loss=loss())._replace(mode=ModeKeys.TRAIN) and None
        ),
        "replace loss keeps mode": lambda: (
            Spec(ModeKeys.EVAL, loss=loss())._replace(loss=tf.constant(2.0)).mode
        ),
    }


CONFIG_FIELDS = [
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
    "task_type",
    "task_id",
    "is_chief",
    "master",
    "evaluation_master",
    "num_ps_replicas",
    "num_worker_replicas",
    "global_id_in_cluster",
]


def describe(config):
    described = {field: getattr(config, field) for field in CONFIG_FIELDS}
    described["cluster_spec"] = config.cluster_spec.as_dict()
    return described


def config_rows():
    RunConfig = estimator.RunConfig
    return {
        "defaults": lambda: describe(RunConfig()),
        "steps given": lambda: describe(RunConfig(save_checkpoints_steps=7)),
        "secs given": lambda: describe(RunConfig(save_checkpoints_secs=30)),
        "both given": lambda: describe(
            RunConfig(save_checkpoints_steps=7, save_checkpoints_secs=30)
        ),
        "both none": lambda: describe(
            RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None)
        ),
        "empty model_dir": lambda: describe(RunConfig(model_dir="")),
        "negative summary steps": lambda: describe(RunConfig(save_summary_steps=-1)),
        "negative checkpoint steps": lambda: describe(RunConfig(save_checkpoints_steps=-1)),
        "negative keep max": lambda: describe(RunConfig(keep_checkpoint_max=-1)),
        "zero keep hours": lambda: describe(RunConfig(keep_checkpoint_every_n_hours=0)),
        "zero log steps": lambda: describe(RunConfig(log_step_count_steps=0)),
        "float seed": lambda: describe(RunConfig(tf_random_seed=1.5)),
        "bad session_config": lambda: describe(RunConfig(session_config="x")),
        "bad device_fn": lambda: describe(RunConfig(device_fn=lambda a, b: None)),
        "bad protocol": lambda: describe(RunConfig(protocol="http")),
        "zero session timeout": lambda: describe(RunConfig(session_creation_timeout_secs=0)),
        "replace steps clears secs": lambda: describe(
            RunConfig().replace(save_checkpoints_steps=5)
        ),
        "replace unknown": lambda: describe(RunConfig().replace(master="x")),
        "replace validates": lambda: describe(RunConfig().replace(save_summary_steps=-2)),
    }


TF_CONFIGS = {
    "local worker": {"task": {"type": "worker", "index": 0}},
    "local ps": {"task": {"type": "ps", "index": 0}},
    "local index 1": {"task": {"type": "worker", "index": 1}},
    "chief": {
        "cluster": {"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]},
        "task": {"type": "chief", "index": 0},
    },
    "worker 1": {
        "cluster": {"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]},
        "task": {"type": "worker", "index": 1},
    },
    "ps": {
        "cluster": {"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1", "p:2"]},
        "task": {"type": "ps", "index": 1},
    },
    "evaluator": {
        "cluster": {"chief": ["c:1"], "worker": ["w:1"]},
        "task": {"type": "evaluator", "index": 0},
    },
    "no chief": {"cluster": {"worker": ["w:1"]}, "task": {"type": "worker", "index": 0}},
    "two chiefs": {"cluster": {"chief": ["c:1", "c:2"]}, "task": {"type": "chief", "index": 0}},
    "no task type": {"cluster": {"chief": ["c:1"]}, "task": {"index": 0}},
    "no task index": {"cluster": {"chief": ["c:1"]}, "task": {"type": "chief"}},
    "negative index": {"cluster": {"chief": ["c:1"]}, "task": {"type": "chief", "index": -1}},
    "unknown task type": {"cluster": {"chief": ["c:1"]}, "task": {"type": "trainer", "index": 0}},
    "index out of range": {
        "cluster": {"chief": ["c:1"], "worker": ["w:1"]},
        "task": {"type": "worker", "index": 3},
    },
    "single chief": {"cluster": {"chief": ["c:1"]}, "task": {"type": "chief", "index": 0}},
    "master": {
        "cluster": {"master": ["m:1"], "worker": ["w:1"]},
        "task": {"type": "master", "index": 0},
    },
    "master and chief": {
        "cluster": {"master": ["m:1"], "chief": ["c:1"]},
        "task": {"type": "master", "index": 0},
    },
    "session_master": {"session_master": "grpc://x:1", "task": {"type": "worker", "index": 0}},
    "model_dir": {"model_dir": "/tmp/from_tf_config", "task": {"type": "worker", "index": 0}},
}


def tf_config_rows():
    def parse(tf_config):
        def build():
            os.environ["TF_CONFIG"] = json.dumps(tf_config)
            try:
                return describe(estimator.RunConfig())
            finally:
                del os.environ["TF_CONFIG"]

        return build

    return {name: parse(value) for name, value in TF_CONFIGS.items()}


def pd_frame(columns):
    import pandas as pd

    return pd.DataFrame(columns)


def input_rows():
    # tf.estimator.inputs only ever existed in the v1 API.
    inputs = estimator.inputs if sys.argv[1] == "runtime" else tf.compat.v1.estimator.inputs
    numpy_input_fn = inputs.numpy_input_fn
    x = {"a": np.zeros((4, 2), np.float32)}

    def pandas_batch_sizes(**kwargs):
        import pandas as pd

        input_fn = inputs.pandas_input_fn(
            pd.DataFrame({"a": [1.0, 2.0, 3.0]}), batch_size=2, **kwargs
        )
        sizes = []
        features = input_fn()  # the legacy side's are tensors from a queue
        if isinstance(features, tf.data.Dataset):
            features = tf.compat.v1.data.make_one_shot_iterator(features).get_next()
        with tf.compat.v1.train.MonitoredSession() as session:
            while not session.should_stop():
                sizes.append(len(session.run(features)["a"]))
        return sizes

    def pandas_first_batch(**kwargs):
        """The first (features, labels) batch, as lists, of a three-row frame."""
        input_fn = inputs.pandas_input_fn(
            pd_frame({"a": [1.0, 2.0, 3.0]}), batch_size=2, shuffle=False, **kwargs
        )
        batch = input_fn()
        if isinstance(batch, tf.data.Dataset):
            batch = tf.compat.v1.data.make_one_shot_iterator(batch).get_next()
        with tf.compat.v1.train.MonitoredSession() as session:
            features, labels = session.run(batch)
        as_lists = lambda d: {k: v.tolist() for k, v in d.items()}  # noqa: E731
        return [
            as_lists(features),
            as_lists(labels) if isinstance(labels, dict) else labels.tolist(),
        ]

    return {
        "pandas_input_fn queue_capacity None shuffled": lambda: pandas_batch_sizes(
            shuffle=True, queue_capacity=None
        ),
        "pandas_input_fn queue_capacity None in order": lambda: pandas_batch_sizes(
            shuffle=False, queue_capacity=None
        ),
        "pandas_input_fn y DataFrame": lambda: pandas_first_batch(
            y=pd_frame({"a": [7.0, 8.0, 9.0], "b": [0, 1, 0]})
        ),
        "pandas_input_fn y DataFrame column named as in x": lambda: pandas_first_batch(
            y=pd_frame({"a": [7.0, 8.0, 9.0]})
        ),
        "pandas_input_fn y Series": lambda: pandas_first_batch(
            y=pd_frame({"t": [7.0, 8.0, 9.0]})["t"]
        ),
        "pandas_input_fn target_column a list": lambda: pandas_first_batch(
            y=pd_frame({"t": [7.0, 8.0, 9.0]})["t"], target_column=["t"]
        ),
        "numpy_input_fn without shuffle": lambda: numpy_input_fn(x) and None,
        "numpy_input_fn shuffle not bool": lambda: numpy_input_fn(x, shuffle=1) and None,
        "numpy_input_fn empty x": lambda: numpy_input_fn({}, shuffle=False)() and None,
        "numpy_input_fn x of wrong type": lambda: numpy_input_fn([1], shuffle=False)() and None,
        "numpy_input_fn empty y dict": lambda: numpy_input_fn(x, y={}, shuffle=False)() and None,
        "numpy_input_fn duplicate keys": lambda: (
            numpy_input_fn(x, y={"a": np.zeros(4)}, shuffle=False)() and None
        ),
        "numpy_input_fn length mismatch": lambda: (
            numpy_input_fn(x, y=np.zeros(3), shuffle=False)() and None
        ),
    }


class LabeledTensorLike:
    """What tf.contrib.labeled_tensor's LabeledTensor was to a receiver: a
    ``tensor`` attribute, and a conversion to a tensor."""

    def __init__(self, tensor):
        self.tensor = tensor


tf.register_tensor_conversion_function(
    LabeledTensorLike,
    lambda value, dtype=None, name=None, as_ref=False: tf.convert_to_tensor(
        value.tensor, dtype=dtype, name=name
    ),
)


class WithTensorAttribute:
    """A ``tensor`` attribute, but no conversion to a tensor."""

    tensor = "not a tensor"


def receiver_rows():
    export = estimator.export

    def string_input():
        return tf.compat.v1.placeholder(tf.string, [None], name="examples")

    def floats():
        return tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")

    def keys(receiver):
        return [sorted(map(str, receiver.features)), sorted(receiver.receiver_tensors)]

    return {
        "receiver single feature and input": lambda: keys(
            export.ServingInputReceiver(floats(), string_input())
        ),
        "receiver features None": lambda: export.ServingInputReceiver(None, string_input()),
        "receiver receiver_tensors None": lambda: export.ServingInputReceiver(floats(), None),
        "receiver feature not a tensor": lambda: export.ServingInputReceiver(
            {"x": [1.0]}, string_input()
        ),
        "receiver labeled tensor feature": lambda: keys(
            export.ServingInputReceiver({"x": LabeledTensorLike(floats())}, string_input())
        ),
        "receiver feature with a tensor attribute only": lambda: export.ServingInputReceiver(
            {"x": WithTensorAttribute()}, string_input()
        ),
        "receiver feature key not str or int": lambda: export.ServingInputReceiver(
            {1.5: floats()}, string_input()
        ),
        "receiver int feature key": lambda: keys(
            export.ServingInputReceiver({1: floats()}, string_input())
        ),
        "receiver int receiver_tensors key": lambda: export.ServingInputReceiver(
            floats(), {1: string_input()}
        ),
        "receiver alternatives not a dict": lambda: export.ServingInputReceiver(
            floats(), string_input(), receiver_tensors_alternatives=[floats()]
        ),
        "receiver alternative single tensor": lambda: sorted(
            export.ServingInputReceiver(
                floats(), string_input(), receiver_tensors_alternatives={"raw": floats()}
            ).receiver_tensors_alternatives["raw"]
        ),
        "tensor receiver features None": lambda: export.TensorServingInputReceiver(
            None, string_input()
        ),
        "tensor receiver features a dict": lambda: export.TensorServingInputReceiver(
            {"x": floats()}, string_input()
        ),
        "tensor receiver passes the tensor": lambda: (
            export.TensorServingInputReceiver(floats(), string_input()).features.name
        ),
        "raw receiver placeholder shape": lambda: str(
            export.build_raw_serving_input_receiver_fn(
                {"x": tf.zeros([3, 5, 2])}, default_batch_size=4
            )()
            .features["x"]
            .shape
        ),
        "parsing receiver inputs": lambda: keys(
            export.build_parsing_serving_input_receiver_fn(
                {"x": tf.io.FixedLenFeature([2], tf.float32)}
            )()
        ),
    }


def train_and_evaluate_rows():
    def input_fn():
        return None

    def serving_fn():
        return None

    def better(best_eval_result, current_eval_result):
        return True

    def latest(name="latest"):
        return estimator.LatestExporter(name, serving_fn)

    def summary(spec):
        fields = spec._asdict()
        return {k: (len(v) if isinstance(v, tuple) else str(v)) for k, v in fields.items()}

    hook = tf.compat.v1.train.StopAtStepHook(last_step=1)
    return {
        "TrainSpec defaults": lambda: summary(estimator.TrainSpec(input_fn)),
        "TrainSpec input_fn not callable": lambda: estimator.TrainSpec("data"),
        "TrainSpec max_steps 0": lambda: estimator.TrainSpec(input_fn, max_steps=0),
        "TrainSpec hook of wrong type": lambda: estimator.TrainSpec(input_fn, hooks=["hook"]),
        "TrainSpec listener of wrong type": lambda: estimator.TrainSpec(
            input_fn, saving_listeners=[hook]
        ),
        "EvalSpec defaults": lambda: summary(estimator.EvalSpec(input_fn)),
        "EvalSpec steps 0": lambda: estimator.EvalSpec(input_fn, steps=0),
        "EvalSpec name not a string": lambda: estimator.EvalSpec(input_fn, name=3),
        "EvalSpec negative start delay": lambda: estimator.EvalSpec(input_fn, start_delay_secs=-1),
        "EvalSpec negative throttle": lambda: estimator.EvalSpec(input_fn, throttle_secs=-1),
        "EvalSpec single exporter": lambda: summary(
            estimator.EvalSpec(input_fn, exporters=latest())
        ),
        "EvalSpec exporter of wrong type": lambda: estimator.EvalSpec(input_fn, exporters=[3]),
        "EvalSpec exporters not iterable": lambda: estimator.EvalSpec(input_fn, exporters=3),
        "EvalSpec duplicate exporter names": lambda: estimator.EvalSpec(
            input_fn, exporters=[latest(), latest()]
        ),
        "EvalSpec exporter without a name": lambda: estimator.EvalSpec(
            input_fn, exporters=[latest("")]
        ),
        "LatestExporter exports_to_keep 0": lambda: estimator.LatestExporter(
            "l", serving_fn, exports_to_keep=0
        ),
        "BestExporter compare_fn None": lambda: estimator.BestExporter(compare_fn=None),
        "BestExporter compare_fn without best": lambda: estimator.BestExporter(
            compare_fn=lambda current_eval_result: True
        ),
        "BestExporter compare_fn extra arg": lambda: estimator.BestExporter(
            compare_fn=lambda best_eval_result, current_eval_result, other: True
        ),
        "BestExporter exports_to_keep 0": lambda: estimator.BestExporter(
            compare_fn=better, exports_to_keep=0
        ),
        "BestExporter default name": lambda: estimator.BestExporter().name,
        "train_and_evaluate eval_spec of wrong type": lambda: estimator.train_and_evaluate(
            None, estimator.TrainSpec(input_fn), "eval"
        ),
        "train_and_evaluate estimator of wrong type": lambda: estimator.train_and_evaluate(
            None, estimator.TrainSpec(input_fn), estimator.EvalSpec(input_fn)
        ),
    }


def counting_model_fn(features, labels, mode, params):
    """Counts steps in the global step; its loss is a constant."""
    step = tf.compat.v1.train.get_or_create_global_step()
    weight = tf.compat.v1.get_variable("w", [1], initializer=tf.compat.v1.zeros_initializer())
    loss = tf.reduce_sum(weight) + 1.0
    train_op = tf.compat.v1.assign_add(step, 1)
    if params.get("tpu"):
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def learning_model_fn(features, labels, mode):
    """Learns ``3 * x`` with one weight, so that each step's loss differs."""
    weight = tf.compat.v1.get_variable("w", [1, 1], initializer=tf.compat.v1.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], weight) - 3.0 * labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def ones_input_fn(params=None):
    return tf.data.Dataset.from_tensors(({"x": tf.ones([1, 1])}, tf.ones([1, 1]))).repeat()


class LossRecorder(tf.compat.v1.train.SessionRunHook):
    """Fetches the tensor named ``loss_value`` every step (looked up in before_run)."""

    def __init__(self):
        self.losses = []

    def before_run(self, run_context):
        graph = tf.compat.v1.get_default_graph()
        return tf.compat.v1.train.SessionRunArgs(graph.get_tensor_by_name("loss_value:0"))

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


INPUT_TYPES = set()  # the types of the values model_fn got


def input_value_model_fn(features, labels, mode):
    """Reads whatever input_fn gave, as TF 1 code read it: lists and numbers as
    Python values, ``{}`` features and ``None`` labels as such."""
    weight = tf.compat.v1.get_variable("w", [1], initializer=tf.compat.v1.ones_initializer())
    inputs = [tf.cast(tf.convert_to_tensor(v), tf.float32) for _, v in sorted(features.items())]
    total = tf.add_n([tf.reduce_sum(v) for v in inputs]) if inputs else tf.constant(1.0)
    if labels is not None:
        total += tf.reduce_sum(tf.convert_to_tensor(labels, tf.float32))
    loss = tf.identity(tf.reduce_sum(tf.square(total * weight - 3.0)), name="loss_value")
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(loss, step)
    mean = tf.compat.v1.metrics.mean(loss)
    metrics = {"nested": ((mean[0], mean[0] * 2.0), mean[1]), "mean": mean}
    # Python-typed values reach model_fn as such, as in the legacy graph.
    INPUT_TYPES.update(type(v).__name__ for v in [*features.values(), labels])
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def trained_on(input_fn):
    """Per-step losses, the final weight and the evaluation of input_value_model_fn."""
    model = estimator.Estimator(input_value_model_fn, model_dir=tempfile.mkdtemp())
    INPUT_TYPES.clear()
    recorder = LossRecorder()
    model.train(input_fn, steps=3, hooks=[recorder])
    values = model.evaluate(input_fn, steps=2)
    return {
        "losses": recorder.losses,
        "w": model.get_variable_value("w").tolist(),
        "evaluate": {k: json.loads(json.dumps(v, default=float)) for k, v in values.items()},
        "model_fn got": sorted(INPUT_TYPES - {"Tensor", "SymbolicTensor"}),
    }


def input_value_rows():
    return {
        "input_fn ({}, None)": lambda: trained_on(lambda: ({}, None)),
        "input_fn Python lists": lambda: trained_on(
            lambda: ({"x": [[1.0], [2.0]], "n": 0.5}, [[1.0], [-2.0]])
        ),
        "input_fn int feature keys": lambda: trained_on(
            lambda: ({3: tf.constant([[0.5]]), 7: tf.constant([0.25])}, tf.constant([1.0]))
        ),
        "input_fn numpy values": lambda: trained_on(
            lambda: ({"x": np.float32([0.5, 0.25])}, np.float32([1.0]))
        ),
    }


class OverridesPredict(estimator.Estimator):
    def predict(self, input_fn, **kwargs):
        return []


class OverridesModelFn(estimator.Estimator):
    @property
    def model_fn(self):
        return lambda features, labels, mode, config: "own model_fn"


class OverridesTheCheck(OverridesPredict):
    def _assert_members_are_not_overridden(self):
        pass


def estimator_rows():
    def fresh():
        return estimator.Estimator(
            counting_model_fn, model_dir=tempfile.mkdtemp(), params={"tpu": False}
        )

    def trained_to(**kwargs):
        return int(fresh().train(ones_input_fn, **kwargs).get_variable_value("global_step"))

    def evaluated(steps):
        trained = fresh().train(ones_input_fn, steps=1)
        return {k: float(v) for k, v in trained.evaluate(ones_input_fn, steps=steps).items()}

    return {
        "Estimator without model_fn": lambda: estimator.Estimator(model_fn=None) and None,
        "train hook of wrong type": lambda: fresh().train(ones_input_fn, steps=1, hooks=["h"]),
        "train listener of wrong type": lambda: fresh().train(
            ones_input_fn, steps=1, saving_listeners=[tf.compat.v1.train.StopAtStepHook(1)]
        ),
        "evaluate hook of wrong type": lambda: fresh().evaluate(
            ones_input_fn, steps=1, hooks=[object()]
        ),
        "predict hook of wrong type": lambda: next(fresh().predict(ones_input_fn, hooks=[1])),
        "subclass overriding predict": lambda: OverridesPredict(counting_model_fn) and None,
        "subclass overriding model_fn": lambda: OverridesModelFn(counting_model_fn).model_fn(
            None, None, None, None
        ),
        "subclass overriding the check itself": lambda: (
            OverridesTheCheck(counting_model_fn, params={"tpu": False}).params
        ),
        "train fractional steps": lambda: trained_to(steps=2.3),
        "train fractional max_steps": lambda: trained_to(max_steps=3.5),
        "evaluate fractional steps": lambda: evaluated(2.5),
    }


def early_stopping_rows():
    experimental = estimator.experimental

    def fresh(config=None):
        return estimator.Estimator(
            counting_model_fn, model_dir=tempfile.mkdtemp(), params={"tpu": False}, config=config
        )

    def stopped_at(make_hook):
        """The global step a second train() reaches with the hook (up to 6 steps), after
        one step (with the hook: its stop signal is in the checkpoint) and an evaluation."""
        model = fresh()
        model.train(ones_input_fn, steps=1, hooks=[make_hook(model)])
        model.evaluate(ones_input_fn, steps=1)
        model.train(ones_input_fn, steps=5, hooks=[make_hook(model)])
        return int(model.get_variable_value("global_step"))

    def worker(model):
        """What make_stop_at_checkpoint_step_hook reads of a worker's estimator."""
        config = types.SimpleNamespace(is_chief=False)
        return types.SimpleNamespace(config=config, model_dir=model.model_dir)

    def stopped_on_a_worker(save_checkpoints_steps):
        """The step a worker's hook (last step 3) stops at, training beside a chief
        that checkpoints as given (up to 8 steps)."""
        model = fresh(estimator.RunConfig(save_checkpoints_steps=save_checkpoints_steps))
        hook = experimental.make_stop_at_checkpoint_step_hook(
            worker(model), 3, wait_after_file_check_secs=0
        )
        model.train(ones_input_fn, steps=8, hooks=[hook])
        return int(model.get_variable_value("global_step"))

    def in_memory_evaluations():
        """What an InMemoryEvaluatorHook (every 2 steps) wrote while 5 steps trained:
        the evaluation's summaries by step, every tag (a checkpoint path among them?)
        and the checkpoints in model_dir."""
        model = estimator.Estimator(learning_model_fn, model_dir=tempfile.mkdtemp())
        hook = experimental.InMemoryEvaluatorHook(
            model, ones_input_fn, steps=1, name="memory", every_n_iter=2
        )
        model.train(ones_input_fn, steps=5, hooks=[hook])
        eval_dir = os.path.join(model.model_dir, "eval_memory")
        tags = {
            value.tag
            for name in os.listdir(eval_dir)
            for event in tf.compat.v1.train.summary_iterator(os.path.join(eval_dir, name))
            for value in event.summary.value
        }
        checkpoints = sorted(n for n in os.listdir(model.model_dir) if n.endswith(".index"))
        return [scalar_summaries(eval_dir), sorted(tags), checkpoints]

    mirrored = estimator.RunConfig(train_distribute=tf.distribute.MirroredStrategy(["/cpu:0"]))
    return {
        "in-memory evaluation every 0 steps": lambda: (
            experimental.InMemoryEvaluatorHook(fresh(), ones_input_fn, every_n_iter=0) and None
        ),
        "in-memory evaluation every 2 steps": in_memory_evaluations,
        "early stopping on another object": lambda: experimental.make_early_stopping_hook(
            object(), lambda: False
        ),
        "early stopping on both timers": lambda: experimental.make_early_stopping_hook(
            fresh(), lambda: False, run_every_secs=5, run_every_steps=5
        ),
        "early stopping without a function": lambda: experimental.make_early_stopping_hook(
            fresh(), "stop", run_every_secs=None, run_every_steps=1
        ),
        "early stopping on seconds with train_distribute": lambda: (
            experimental.stop_if_no_decrease_hook(fresh(mirrored), "loss", 10)
        ),
        "early stopping below a threshold": lambda: stopped_at(
            lambda model: experimental.stop_if_lower_hook(
                model, "loss", 1e9, run_every_secs=None, run_every_steps=1
            )
        ),
        "early stopping above an unreached threshold": lambda: stopped_at(
            lambda model: experimental.stop_if_higher_hook(
                model, "loss", 1e9, run_every_secs=None, run_every_steps=1
            )
        ),
        "stop at checkpoint step on the chief": lambda: (
            type(experimental.make_stop_at_checkpoint_step_hook(fresh(), 3)).__name__
        ),
        "stop at checkpoint step without a step": lambda: (
            experimental.make_stop_at_checkpoint_step_hook(worker(fresh()), None) and None
        ),
        "stop at checkpoint step on a worker, checkpoints every step": lambda: stopped_on_a_worker(
            save_checkpoints_steps=1
        ),
        "stop at checkpoint step on a worker, checkpoints every 4 steps": lambda: (
            stopped_on_a_worker(save_checkpoints_steps=4)
        ),
        "early stopping for steps without increase": lambda: stopped_at(
            lambda model: experimental.stop_if_no_increase_hook(
                model, "loss", 0, min_steps=1, run_every_secs=None, run_every_steps=2
            )
        ),
    }


def tpu_rows():
    def tpu_estimator(config=None, **kwargs):
        return tpu.TPUEstimator(
            counting_model_fn,
            model_dir=tempfile.mkdtemp(),
            config=config or tpu.RunConfig(),
            params={"tpu": True},
            **kwargs,
        )

    def masters(**kwargs):
        config = tpu.RunConfig(**kwargs)
        return [config.master, config.evaluation_master]

    def job_name_from_tf_config():
        os.environ["TF_CONFIG"] = json.dumps({"service": {"tpu_worker_job_name": "tpu_w"}})
        try:
            return tpu.TPUConfig().tpu_job_name
        finally:
            del os.environ["TF_CONFIG"]

    return {
        "TPUConfig num_shards 0": lambda: tpu.TPUConfig(num_shards=0) and None,
        "TPUConfig num_shards not int": lambda: tpu.TPUConfig(num_shards=2.0) and None,
        "TPUConfig num_shards 8": lambda: tpu.TPUConfig(num_shards=8).num_shards,
        "TPUConfig iterations_per_loop 0": lambda: tpu.TPUConfig(iterations_per_loop=0) and None,
        "TPUConfig iterations_per_loop 0s": lambda: (
            tpu.TPUConfig(iterations_per_loop="0s") and None
        ),
        "TPUConfig iterations_per_loop 2.5": lambda: (
            tpu.TPUConfig(iterations_per_loop=2.5) and None
        ),
        "TPUConfig iterations_per_loop 5m": lambda: tpu.TPUConfig(iterations_per_loop="5m")[0],
        "TPUConfig input_partition_dims without PER_HOST_V2": lambda: (
            tpu.TPUConfig(num_cores_per_replica=2, input_partition_dims=[[1, 2]]) and None
        ),
        "TPUConfig input_partition_dims without cores": lambda: (
            tpu.TPUConfig(
                per_host_input_for_training=tpu.InputPipelineConfig.PER_HOST_V2,
                input_partition_dims=[[1, 2]],
            )
            and None
        ),
        "TPUConfig input_partition_dims of three": lambda: (
            tpu.TPUConfig(
                per_host_input_for_training=tpu.InputPipelineConfig.PER_HOST_V2,
                num_cores_per_replica=2,
                input_partition_dims=[[1], [2], [3]],
            )
            and None
        ),
        "TPUConfig infeed sleep negative": lambda: (
            tpu.TPUConfig(initial_infeed_sleep_secs=-1) and None
        ),
        "TPUConfig job name from TF_CONFIG": job_name_from_tf_config,
        "TPU RunConfig master is evaluation master": lambda: masters(master="grpc://t:1"),
        "TPU RunConfig both masters": lambda: masters(
            master="grpc://t:1", evaluation_master="grpc://e:1"
        ),
        "TPUEstimator float train_batch_size": lambda: tpu_estimator(train_batch_size=1.0) and None,
        "TPUEstimator zero eval_batch_size": lambda: (
            tpu_estimator(train_batch_size=8, eval_batch_size=0) and None
        ),
        "TPUEstimator export API version V2": lambda: (
            tpu_estimator(
                train_batch_size=8, export_saved_model_api_version=ExportSavedModelApiVersion.V2
            ).model_dir
            is not None
        ),
        "TPUEstimator export API version 2": lambda: (
            tpu_estimator(train_batch_size=8, export_saved_model_api_version=2).model_dir
            is not None
        ),
        "TPUEstimator export API version 3": lambda: (
            tpu_estimator(train_batch_size=8, export_saved_model_api_version=3) and None
        ),
        # Estimator.train's own checks came before TPUEstimator's for a TPU (which
        # the legacy side cannot reach without one)
        "TPUEstimator train steps 0": lambda: tpu_estimator(train_batch_size=1).train(
            ones_input_fn, steps=0
        ),
        "TPUEstimator train max_steps -1": lambda: tpu_estimator(train_batch_size=1).train(
            ones_input_fn, max_steps=-1
        ),
        "TPUEstimator train steps and max_steps": lambda: tpu_estimator(train_batch_size=1).train(
            ones_input_fn, steps=1, max_steps=1
        ),
        "TPUEstimator on CPU fractional steps": lambda: int(
            tpu_estimator(use_tpu=False, train_batch_size=1)
            .train(ones_input_fn, steps=2.3)
            .get_variable_value("global_step")
        ),
    }


def main():
    rows = {
        **spec_rows(),
        **config_rows(),
        **tf_config_rows(),
        **input_rows(),
        **receiver_rows(),
        **train_and_evaluate_rows(),
        **estimator_rows(),
        **early_stopping_rows(),
        **input_value_rows(),
        **tpu_rows(),
    }
    print(json.dumps({name: outcome(build) for name, build in rows.items()}, indent=1))


if __name__ == "__main__":
    main()
