"""``replicate_model_fn`` and ``TowerOptimizer`` beyond the equivalence fixture
(fixtures/equivalence/tf1_replicate_model_fn_towers): the default devices on this
GPU-less machine (model_fn once, on the CPU), towers whose losses are summed
(``loss_reduction=SUM``), gradients handed to ``apply_gradients`` as a ``zip``
(XLNet's and BERT's ``zip(clipped, variables)``: TF 1.15 used the towers' zips up
before summing them), and the errors TF 1.15 raised. Prints JSON; run under the
reference (TF 1.15's own module, as the stand-ins load it) and the runtime
(tests/runtime/test_runtime_replicate_model_fn.py).

Usage: python tower_replication.py legacy|runtime MODEL_DIR
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

if sys.argv[1] == "runtime":
    from estimator_revival import estimator
    from estimator_revival.contrib import estimator as contrib_estimator
else:
    from estimator_revival.migrator.prove.side_process.standins import contrib_estimator

    estimator = tf.estimator

v1 = tf.compat.v1
v1.disable_v2_behavior()  # a TF 1 program (TF 1's static shapes: the batch check)
INPUTS = np.random.RandomState(4).normal(size=(48, 3)).astype(np.float32)
TARGETS = INPUTS @ np.array([[1.5], [-2.0], [0.5]], np.float32)
TWO_ABSENT_GPUS = ["/gpu:0", "/gpu:1"]


def model_fn(features, labels, mode, params):
    prediction = v1.layers.dense(features, 1, name="linear")
    if mode == estimator.ModeKeys.PREDICT:
        return estimator.EstimatorSpec(mode, predictions=prediction)
    loss = v1.losses.mean_squared_error(labels, prediction)
    if mode == estimator.ModeKeys.EVAL:
        return estimator.EstimatorSpec(mode, loss=loss)
    optimizer = v1.train.GradientDescentOptimizer(0.05)
    if params["tower_optimizer"]:
        optimizer = contrib_estimator.TowerOptimizer(optimizer)
    step = v1.train.get_global_step()
    if params["zip"]:
        gradients, variables = zip(*optimizer.compute_gradients(loss), strict=True)
        train_op = optimizer.apply_gradients(
            zip(gradients, variables, strict=True), global_step=step
        )
    else:
        train_op = optimizer.minimize(loss, step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train(model_dir, *, batch=8, tower_optimizer=True, zip_gradients=False, **replication):
    params = {"tower_optimizer": tower_optimizer, "zip": zip_gradients}
    model = estimator.Estimator(
        contrib_estimator.replicate_model_fn(model_fn, **replication),
        model_dir=model_dir,
        config=estimator.RunConfig(tf_random_seed=5),
        params=params,
    )
    try:
        model.train(
            lambda: (
                tf.data.Dataset.from_tensor_slices((INPUTS, TARGETS))
                .repeat()
                .batch(batch, drop_remainder=True)
            ),
            steps=4,
        )
    except ValueError as error:
        return {"error": str(error)}
    return {"linear/kernel": model.get_variable_value("linear/kernel").ravel().tolist()}


def main(model_dir):
    record = {
        "one_device": train(os.path.join(model_dir, "one_device")),
        "summed": train(
            os.path.join(model_dir, "summed"),
            devices=TWO_ABSENT_GPUS,
            loss_reduction=v1.losses.Reduction.SUM,
        ),
        "averaged": train(os.path.join(model_dir, "averaged"), devices=TWO_ABSENT_GPUS),
        "zipped": train(
            os.path.join(model_dir, "zipped"), devices=TWO_ABSENT_GPUS, zip_gradients=True
        ),
        "no_tower_optimizer": train(
            os.path.join(model_dir, "plain"), devices=TWO_ABSENT_GPUS, tower_optimizer=False
        ),
        "indivisible_batch": train(
            os.path.join(model_dir, "odd"), devices=TWO_ABSENT_GPUS, batch=7
        ),
    }
    try:
        contrib_estimator.replicate_model_fn(model_fn, loss_reduction=v1.losses.Reduction.NONE)
    except ValueError as error:
        record["no_reduction"] = str(error)
    print(json.dumps(record))


if __name__ == "__main__":
    main(sys.argv[2])
