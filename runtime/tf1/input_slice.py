"""What a TF 1 input_fn computes after ``get_next()``, run every step as the
Estimator's Session ran it.

The TF 1 way to end an input_fn is to make an iterator over the dataset and
return its ``get_next()`` tensors, often with more computed from them: a label
popped out of the features dict, looked up in an index table, cast, split. In
the Estimator's graph the iterator, ``get_next()`` and every op built after it
ran on every step. The runtime called input_fn once per call, in the discovery
graph (as the Estimator did), where it built the same ops; this module records
the iterators it made there and takes two things from that graph:

- the datasets the iterators read, opened again from the graph
  (legacy_dataset.py) so that the programs read the same elements;
- the slice of the graph from the ``get_next()`` tensors to what input_fn
  returned (graph_slice.py, with the lookup tables its initializers fill:
  initialized_tables.py), which every step runs on the elements it read.

Each ``get_next()`` op reads one element per step, as each ran once per
``session.run``: two of one iterator read two consecutive elements (TF 1 ran
them in either order; here the op made first reads first), and iterators of
several datasets read theirs side by side, the input ending with the first
that ends. The placeholders input_fn builds (``tf.compat.v1.placeholder``) are
fed, every step, the values a hook's ``feed_dict`` gives them (``FeedFnHook``),
as the Session fed them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator

import tensorflow as tf
from tensorflow.python.data.ops import dataset_ops, iterator_ops
from tensorflow.python.data.util import structure

from estimator_revival.tf1 import graph_slice

_GET_NEXT = frozenset({"IteratorGetNext", "IteratorGetNextSync"})
_PLACEHOLDERS = frozenset({"Placeholder", "PlaceholderV2"})
# The runtime's own files: a line of input_fn is found past them and the libraries'.
_RUNTIME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARIES = frozenset({"site-packages", "dist-packages"})


@dataclasses.dataclass
class RecordedIterators:
    """The iterators made while input_fn ran in the discovery graph, each with
    the dataset it reads: ``{iterator resource op name: dataset}``."""

    datasets: dict[str, tf.data.Dataset] = dataclasses.field(default_factory=dict)


@contextlib.contextmanager
def iterators_recorded() -> Iterator[RecordedIterators]:
    """Records every v1 iterator input_fn makes (one-shot, initializable, and the
    datasets a reinitializable one is initialized on), which it still makes as
    TF 1 did: a one-shot iterator draws its op seed, as in the Estimator's graph."""
    recorded = RecordedIterators()

    def record(iterator, dataset):
        recorded.datasets[iterator._iterator_resource.op.name] = dataset
        return iterator

    originals = {
        (dataset_ops.DatasetV1, "_make_one_shot_iterator"): lambda original: (
            lambda self: record(original(self), self)
        ),
        (dataset_ops.DatasetV1, "_make_initializable_iterator"): lambda original: (
            lambda self, shared_name=None: record(original(self, shared_name), self)
        ),
        (iterator_ops.Iterator, "make_initializer"): lambda original: (
            lambda self, dataset, name=None: _initializer_recorded(
                original(self, dataset, name), record, self, dataset
            )
        ),
    }
    saved = {key: getattr(*key) for key in originals}
    for (owner, name), wrap in originals.items():
        setattr(owner, name, wrap(saved[(owner, name)]))
    try:
        yield recorded
    finally:
        for (owner, name), original in saved.items():
            setattr(owner, name, original)


def _initializer_recorded(initializer, record, iterator, dataset):
    record(iterator, dataset)
    return initializer


@dataclasses.dataclass(frozen=True)
class IteratorRead:
    """One ``get_next()`` op: the iterator it reads (its index among input_fn's
    iterators) and the element spec of what it reads."""

    iterator: int
    element_spec: object


@dataclasses.dataclass(frozen=True)
class Fed:
    """One step's element with the values hooks fed input_fn's placeholders:
    ``{tensor name: value}``."""

    element: object
    feeds: dict


