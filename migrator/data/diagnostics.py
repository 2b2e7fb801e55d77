"""What the migrator could not convert, with stable codes users can select/ignore."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    # "error": the file will not run on TF 2.16+, or not as it ran (or was not
    # migrated); "warning":
    # review it; "note": for information, e.g. a path migrate did not follow
    severity: str
    title: str


CODES = {
    code.code: code
    for code in [
        Code("MIG000", "error", "internal error while migrating the file; left untouched"),
        Code("MIG001", "error", "file could not be parsed; left untouched"),
        Code("MIG002", "error", "file or directory could not be read or written"),
        Code("MIG003", "note", "symbolic link not followed"),
        Code("MIG101", "error", "Estimator API with no runtime equivalent yet"),
        Code("MIG102", "error", "tf.contrib symbol with no TensorFlow 2 equivalent"),
        Code("MIG103", "warning", "wildcard import from a legacy module"),
        Code("MIG104", "error", "TensorFlow 1 symbol removed in TensorFlow 2"),
        Code("MIG105", "error", "name that does not exist in the installed TensorFlow / runtime"),
        Code("MIG106", "warning", "TF 1 and TF 2 meanings differ; the file does not say which"),
        Code("MIG107", "warning", "`.value` of a subscript that may be a TF 1 Dimension"),
        Code("MIG108", "warning", "TensorFlow's private API (tensorflow.python)"),
        Code("MIG109", "error", "a program written for TF 1 with no entry point to run it as TF 1"),
        Code("MIG110", "error", "a hook uses Session API the runtime's hook session has not"),
        Code(
            "MIG111",
            "warning",
            "TF 1 left an order open that the runtime fixes: numbers may differ",
        ),
        Code("MIG112", "error", "input the runtime cannot run every step (TF 1's input queues)"),
    ]
}

# Rewrites are rules too, so --select/--ignore can switch them off.
RULES = {
    "MIG201": "tf.estimator / TPU / NPU names to the bundled runtime",
    "MIG202": "TensorFlow 1 symbols to their TensorFlow 2.16+ names",
    "MIG203": "Estimator.export_savedmodel() to export_saved_model()",
    "MIG204": "TF 1's behaviour switched on at the entry points of a program written for TF 1",
}


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    column: int
    code: str
    message: str
    suggestion: str = ""

    @property
    def severity(self) -> str:
        return CODES[self.code].severity

    def format(self) -> str:
        text = f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"
        return f"{text} ({self.suggestion})" if self.suggestion else text
