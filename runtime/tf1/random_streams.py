"""TF 1's stateful random ops (dropout's ``RandomUniform``, ``random_normal``,
``truncated_normal``, ``random_uniform`` of ints) as one stream per op that every
program of a call shares.

In a TF 1 Session each such op was one kernel holding a Philox generator keyed by
its seeds; every run of the op moved the generator on by ``256`` counter values
per output (``GuardedPhiloxRandom::ReserveRandomOutputs``), whatever else that run
fetched. A ``tf.function`` gets its own kernel per traced program, so a step that
a hook's fetches send through another program (``LoggingTensorHook`` every N
steps) would start that op's stream again. Here each op is the stateless kernel
with the same key and the counter the Session's generator had, kept in a variable
of the call: the same numbers, in every program, and a new call starts at 0 as
the Estimator's new session did (tests/runtime/test_runtime_random_streams.py).
"""

from __future__ import annotations

import collections
import contextlib
import inspect
from collections.abc import Iterable, Iterator

import tensorflow as tf
from tensorflow.python.ops import gen_random_ops, gen_stateless_random_ops_v2

_PHILOX = 1  # the Philox algorithm's number in the stateless ops
_COUNTER_VALUES_PER_OUTPUT = 256  # TF's multiplier in ReserveRandomOutputs


def _uniform(shape, key, counter, arguments):
    return gen_stateless_random_ops_v2.stateless_random_uniform_v2(
        shape, key, counter, _PHILOX, dtype=arguments["dtype"]
    )


def _normal(shape, key, counter, arguments):
    return gen_stateless_random_ops_v2.stateless_random_normal_v2(
        shape, key, counter, _PHILOX, dtype=arguments["dtype"]
    )


def _truncated_normal(shape, key, counter, arguments):
    return gen_stateless_random_ops_v2.stateless_truncated_normal_v2(
        shape, key, counter, _PHILOX, dtype=arguments["dtype"]
    )


def _uniform_int(shape, key, counter, arguments):
    return gen_stateless_random_ops_v2.stateless_random_uniform_int_v2(
        shape, key, counter, _PHILOX, minval=arguments["minval"], maxval=arguments["maxval"]
    )


# gen_random_ops' stateful Philox ops and their stateless twins
_STATELESS_TWINS = {
    "random_uniform": _uniform,
    "random_standard_normal": _normal,
    "truncated_normal": _truncated_normal,
    "random_uniform_int": _uniform_int,
}
# the same ops by their type in a graph
_TWINS_BY_OP_TYPE = {
    "RandomUniform": _uniform,
    "RandomStandardNormal": _normal,
    "TruncatedNormal": _truncated_normal,
    "RandomUniformInt": _uniform_int,
}
PHILOX_OP_TYPES = frozenset(_TWINS_BY_OP_TYPE)


def occurrences(ops: Iterable[tf.Operation]) -> dict[str, int]:
    """``{op name: its occurrence}`` of the Philox ops among ``ops`` (a graph's, in
    creation order), counted per seed pair as :meth:`RandomStreams.shared` counts
    the ops model_fn builds."""
    counted: collections.Counter = collections.Counter()
    found = {}
    for op in ops:
        if op.type in PHILOX_OP_TYPES:
            seeds = (op.get_attr("seed"), op.get_attr("seed2"))
            found[op.name] = counted[seeds]
            counted[seeds] += 1
    return found


class RandomStreams:
    """The counters of one call's random ops: one per seed pair the model_fn
    drew (``model_seeds``, in order; a pair drawn twice is two ops), at 0."""

    def __init__(self, model_seeds: tuple) -> None:
        occurrences: collections.Counter = collections.Counter()
        self._counters: dict[tuple, tf.Variable] = {}
        for seed_pair in model_seeds:
            if not any(seed_pair):
                continue  # no seed at all: a nondeterministic op, left stateful
            key = (*seed_pair, occurrences[seed_pair])
            occurrences[seed_pair] += 1
            self._counters[key] = tf.Variable(
                0, dtype=tf.int64, trainable=False, name="random_stream"
            )

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """While tracing model_fn: its seeded stateful Philox ops read and move on
        their stream's counter instead of a kernel's own generator."""
        if not self._counters:
            yield
            return
        built: collections.Counter = collections.Counter()
        originals = {name: getattr(gen_random_ops, name) for name in _STATELESS_TWINS}

        def stateless(name):
            original = originals[name]
            signature = inspect.signature(original)

            def op(*args, **kwargs):
                arguments = signature.bind(*args, **kwargs).arguments
                seeds = (arguments.get("seed", 0), arguments.get("seed2", 0))
                counter = self._counters.get((*seeds, built[seeds]))
                if counter is None:
                    return original(*args, **kwargs)
                built[seeds] += 1
                return _draw(_STATELESS_TWINS[name], counter, seeds, arguments)

            return op

        for name in _STATELESS_TWINS:
            setattr(gen_random_ops, name, stateless(name))
        try:
            yield
        finally:
            for name, original in originals.items():
                setattr(gen_random_ops, name, original)

    def drawn_instead(self, op: tf.Operation, occurrence: int) -> tf.Tensor | None:
        """What the Philox op ``op`` (of model_fn's graph, imported into the one
        being built; the ``occurrence``-th of its seed pair) draws from its stream,
        built here; None for an op without a stream (no seeds)."""
        seeds = (op.get_attr("seed"), op.get_attr("seed2"))
        counter = self._counters.get((*seeds, occurrence))
        if counter is None:
            return None
        if op.type == "RandomUniformInt":
            shape, minval, maxval = op.inputs
            arguments = {"shape": shape, "minval": minval, "maxval": maxval}
        else:
            arguments = {"shape": op.inputs[0], "dtype": op.get_attr("dtype")}
        return _draw(_TWINS_BY_OP_TYPE[op.type], counter, seeds, arguments)


def _draw(twin, counter: tf.Variable, seeds: tuple, arguments: dict) -> tf.Tensor:
    """The twin's draw at the stream's counter, which then moves on as the
    stateful kernel's generator did."""
    shape = arguments["shape"]
    reserved = tf.reduce_prod(tf.cast(shape, tf.int64)) * _COUNTER_VALUES_PER_OUTPUT
    start = counter.assign_add(reserved) - reserved
    seed, seed2 = seeds
    key = tf.constant([seed], tf.uint64)
    philox_counter = tf.stack([tf.bitcast(start, tf.uint64), tf.constant(seed2, tf.uint64)])
    return twin(shape, key, philox_counter, arguments)
