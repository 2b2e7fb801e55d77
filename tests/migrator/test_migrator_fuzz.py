"""The migrator on generated programs (tests/helpers/program_strategies.py): never an
exception, output that parses, a second run that changes nothing, every diagnostic
at the place it names, no comment lost."""

import ast
import io
import re
import tokenize
from collections import Counter

from hypothesis import HealthCheck, example, given, settings

from estimator_revival.migrator.migrate import migrate_code
from estimator_revival.migrator.source.positions import physical_lines
from helpers.program_strategies import programs

FUZZ = settings(
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_CHAIN = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")


# Found by the strategy: the migration rewrites away the file's only sign of TF 2
# (`tf.compat.v1.tpu`), and a second run read the output as of unknown dialect.
RUNTIME_IMPORT_DECIDES_THE_DIALECT = (
    "from npu_bridge.npu_init import *\nimport tensorflow as tf\n"
    'x = f"{tf.estimator.EstimatorSpec(tf.summary.scalar)} {tf.compat.v1.tpu.CrossShardOptimizer}"\n'
)


# Found by the strategy: MIG106 (the file does not say which TensorFlow it was
# written for) is a warning about the choice the first run made; the runtime import
# it added then says it, and a second run has nothing to warn about.
A_DECIDED_AMBIGUITY = (
    "import tensorflow as tf\nfrom tensorflow.estimator import EstimatorSpec, RunConfig\n"
    "while tf.summary.scalar:\n    break\n"
)

# Found by the strategy: `summary.scalar` was rewritten to `tf.summary.scalar`
# through an `import tensorflow as tf` the module runs only later (inside a `with`
# block below the use): a NameError, which a second run reported.
A_LATER_IMPORT = (
    "from npu_bridge.npu_init import *\nfrom tensorflow.contrib import summary\n"
    "with summary.scalar('scope') as scope:\n    import tensorflow as tf\n"
)

# Found by the strategy: in TF 1 code, `est.LinearRegressor` (TF 1's class, through
# an alias of the estimator module the migration rewrites to the runtime's) above
# the file's `import tensorflow as tf`: it must be spelled through an import the
# module has run by then.
A_TF1_CLASS_ABOVE_THE_IMPORT = (
    "from tensorflow.contrib import summary\nfrom tensorflow import estimator as est\n"
    "est.LinearRegressor\nimport tensorflow as tf\n"
)

# Found by the strategy: TF 1.15's `tf.compat.v1.contrib.tpu` is `tf.contrib.tpu`;
# read as a TF 2 name, a first run wrote `tensorflow.compat.v1.tpu...`, which a
# second run took to the runtime; and a second run reuses the runtime import the
# first one added instead of adding another under a new name.
CONTRIB_THROUGH_COMPAT_V1 = (
    "from tensorflow.contrib import tpu as contrib_tpu\n"
    "from tensorflow.estimator import EstimatorSpec, RunConfig\n"
    "import tensorflow\nimport tensorflow.compat.v1 as tf\n# why?\n"
    "x = tf.contrib.tpu.CrossShardOptimizer\ny = tf.tpu.CrossShardOptimizer\n"
)

# Found by the strategy: a name used in a function before the function's own
# import of it (Python: UnboundLocalError). Scope analysis resolved the chain
# through the local import and its root through the global one; a first run read
# the file as TF 2 code through that global import, which it then dropped as
# unused, and a second run read it as TF 1 code. Both imports now count for the
# dialect, and a chain whose root resolves elsewhere is left as it is.
A_USE_BEFORE_A_LOCAL_IMPORT = (
    "from npu_bridge.npu_init import *\nimport tensorflow.compat.v1 as tf\n"
    "def model_fn(features, labels=None, *args, **kwargs):\n"
    "    x = tf.layers.dense\n    import tensorflow as tf\n    return x\n"
)

# Found by the strategy: the runtime import a first run would reuse stood below
# the use it was reused for (a NameError when the module ran); the migration now
# reuses only an import above the use, and imports the runtime itself otherwise.
A_RUNTIME_IMPORT_BELOW_ITS_USE = (
    "from npu_bridge.npu_init import *\nimport tensorflow as tf\n# why?\n"
    "x = tf.estimator.EstimatorSpec\nfrom estimator_revival import estimator as tf_estimator\n"
)


@FUZZ
@given(programs())
@example(program=RUNTIME_IMPORT_DECIDES_THE_DIALECT)
@example(program=A_DECIDED_AMBIGUITY)
@example(program=A_LATER_IMPORT)
@example(program=A_TF1_CLASS_ABOVE_THE_IMPORT)
@example(program=CONTRIB_THROUGH_COMPAT_V1)
@example(program=A_USE_BEFORE_A_LOCAL_IMPORT)
@example(program=A_RUNTIME_IMPORT_BELOW_ITS_USE)
def test_any_program_migrates_parses_and_is_stable(program):
    ast.parse(program)  # the strategy's promise
    first = migrate_code(program, path="generated.py")
    ast.parse(first.migrated)
    second = migrate_code(first.migrated, path="generated.py")
    assert second.migrated == first.migrated, "a second run changes nothing"
    # What stays broken is reported again (by its runtime name once rewritten); only
    # names a wildcard import lacked may be gone (a use before an import that the
    # migration rewrote), and MIG106 once the runtime import the first run added
    # says which TensorFlow the file is for; nothing new appears.
    decided = dialect_decided(program, first.migrated)
    assert problems(second.diagnostics, decided) == problems(first.diagnostics, decided)
    assert Counter(d.code for d in second.diagnostics) <= Counter(d.code for d in first.diagnostics)
    for diagnostic in first.diagnostics:
        assert_points_at_what_it_names(program, diagnostic)
    assert not Counter(comments(program)) - Counter(comments(first.migrated)), "no comment lost"


def assert_points_at_what_it_names(program: str, diagnostic) -> None:
    """At an import statement that imports it, or at a dotted name ending like it."""
    lines = physical_lines(program)
    assert 1 <= diagnostic.line <= len(lines), diagnostic
    text = lines[diagnostic.line - 1][diagnostic.column - 1 :]
    named = diagnostic.message.split()[0]
    last = named.rsplit(".", 1)[-1]
    if text.startswith(("import ", "from ")):
        assert named in {"import", "names", "wildcard"} or last in text, (diagnostic, text)
        return
    chain = _CHAIN.match(text)
    assert chain is not None, (diagnostic, text)
    assert chain.group().rsplit(".", 1)[-1].strip() == last, (diagnostic, text)


def problems(diagnostics, decided: bool) -> Counter:
    """Codes of the diagnostics, those about a wildcard import's missing names left
    out (and MIG106 where the migration ``decided`` the file's dialect)."""
    return Counter(
        d.code
        for d in diagnostics
        if not d.message.startswith(_WILDCARD) and not (decided and d.code == "MIG106")
    )


def dialect_decided(program: str, migrated: str) -> bool:
    """Whether the migration added the runtime import that makes the file TF 2 code."""
    return imports_runtime(migrated) and not imports_runtime(program)


def imports_runtime(code: str) -> bool:
    return bool(re.search(r"^\s*(?:from|import) estimator_revival\b", code, re.MULTILINE))


_WILDCARD = "names this file uses from a wildcard import"


def comments(code: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [token.string for token in tokens if token.type == tokenize.COMMENT]
