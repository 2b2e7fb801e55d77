"""Hypothesis strategies for Python programs that mix TF 1, Estimator, contrib and
npu_bridge references with the syntax real code uses around them: decorators,
calls on call results, star arguments, walrus, match statements, f-strings, type
annotations, class bases and keywords, comments everywhere, deep nesting and long
chains. Every program is valid Python (the tests check that too)."""

from __future__ import annotations

import re

from hypothesis import strategies as st

INDENT = "    "

# How the file refers to TensorFlow and the legacy namespaces.
IMPORTS = [
    ("import tensorflow as tf", {"tf"}),
    ("import tensorflow.compat.v1 as tf", {"tf"}),
    ("import tensorflow", {"tensorflow"}),
    ("from tensorflow import estimator as est", {"est"}),
    ("from tensorflow.estimator import EstimatorSpec, RunConfig", {"EstimatorSpec", "RunConfig"}),
    ("from tensorflow.contrib import tpu as contrib_tpu", {"contrib_tpu"}),
    ("from tensorflow.contrib import summary", {"summary"}),
    ("from tensorflow.contrib.tpu.python.tpu import tpu_function", {"tpu_function"}),
    ("import tensorflow_estimator as tfe", {"tfe"}),
    ("from npu_bridge.estimator.npu.npu_config import NPURunConfig", {"NPURunConfig"}),
    ("from tensorflow.python.estimator import model_fn as model_fn_lib", {"model_fn_lib"}),
    ("import numpy as np", {"np"}),
    ("from tensorflow.python.framework import ops as _ops", {"_ops"}),
    ("from estimator_revival import estimator as tf_estimator", {"tf_estimator"}),
]
WILDCARD_IMPORTS = ["from npu_bridge.npu_init import *", "from tensorflow.contrib.tpu import *"]

# Dotted references, by the import name they start from.
REFERENCES = {
    "tf": [
        "tf.estimator.EstimatorSpec",
        "tf.estimator.ModeKeys.TRAIN",
        "tf.estimator.Estimator",
        "tf.estimator.DNNClassifier",
        "tf.estimator.tpu.TPUEstimator",
        "tf.estimator.export.PredictOutput",
        "tf.layers.dense",
        "tf.layers.dropout",
        "tf.contrib.layers.xavier_initializer",
        "tf.contrib.tpu.TPUEstimatorSpec",
        "tf.contrib.tpu.CrossShardOptimizer",
        "tf.contrib.summary.scalar",
        "tf.contrib.summary.always_record_summaries",
        "tf.contrib.opt.LazyAdamOptimizer",
        "tf.contrib.opt.LARSOptimizer",
        "tf.train.AdamOptimizer",
        "tf.train.get_global_step",
        "tf.summary.scalar",
        "tf.summary.merge_all",
        "tf.Session",
        "tf.get_variable",
        "tf.variable_scope",
        "tf.logging.info",
        "tf.metrics.accuracy",
        "tf.compat.v1.tpu.CrossShardOptimizer",
        "tf.nn.relu",
        "tf.errors.OpError",
        "tf.Tensor",
        "tf.function",
    ],
    "tensorflow": ["tensorflow.estimator.RunConfig", "tensorflow.layers.conv2d"],
    "est": ["est.EstimatorSpec", "est.ModeKeys.EVAL", "est.RunConfig", "est.LinearRegressor"],
    "EstimatorSpec": ["EstimatorSpec"],
    "RunConfig": ["RunConfig"],
    "contrib_tpu": [
        "contrib_tpu.TPUEstimatorSpec",
        "contrib_tpu.RunConfig",
        "contrib_tpu.TPUConfig",
    ],
    "summary": ["summary.scalar", "summary.histogram", "summary.create_file_writer"],
    "tpu_function": ["tpu_function.get_tpu_context"],
    "tfe": ["tfe.estimator.Estimator", "tfe.estimator.ModeKeys.PREDICT"],
    "NPURunConfig": ["NPURunConfig"],
    "model_fn_lib": ["model_fn_lib.EstimatorSpec", "model_fn_lib.ModeKeys"],
    "np": ["np.zeros", "np.float32"],
    "_ops": ["_ops.convert_to_tensor", "_ops.get_default_graph"],
    "tf_estimator": ["tf_estimator.Estimator", "tf_estimator.BaselineClassifier"],
}
LOCAL_NAMES = ["x", "y", "features", "labels", "mode", "params", "loss", "logits"]
# Names the migration binds its runtime imports to: a program may bind them too.
RUNTIME_ALIASES = ["tf_estimator", "tf_estimator_tpu", "npu_runtime"]
COMMENTS = ["# why?", "# TODO: tf.estimator", "# <script>", "#: noqa", "# é unicode"]


