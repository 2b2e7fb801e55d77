"""Strategy selection (runtime/distribute/strategy_selection.py), one test per branch.

The TPU branch is exercised with TensorFlow's TPU entry points replaced at the
boundary (connect, initialize, TPUStrategy): no TPU is reachable here, so what
is checked is that the runtime calls them in TensorFlow's documented order with
the resolver the RunConfig names. The GPU branch likewise fakes the device list.
"""

import json
import types

import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.distribute import strategy_selection
from estimator_revival.estimator import tpu


def model_fn(features, labels, mode, params):
    raise AssertionError("not called: only strategies are chosen here")


@pytest.fixture
def tpu_boundary(monkeypatch):
    """Records the calls into TensorFlow's TPU API; TPUStrategy returns a fake."""
    calls = []
    fake_strategy = types.SimpleNamespace(name="tpu strategy")

    def resolver_class(tpu):
        calls.append(("TPUClusterResolver", tpu))
        return FakeResolver(tpu)

    monkeypatch.setattr(tf.distribute.cluster_resolver, "TPUClusterResolver", resolver_class)
    monkeypatch.setattr(
        tf.config,
        "experimental_connect_to_cluster",
        lambda resolver: calls.append(("connect", resolver.master())),
    )
    monkeypatch.setattr(
        tf.tpu.experimental,
        "initialize_tpu_system",
        lambda resolver: calls.append(("initialize", resolver.master())),
    )

    def tpu_strategy(resolver):
        calls.append(("TPUStrategy", resolver.master()))
        return fake_strategy

    monkeypatch.setattr(tf.distribute, "TPUStrategy", tpu_strategy)
    return calls, fake_strategy


class FakeResolver:
    def __init__(self, address: str) -> None:
        self._address = address

    def master(self) -> str:
        return self._address


def tpu_estimator(tmp_path, *, use_tpu=True, **config):
    run_config = tpu.RunConfig(model_dir=str(tmp_path), **config)
    return tpu.TPUEstimator(model_fn, config=run_config, use_tpu=use_tpu, train_batch_size=8)


def test_a_cluster_resolver_connects_initializes_and_uses_tpu_strategy(tmp_path, tpu_boundary):
    calls, fake_strategy = tpu_boundary
    resolver = FakeResolver("grpc://10.0.0.2:8470")
    est = tpu_estimator(tmp_path, cluster=resolver)
    assert calls == [
        ("connect", "grpc://10.0.0.2:8470"),
        ("initialize", "grpc://10.0.0.2:8470"),
        ("TPUStrategy", "grpc://10.0.0.2:8470"),
    ]
    assert est._replications["train"].strategy is fake_strategy
    assert est._replications["eval"].strategy is fake_strategy  # eval_on_tpu=True


def test_a_master_name_builds_the_resolver(tmp_path, tpu_boundary):
    calls, fake_strategy = tpu_boundary
    tpu_estimator(tmp_path, master="my-tpu")
    assert calls[0] == ("TPUClusterResolver", "my-tpu")
    assert [name for name, _ in calls[1:]] == ["connect", "initialize", "TPUStrategy"]


def test_a_local_tpu_is_initialized_without_connecting(tmp_path, tpu_boundary):
    calls, _ = tpu_boundary
    tpu_estimator(tmp_path, master="local")
    assert [name for name, _ in calls] == ["TPUClusterResolver", "initialize", "TPUStrategy"]


def test_eval_on_tpu_false_evaluates_on_one_device(tmp_path, tpu_boundary):
    run_config = tpu.RunConfig(model_dir=str(tmp_path), cluster=FakeResolver("grpc://t:1"))
    est = tpu.TPUEstimator(
        model_fn, config=run_config, use_tpu=True, train_batch_size=8, eval_on_tpu=False
    )
    assert est._replications["train"].replicated
    assert not est._replications["eval"].replicated


def test_use_tpu_false_never_touches_the_tpu(tmp_path, tpu_boundary):
    calls, _ = tpu_boundary
    est = tpu_estimator(tmp_path, use_tpu=False, cluster=FakeResolver("grpc://t:1"))
    assert calls == []
    assert not est._replications["train"].replicated


def test_an_explicit_strategy_overrides_the_tpu(tmp_path, tpu_boundary):
    calls, _ = tpu_boundary
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    est = tpu_estimator(tmp_path, cluster=FakeResolver("grpc://t:1"), train_distribute=strategy)
    assert calls == []
    assert est._replications["train"].strategy is strategy


@pytest.fixture
def two_gpus(monkeypatch):
    devices = [types.SimpleNamespace(name=f"/device:GPU:{i}") for i in range(2)]
    real = tf.config.list_logical_devices
    monkeypatch.setattr(
        tf.config,
        "list_logical_devices",
        lambda kind=None: devices if kind == "GPU" else real(kind),
    )
    created = []
    monkeypatch.setattr(
        tf.distribute, "MirroredStrategy", lambda devices: created.append(devices) or "mirrored"
    )
    return created


