"""One benchmark workload, run under either interpreter.

    python workload.py legacy|runtime|handwritten|handwritten_tf1_ops MODEL STEPS [steady|short|rounds|call|train_graph|eval_graph]

Prints one JSON line with ``steps_per_sec`` (steady) or ``seconds`` (short, rounds,
call):

- steady: a timed ``train(steps=STEPS)`` call made after a short warm-up call
  on the same model_dir (so both sides pay their per-call set-up: graph
  building and session creation for the Estimator, discovery and tracing, or
  their reuse, for the runtime), with default RunConfig settings. The
  ``handwritten`` side is the practical limit: the same model as Keras layers
  in a plain TF 2 ``tf.function`` loop over the same dataset;
  ``handwritten_tf1_ops`` is that loop with model_fn's TF 1 loss and optimizer.
- short: a fine-tuning run end to end in one process (after imports, which both
  sides finish before the timer starts): construct, train STEPS steps, evaluate,
  predict. (bench/runtime/run.py also times the whole process, imports included.)
- rounds: ``train_and_evaluate`` to STEPS steps with an evaluation after each
  of 10 checkpoints; seconds per round.
- call: what a ``train(steps=STEPS)`` call costs besides its steps: the median of
  25 such calls on one model_dir, after 3 warm-up calls (a steady call's time is
  this plus its steps).
- train_graph, eval_graph: model_fn alone building its TRAIN (EVAL) graph, as
  every call makes it build once on both sides: the median of 25 builds in a
  plain graph, after 3 (STEPS is not used). No runtime can make a call cheaper
  than this, which bench/runtime/run.py turns into the per-call rows' ceilings.
"""

import json
import sys
import tempfile
import time

import numpy as np
import tensorflow as tf

SIDE, MODEL, STEPS = sys.argv[1], sys.argv[2], int(sys.argv[3])
SCENARIO = sys.argv[4] if len(sys.argv) > 4 else "steady"
if SIDE == "legacy":
    # TF 2.15's tf.estimator is a lazy module: its first use imports
    # tensorflow_estimator. Used here, so that no timer below pays that import
    # (the runtime's is imported here too).
    estimator = tf.estimator
    estimator.Estimator  # noqa: B018
else:  # the hand-written loop only needs the model_fns' module to import
    from estimator_revival import estimator
EVAL_ROUNDS = 10

RANDOM = np.random.RandomState(0)
SMALL_X = RANDOM.normal(size=(1024, 16)).astype(np.float32)
SMALL_Y = (SMALL_X[:, :4].sum(axis=1) > 0).astype(np.int32)
IMAGES = RANDOM.uniform(size=(512, 32, 32, 3)).astype(np.float32)
IMAGE_LABELS = RANDOM.randint(0, 10, size=512).astype(np.int32)


