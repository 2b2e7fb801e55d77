"""``tf.contrib.distribute.MirroredStrategy`` with TF 1.15's arguments
(runtime/contrib/distribute.py): the devices TF 1.15 chose, and an Estimator that
trains with it in ``RunConfig(train_distribute=...)``."""

import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.contrib import distribute

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.mark.parametrize(
    "arguments",
    [{"num_gpus": 0}, {"num_gpus_per_worker": 0}, {}, {"devices": ["/cpu:0"]}],
    ids=["num_gpus=0", "num_gpus_per_worker=0", "all GPUs (none here)", "devices"],
)
def test_the_devices_tf_1_15_chose(arguments):
    assert len(tf.config.list_logical_devices("GPU")) == 0  # this machine, as CI's
    strategy = distribute.MirroredStrategy(**arguments)
    assert isinstance(strategy, tf.distribute.MirroredStrategy)
    assert strategy.extended.worker_devices == (CPU,)


def test_num_gpus_mirrors_on_the_first_gpus(monkeypatch):
    """The devices handed to TF 2's MirroredStrategy (this machine has no GPU to
    build it on: whether TF then places on absent ones depends on soft placement)."""
    given = []
    monkeypatch.setattr(
        tf.distribute.MirroredStrategy,
        "__init__",
        lambda self, devices=None, cross_device_ops=None: given.append(devices),
    )
    distribute.MirroredStrategy(num_gpus=2)
    assert given == [["/device:GPU:0", "/device:GPU:1"]]


def test_num_gpus_and_num_gpus_per_worker_together_are_refused():
    with pytest.raises(ValueError, match="both `num_gpus` and `num_gpus_per_worker`"):
        distribute.MirroredStrategy(num_gpus=1, num_gpus_per_worker=1)


def model_fn(features, labels, mode):
    weight = tf.compat.v1.get_variable("w", [1, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weight) - labels))
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_an_estimator_trains_with_it(tmp_path):
    config = estimator.RunConfig(train_distribute=distribute.MirroredStrategy(num_gpus=0))
    est = estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    est.train(lambda: tf.data.Dataset.from_tensors((tf.ones([2, 1]), tf.ones([2, 1]))).repeat(3))
    assert est.get_variable_value("global_step") == 3
