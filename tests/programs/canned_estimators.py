"""The canned estimators with census-style feature columns: a binary DNNClassifier
(numeric, bucketized, vocabulary-list indicator, hashed embedding, crossed
embedding; elsewhere a vocabulary file's ids embedded, ids weighted by a feature), a three-class DNNClassifier with a label vocabulary and dropout, and a
DNNRegressor with a weight column and the Adam optimizer by name, and the
variants of ESTIMATORS (linear, also trained by SDCA, wide & deep, baseline, batch
norm, warm-started from another model, the heads with their options, sparse
multi-label labels, TF 1.15's contrib heads). For each:
per-step scalar summaries (the loss, the layers' zero fractions), the evaluate
dict (every metric key), predictions, every variable by name, and the exported
SavedModel served on tf.Examples. Run under both interpreters; the outputs must
match (tests/equivalence/test_canned_estimators.py).

Usage: python canned_estimators.py legacy|runtime MODEL_DIR [NAME ...]
"""

import glob
import json
import os
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
    from estimator_revival.contrib import estimator as contrib_estimator
    from estimator_revival.estimator import v1 as estimator_v1
else:
    estimator = tf.estimator
    estimator_v1 = tf.compat.v1.estimator
    # TF 1.15's tf.contrib.estimator heads (migrator/prove/side_process/standins/)
    REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    sys.path.insert(0, os.path.join(REPO, "migrator", "prove", "side_process", "standins"))
    import contrib_estimator

ROWS = 48
_random = np.random.RandomState(11)
AGE = _random.uniform(18, 70, ROWS).astype(np.float32)
HOURS = _random.uniform(10, 60, ROWS).astype(np.float32)
EDUCATION = _random.choice(["Bachelors", "HS-grad", "Masters", "Doctorate", "Other"], ROWS)
OCCUPATION = _random.choice(["Tech", "Sales", "Craft", "Admin", "Farming", "Exec"], ROWS)
WEIGHT = _random.uniform(0.5, 2.0, ROWS).astype(np.float32)
INCOME = ((AGE / 70 + HOURS / 60 + (EDUCATION == "Masters")) > 1.3).astype(np.int64)
LEVEL = np.array(["low", "mid", "high"])[np.digitize(AGE + HOURS, [70, 95])]
SPEND = (0.03 * AGE + 0.02 * HOURS).astype(np.float32)
VISITS = np.floor(HOURS / 12).astype(np.float32)  # counts, for a Poisson head
SHARE = (HOURS / 60).astype(np.float32)  # in [0, 1], for a logistic regression head
# multi-hot topics, for a multi-label head
TOPICS = np.stack([INCOME, (AGE > 40).astype(np.int64), (OCCUPATION == "Tech").astype(np.int64)], 1)
TOPIC_NAMES = np.array(["rich", "senior", "tech"])
# each row's topics as ids / names first, padded with -1 / ""
_TOPIC_ORDER = np.argsort(1 - TOPICS, axis=1, kind="stable")
TOPIC_IDS = np.where(np.take_along_axis(TOPICS, _TOPIC_ORDER, 1) == 1, _TOPIC_ORDER, -1)
TOPIC_STRINGS = np.where(TOPIC_IDS >= 0, TOPIC_NAMES[TOPIC_IDS], "")

FEATURES = {
    "age": AGE,
    "hours": HOURS,
    "education": EDUCATION,
    "occupation": OCCUPATION,
    "weight": WEIGHT,
}
# Each row's id, which LinearSDCA keys its per-example state by.
EXAMPLE_ID = np.array([f"person-{i}" for i in range(ROWS)])
# SDCA's kernel (SdcaOptimizerV2) visits a batch's examples in an order drawn from
# std::random_device, so that TensorFlow's own runs of a batch of many examples
# differ from each other; the SDCA models (named *sdca*) train on one example per
# step, the first SDCA_ROWS rows, each seen twice in 12 steps (the second visit
# starts from the example's state the table kept).
SDCA_ROWS = 6


def columns():
    fc = tf.feature_column
    age = fc.numeric_column("age")
    education = fc.categorical_column_with_vocabulary_list(
        "education", ["Bachelors", "HS-grad", "Masters", "Doctorate"], num_oov_buckets=1
    )
    occupation = fc.categorical_column_with_hash_bucket("occupation", 20)
    age_buckets = fc.bucketized_column(age, [25, 35, 45, 55])
    return [
        age,
        fc.numeric_column("hours", normalizer_fn=lambda x: (x - 35.0) / 15.0),
        age_buckets,
        fc.indicator_column(education),
        fc.embedding_column(occupation, dimension=3),
        fc.embedding_column(fc.crossed_column([age_buckets, "education"], 30), dimension=2),
    ]