def tiny_model_fn(features, labels, mode):
    """Logistic regression with plain SGD: Python overhead dominates."""
    logits = tf.compat.v1.layers.dense(features, 2)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def small_model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features, 32, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(hidden, 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def summaries_model_fn(features, labels, mode):
    """small with the v1 summaries model_fns wrote (written every 100 steps): a
    decaying learning rate, an accuracy, histograms of activations and weights."""
    hidden = tf.compat.v1.layers.dense(features, 32, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(hidden, 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    global_step = tf.compat.v1.train.get_global_step()
    learning_rate = tf.compat.v1.train.exponential_decay(1e-3, global_step, 1000, 0.9)
    optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate)
    train_op = optimizer.minimize(loss, global_step=global_step)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, tf.int32), labels), tf.float32))
    tf.compat.v1.summary.scalar("learning_rate", learning_rate)
    tf.compat.v1.summary.scalar("accuracy", accuracy)
    tf.compat.v1.summary.histogram("hidden", hidden)
    for variable in tf.compat.v1.trainable_variables():
        tf.compat.v1.summary.histogram(variable.op.name, variable)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def heavy_model_fn(features, labels, mode):
    net = features
    for filters in (64, 128, 128):
        net = tf.compat.v1.layers.conv2d(net, filters, 3, padding="same", activation=tf.nn.relu)
        net = tf.compat.v1.layers.max_pooling2d(net, 2, 2)
    net = tf.compat.v1.layers.dense(tf.compat.v1.layers.flatten(net), 256, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 10)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def mlp_bn_model_fn(features, labels, mode):
    """A small MLP with batch norm and Adam, evaluated with accuracy."""
    training = mode == estimator.ModeKeys.TRAIN
    hidden = tf.compat.v1.layers.dense(features, 32, activation=tf.nn.relu)
    hidden = tf.compat.v1.layers.batch_normalization(hidden, training=training)
    logits = tf.compat.v1.layers.dense(hidden, 2)
    classes = tf.argmax(logits, axis=1)
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions={"classes": classes})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, classes)}
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def handwritten_steps_per_sec(tf1_ops: bool) -> float:
    """mlp_bn as a hand-written TF 2 loop: Keras layers, one tf.function running
    STEPS steps over the same dataset (after a 10-step warm-up), with Keras' Adam
    and loss, or (``tf1_ops``) with the TF 1 loss and AdamOptimizer model_fn uses:
    the same kernels, the limit for a runtime that reproduces model_fn's numbers."""
    tf.random.set_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Dense(2),
        ]
    )
    model.build((None, SMALL_X.shape[1]))
    if tf1_ops:
        optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
        loss_fn = tf.compat.v1.losses.sparse_softmax_cross_entropy
    else:
        optimizer = tf.keras.optimizers.Adam(1e-3)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    iterator = iter(small_input_fn())

    @tf.function
    def train(steps):
        for _ in tf.range(steps):
            features, labels = next(iterator)
            with tf.GradientTape() as tape:
                loss = loss_fn(labels, model(features, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    train(tf.constant(10)).numpy()
    start = time.perf_counter()
    train(tf.constant(STEPS)).numpy()
    return STEPS / (time.perf_counter() - start)


def small_eval_input_fn():
    return tf.data.Dataset.from_tensor_slices((SMALL_X, SMALL_Y)).batch(256)


def small_predict_input_fn():
    return tf.data.Dataset.from_tensor_slices(SMALL_X).batch(256)


def short_program_seconds(model_fn, input_fn) -> float:
    start = time.perf_counter()
    config = estimator.RunConfig(tf_random_seed=0)
    est = estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    est.train(input_fn, steps=STEPS)
    est.evaluate(small_eval_input_fn)
    for _ in est.predict(small_predict_input_fn):
        pass
    return time.perf_counter() - start


def seconds_per_eval_round(model_fn, input_fn) -> float:
    config = estimator.RunConfig(tf_random_seed=0, save_checkpoints_steps=STEPS // EVAL_ROUNDS)
    est = estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    start = time.perf_counter()
    estimator.train_and_evaluate(
        est,
        estimator.TrainSpec(input_fn, max_steps=STEPS),
        estimator.EvalSpec(small_eval_input_fn, steps=None, start_delay_secs=0, throttle_secs=0),
    )
    return (time.perf_counter() - start) / EVAL_ROUNDS


def seconds_per_call(model_fn, input_fn) -> float:
    config = estimator.RunConfig(tf_random_seed=0)
    est = estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    for _ in range(3):
        est.train(input_fn, steps=STEPS)
    seconds = []
    for _ in range(25):
        start = time.perf_counter()
        est.train(input_fn, steps=STEPS)
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds))


def seconds_per_model_fn_graph(model_fn, input_fn, mode: str) -> float:
    def build() -> float:
        with tf.Graph().as_default():
            tf.compat.v1.train.get_or_create_global_step()
            features, labels = tf.compat.v1.data.make_one_shot_iterator(input_fn()).get_next()
            start = time.perf_counter()
            model_fn(features, labels, mode)
            return time.perf_counter() - start

    for _ in range(3):
        build()
    return float(np.median([build() for _ in range(25)]))


def small_input_fn():
    return tf.data.Dataset.from_tensor_slices((SMALL_X, SMALL_Y)).repeat().batch(32)


def heavy_input_fn():
    return tf.data.Dataset.from_tensor_slices((IMAGES, IMAGE_LABELS)).repeat().batch(64)


def main():
    model_fn, input_fn = {
        "tiny": (tiny_model_fn, small_input_fn),
        "small": (small_model_fn, small_input_fn),
        "summaries": (summaries_model_fn, small_input_fn),
        "heavy": (heavy_model_fn, heavy_input_fn),
        "mlp_bn": (mlp_bn_model_fn, small_input_fn),
    }[MODEL]
    report = {"side": SIDE, "model": MODEL, "steps": STEPS, "scenario": SCENARIO}
    if SIDE.startswith("handwritten"):
        steps_per_sec = handwritten_steps_per_sec(tf1_ops=SIDE == "handwritten_tf1_ops")
        print(json.dumps({**report, "steps_per_sec": steps_per_sec}))
        return
    if SCENARIO == "short":
        print(json.dumps({**report, "seconds": short_program_seconds(model_fn, input_fn)}))
        return
    if SCENARIO == "call":
        print(json.dumps({**report, "seconds": seconds_per_call(model_fn, input_fn)}))
        return
    if SCENARIO in ("train_graph", "eval_graph"):
        mode = estimator.ModeKeys.TRAIN if SCENARIO == "train_graph" else estimator.ModeKeys.EVAL
        seconds = seconds_per_model_fn_graph(model_fn, input_fn, mode)
        print(json.dumps({**report, "seconds": seconds}))
        return
    if SCENARIO == "rounds":
        print(json.dumps({**report, "seconds": seconds_per_eval_round(model_fn, input_fn)}))
        return
    config = estimator.RunConfig(tf_random_seed=0)
    est = estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    est.train(input_fn, steps=10)
    start = time.perf_counter()
    est.train(input_fn, steps=STEPS)
    elapsed = time.perf_counter() - start
    print(
        json.dumps({"side": SIDE, "model": MODEL, "steps": STEPS, "steps_per_sec": STEPS / elapsed})
    )


if __name__ == "__main__":
    main()