@dataclasses.dataclass(frozen=True)
class IteratedInput:
    """input_fn's result computed, every step, from its iterators' elements (and
    the values fed to its placeholders)."""

    reads: tuple[IteratorRead, ...]  # the get_next() ops the result needs, in creation order
    datasets: tuple  # each iterator's dataset, in the discovery graph
    # from the reads' outputs (and feeds) to the result's tensors; None: it has none
    transform: graph_slice.GraphSlice | None
    result: object  # input_fn's result, as it returned it in the discovery graph
    # {placeholder's tensor name: its TensorSpec}
    fed: dict = dataclasses.field(default_factory=dict)

    def element_dataset(self, datasets) -> tf.data.Dataset:
        """One step's reads from ``datasets`` (each iterator's, in order, opened
        where the programs iterate): a tuple with one element per read, grouped by
        iterator; an endless dataset of nothing to read when there are no reads."""
        per_iterator = [
            _consecutive(dataset, self._reads_of(index))
            for index, dataset in enumerate(datasets)
            if self._reads_of(index)
        ]
        if not per_iterator:  # fed placeholders or constants: a step never ends the input
            return tf.data.Dataset.from_tensors(0).repeat()
        zipped = tf.data.Dataset.zip(tuple(per_iterator))
        return zipped.map(lambda *parts: tuple(element for part in parts for element in part))

    def model_input(self, element, variables):
        """input_fn's result for one step's reads (inside the step's function);
        ``element`` is :class:`Fed` when hooks fed input_fn's placeholders."""
        feeds = element.feeds if isinstance(element, Fed) else {}
        element = element.element if isinstance(element, Fed) else element
        inputs = [
            tensor
            for read, value in zip(self.reads, self._in_read_order(element), strict=True)
            for tensor in structure.to_tensor_list(read.element_spec, value)
        ]
        inputs += [_fed(name, spec, feeds) for name, spec in self.fed.items()]
        tensors = _tensors_of(self.result)
        flat = self.transform.compute(variables, inputs) if tensors else []
        computed = tf.nest.pack_sequence_as(tensors, flat, expand_composites=True)
        values = iter(computed)
        return tf.nest.map_structure(
            lambda leaf: next(values) if isinstance(leaf, _TENSORS) else leaf, self.result
        )

    def _reads_of(self, iterator: int) -> int:
        return sum(read.iterator == iterator for read in self.reads)

    def _in_read_order(self, element) -> list:
        """An element of ``element_dataset`` (reads grouped by iterator) in the
        order of the reads."""
        if not self.reads:
            return []
        grouped = iter(element)
        by_iterator = {
            index: [next(grouped) for _ in range(self._reads_of(index))]
            for index in range(len(self.datasets))
        }
        return [by_iterator[read.iterator].pop(0) for read in self.reads]


_TENSORS = (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)


def _tensors_of(result) -> list:
    return [leaf for leaf in tf.nest.flatten(result) if isinstance(leaf, _TENSORS)]


def _consecutive(dataset: tf.data.Dataset, count: int) -> tf.data.Dataset:
    """``dataset``'s elements ``count`` at a time, as a tuple (one for each of the
    ``count`` get_next() ops of an iterator over it)."""
    if count == 1:
        return dataset.map(lambda *element: (element[0] if len(element) == 1 else element,))
    batched = dataset.batch(count, drop_remainder=True)

    def split(*element):
        element = element[0] if len(element) == 1 else element
        return tuple(tf.nest.map_structure(lambda t, i=i: t[i], element) for i in range(count))

    return batched.map(split)


def _fed(name: str, spec: tf.TensorSpec, feeds: dict) -> tf.Tensor:
    if name not in feeds:  # TF 1 Session's error
        raise tf.errors.InvalidArgumentError(
            None,
            None,
            f"You must feed a value for placeholder tensor {name.split(':')[0]!r} with dtype "
            f"{spec.dtype.name}: input_fn returns what it computes from it, and no hook's "
            "feed_dict gives it a value in this step",
        )
    return tf.ensure_shape(tf.convert_to_tensor(feeds[name], spec.dtype), spec.shape)


