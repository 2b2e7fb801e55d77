"""KERNEL_CHANGES (migrator/prove/kernel_changes.py) says which kernels changed, and where:
each one, run on the same random inputs in a Session on TF 2.15 and on TF 2.21
(tests/programs/kernel_outputs.py), gives other bits on some of them where its
change shows (oneDNN on or off, as the sides run; on this machine's CPU, or as
scripts/test-as-avx2-cpu holds oneDNN and numpy to AVX2), and the same bits where
it does not. A
kernel that TensorFlow makes exact again fails here, and so does a change that
shows where the table says it does not."""

import subprocess

import numpy as np

from helpers.kernel_drift import KERNEL_CHANGES
from helpers.sides import LEGACY, REFERENCE, REPO, onednn_on

PROGRAM = REPO / "tests" / "programs" / "kernel_outputs.py"


def test_every_kernel_named_as_changed_gives_other_bits_on_tf_2_21_where_it_shows(tmp_path):
    outputs = {}
    for side in (LEGACY, REFERENCE):
        out = tmp_path / f"{side.tensorflow}.npz"
        subprocess.run([*side.interpreter, str(PROGRAM), str(out)], env=side.env(), check=True)
        outputs[side.tensorflow] = dict(np.load(out))
    old, new = outputs["2.15"], outputs["2.21"]
    assert sorted(old) == sorted(new) == sorted(KERNEL_CHANGES)
    for kernel, change in KERNEL_CHANGES.items():
        differing = np.count_nonzero(old[kernel] != new[kernel])
        if change.shows_with(onednn=onednn_on()):
            assert differing > 0, f"{kernel} gives the same bits on TF 2.15 and 2.21 now"
        else:
            assert differing == 0, f"{kernel} changed where it should not ({change.where.value})"