def linear_columns():
    """Categorical columns as they are, as wide models take them."""
    fc = tf.feature_column
    age = fc.numeric_column("age")
    age_buckets = fc.bucketized_column(age, [25, 35, 45, 55])
    return [
        age,
        age_buckets,
        fc.categorical_column_with_vocabulary_list(
            "education", ["Bachelors", "HS-grad", "Masters", "Doctorate"], num_oov_buckets=1
        ),
        fc.categorical_column_with_hash_bucket("occupation", 20),
        fc.crossed_column([age_buckets, "education"], 30),
    ]


def education_from_file(model_dir):
    """Education ids from a vocabulary file, written beside the model."""
    vocabulary = model_dir + "_education.txt"
    os.makedirs(os.path.dirname(vocabulary), exist_ok=True)
    with open(vocabulary, "w") as file:
        file.write("\n".join(["Bachelors", "HS-grad", "Masters", "Doctorate"]) + "\n")
    return tf.feature_column.categorical_column_with_vocabulary_file(
        "education", vocabulary, vocabulary_size=4, num_oov_buckets=1
    )


def vocabulary_file_columns(model_dir):
    """The vocabulary file's ids embedded; occupation ids weighted by each row's
    weight, as an indicator; hours."""
    fc = tf.feature_column
    occupation = fc.categorical_column_with_vocabulary_list(
        "occupation", ["Tech", "Sales", "Craft", "Admin", "Farming"]
    )
    return [
        fc.embedding_column(education_from_file(model_dir), dimension=3),
        fc.indicator_column(fc.weighted_categorical_column(occupation, "weight")),
        fc.numeric_column("hours"),
    ]


def weighted_columns(model_dir):
    """Hashed occupation ids weighted by each row's weight, the vocabulary file's ids
    and age buckets, as a wide model takes them."""
    fc = tf.feature_column
    occupation = fc.categorical_column_with_hash_bucket("occupation", 20)
    return [
        fc.weighted_categorical_column(occupation, "weight"),
        education_from_file(model_dir),
        fc.bucketized_column(fc.numeric_column("age"), [25, 35, 45, 55]),
    ]


def v1_columns():
    """With TF 1's own shared embedding (education and occupation ids share one
    table), which only the v1 input layer takes. TF 1 made it in its default graph;
    TF 2 makes it in a graph only."""
    fc = tf.feature_column
    education = fc.categorical_column_with_hash_bucket("education", 7)
    occupation = fc.categorical_column_with_hash_bucket("occupation", 7)
    with tf.Graph().as_default():
        shared = tf.compat.v1.feature_column.shared_embedding_columns(
            [education, occupation], dimension=2
        )
    return [
        fc.numeric_column("age"),
        fc.bucketized_column(fc.numeric_column("hours"), [30]),
        *shared,
    ]


class SparseLabels:
    """Labels a head gets as a SparseTensor per batch (multi-label class ids or
    vocabulary strings): rows of ``padded`` without their ``padding`` entries."""

    def __init__(self, padded: np.ndarray, padding):
        self.padded = padded
        self.padding = padding

    def batch(self, padded_batch):
        return tf.RaggedTensor.from_tensor(padded_batch, padding=self.padding).to_sparse()


def label_tensor(labels, rows: int):
    """The first ``rows`` labels as one batch's tensor (a dict of them, by head)."""
    if isinstance(labels, dict):
        return {name: label_tensor(values, rows) for name, values in labels.items()}
    if isinstance(labels, SparseLabels):
        return labels.batch(tf.constant(labels.padded[:rows]))
    return tf.constant(labels[:rows])


def _labeled(features, labels, *, batch_size: int, shuffle: bool, repeat: bool):
    padded = labels.padded if isinstance(labels, SparseLabels) else labels
    dataset = tf.data.Dataset.from_tensor_slices((features, padded))
    if shuffle:
        dataset = dataset.shuffle(ROWS, seed=3)
    if repeat:
        dataset = dataset.repeat()
    dataset = dataset.batch(batch_size)
    if isinstance(labels, SparseLabels):
        dataset = dataset.map(lambda batch, padded_batch: (batch, labels.batch(padded_batch)))
    return dataset


