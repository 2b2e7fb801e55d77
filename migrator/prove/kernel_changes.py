"""The kernels whose outputs TensorFlow 2.21 computes differently from 2.15, each
with the largest change of one value relative to itself that a graph of the
project's proof showed (rounded up), what changed, and where it shows.

Found by the kernel probe (the same graph, restored from a trained state, run op
by op on both versions: docs/proof.md) on the project's fixtures and real
programs; ``migrate prove`` names the kernels of this table that a program's
graphs compute with when its legacy run differs from the reference run.
"""

from __future__ import annotations

import dataclasses
import enum


class Where(enum.Enum):
    """Where a kernel's change shows: in which of the kernels TensorFlow runs a
    graph's op with, which depends on oneDNN being on and on the CPU's ISA."""

    EVERY_CPU = "every CPU, oneDNN on or off"
    ONEDNN_ON = "oneDNN on (oneDNN's kernel; Eigen's did not change)"
    ONEDNN_OFF = "oneDNN off (Eigen's kernel; oneDNN's did not change)"


@dataclasses.dataclass(frozen=True)
class KernelChange:
    """A kernel TensorFlow 2.21 computes differently from 2.15: the largest change
    of one output value relative to itself that any fixture's graph shows
    (rounded up), what changed, and where it shows."""

    rtol: float
    what: str
    where: Where = Where.EVERY_CPU

    def shows_with(self, *, onednn: bool) -> bool:
        """Whether the change shows with oneDNN on or off."""
        if self.where is Where.EVERY_CPU:
            return True
        return onednn == (self.where is Where.ONEDNN_ON)


KERNEL_CHANGES = {
    "Tanh": KernelChange(5e-7, "other last bits (68% of normal inputs, up to 4.2e-7 of a value)"),
    "Erf": KernelChange(5e-7, "other last bits (under tf.nn.gelu's exact form)"),
    "Pow": KernelChange(1e-7, "other last bits (x ** 3 in XLNet's tanh gelu: up to 9.65e-8)"),
    "Sigmoid": KernelChange(5e-7, "other last bits (a binary head's probabilities)"),
    "Reciprocal": KernelChange(2e-7, "other last bits (1 / x in Log1p's gradient)"),
    # A sum of products in another order: relative to a sum that nearly cancels, a
    # few ulps of its terms are a larger share of it. Fused with its bias and relu
    # (as Grappler runs a model's) on AVX2 and AVX-512; unfused, on AVX-512 only.
    # unet_industrial's grey images through their first 3x3 conv: up to 1.02e-3;
    # unet_reset_counters' (16x16, no bias before batch norm): up to 2.67e-3.
    "Conv2D": KernelChange(
        3e-3, "oneDNN's convolution of one input channel sums in another order", Where.ONEDNN_ON
    ),
    # oneDNN's softmax changed too, but only for rows of 64 values or more (no
    # fixture's graph has one: its probe would find it, with oneDNN on, and fail)
    "Softmax": KernelChange(
        2e-7, "other last bits of Eigen's (up to 1.9e-7 of a probability)", Where.ONEDNN_OFF
    ),
    # tf.contrib.rnn.LSTMBlockFusedCell's kernel: its gates' tanh and sigmoid are
    # Eigen's, which changed as the Tanh and Sigmoid kernels did, compounded over
    # the steps of the sequence (tf1_bilstm_crf's after 32 steps, on values that
    # nearly cancel: 1.02e-3 and 1.53e-3 in two runs)
    "BlockLSTM": KernelChange(
        2e-3, "other last bits of its gates' tanh and sigmoid, step after step"
    ),
    # tf.contrib.rnn.GRUBlockCell's kernel: its gates' sigmoid and its candidate's
    # tanh are Eigen's (its gradient's kernel, GRUBlockCellGrad, did not change)
    "GRUBlockCell": KernelChange(1e-5, "other last bits of its gates' sigmoid and tanh"),
}


# Not a kernel: TF 1's control flow (Switch/Merge, Enter/Exit, built by tf.cond and
# tf.while_loop in a program run with TF 1's behaviour) against TF 2's (If,
# While), which a traced step builds whatever the switch says. The same kernels
# compute the branches and loop bodies, but inside a function's body, where the
# executor and Grappler treat them otherwise: the last bits of a value computed
# in a loop (a CRF's log-partition, measured up to 3 ulp, 1.9e-7 of the value) may
# differ, and TF 1's loops differ so between two runs of the same graph too. The
# legacy program with TF 2's control flow (sides.REFERENCE_CONTROL_FLOW_V2) is
# the runtime's bit-for-bit reference for such a program.
CONTROL_FLOW = "TF 1 control flow"
CONTROL_FLOW_CHANGE = KernelChange(5e-7, "the last bits of values computed in loops and branches")
# TF 1's loops, where the difference shows (a cond's branches of the same graphs
# have given the same bits so far, and are compared bit for bit)
CONTROL_FLOW_OPS = frozenset({"Enter", "Exit", "NextIteration", "LoopCond"})
