"""Compiles the train, eval and predict steps of equivalence fixture programs
with XLA (runtime.engine.xla_check) and writes ``{fixture: {mode: verdict}}`` as JSON:
``"compiled"``, or ``"rejected: <op>, ..."`` naming the ops XLA could not
compile."""

import argparse
import importlib
import json
import random
import re
import tempfile

import tensorflow as tf

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.engine import xla_check

INPUT_FNS = {
    ModeKeys.TRAIN: "train_input_fn",
    ModeKeys.EVAL: "eval_input_fn",
    ModeKeys.PREDICT: "predict_input_fn",
}


def verdicts(fixture: str) -> dict:
    module = importlib.import_module(f"fixtures.equivalence.{fixture}.migrated")
    # A program's own flags (tf.flags) at their defaults, as tf.app.run() with none.
    tf.compat.v1.flags.FLAGS.mark_as_parsed()
    estimator = module.make_estimator(tempfile.mkdtemp() + "/model")
    result = {}
    for mode, input_fn_name in INPUT_FNS.items():
        random.seed(0)
        try:
            hlo = xla_check.compile_step(estimator, mode, getattr(module, input_fn_name))
        except ValueError as error:
            unsupported = sorted(set(re.findall(r"XLA_CPU_JIT: (\w+)", str(error))))
            if "cannot be changed after initialization" in str(error):
                unsupported.append("a variable whose shape changes")
            if not unsupported:
                raise
            result[mode] = "rejected: " + ", ".join(unsupported)
            continue
        if "ENTRY" not in hlo:
            raise AssertionError(f"{fixture} {mode}: no HLO entry computation")
        result[mode] = "compiled"
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("fixtures", nargs="+")
    args = parser.parse_args()
    results = {fixture: verdicts(fixture) for fixture in args.fixtures}
    with open(args.out, "w") as out:
        json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
