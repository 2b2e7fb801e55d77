"""What TensorFlow must be told before model code runs under the runtime: AutoGraph
leaves the runtime's own code as it is (``graph_code``), and tf-slim finds the
names it reads (``tf_slim_support``). Done once, when a public mirror
(``estimator``, ``contrib``, ``npu``) is first imported; importing the package
itself stays free of TensorFlow, so that ``migrate`` (``estimator_revival.migrator``)
never loads it."""

from __future__ import annotations

import functools

from estimator_revival.tf1.graph_code import leave_runtime_code_unconverted
from estimator_revival.tf1.tf_slim_support import restore_names_tf_slim_reads


@functools.cache
def prepare() -> None:
    restore_names_tf_slim_reads()
    leave_runtime_code_unconverted()
