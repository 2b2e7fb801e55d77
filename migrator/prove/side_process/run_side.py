"""Starts a program as one side of a proof: ``python run_side.py [OPTIONS] SCRIPT
ARGS...`` or ``... [OPTIONS] -m MODULE ARGS...``, run by the side's own interpreter
(TensorFlow 2.15's for the legacy side). It imports nothing of estimator_revival
but what the runtime side's program imports anyway, so it runs in an environment
without it.

Options, before the program:

``--standins``      the TF 1.x names TensorFlow 2.15 lacks (``tf.contrib``,
                    ``npu_bridge``), from ``standins/`` (the legacy program's sides)
``--tf1-api``       ``import tensorflow`` gives TF 1's API (a program written for
                    TF 1.x, as ``migrate`` reads it)
``--prove DIR``     the proof's settings (``proving.py``): seeds, a summary every
                    step, ``--steps`` per training call, evaluations and
                    predictions recorded into DIR
``--steps N``       with ``--prove``: each training call stops after N steps
``--seed N``        with ``--prove``: the seed of every RunConfig that has none

Each training graph of a legacy program also keeps its train op in the collection
TRAIN_OP_COLLECTION, so that the kernel probe can run what the step writes from
the MetaGraph saved with a checkpoint (``kernel_probe.py``). A collection adds no
op: the graph, and so every number, stays what the Estimator built.
"""

import importlib.util
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STANDINS = os.path.join(HERE, "standins")
TRAIN_OP_COLLECTION = "legacy_replay_train_op"
FLAGS = ("--standins", "--tf1-api")
VALUED = ("--prove", "--steps", "--seed")


def record_train_ops() -> None:
    """Estimator's training adds the spec's train op to TRAIN_OP_COLLECTION."""
    from tensorflow.python.framework import ops
    from tensorflow_estimator.python.estimator import estimator

    train_with_spec = estimator.Estimator._train_with_estimator_spec

    def recorded(self, estimator_spec, *args, **kwargs):
        ops.add_to_collection(TRAIN_OP_COLLECTION, estimator_spec.train_op)
        return train_with_spec(self, estimator_spec, *args, **kwargs)

    estimator.Estimator._train_with_estimator_spec = recorded


def _proving():
    """proving.py, loaded from its file: a program's own module named ``proving``
    stays the program's."""
    spec = importlib.util.spec_from_file_location(
        "estimator_revival_proving", os.path.join(HERE, "proving.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _options(argv: list) -> tuple[dict, list]:
    """The runner's options, and the program's command line after them."""
    options = {}
    while argv and argv[0] in FLAGS + VALUED:
        name = argv.pop(0)
        options[name] = True if name in FLAGS else argv.pop(0)
    if not argv:
        sys.exit("run_side.py: no program to run")
    return options, argv


def main() -> None:
    options, program = _options(sys.argv[1:])
    as_module = program[0] == "-m"
    target = program[1] if as_module else os.path.abspath(program[0])
    sys.argv = [target, *program[2 if as_module else 1 :]]
    # as `python -m MODULE` / `python SCRIPT` set it
    sys.path[0] = os.getcwd() if as_module else os.path.dirname(target)
    legacy = "--standins" in options
    if legacy:
        sys.path.insert(1, STANDINS)
        import tensorflow_contrib

        tensorflow_contrib.install()
        if "--tf1-api" in options:
            import tf1_api

            tf1_api.install()
        record_train_ops()
    if "--prove" in options:
        _proving().install(
            record=options["--prove"],
            steps=int(options["--steps"]) if "--steps" in options else None,
            seed=int(options.get("--seed", 1)),
            legacy=legacy,
        )
    if as_module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")


if __name__ == "__main__":
    main()