class InputNotRunnable(NotImplementedError):
    """An op input_fn computes from ``get_next()`` that no step can run."""


def iterated_input(result, recorded: RecordedIterators) -> IteratedInput | None:
    """How to compute ``result`` (input_fn's, in the discovery graph) every step
    from the elements its iterators read, or from nothing (constants); None
    where neither can. Raises :class:`InputNotRunnable`, naming the op and
    input_fn's line, when it computes something from them that a step cannot run."""
    tensors = _tensors_of(result)
    if not tensors:
        return _computed_from_nothing(result, [])
    iterators = list(recorded.datasets)
    operations = tensors[0].graph.get_operations()
    get_nexts = [
        op
        for op in operations
        if op.type in _GET_NEXT and op.inputs[0].op.name in recorded.datasets
    ]
    placeholders = [op.outputs[0] for op in operations if op.type in _PLACEHOLDERS]
    components = tf.nest.flatten(tensors, expand_composites=True)
    reads, fed = _needed(get_nexts, placeholders, components)
    if not reads and not fed:
        return _computed_from_nothing(result, components)
    datasets = tuple(recorded.datasets.values())
    return IteratedInput(
        reads=tuple(
            IteratorRead(
                iterators.index(op.inputs[0].op.name),
                datasets[iterators.index(op.inputs[0].op.name)].element_spec,
            )
            for op in reads
        ),
        datasets=datasets,
        transform=_slice(components, [output for op in reads for output in op.outputs] + fed),
        result=result,
        fed={p.name: tf.TensorSpec(p.shape, p.dtype) for p in fed},
    )


def _computed_from_nothing(result, components: list) -> IteratedInput | None:
    """Tensors input_fn computed from constants (and variables, tables) alone, as
    the Estimator's Session computed them in every step, without calling input_fn
    again; None where a step cannot compute them so (a random op: input_fn is
    then called again, its tensors' values taken once)."""
    transform = graph_slice.slice_of(components, tables=True) if components else None
    if components and transform is None:
        return None
    return IteratedInput(reads=(), datasets=(), transform=transform, result=result)


def _needed(get_nexts: list, placeholders: list, components: list) -> tuple[list, list]:
    """The ``get_next()`` ops whose elements ``components`` are computed from, and
    the placeholders they are computed from."""
    given = [output for op in get_nexts for output in op.outputs] + placeholders
    transform = _slice(components, given)
    used = set(transform.read_inputs) | set(tf.nest.flatten(transform.structure))
    reads = [op for op in get_nexts if any(output.name in used for output in op.outputs)]
    return reads, [placeholder for placeholder in placeholders if placeholder.name in used]


def _slice(components: list, inputs: list) -> graph_slice.GraphSlice:
    try:
        return graph_slice.required_slice(components, inputs, tables=True)
    except graph_slice.Unsliceable as refused:
        raise InputNotRunnable(_refusal(refused.op)) from None


def _refusal(op: tf.Operation | None) -> str:
    if op is None:
        return "input_fn returns something computed from iterator.get_next() that is not a tensor"
    return (
        f"input_fn computes {op.name!r} (a {op.type} op{_program_line(op)}) from "
        "iterator.get_next(); the runtime runs what input_fn builds after get_next() in every "
        "step, but not this kind of op (docs/runtime.md, 'What the runtime refuses')."
    )


def _program_line(op: tf.Operation) -> str:
    """`` at path:line`` of the program's code that built ``op``, if known."""
    for frame in reversed(op.traceback or []):
        filename = os.path.abspath(frame.filename)
        library = _LIBRARIES.intersection(filename.split(os.sep)) or filename.startswith(_RUNTIME)
        if not library and "<" not in frame.filename:
            return f" at {frame.filename}:{frame.lineno}"
    return ""