@st.composite
def programs(draw, *, wildcard: bool = True) -> str:
    """A whole module."""
    imports = draw(
        st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=5, unique_by=lambda i: i[0])
    )
    names = set().union(*(bound for _, bound in imports))
    references = [r for name in sorted(names) for r in REFERENCES.get(name, [])] or ["x"]
    context = _Context(draw, references)
    statements = [context.statement(depth=0) for _ in range(draw(st.integers(1, 4)))]
    # Real scripts import mid-file too (after setting up paths or environment), but
    # before the first statement that uses what they import.
    for statement, bound in imports:
        first_use = next(
            (n for n, lines in enumerate(statements) if _mentions("\n".join(lines), bound)),
            len(statements),
        )
        at = draw(st.integers(0, first_use)) if draw(st.integers(0, 3)) == 0 else 0
        statements.insert(at, [statement])
    if wildcard and draw(st.integers(0, 9)) == 0:
        statements.insert(0, [draw(st.sampled_from(WILDCARD_IMPORTS))])
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append('"""A module docstring mentioning tf.estimator."""')
    for statement in statements:
        lines += statement
    if draw(st.booleans()):  # a late import, inside try/except as real code does it
        lines += ["try:", INDENT + "import tensorflow.compat.v1 as tf1", "except ImportError:"]
        lines += [INDENT + "tf1 = None"]
    return "\n".join(lines) + "\n"


