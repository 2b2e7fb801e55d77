"""The runtime's own code is graph code: AutoGraph leaves it as it is.

tf-keras's v1 layers have AutoGraph convert the ``call`` of every layer class
defined outside Keras each time they are built, and tf.data the functions it
traces; for the runtime's layers and functions (``contrib.rnn``'s fused LSTM,
``contrib.crf``'s cells) that converted code computes what the code itself does,
with the same ops, at a tenth of a BiLSTM-CRF tagger's whole process. The user's
code is converted (or not) as before.
"""

from __future__ import annotations

from tensorflow.python.autograph.core import config

# The package's own modules (AutoGraph matches rules by module name prefix).
_PACKAGE = __name__.partition(".")[0]


def leave_runtime_code_unconverted() -> None:
    """Adds the rule, once, ahead of AutoGraph's own (the first that matches wins)."""
    rule = config.DoNotConvert(_PACKAGE)
    if not any(getattr(r, "_prefix", None) == _PACKAGE for r in config.CONVERSION_RULES):
        config.CONVERSION_RULES = (rule, *config.CONVERSION_RULES)