def test_a_replicated_model_fn_uses_every_gpu(two_gpus):
    config = tpu.RunConfig()
    assert strategy_selection.training_strategy(config, replicated_model_fn=True) == "mirrored"
    assert two_gpus == [["/device:GPU:0", "/device:GPU:1"]]


def test_a_plain_estimator_stays_on_one_gpu(two_gpus):
    assert strategy_selection.training_strategy(estimator.RunConfig()) is None
    assert two_gpus == []


def test_tf_config_workers_use_multi_worker_mirrored_strategy(monkeypatch):
    tf_config = {
        "cluster": {"chief": ["localhost:2222"], "worker": ["localhost:2223"]},
        "task": {"type": "worker", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    monkeypatch.setattr(tf.distribute, "MultiWorkerMirroredStrategy", lambda: "multi-worker")
    for replicated in (False, True):
        config = tpu.RunConfig()
        assert (
            strategy_selection.training_strategy(config, replicated_model_fn=replicated)
            == "multi-worker"
        )


PS_CLUSTER = {
    "master": ["localhost:2222"],
    "worker": ["localhost:2223", "localhost:2224"],
    "ps": ["localhost:2225"],
    "evaluator": ["localhost:2226"],
}


def _resolver_seen_by(monkeypatch, strategy_path: str) -> list:
    """Replaces ``tf.distribute.<strategy_path>`` by a recorder of its resolver."""
    seen = []
    *modules, name = strategy_path.split(".")
    owner = tf.distribute
    for module in modules:
        owner = getattr(owner, module)

    class Recorder:  # a class: RunConfig checks strategies with isinstance
        def __init__(self, cluster_resolver):
            seen.append(cluster_resolver)

    monkeypatch.setattr(owner, name, Recorder)
    return seen


def test_a_ps_cluster_trains_on_parameter_server_strategy_coordinated_by_the_master(
    monkeypatch,
):
    """The legacy `master` is the chief; the evaluator is not part of the cluster."""
    seen = _resolver_seen_by(monkeypatch, "experimental.ParameterServerStrategy")
    tf_config = {"cluster": PS_CLUSTER, "task": {"type": "master", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    strategy_selection.training_strategy(estimator.RunConfig())
    [resolver] = seen
    assert resolver.cluster_spec().as_dict() == {
        "chief": ["localhost:2222"],
        "worker": ["localhost:2223", "localhost:2224"],
        "ps": ["localhost:2225"],
    }
    assert (resolver.task_type, resolver.task_id, resolver.rpc_layer) == ("chief", 0, "grpc")


@pytest.mark.parametrize("task_type", ["worker", "ps"])
def test_workers_and_ps_tasks_of_a_ps_cluster_serve_without_a_strategy(monkeypatch, task_type):
    seen = _resolver_seen_by(monkeypatch, "experimental.ParameterServerStrategy")
    tf_config = {"cluster": PS_CLUSTER, "task": {"type": task_type, "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    assert strategy_selection.training_strategy(estimator.RunConfig()) is None
    assert seen == []


def test_a_ps_cluster_without_workers_says_what_to_change(monkeypatch):
    tf_config = {
        "cluster": {"chief": ["localhost:2222"], "ps": ["localhost:2223"]},
        "task": {"type": "chief", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    with pytest.raises(ValueError, match="`ps` tasks but no `worker` task"):
        strategy_selection.training_strategy(estimator.RunConfig())


def test_a_master_job_without_ps_is_the_chief_of_multi_worker_mirrored_strategy(monkeypatch):
    seen = _resolver_seen_by(monkeypatch, "MultiWorkerMirroredStrategy")
    tf_config = {
        "cluster": {"master": ["localhost:2222"], "worker": ["localhost:2223"]},
        "task": {"type": "worker", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    strategy_selection.training_strategy(estimator.RunConfig())
    [resolver] = seen
    assert resolver.cluster_spec().as_dict() == {
        "chief": ["localhost:2222"],
        "worker": ["localhost:2223"],
    }
    assert (resolver.task_type, resolver.task_id) == ("worker", 0)


def test_nothing_configured_is_one_device(monkeypatch):
    real = tf.config.list_logical_devices
    monkeypatch.setattr(
        tf.config, "list_logical_devices", lambda kind=None: [] if kind == "GPU" else real(kind)
    )
    assert strategy_selection.training_strategy(tpu.RunConfig(), replicated_model_fn=True) is None
    assert strategy_selection.training_strategy(estimator.RunConfig()) is None
