"""Runs a legacy program under TF 2.15 with the TF 1.x stand-ins installed:
``python tests/standins/run_legacy.py [--tf1-api] SCRIPT [ARGS...]`` or
``... [--tf1-api] -m MODULE [ARGS...]``. With ``--tf1-api``, ``import tensorflow``
gives TF 1's API (``tf1_api.py``), for programs written for TF 1.x.

Each training graph also keeps its train op in the collection TRAIN_OP_COLLECTION,
so that the kernel probe can run what the step writes from the MetaGraph saved
with a checkpoint (``tests/programs/kernel_probe.py``). A collection adds no op:
the graph, and so every number, stays what the Estimator built."""

import os
import runpy
import sys

STANDINS = os.path.dirname(os.path.abspath(__file__))
TRAIN_OP_COLLECTION = "legacy_replay_train_op"


def record_train_ops() -> None:
    """Estimator's training adds the spec's train op to TRAIN_OP_COLLECTION."""
    from tensorflow.python.framework import ops
    from tensorflow_estimator.python.estimator import estimator

    train_with_spec = estimator.Estimator._train_with_estimator_spec

    def recorded(self, estimator_spec, *args, **kwargs):
        ops.add_to_collection(TRAIN_OP_COLLECTION, estimator_spec.train_op)
        return train_with_spec(self, estimator_spec, *args, **kwargs)

    estimator.Estimator._train_with_estimator_spec = recorded


def main() -> None:
    tf1_api = sys.argv[1] == "--tf1-api"
    if tf1_api:
        del sys.argv[1]
    as_module = sys.argv[1] == "-m"
    target = sys.argv[2] if as_module else os.path.abspath(sys.argv[1])
    sys.argv = [target, *sys.argv[3 if as_module else 2 :]]
    # as `python -m MODULE` / `python SCRIPT` set it
    sys.path[0] = os.getcwd() if as_module else os.path.dirname(target)
    sys.path.insert(1, STANDINS)
    import tensorflow_contrib

    tensorflow_contrib.install()
    if tf1_api:
        import tf1_api as api

        api.install()
    record_train_ops()
    if as_module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")


if __name__ == "__main__":
    main()
