"""runtime.contrib: the tf.contrib names TensorFlow 2 has nowhere, with TF 1.15's
behaviour (docs/contrib.md)."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.contrib import summary as contrib_summary
from estimator_revival.contrib.data import batch_and_drop_remainder
from estimator_revival.contrib.estimator import clip_gradients_by_norm
from estimator_revival.contrib.learn import ModeKeys
from estimator_revival.contrib.training import HParams
from fixtures.equivalence.recording import scalar_summaries


def test_hparams_as_tf_1_15_documented_them():
    hparams = HParams(learning_rate=0.1, num_hidden_units=100, activations=["relu", "tanh"])
    assert hparams.parse("learning_rate=0.3,activations=[relu,relu]") is hparams
    assert hparams.learning_rate == 0.3
    assert hparams.activations == ["relu", "relu"]
    assert hparams.values() == {
        "learning_rate": 0.3,
        "num_hidden_units": 100,
        "activations": ["relu", "relu"],
    }
    assert "num_hidden_units" in hparams and "dropout" not in hparams
    assert hparams.get("dropout", 0.5) == 0.5
    assert HParams(a=1).to_json() == '{"a": 1}'
    assert HParams(a=1, b="x").parse_json('{"a": 2}').a == 2
    assert str(HParams(b=2, a=1)) == "[('a', 1), ('b', 2)]"


def test_hparams_keep_the_type_of_their_first_value():
    hparams = HParams(rate=0.5, steps=10, use_tpu=False, name="bert", sizes=[1, 2])
    hparams.set_hparam("rate", 1)  # an int is a float
    assert hparams.rate == 1.0 and isinstance(hparams.rate, float)
    hparams.parse("use_tpu=true,steps=20,name=albert")
    assert (hparams.use_tpu, hparams.steps, hparams.name) == (True, 20, "albert")
    for setting, message in [
        (("steps", 1.5), "Could not cast hparam 'steps'"),
        (("use_tpu", 1), "Could not cast hparam 'use_tpu'"),
        (("name", 3), "Could not cast hparam 'name'"),
        (("sizes", 3), "Must pass a list for multi-valued parameter: sizes"),
        (("steps", [1]), "Must not pass a list for single-valued parameter: steps"),
    ]:
        with pytest.raises(ValueError, match=message):
            hparams.set_hparam(*setting)
    with pytest.raises(ValueError, match="Unknown hyperparameter type for nope"):
        hparams.parse("nope=1")
    with pytest.raises(ValueError, match="Could not parse hparam 'steps'"):
        hparams.parse("steps=many")
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: values"):
        HParams(values=1)
    with pytest.raises(ValueError, match="Multi-valued hyperparameters cannot be empty: x"):
        HParams(x=[])


def test_contrib_learn_mode_keys_are_the_contrib_estimator_strings():
    assert (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.INFER) == ("train", "eval", "infer")


def test_batch_and_drop_remainder_drops_the_short_last_batch():
    dataset = tf.data.Dataset.range(10).apply(batch_and_drop_remainder(4))
    assert [batch.tolist() for batch in dataset.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert dataset.element_spec.shape.as_list() == [4]


def test_clip_gradients_by_norm_clips_by_the_global_norm_then_applies():
    with tf.Graph().as_default():
        weights = tf.compat.v1.get_variable("w", initializer=[3.0, 4.0])
        loss = tf.reduce_sum(weights * tf.constant([3.0, 4.0]))  # gradient (3, 4), norm 5
        optimizer = clip_gradients_by_norm(tf.compat.v1.train.GradientDescentOptimizer(1.0), 1.0)
        assert optimizer.get_name() == "ClipByNormGradientDescent"
        train_op = optimizer.minimize(loss)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(train_op)
            np.testing.assert_allclose(session.run(weights), [3.0 - 0.6, 4.0 - 0.8], rtol=1e-6)


def test_contrib_summaries_keep_tf_1_15_rules(tmp_path, eager_global_step):
    """Recording is off by default, the step defaults to the global step, a family
    prefixes tag and scope, every-n-steps reads the global step: what
    ``tf.summary`` (on by default, no default step, no family) would change."""
    global_step = eager_global_step
    global_step.assign(7)
    writer = contrib_summary.create_file_writer(tmp_path)
    with writer.as_default():
        assert not contrib_summary.should_record_summaries()
        contrib_summary.scalar("not_recorded", 1.0)
        with contrib_summary.always_record_summaries():
            assert contrib_summary.should_record_summaries()
            contrib_summary.scalar("learning_rate", 0.5, family="optimizer")
            contrib_summary.scalar("explicit_step", 2.0, step=3)
        with contrib_summary.record_summaries_every_n_global_steps(2):
            contrib_summary.scalar("on_even_steps", 3.0)
        global_step.assign(8)
        with contrib_summary.record_summaries_every_n_global_steps(2):
            contrib_summary.scalar("on_even_steps", 4.0)
    writer.flush()
    assert scalar_summaries(tmp_path) == {
        "optimizer/optimizer/learning_rate": [[7, 0.5]],
        "explicit_step": [[3, 2.0]],
        "on_even_steps": [[8, 4.0]],
    }


def test_greedy_load_balancing_puts_each_variable_on_the_least_loaded_ps_task():
    """tf.contrib.training.GreedyLoadBalancingStrategy with byte_size_load_fn, as
    replica_device_setter's ps_strategy: the 400 bytes of ``a`` to task 0, then ``b``
    (8) and ``c`` (400) to the lighter task 1, then ``d`` (4) to task 0, now the
    lighter one (400 against 408)."""
    from estimator_revival.contrib.device_setter import (
        GreedyLoadBalancingStrategy,
        byte_size_load_fn,
    )

    strategy = GreedyLoadBalancingStrategy(2, byte_size_load_fn)
    with tf.Graph().as_default():
        setter = tf.compat.v1.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)
        with tf.compat.v1.device(setter):
            shapes = {"a": [10, 10], "b": [2], "c": [10, 10], "d": []}
            devices = {
                name: tf.compat.v1.get_variable(name, shape).device
                for name, shape in shapes.items()
            }
    assert devices == {
        "a": "/job:ps/task:0",
        "b": "/job:ps/task:1",
        "c": "/job:ps/task:1",
        "d": "/job:ps/task:0",
    }
