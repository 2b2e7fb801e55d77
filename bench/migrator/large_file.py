"""Migrator benchmark on one large file: time and peak memory of ``migrate`` against
libcst parse-only and tf_upgrade_v2 on the same file, measured in the same run.

    .venv/bin/python bench/migrator/large_file.py [--megabytes N] [--repeat N]

Two 2 MB files, both as generators write them:
* ``generated ops``: op wrappers in the style of TensorFlow's own ``gen_*_ops.py``
  (private ``tensorflow.python`` modules, a few public TF 1 names);
* ``dense TF 1 model``: every line full of TF 1 names to rewrite.
Each command runs as its own process; peak memory is that process's maximum RSS.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent

OPS_HEADER = '''"""Python wrappers around TensorFlow ops. This file is MACHINE GENERATED."""
import collections

from tensorflow.python import pywrap_tfe as pywrap_tfe
from tensorflow.python.eager import context as _context
from tensorflow.python.eager import execute as _execute
from tensorflow.python.framework import dtypes as _dtypes
from tensorflow.python.framework import op_def_library as _op_def_library
from tensorflow.python.framework import ops as _ops
from tensorflow.python.util.tf_export import tf_export
import tensorflow as tf

'''
OP = '''
@tf_export("raw_ops.Op{i}")
def op_{i}(input, axis, keep_dims=False, name=None):
    r"""Computes op {i} of `input` along `axis`.

    Args:
      input: A `Tensor`.
      axis: A `Tensor` of type `int32`.
      keep_dims: An optional `bool`. Defaults to `False`.
      name: A name for the operation (optional).
    """
    _ctx = _context._context or _context.context()
    tld = _ctx._thread_local_data
    if tld.is_eager:
        try:
            _result = pywrap_tfe.TFE_Py_FastPathExecute(
                _ctx, "Op{i}", name, input, axis, "keep_dims", keep_dims)
            return _result
        except _core._NotOkStatusException as e:
            _ops.raise_from_not_ok_status(e, name)
    keep_dims = _execute.make_bool(keep_dims, "keep_dims")
    _, _, _op, _outputs = _op_def_library._apply_op_helper(
        "Op{i}", input=input, axis=axis, keep_dims=keep_dims, name=name)
    _result = _outputs[:]
    if _execute.must_record_gradient():
        _attrs = ("keep_dims", _op._get_attr_bool("keep_dims"), "T", _op._get_attr_type("T"))
        _execute.record_gradient("Op{i}", _op.inputs, _attrs, _result)
    {legacy}
    return _result
'''
MODEL_HEADER = "import tensorflow as tf\n\n"
LAYER = """
def layer_{i}(x, training):
    with tf.variable_scope("layer_{i}"):
        w = tf.get_variable("w", [128, 128], initializer=tf.contrib.layers.xavier_initializer())
        h = tf.layers.dense(x, 128, activation=tf.nn.relu, name="dense_{i}")
        h = tf.layers.dropout(h, rate=0.1, training=training)
        tf.summary.scalar("norm_{i}", tf.norm(w))
        return tf.matmul(h, w) + tf.constant([{i}.0] * 4)

"""


def generated_ops(size: int) -> str:
    parts, total, i = [OPS_HEADER], len(OPS_HEADER), 0
    while total < size:
        legacy = f"tf.logging.info('op {i}')" if i % 50 == 0 else "pass"
        part = OP.format(i=i, legacy=legacy)
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)


def dense_model(size: int) -> str:
    parts, total, i = [MODEL_HEADER], len(MODEL_HEADER), 0
    while total < size:
        part = LAYER.format(i=i)
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)


def run_once(command: list[str], ok=(0,)) -> tuple[float, float]:
    """``(wall seconds, peak RSS in MB)`` of one command, run as its own process."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{command[0]} failed ({code}): {process.stderr.read().decode()[-2000:]}")
    process.stderr.close()
    return seconds, usage.ru_maxrss / 1024


def measure(size: int, repeat: int = 3) -> dict[str, dict[str, tuple[float, float]]]:
    """Per file kind, per tool: (best seconds, peak MB of that run); interleaved rounds."""
    results: dict[str, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as workdir:
        for kind, make in (("generated ops", generated_ops), ("dense TF 1 model", dense_model)):
            source = Path(workdir) / "src" / f"{kind.replace(' ', '_')}.py"
            source.parent.mkdir(exist_ok=True)
            source.write_text(make(size))
            out = Path(workdir) / "out"
            commands = {
                "libcst parse-only": (
                    [sys.executable, str(HERE / "parse_only.py"), str(source)],
                    (0,),
                ),
                "migrate": (
                    [str(BIN / "migrate"), "--no-cache", "--out", str(out), "--force", str(source)],
                    (1,),
                ),
                "tf_upgrade_v2": (
                    [
                        str(BIN / "tf_upgrade_v2"),
                        "--infile",
                        str(source),
                        "--outfile",
                        str(Path(workdir) / "upgraded.py"),
                        "--reportfile",
                        str(Path(workdir) / "report.txt"),
                    ],
                    (0,),
                ),
            }
            best = {tool: (float("inf"), 0.0) for tool in commands}
            for _ in range(repeat):
                for tool, (command, ok) in commands.items():
                    seconds, megabytes = run_once(command, ok)
                    if seconds < best[tool][0]:
                        best[tool] = (seconds, megabytes)
            results[
                f"{kind} ({source.stat().st_size / 1e6:.1f} MB, "
                f"{source.read_text().count(chr(10))} lines)"
            ] = best
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each tool keeps its best")
    args = parser.parse_args()
    for file, rows in measure(int(args.megabytes * 1e6), args.repeat).items():
        print(file)
        print(f"  {'tool':20} {'seconds':>8} {'peak MB':>8}")
        for tool, (seconds, megabytes) in rows.items():
            print(f"  {tool:20} {seconds:8.2f} {megabytes:8.0f}")
        ours, parse = rows["migrate"], rows["libcst parse-only"]
        upgrade = rows["tf_upgrade_v2"]
        print(
            f"  migrate: {upgrade[0] / ours[0]:.2f}x faster than tf_upgrade_v2, "
            f"{ours[0] / parse[0]:.2f}x the parse-only time, "
            f"{ours[1] / parse[1]:.2f}x its memory"
        )


if __name__ == "__main__":
    main()
