"""input_fns that return tensors rather than a dataset, as tensorflow_estimator's
own tests wrote them (``dummy_input_fn``: constant features and labels; ``({},
None)``; an input_fn taking ``mode``, ``params`` and ``config``): how often each
train/evaluate/predict call calls input_fn (once, as the Estimator did: the
runtime computes the tensors in every step from the graph input_fn built, as its
Session did), what it was given, and what the calls return. Prints JSON; run
under both interpreters (tests/runtime/test_runtime_input_fn_results.py).

Usage: python input_fn_results.py legacy|runtime MODEL_DIR
"""

import itertools
import json
import sys

import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
else:
    estimator = tf.estimator

CALLS = []


def model_fn(features, labels, mode, params, config):
    weight = tf.compat.v1.get_variable("weight", [], initializer=tf.zeros_initializer())
    x = features["x"] if features else tf.ones([2, 1])
    prediction = x * weight
    step = tf.compat.v1.train.get_global_step()
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions={"y": prediction})
    target = tf.cast(labels, tf.float32) if labels is not None else 2.0 * x
    loss = tf.reduce_mean(tf.square(prediction - target))
    if mode == estimator.ModeKeys.EVAL:
        return estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"mean_x": tf.compat.v1.metrics.mean(x)}
        )
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def dummy_input_fn(mode, params, config):
    """Constant tensors, and what the Estimator passed."""
    CALLS.append([mode, params, config.tf_random_seed])
    features = {"x": tf.constant([[1.0], [2.0]]) * params["scale"]}
    return features, tf.constant([[2], [4]])


def empty_input_fn():
    CALLS.append(["empty"])
    return {}, None


def calls_of(run):
    CALLS.clear()
    result = run()
    return {"calls": list(CALLS), "result": result}


def main():
    config = estimator.RunConfig(tf_random_seed=4321)
    est = estimator.Estimator(model_fn, model_dir=sys.argv[2], params={"scale": 1.5}, config=config)
    record = {
        "train": calls_of(lambda: est.train(dummy_input_fn, steps=3) and None),
        "weight": float(est.get_variable_value("weight")),
        "evaluate": calls_of(
            lambda: {k: float(v) for k, v in est.evaluate(dummy_input_fn, steps=2).items()}
        ),
        "predict": calls_of(
            lambda: [float(p["y"][0]) for p in itertools.islice(est.predict(dummy_input_fn), 3)]
        ),
        "train_empty": calls_of(lambda: est.train(empty_input_fn, steps=2) and None),
        "weight_after_empty": float(est.get_variable_value("weight")),
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
