"""Trains the runtime's linear model to --max-steps in --model-dir, optionally
slowly (--step-delay seconds per step) so a test can kill it mid-run.

The data repeats every 8 steps and checkpoints come every 8 steps, so a run
resumed from any checkpoint sees the very batches an uninterrupted run saw.
"""

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from estimator_revival import estimator  # noqa: E402
from helpers.runtime_models import X, Y, linear_model_fn  # noqa: E402


class Delay(tf.compat.v1.train.SessionRunHook):
    def __init__(self, seconds: float) -> None:
        self._seconds = seconds

    def after_run(self, run_context, run_values):
        time.sleep(self._seconds)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--max-steps", type=int, required=True)
    parser.add_argument("--step-delay", type=float, default=0.0)
    args = parser.parse_args()
    assert len(X) == 64, "one pass over the data must be 8 steps"
    # tf.compat.v1.layers' Keras initializers draw their seed from Python's
    # `random` when none is given: seeded, two runs start from the same weights.
    random.seed(0)
    est = estimator.Estimator(
        linear_model_fn,
        model_dir=args.model_dir,
        config=estimator.RunConfig(tf_random_seed=3, save_checkpoints_steps=8),
        params={"learning_rate": 0.01},
    )
    hooks = [Delay(args.step_delay)] if args.step_delay else []
    est.train(input_fn, max_steps=args.max_steps, hooks=hooks)
    np.save(Path(args.model_dir) / "final_kernel.npy", est.get_variable_value("linear/kernel"))


if __name__ == "__main__":
    main()