class _Context:
    """Draws statements and expressions over the references the imports allow."""

    def __init__(self, draw, references: list[str]) -> None:
        self.draw = draw
        self.references = references

    # ----------------------------------------------------------- expressions
    def reference(self) -> str:
        return self.draw(st.sampled_from(self.references + LOCAL_NAMES[:3]))

    def expression(self, depth: int = 0) -> str:
        draw = self.draw
        if depth > 2:
            return self.reference()
        kind = draw(st.integers(0, 15))
        sub = lambda: self.expression(depth + 1)  # noqa: E731 -- short and local
        if kind <= 2:
            return self.reference()
        if kind == 3:
            return f"{self.reference()}({self.arguments(depth)})"
        if kind == 4:  # an attribute or a call on a call's result
            return f"{self.reference()}({self.arguments(depth)}).{draw(_identifiers)}()"
        if kind == 5:
            return f"{sub()}[0].{draw(_identifiers)}"
        if kind == 6:  # a long chain
            return " + ".join([self.reference()] * draw(_sizes))
        if kind == 7:  # a deep attribute chain
            return self.reference() + "".join(f".a{i}" for i in range(draw(_sizes)))
        if kind == 8:  # nested brackets (Python accepts 200 levels in all)
            n = draw(st.integers(1, 35))
            return "(" * n + sub() + ")" * n
        if kind == 9:
            return f"(  # {draw(_identifiers)}\n{sub()}  # trailing\n)"
        if kind == 10:
            call = f"{self.reference()}({self.reference()})"  # f-strings hold no comments
            return f'f"{{({call})!r:>{{width}}}} and {{{self.reference()}}}"'
        if kind == 11:
            return f"(value := {sub()})"
        if kind == 12:
            return f"[{sub()} for item in {sub()} if item]"
        if kind == 13:
            return f"(lambda *args, **kwargs: {sub()})"
        if kind == 14:
            return f"({sub()} if {sub()} else {sub()})"
        return f"{{'key': {sub()}, **{self.reference()}}}"

    def arguments(self, depth: int) -> str:
        draw = self.draw
        parts = [self.expression(depth + 1) for _ in range(draw(st.integers(0, 2)))]
        if draw(st.booleans()):
            parts.append(f"*{self.reference()}")
        for keyword in draw(st.lists(_identifiers, max_size=2, unique=True)):
            parts.append(f"{keyword}={self.expression(depth + 1)}")
        if draw(st.booleans()):
            parts.append(f"**{self.reference()}")
        return ", ".join(parts)

    # ------------------------------------------------------------ statements
    def statement(self, depth: int) -> list[str]:
        draw = self.draw
        kind = draw(st.integers(0, 15 if depth < 2 else 5))
        comment = [draw(st.sampled_from(COMMENTS))] if draw(st.integers(0, 3)) == 0 else []
        if kind == 0:
            return comment + [f"{draw(_targets)} = {self.expression()}"]
        if kind == 1:
            return comment + [f"{draw(_identifiers)}: {self.reference()} = {self.expression()}"]
        if kind == 2:
            return comment + [f"{self.expression()}  {draw(st.sampled_from(COMMENTS))}"]
        if kind == 3:
            return [f"{draw(st.sampled_from(RUNTIME_ALIASES))} = {self.expression()}"]
        if kind == 4:
            return [f"assert {self.expression()}, {self.expression()}"]
        if kind == 5:
            return [f"del {draw(_identifiers)}"]
        if kind == 6:
            return comment + self.function(depth)
        if kind == 7:
            return self.klass(depth)
        if kind == 8:
            return self.block(f"if {self.expression()}:", depth) + self.block("else:", depth)
        if kind == 9:
            return self.block(f"for {draw(_targets)} in {self.expression()}:", depth)
        if kind == 10:
            return self.block(f"with {self.reference()}('scope') as scope:", depth)
        if kind == 11:
            return (
                self.block("try:", depth)
                + self.block(f"except ({self.reference()}, ValueError) as error:", depth)
                + self.block("finally:", depth)
            )
        if kind == 12:
            return self.match(depth)
        if kind == 13 and depth > 0:  # a local import
            return [f"import tensorflow as {draw(st.sampled_from(['tf', 'tf2', 'tensorflow_v1']))}"]
        if kind == 14:  # deeply nested blocks (Python accepts 100 levels)
            levels = draw(st.integers(1, 60))
            lines = [INDENT * level + f"if {self.reference()}:" for level in range(levels)]
            return lines + [INDENT * levels + f"{draw(_targets)} = {self.expression(3)}"]
        return [f"while {self.expression()}:", INDENT + "break"]

    def body(self, depth: int) -> list[str]:
        lines: list[str] = []
        for _ in range(self.draw(st.integers(1, 2))):
            lines += self.statement(depth + 1)
        if self.draw(st.integers(0, 4)) == 0:
            lines.append("# a trailing comment in the block")
        return [INDENT + line if line else line for line in _indent_lines(lines)]

    def block(self, header: str, depth: int) -> list[str]:
        return [header, *self.body(depth)]

    def function(self, depth: int) -> list[str]:
        draw = self.draw
        decorators = [f"@{self.reference()}" for _ in range(draw(st.integers(0, 2)))]
        if draw(st.booleans()):
            decorators.append(f"@{self.reference()}({self.arguments(1)})")
        parameters = f"features: {self.reference()}, labels=None, *args, mode={self.reference()}"
        header = f"def {draw(_identifiers)}({parameters}, **kwargs) -> {self.reference()}:"
        body = self.body(depth)
        body.append(f"{INDENT}return {self.expression()}")
        return decorators + [header, *body]

    def klass(self, depth: int) -> list[str]:
        draw = self.draw
        bases = [self.reference() for _ in range(draw(st.integers(0, 2)))]
        if draw(st.booleans()):
            bases.append(f"metaclass={self.reference()}")
        header = f"class {draw(_identifiers).title()}({', '.join(bases)}):"
        return [header, *self.body(depth), *[INDENT + line for line in self.function(depth + 1)]]

    def match(self, depth: int) -> list[str]:
        reference = self.draw(st.sampled_from([r for r in self.references if "." in r] or ["a.b"]))
        lines = [f"match {self.expression()}:"]
        for pattern in [reference, "[first, *rest]", "{'k': value, **others}", "Point(x=0) | None"]:
            lines.append(f"{INDENT}case {pattern}:")
            lines += [INDENT + line for line in self.body(depth + 1)]
        lines += [f"{INDENT}case _:", f"{INDENT * 2}pass"]
        return lines


def _mentions(code: str, names: set[str]) -> bool:
    return re.search(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b", code) is not None


def _indent_lines(lines: list[str]) -> list[str]:
    """Continuation lines of a multi-line expression stay as they are (inside brackets)."""
    return [part for line in lines for part in line.split("\n")]


# Mostly short, sometimes long (a dedicated test runs the 500- and 1000-long ones).
_sizes = st.one_of(st.integers(1, 8), st.integers(9, 120))
_identifiers = st.sampled_from(
    ["model_fn", "input_fn", "build", "run", "helper", "scope", "tower", "step", "w", "b"]
)
_targets = st.sampled_from(["x", "y, z", "(a, b)", "[c, *d]", "self.value", "items[0]"])