def input_fn(labels, features, shuffle=True, batch_size=8):
    return lambda: _labeled(features, labels, batch_size=batch_size, shuffle=shuffle, repeat=True)


def eval_input_fn(labels, features):
    return lambda: _labeled(features, labels, batch_size=16, shuffle=False, repeat=False)


def predict_input_fn(features):
    return lambda: tf.data.Dataset.from_tensor_slices(
        {k: v[:6] for k, v in features.items()}
    ).batch(3)


def scalar_summaries(model_dir) -> dict:
    """``{tag: [[step, value], ...]}`` of the scalars in a directory's event files
    (TF 1 wrote simple values, TF 2's writer scalar tensors); histograms are left out."""
    values = {}
    for path in sorted(glob.glob(os.path.join(model_dir, "events.out.tfevents.*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.HasField("simple_value"):
                    scalar = value.simple_value
                elif value.HasField("tensor") and not value.tensor.tensor_shape.dim:
                    scalar = float(tf.make_ndarray(value.tensor))
                else:
                    continue
                if value.tag != "global_step/sec":  # wall time
                    values.setdefault(value.tag, []).append([event.step, scalar])
    return values


def examples(count: int) -> list[bytes]:
    serialized = []
    for i in range(count):
        feature = {
            "age": tf.train.Feature(float_list=tf.train.FloatList(value=[AGE[i]])),
            "hours": tf.train.Feature(float_list=tf.train.FloatList(value=[HOURS[i]])),
            "education": tf.train.Feature(
                bytes_list=tf.train.BytesList(value=[EDUCATION[i].encode()])
            ),
            "occupation": tf.train.Feature(
                bytes_list=tf.train.BytesList(value=[OCCUPATION[i].encode()])
            ),
            "weight": tf.train.Feature(float_list=tf.train.FloatList(value=[WEIGHT[i]])),
        }
        serialized.append(
            tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()
        )
    return serialized


def served(export_dir) -> dict:
    """Every signature of the export, called on serialized tf.Examples."""
    loaded = tf.saved_model.load(export_dir)
    outputs = {}
    for key in sorted(loaded.signatures):
        signature = loaded.signatures[key]
        (argument,) = signature.structured_input_signature[1]
        result = signature(**{argument: tf.constant(examples(4))})
        outputs[key] = {name: plain(value.numpy()) for name, value in sorted(result.items())}
    return outputs


def _key(key) -> str:
    """A prediction's key; a MultiHead's ``(head, key)`` as ``head/key``."""
    return "/".join(key) if isinstance(key, tuple) else key


def plain(value):
    value = np.asarray(value)
    if value.dtype.kind in "SO":
        return [v.decode() if isinstance(v, bytes) else v for v in value.ravel().tolist()]
    return value.tolist()


def saved_value(est, name: str):
    """A variable's value; of a hash table's buckets (``<table>-keys``, ``-values``),
    the filled rows and where they are."""
    value = np.asarray(est.get_variable_value(name))
    if not name.endswith(("-keys", "-values")):
        return plain(value)
    filled = np.nonzero(np.any(value != 0, axis=1))[0]
    return {"buckets": len(value), "rows": filled.tolist(), "filled": plain(value[filled])}


def run(name, make_estimator, labels, feature_names=None, *, model_dir) -> dict:
    """Trains, evaluates, predicts and exports; with ``feature_names``, on those
    features only."""
    features = {k: v for k, v in FEATURES.items() if k in (feature_names or FEATURES)}
    est = make_estimator(os.path.join(model_dir, name))
    if "sdca" in name:
        sdca_features = {k: v[:SDCA_ROWS] for k, v in features.items()}
        sdca_features["example_id"] = EXAMPLE_ID[:SDCA_ROWS]
        est.train(input_fn(labels[:SDCA_ROWS], sdca_features, batch_size=1), steps=12)
    else:
        est.train(input_fn(labels, features), steps=12)
    metrics = est.evaluate(eval_input_fn(labels, features))
    predictions = [
        {_key(k): plain(v) for k, v in p.items()} for p in est.predict(predict_input_fn(features))
    ]
    every_column = columns() + [tf.feature_column.numeric_column("weight")]
    spec = {
        key: value
        for key, value in tf.feature_column.make_parse_example_spec(every_column).items()
        if key in features
    }
    receiver = estimator.export.build_parsing_serving_input_receiver_fn(spec)
    export_dir = est.export_saved_model(os.path.join(model_dir, name, "export"), receiver)
    return {
        "summaries": scalar_summaries(est.model_dir),
        "evaluate": {k: plain(v) for k, v in sorted(metrics.items())},
        "predictions": predictions,
        "variables": {n: saved_value(est, n) for n in est.get_variable_names()},
        "served": served(export_dir.decode() if isinstance(export_dir, bytes) else export_dir),
    }


def config():
    return estimator.RunConfig(tf_random_seed=7, save_summary_steps=1)


def sdca_config():
    """``config()`` with one inter-op thread. In each step TF 1's Session ran SDCA's
    reads of the weights and of its table (for the loss and the duality gap) beside
    the chief hook's update of them, with no order between them: on a busy machine
    some reads came after the update. With one thread it runs them in one order,
    the reads first, as the runtime does."""
    return estimator.RunConfig(
        tf_random_seed=7,
        save_summary_steps=1,
        session_config=tf.compat.v1.ConfigProto(inter_op_parallelism_threads=1),
    )


def added_metrics(labels, predictions, features, config):
    """A metric_fn for tf.estimator.add_metrics: a v1 metric and a Keras metric on
    the model's predictions, one from the config, and the head's own label/mean
    replaced by an unweighted one."""
    labels = tf.reshape(labels, [-1, 1])
    absolute_error = tf.keras.metrics.MeanAbsoluteError(name="mae")
    absolute_error.update_state(labels, predictions["predictions"])
    steps = tf.fill(tf.shape(labels), float(config.save_summary_steps))
    return {
        "extra/rmse": tf.compat.v1.metrics.root_mean_squared_error(
            labels, predictions["predictions"], weights=features["weight"]
        ),
        "extra/mae": absolute_error,
        "extra/summary_steps": tf.compat.v1.metrics.mean(steps),
        "label/mean": tf.compat.v1.metrics.mean(labels),
    }


def trained_source(model_dir):
    """A DNNRegressor trained 6 steps in ``<model_dir>_source``, which the next model
    is fine-tuned from; returns its model_dir."""
    source_dir = model_dir + "_source"
    source = estimator.DNNRegressor([5, 3], columns(), model_dir=source_dir, config=config())
    source.train(input_fn(SPEND, FEATURES), steps=6)
    return source_dir


def hinge_loss(labels, logits):
    """A head's ``loss_fn``: the hinge loss of 0/1 labels, per example."""
    signs = 2.0 * tf.cast(labels, tf.float32) - 1.0
    return tf.nn.relu(1.0 - signs * logits)


def absolute_loss(labels, logits):
    return tf.math.abs(labels - logits)


# name: (a function of model_dir making the estimator, the labels it learns[, the
# features it gets: a baseline with two of them fails on both sides, its bias's
# initializer depending on the batch size checks of the iterator's features])
ESTIMATORS = {
    "binary": (
        lambda d: estimator.DNNClassifier([8, 4], columns(), model_dir=d, config=config()),
        INCOME,
    ),
    "multi_class": (
        lambda d: estimator.DNNClassifier(
            [6],
            columns(),
            model_dir=d,
            n_classes=3,
            label_vocabulary=["low", "mid", "high"],
            dropout=0.25,
            config=config(),
        ),
        LEVEL,
    ),
    "regression": (
        lambda d: estimator.DNNRegressor(
            [5, 3],
            columns(),
            model_dir=d,
            weight_column="weight",
            optimizer="Adam",
            activation_fn=tf.nn.tanh,
            config=config(),
        ),
        SPEND,
    ),
    "regression_added_metrics": (
        lambda d: estimator.add_metrics(
            estimator.DNNRegressor(
                [4], columns(), model_dir=d, weight_column="weight", config=config()
            ),
            added_metrics,
        ),
        SPEND,
    ),
    "linear_binary": (
        lambda d: estimator.LinearClassifier(
            linear_columns(),
            model_dir=d,
            weight_column="weight",
            sparse_combiner="sqrtn",
            config=config(),
        ),
        INCOME,
    ),
    "linear_multi_class": (
        lambda d: estimator.LinearClassifier(
            linear_columns(),
            model_dir=d,
            n_classes=3,
            label_vocabulary=["low", "mid", "high"],
            optimizer=lambda: tf.keras.optimizers.legacy.SGD(0.01),
            config=config(),
        ),
        LEVEL,
    ),
    "linear_regression": (
        lambda d: estimator.LinearRegressor(linear_columns(), model_dir=d, config=config()),
        SPEND,
    ),
    "linear_sdca_binary": (
        lambda d: estimator.LinearClassifier(
            linear_columns(),
            model_dir=d,
            weight_column="weight",
            optimizer=estimator.experimental.LinearSDCA(
                "example_id",
                num_table_shards=2,
                symmetric_l1_regularization=0.05,
                symmetric_l2_regularization=2.0,
            ),
            config=sdca_config(),
        ),
        INCOME,
    ),
    "linear_sdca_regression": (
        lambda d: estimator.LinearRegressor(
            linear_columns(),
            model_dir=d,
            optimizer=estimator.experimental.LinearSDCA("example_id"),
            config=sdca_config(),
        ),
        SPEND,
    ),
    "wide_deep_regression_vocabulary_file": (
        lambda d: estimator.DNNLinearCombinedRegressor(
            linear_feature_columns=weighted_columns(d),
            dnn_feature_columns=vocabulary_file_columns(d),
            dnn_hidden_units=[4],
            batch_norm=True,
            model_dir=d,
            config=sdca_config(),
        ),
        SPEND,
    ),
    "baseline_binary": (
        lambda d: estimator.BaselineClassifier(
            model_dir=d, weight_column="weight", optimizer="Adagrad", config=config()
        ),
        INCOME,
        ["age", "weight"],
    ),
    "baseline_multi_class": (
        lambda d: estimator.BaselineClassifier(
            model_dir=d, n_classes=3, label_vocabulary=["low", "mid", "high"], config=config()
        ),
        LEVEL,
        ["age"],
    ),
    "baseline_regression": (
        lambda d: estimator.BaselineRegressor(model_dir=d, config=config()),
        SPEND,
        ["hours"],
    ),
    "poisson_regression": (
        lambda d: estimator.DNNEstimator(
            estimator.PoissonRegressionHead(), [4], columns(), model_dir=d, config=config()
        ),
        VISITS,
    ),
    "multi_label": (
        lambda d: estimator.DNNEstimator(
            estimator.MultiLabelHead(
                3,
                weight_column="weight",
                thresholds=[0.3, 0.7],
                classes_for_class_based_metrics=[0, 2],
            ),
            [6],
            columns(),
            model_dir=d,
            config=config(),
        ),
        TOPICS,
    ),
    "multi_label_sparse_ids": (
        lambda d: estimator.DNNEstimator(
            estimator.MultiLabelHead(3), [6], columns(), model_dir=d, config=config()
        ),
        SparseLabels(TOPIC_IDS, padding=-1),
    ),
    "multi_label_sparse_strings": (
        lambda d: estimator.DNNEstimator(
            estimator.MultiLabelHead(3, label_vocabulary=list(TOPIC_NAMES)),
            [6],
            columns(),
            model_dir=d,
            config=config(),
        ),
        SparseLabels(TOPIC_STRINGS, padding=""),
    ),
    "binary_thresholds_loss_fn": (
        lambda d: estimator.DNNEstimator(
            estimator.BinaryClassHead(
                weight_column="weight", thresholds=[0.3, 0.6], loss_fn=hinge_loss
            ),
            [6],
            columns(),
            model_dir=d,
            config=config(),
        ),
        INCOME,
    ),
    "regression_loss_fn": (
        lambda d: estimator.DNNEstimator(
            estimator.RegressionHead(weight_column="weight", loss_fn=absolute_loss),
            [4],
            columns(),
            model_dir=d,
            config=config(),
        ),
        SPEND,
    ),
    "regression_warm_started": (
        lambda d: estimator.DNNRegressor(
            [5, 3],
            columns(),
            model_dir=d,
            weight_column="weight",
            warm_start_from=estimator.WarmStartSettings(
                trained_source(d), vars_to_warm_start=["dnn/hiddenlayer_.*"]
            ),
            config=config(),
        ),
        SPEND,
    ),
    "batch_norm_regression": (
        lambda d: estimator.DNNRegressor(
            [6, 3], columns(), model_dir=d, batch_norm=True, dropout=0.1, config=config()
        ),
        SPEND,
    ),
    "multi_head": (
        lambda d: estimator.DNNEstimator(
            estimator.MultiHead(
                [
                    estimator.MultiClassHead(
                        3, label_vocabulary=["low", "mid", "high"], name="level"
                    ),
                    estimator.RegressionHead(weight_column="weight", name="spend"),
                ],
                head_weights=[1.0, 0.5],
            ),
            [6],
            columns(),
            model_dir=d,
            config=config(),
        ),
        {"level": LEVEL, "spend": SPEND},
    ),
    "logistic_regression": (
        lambda d: estimator.LinearEstimator(
            estimator.LogisticRegressionHead(weight_column="weight"),
            linear_columns(),
            model_dir=d,
            config=config(),
        ),
        SHARE,
    ),
    "wide_deep_binary": (
        lambda d: estimator.DNNLinearCombinedClassifier(
            model_dir=d,
            linear_feature_columns=linear_columns(),
            dnn_feature_columns=columns(),
            dnn_hidden_units=[8, 4],
            config=config(),
        ),
        INCOME,
    ),
    "wide_deep_multi_class": (
        lambda d: estimator.DNNLinearCombinedClassifier(
            model_dir=d,
            linear_feature_columns=linear_columns(),
            linear_optimizer="SGD",
            linear_sparse_combiner="mean",
            dnn_feature_columns=columns(),
            dnn_optimizer=tf.keras.optimizers.legacy.Adam(0.01),
            dnn_hidden_units=[6],
            dnn_dropout=0.2,
            n_classes=3,
            label_vocabulary=["low", "mid", "high"],
            config=config(),
        ),
        LEVEL,
    ),
    "wide_deep_regression": (
        lambda d: estimator.DNNLinearCombinedRegressor(
            model_dir=d,
            linear_feature_columns=linear_columns(),
            dnn_feature_columns=columns(),
            dnn_hidden_units=[4],
            weight_column="weight",
            config=config(),
        ),
        SPEND,
    ),
    # the TF 1 flavour (tf.compat.v1.estimator, tf.estimator in TF 1 code)
    "v1_binary": (
        lambda d: estimator_v1.DNNClassifier([8, 4], columns(), model_dir=d, config=config()),
        INCOME,
    ),
    "v1_multi_class": (
        lambda d: estimator_v1.DNNClassifier(
            [6],
            v1_columns(),
            model_dir=d,
            n_classes=3,
            label_vocabulary=["low", "mid", "high"],
            dropout=0.25,
            optimizer="Adam",
            config=config(),
        ),
        LEVEL,
    ),
    "v1_regression": (
        lambda d: estimator_v1.DNNRegressor(
            [5, 3],
            columns(),
            model_dir=d,
            weight_column="weight",
            optimizer=lambda: tf.compat.v1.train.MomentumOptimizer(0.01, momentum=0.9),
            activation_fn=tf.nn.tanh,
            batch_norm=True,
            config=config(),
        ),
        SPEND,
    ),
    "v1_linear_binary": (
        lambda d: estimator_v1.LinearClassifier(
            linear_columns(),
            model_dir=d,
            weight_column="weight",
            sparse_combiner="sqrtn",
            config=config(),
        ),
        INCOME,
    ),
    "v1_linear_multi_class": (
        lambda d: estimator_v1.LinearClassifier(
            linear_columns(),
            model_dir=d,
            n_classes=3,
            label_vocabulary=["low", "mid", "high"],
            optimizer=lambda: tf.compat.v1.train.GradientDescentOptimizer(0.01),
            config=config(),
        ),
        LEVEL,
    ),
    "v1_linear_regression": (
        lambda d: estimator_v1.LinearRegressor(
            linear_columns(), model_dir=d, optimizer="Adagrad", config=config()
        ),
        SPEND,
    ),
    "v1_wide_deep_binary": (
        lambda d: estimator_v1.DNNLinearCombinedClassifier(
            model_dir=d,
            linear_feature_columns=linear_columns(),
            dnn_feature_columns=columns(),
            dnn_hidden_units=[8, 4],
            config=config(),
        ),
        INCOME,
    ),
    "v1_wide_deep_multi_class": (
        lambda d: estimator_v1.DNNLinearCombinedClassifier(
            model_dir=d,
            linear_feature_columns=linear_columns(),
            linear_optimizer="SGD",
            linear_sparse_combiner="mean",
            dnn_feature_columns=v1_columns(),
            dnn_optimizer=tf.compat.v1.train.AdamOptimizer(0.01),
            dnn_hidden_units=[6],
            dnn_dropout=0.2,
            n_classes=3,
            label_vocabulary=["low", "mid", "high"],
            config=config(),
        ),
        LEVEL,
    ),
    "v1_wide_deep_regression": (
        lambda d: estimator_v1.DNNLinearCombinedRegressor(
            model_dir=d,
            linear_feature_columns=linear_columns(),
            dnn_feature_columns=columns(),
            dnn_hidden_units=[4],
            weight_column="weight",
            batch_norm=True,
            config=config(),
        ),
        SPEND,
    ),
    "v1_baseline_binary": (
        lambda d: estimator_v1.BaselineClassifier(
            model_dir=d, weight_column="weight", optimizer="Adagrad", config=config()
        ),
        INCOME,
        ["age", "weight"],
    ),
    "v1_baseline_multi_class": (
        lambda d: estimator_v1.BaselineClassifier(
            model_dir=d, n_classes=3, label_vocabulary=["low", "mid", "high"], config=config()
        ),
        LEVEL,
        ["age"],
    ),
    "v1_baseline_regression": (
        lambda d: estimator_v1.BaselineRegressor(model_dir=d, config=config()),
        SPEND,
        ["hours"],
    ),
    # TF 1's *Estimator classes with TF 1.15's tf.contrib.estimator heads
    "v1_binary_thresholds_head": (
        lambda d: estimator_v1.DNNEstimator(
            contrib_estimator.binary_classification_head(
                weight_column="weight", thresholds=[0.3, 0.6], loss_fn=hinge_loss
            ),
            [6],
            columns(),
            model_dir=d,
            config=config(),
        ),
        INCOME,
    ),
    "v1_multi_class_head": (
        lambda d: estimator_v1.DNNLinearCombinedEstimator(
            contrib_estimator.multi_class_head(3, label_vocabulary=["low", "mid", "high"]),
            model_dir=d,
            linear_feature_columns=linear_columns(),
            dnn_feature_columns=columns(),
            dnn_hidden_units=[4],
            config=config(),
        ),
        LEVEL,
    ),
    "v1_poisson_head": (
        lambda d: estimator_v1.LinearEstimator(
            contrib_estimator.poisson_regression_head(weight_column="weight"),
            linear_columns(),
            model_dir=d,
            config=config(),
        ),
        VISITS,
    ),
    "v1_logistic_head": (
        lambda d: estimator_v1.BaselineEstimator(
            contrib_estimator.logistic_regression_head(), model_dir=d, config=config()
        ),
        SHARE,
        ["hours"],
    ),
    "v1_regression_head": (
        lambda d: estimator_v1.DNNEstimator(
            contrib_estimator.regression_head(weight_column="weight", loss_fn=absolute_loss),
            [4],
            columns(),
            model_dir=d,
            config=config(),
        ),
        SPEND,
    ),
    "v1_linear_sdca_binary": (
        lambda d: estimator_v1.LinearClassifier(
            linear_columns(),
            model_dir=d,
            optimizer=estimator.experimental.LinearSDCA(
                "example_id", symmetric_l1_regularization=0.1, symmetric_l2_regularization=4.0
            ),
            config=sdca_config(),
        ),
        INCOME,
    ),
    "v1_multi_label_head": (
        lambda d: estimator_v1.DNNEstimator(
            contrib_estimator.multi_label_head(
                3,
                weight_column="weight",
                thresholds=[0.3, 0.7],
                classes_for_class_based_metrics=[0, 2],
            ),
            [6],
            columns(),
            model_dir=d,
            config=config(),
        ),
        TOPICS,
    ),
    "v1_multi_label_head_named": (
        lambda d: estimator_v1.LinearEstimator(
            contrib_estimator.multi_label_head(
                3,
                label_vocabulary=list(TOPIC_NAMES),
                classes_for_class_based_metrics=["senior"],
                loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                name="topics",
            ),
            linear_columns(),
            model_dir=d,
            config=config(),
        ),
        SparseLabels(TOPIC_STRINGS, padding=""),
    ),
}


def main():
    """Runs the estimators named after MODEL_DIR (all of them by default), in the
    order named: each side runs them in the same order."""
    model_dir, chosen = sys.argv[2], sys.argv[3:] or list(ESTIMATORS)
    record = {name: run(name, *ESTIMATORS[name], model_dir=model_dir) for name in chosen}
    print(json.dumps(record))


if __name__ == "__main__":
    main()
