"""The compiled programs the runtime runs: train loops, eval loops, predict steps.

Each program traces the user's model_fn inside a ``tf.function`` with the
variables from the :class:`VariableStore` and the seeds recorded at discovery.
Loops run many steps per call and stop early, in-graph, at the end of the input
or on a non-finite loss (so the state matches a legacy run that stopped there).
"""

from __future__ import annotations

import contextlib

import tensorflow as tf
from tensorflow.python.ops import summary_ops_v2

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import ModelFnCaller, split_features_labels
from estimator_revival.calls.spec import LOSS_METRIC_KEY, EstimatorSpec
from estimator_revival.distribute.host_calls import HostCallOutfeed
from estimator_revival.distribute.replication import Replication, on_host, replica_index
from estimator_revival.engine.scalar_summaries import write_scalars
from estimator_revival.tf1 import (
    global_random,
    graph_collections,
    graph_slice,
    input_slice,
    seeds,
    session_setup,
    unfetched_updates,
    v1_summaries,
)
from estimator_revival.tf1.discovery import Blueprint
from estimator_revival.tf1.keras_graph_semantics import tf1_batch_norm_updates
from estimator_revival.tf1.random_streams import RandomStreams
from estimator_revival.tf1.step_reads import reads_before_update
from estimator_revival.tf1.variable_store import GLOBAL_STEP_NAME, VariableStore


class TracedModel:
    """Calls model_fn inside a trace exactly as the discovery graph saw it, in
    every replica of its :class:`Replication`.

    With an ``outfeed`` the step runs as TPUEstimator ran on a TPU: model_fn's
    host calls (``eval_metrics``, ``host_call``) run once on the host over
    tensors concatenated across replicas, EVAL's ``loss`` is replica 0's, and
    the reported training loss is replica 0's.
    """

    def __init__(
        self,
        *,
        call_model_fn: ModelFnCaller,
        store: VariableStore,
        blueprint: Blueprint,
        replication: Replication | None = None,
        outfeed: HostCallOutfeed | None = None,
        to_model_input=None,
    ):
        """``to_model_input(element)``: the (features, labels) model_fn gets for
        an element of the input (default: the element)."""
        self._call_model_fn = call_model_fn
        self._to_model_input = to_model_input or (lambda element: element)
        self._store = store
        self.blueprint = blueprint
        self.replication = replication or Replication()
        self._outfeed = outfeed
        self._random_streams = _random_streams(blueprint, self.replication, outfeed)
        # on_next_trace(spec) runs once, right after model_fn in the next trace, in
        # the same graph state (where hooks' begin() must run); on replicas, after
        # every replica's model_fn, with replica 0's spec (_after_replicas).
        self.on_next_trace = None
        self._first_spec: EstimatorSpec | None = None
        self.summary_writers: list = []  # created by model_fn (e.g. in a host_call)

    def flush_summary_writers(self) -> None:
        for writer in self.summary_writers:
            writer.flush()

    @property
    def global_step(self) -> tf.Variable:
        return self._store.global_step

    @property
    def store(self) -> VariableStore:
        return self._store

    @property
    def random_streams(self) -> RandomStreams:
        return self._random_streams

    def sliced(self, graph_slice_or_none, *, hooked: bool = False, as_on_tpu: bool = False):
        """The discovery graph's slice where a program may run it instead of
        calling model_fn: no hooks that need model_fn's graph (``hooked``), and
        model_fn once per step on this host (no replicas, no host calls) or,
        ``as_on_tpu``, TPUEstimator on replicas (the program runs the slice in
        every replica, as a TPU ran model_fn's one graph on every core, and the
        host calls' part on the host)."""
        if hooked:
            return None
        if self.replication.replicated or self._outfeed is not None:
            return graph_slice_or_none if as_on_tpu and self.on_tpu else None
        return graph_slice_or_none

    @property
    def on_tpu(self) -> bool:
        """Whether steps run as TPUEstimator's on a TPU (replicas and host calls)."""
        return self._outfeed is not None

    def run(
        self, element, on_replica=None, on_metrics=None, *, on_device_only=False, fetch_names=()
    ) -> tuple:
        """model_fn on every replica's part of ``element``; returns
        ``(on_replica(spec) per replica, on_metrics(metrics))``.

        ``metrics`` (EVAL) are the eval_metric_ops plus Estimator's ``loss``
        mean, built in every replica, or once on the host with an outfeed.
        ``on_device_only``: with an outfeed, returns the host calls' tensors
        instead of running the host part (what a TPU compiles is the rest).
        ``fetch_names``: what hooks fetch in this step, which may need updates
        that model_fn's spec alone does not run.
        The process-wide patches are entered once, here, around all replicas:
        replica threads interleave, so entering them per replica would restore
        them out of order.
        """
        mode = self.blueprint.mode
        on_replica = on_replica or _nothing
        on_metrics = on_metrics or _nothing
        # The store's creator must be the innermost one in the traced graph, above
        # tf.function's own variable-capturing creator (and below the replica
        # threads' creator that hands replica 0's variables to the others).
        with (
            graph_collections.fresh_collections(),
            self._store.serving(),
            seeds.replaying(
                self.blueprint.model_seeds,
                per_replica=self.blueprint.replica_model_seeds,
                what=f"model_fn({mode})",
            ),
            session_setup.done_when_the_call_began(self._store.variables()),
            summary_writers_kept(self.summary_writers),
            self._random_streams.shared(),
            unfetched_updates.rewritten(self._store, self.blueprint.writes.fetching(fetch_names)),
        ):
            if self._outfeed is None:
                results, metrics, losses = self.replication.run(
                    lambda part: self._on_replica(part, on_replica, on_metrics), element
                )
                self._after_replicas(losses, fetch_names)
                return results, metrics
            return self._run_with_host(element, on_replica, on_metrics, on_device_only, fetch_names)

    def _on_replica(self, part, on_replica, on_metrics) -> tuple:
        spec = self._call(part)
        metrics = with_loss_metric(spec.eval_metric_ops, spec.loss) if self._evaluating else {}
        return on_replica(spec), on_metrics(metrics), self._training_loss(spec)

    def _training_loss(self, spec: EstimatorSpec):
        return spec.loss if self.blueprint.mode == ModeKeys.TRAIN else ()

    def _run_with_host(self, element, on_replica, on_metrics, on_device_only, fetch_names) -> tuple:
        def device_part(part):
            spec = self._call(part)
            return on_replica(spec), self._outfeed.replica_tensors(), spec.loss

        results, host_tensors, losses = self.replication.run(device_part, element)
        self._after_replicas(losses, fetch_names)
        if on_device_only:
            return results, host_tensors
        host_results = self._outfeed.run_on_host(host_tensors)
        metrics = {}
        if self._evaluating:
            with on_host():
                replica0_loss = self.replication.first_replica(losses)
                metrics = with_loss_metric(host_results.get("eval_metrics") or {}, replica0_loss)
        return results, on_metrics(metrics)

    def _after_replicas(self, losses, fetch_names) -> None:
        """What the Estimator built once model_fn had run on every replica, before
        hooks began: in TRAIN the reported loss, added to LOSSES (a hook's
        ``LOSSES[-1]`` is it, not a replica's loss), then hooks' ``begin()``, in
        the graph that holds every replica's ops, with replica 0's spec. Built
        where hooks begin or fetch (the same names in both traces)."""
        if not self.replication.replicated:
            return
        with root_name_scope():
            hooks_begin = self.on_next_trace is not None
            if self.blueprint.mode == ModeKeys.TRAIN and (hooks_begin or fetch_names):
                loss = self.reported_loss(losses)
                tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.LOSSES, loss)
            spec, self._first_spec = self._first_spec, None
            self._begin_hooks(spec)

    def _begin_hooks(self, spec: EstimatorSpec) -> None:
        callback, self.on_next_trace = self.on_next_trace, None
        if callback is not None:
            callback(spec)

    def reported_loss(self, per_replica_loss):
        """The training loss as reported: replica 0's with an outfeed (TPUEstimator),
        else reduced across replicas as Estimator reduced it."""
        if self._outfeed is not None:
            return self.replication.first_replica(per_replica_loss)
        return self.replication.reduce_loss(per_replica_loss)

    @property
    def _evaluating(self) -> bool:
        return self.blueprint.mode == ModeKeys.EVAL

    def next_element(self, iterator, feeds=None):
        """The input's next element, with the values hooks feed input_fn's
        placeholders in this step (input_slice.py)."""
        element = iterator.get_next()
        if not feeds:
            return element
        if self.replication.replicated:
            raise NotImplementedError(
                "Hooks feed input_fn's placeholders (feed_dict); the runtime feeds them "
                "on one device, not on the replicas of a distribution strategy "
                "(docs/runtime.md, 'What the runtime refuses')."
            )
        return input_slice.Fed(element, dict(feeds))

    def model_inputs(self, element) -> list:
        """What model_fn gets for ``element``, as a graph slice takes it."""
        return graph_slice.model_inputs(*self._features_and_labels(element))

    def _features_and_labels(self, element) -> tuple:
        features, labels = split_features_labels(self._to_model_input(element))
        return features, None if self.blueprint.mode == ModeKeys.PREDICT else labels

    def _call(self, element) -> EstimatorSpec:
        mode = self.blueprint.mode
        features, labels = self._features_and_labels(element)
        first_replica = replica_index() == 0
        if first_replica:
            self._store.expect(self.blueprint.variables, what=f"model_fn({mode})")
        with root_name_scope():
            if first_replica:
                _names_taken(tf.compat.v1.get_default_graph(), self.blueprint.names_before_model_fn)
            self._store.register_global_step()
            # Discovery called model_fn as the Estimator did; this call draws nothing.
            with self._tf1_step_reads(mode), tf1_batch_norm_updates(), global_random.unchanged():
                spec = self._call_model_fn(features, labels, mode)
            replicated = self.replication.replicated
            if mode == ModeKeys.TRAIN and not replicated:  # on replicas: _after_replicas
                tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.LOSSES, spec.loss)
            if spec.loss is not None:
                kept_like_a_fetch(spec.loss)
            if first_replica and replicated:
                self._first_spec = spec
            elif first_replica:
                self._begin_hooks(spec)
        return spec

    def _tf1_step_reads(self, mode):
        if mode != ModeKeys.TRAIN:
            return contextlib.nullcontext()
        others = sorted(self.blueprint.read_after_written - {GLOBAL_STEP_NAME})
        return reads_before_update(
            [self._store.global_step, *(self._store[name] for name in others)]
        )


def _names_taken(graph: tf.Graph, names) -> None:
    """Marks ``names`` (the discovery graph's before model_fn ran) as used in
    ``graph``, those it has not used yet: model_fn's unnamed ops then get the
    names they had there (``Const_3`` after input_fn's three constants), by which
    hooks' fetches find them in the discovery graph's slices
    (train_step_slice.py) and the step's writes (unfetched_updates.py)."""
    for name in sorted(names):
        if graph.unique_name(name, mark_as_used=False) == name:
            graph.unique_name(name, mark_as_used=True)


def _random_streams(blueprint: Blueprint, replication: Replication, outfeed) -> RandomStreams:
    """The call's random streams; a replicated step keeps its kernels' own
    generators (one per replica and program, as before)."""
    if replication.replicated or outfeed is not None:
        return RandomStreams(())
    return RandomStreams(blueprint.model_seeds)


def kept_like_a_fetch(tensor: tf.Tensor) -> None:
    """Keeps ``tensor``'s op out of Grappler's rewrites, as a Session fetch was.

    Estimator fetched the loss every step, and Grappler leaves fetched nodes as they
    are. In a traced step the loss is an inner node (reduced across replicas, looped,
    returned), so Grappler's arithmetic rewrites may merge it with its inputs:
    ``xent + add_n(regularization losses)`` then sums in another order, a last-bit
    difference in the reported loss. Grappler keeps a function's control outputs like
    fetches.
    """
    graph = tensor.graph
    if hasattr(graph, "control_outputs"):  # a FuncGraph (a traced step, a loop body)
        graph.control_outputs.append(tensor.op)


def with_loss_metric(eval_metric_ops: dict, loss) -> dict:
    """The eval metrics plus Estimator's ``loss``: the mean of the batch losses."""
    if LOSS_METRIC_KEY in eval_metric_ops:
        raise ValueError(
            f'Metric with name "{LOSS_METRIC_KEY}" is not allowed, because '
            "Estimator already defines a default metric with the same name."
        )
    with root_name_scope():
        return {**eval_metric_ops, LOSS_METRIC_KEY: tf.compat.v1.metrics.mean(loss)}


def _nothing(_):
    return None


@contextlib.contextmanager
def summary_writers_kept(into: list):
    """Keeps alive the summary writers model_fn creates while traced.

    ``tf.summary.create_file_writer`` inside a traced function creates the writer
    eagerly; TF1-style code drops the writer object after ``as_default()`` (a
    graph kept it in TF1), which would destroy the resource the step writes to.
    """
    original = summary_ops_v2._ResourceSummaryWriter

    class KeptWriter(original):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            into.append(self)

    summary_ops_v2._ResourceSummaryWriter = KeptWriter
    try:
        yield
    finally:
        summary_ops_v2._ResourceSummaryWriter = original


def root_name_scope():
    """The root name scope, so that loop and cond scopes do not prefix model_fn's
    op names and summary tags (hooks and TensorBoard find them as in TF1)."""
    return tf.compat.v1.get_default_graph().name_scope(None)


class TrainPrograms:
    """``loop(iterator, n, record)`` for hook-free stretches, ``step`` for hooked steps."""

    def __init__(
        self, traced: TracedModel, *, summary_writer=None, infinite_input=False, hooked=False
    ):
        """``hooked``: hooks run around the steps, in model_fn's graph."""
        self.traced = traced
        self._infinite_input = infinite_input
        self._writer = summary_writer
        # model_fn's own v1 summaries need the writer inside the step; without
        # them the step carries no summary ops at all and the controller writes
        # ``loss`` (write_loss_summaries), which keeps the loop body small.
        self.summaries_in_step = summary_writer is not None and traced.blueprint.writes_summaries
        # The discovery graph's own step (and summary ops), where it can run
        # instead of a model_fn call (graph_slice.py, step_summaries.py).
        sliced = traced.sliced(traced.blueprint.train_step)
        summarized = traced.sliced(traced.blueprint.summarized_step)
        if self.summaries_in_step and summarized is None:
            sliced = None
        # Where the step is the discovery graph's slice, hooks begin in that graph,
        # model_fn's as the Estimator built it (estimator.py); elsewhere in a trace
        # of model_fn, which the hooked steps are then too.
        self.hooks_in_discovery_graph = sliced is not None and traced.blueprint.spec is not None
        if hooked and not self.hooks_in_discovery_graph:
            sliced = summarized = None
        self._sliced_step, self._summarized_step = sliced, summarized
        self._replicated_step = (
            None
            if self.summaries_in_step
            else traced.sliced(traced.blueprint.replicated_step, hooked=hooked, as_on_tpu=True)
        )
        # A step that calls model_fn in every replica computes as the Estimator's
        # session run did only in a call of its own: in the body of a multi-step
        # loop, where the loop's frame ties every constant to it, Grappler
        # associates some products differently (XLNet's ``0.044715 * tf.pow(x, 3)``:
        # a few ulp from the first step; docs/runtime.md). Such steps run one per call.
        replication = traced.replication
        self.one_step_per_call = (
            replication.replicated
            and replication.scheduler is None
            and self._replicated_step is None
        )
        # hooked steps' runs with fetches, sliced from the graph hooks began in
        self._fetching_step = (
            traced.sliced(traced.blueprint.fetching_step) if self.hooks_in_discovery_graph else None
        )
        self._loss_dtype = traced.blueprint.loss_dtype
        self._loss_tag = traced.blueprint.loss_summary_tag
        self.loop = tf.function(self._loop, autograph=False)
        self.step = tf.function(self._step, autograph=False)

    def _train_step(self, element, record_summaries, fetch_names=()):
        """One legacy ``session.run([train_op, loss])``; returns the loss
        (reduced across replicas as the Estimator reported it), and writes
        model_fn's own summaries when ``record_summaries``."""
        if self._replicated_step is not None and not fetch_names:
            return self._replicated_train_step(element)
        if self._sliced_step is not None and not fetch_names:
            return self._discovered_train_step(element, record_summaries)
        if not self.summaries_in_step:
            with root_name_scope():
                per_replica, _ = self.traced.run(
                    element, on_replica=loss_after_train_op, fetch_names=fetch_names
                )
            return self.traced.reported_loss(per_replica)
        with root_name_scope(), self._summaries(record_summaries) as summary_step:
            per_replica, _ = self.traced.run(
                element, on_replica=_loss_and_summaries, fetch_names=fetch_names
            )
            losses, protos = per_replica
            loss = self.traced.reported_loss(losses)
            written = self._write_summaries(
                record_summaries,
                summary_step,
                [self.traced.replication.first_replica(protos)],
                loss,
            )
        with tf.control_dependencies([written]):
            return tf.identity(loss)

    def _discovered_train_step(self, element, record_summaries):
        """The discovery graph's own ``train_op`` and ``loss``, from the inputs: no
        model_fn call."""
        loss, _ = self._sliced_train_step(
            element, record_summaries, self._sliced_step, self._summarized_step
        )
        return loss

    def _sliced_train_step(self, element, record_summaries, step, summarized):
        """The step of the slice ``step`` (or, with model_fn's summaries in the
        step, ``summarized``): ``(loss after train_op, what else it outputs)``."""
        if self.summaries_in_step:
            return self._summarized_train_step(element, record_summaries, summarized)
        inputs = self.traced.model_inputs(element)
        loss, train_op, *fetched = step.compute(
            self.traced.store, inputs, self.traced.random_streams
        )
        return _loss_after(loss, train_op), (fetched[0] if fetched else ())

    def _replicated_train_step(self, element):
        """The discovery graph's step in every replica, as TPUEstimator's cores
        ran it: the gradients summed across replicas between its two slices
        (tpu_slices.py). No model_fn call."""
        step, store = self._replicated_step, self.traced.store

        def summed(strategy, gradients):
            pairs = zip(gradients, (store[name] for name in step.variables), strict=True)
            return strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM, list(pairs))

        def on_replica(element):
            inputs = self.traced.model_inputs(element)
            gradients, loss = step.gradients.compute(store, inputs)
            sums = tf.distribute.get_replica_context().merge_call(summed, args=(gradients,))
            train_op = step.updates.compute(store, [*inputs, *sums])
            return _loss_after(loss, train_op)

        return self.traced.reported_loss(self.traced.replication.run(on_replica, element))

    def _summarized_train_step(self, element, record_summaries, summarized):
        """That step with model_fn's v1 summaries: on summary steps, their ops
        too, and their protos written as the Estimator wrote them
        (step_summaries.py)."""
        inputs = self.traced.model_inputs(element)
        store = self.traced.store
        # the step value, and the variables the summaries read, are read before
        # the step's updates, as the trace reads them
        with self._summaries(record_summaries) as summary_step:
            before = _read_when(record_summaries, [store[name] for name in summarized.read_before])
            loss, train_op, *fetched, read = summarized.step.compute(
                store, inputs, self.traced.random_streams
            )
            loss = _loss_after(loss, train_op)

            def protos():
                # the step's tensors, taken into the branch (an import does not capture)
                taken = [tf.identity(tensor) for tensor in (*inputs, *read, *before)]
                return summarized.summaries.compute(store, taken)

            written = self._write_summaries(record_summaries, summary_step, protos, loss)
        with tf.control_dependencies([written]):
            return tf.identity(loss), (fetched[0] if fetched else ())

    def _write_summaries(self, record, step, protos, loss) -> tf.Tensor:
        """On summary steps, model_fn's summary ``protos`` (or a function making
        them in the branch) and the Estimator's ``loss`` scalar, merged into one
        ``Summary`` as the Estimator's SummarySaverHook wrote it."""

        def write():
            made = protos() if callable(protos) else protos
            proto = v1_summaries.merged(made, self._loss_tag, loss)
            with tf.control_dependencies([v1_summaries.write(self._writer, step, proto)]):
                return tf.constant(True)

        return tf.cond(record, write, lambda: tf.constant(False))

    @contextlib.contextmanager
    def _summaries(self, record):
        """Where model_fn's summaries are built, with the step they are written at
        (the step value after the step, as the Estimator wrote them): its v1
        summary ops as TF 1's kernels, run on summary steps (v1_summaries.py);
        its TF 2 summary ops write to the run's writer."""
        with tf.name_scope("summary_step"):  # (not names model_fn's ops would take)
            step = self.traced.global_step.read_value() + 1
        with _SummaryScope(self._writer, step, record), v1_summaries.as_tf1_ops():
            yield step

    def write_loss_summaries(self, steps: list[int], losses: list) -> None:
        """Estimator's ``loss`` summaries at ``steps``, for a model_fn that writes no
        summaries of its own (between loop calls)."""
        if self._writer is None or self.summaries_in_step or self._loss_tag is None:
            return
        write_scalars(self._writer, self._loss_tag, steps, losses)

    def write_rates(self, steps: list[int], rates: list[float]) -> None:
        """StepCounterHook's ``global_step/sec`` summaries at ``steps``."""
        if self._writer is not None:
            write_scalars(self._writer, "global_step/sec", steps, rates)

    def _loop(self, iterator, num_steps, record_first):
        """Up to ``num_steps`` steps; stops early at the end of the input or on a
        non-finite loss. Returns the per-step losses and the global step after
        each step. Only the first step may record model_fn's summaries."""
        losses = tf.TensorArray(self._loss_dtype, size=num_steps, element_shape=[])
        steps_after = tf.TensorArray(tf.int64, size=num_steps, element_shape=[])
        infinite = self._infinite_input

        def cond(i, last_loss, exhausted, losses, steps_after):
            return tf.logical_and(
                tf.logical_and(i < num_steps, tf.logical_not(exhausted)),
                tf.math.is_finite(last_loss),
            )

        def step(i, element, losses, steps_after):
            record = tf.logical_and(record_first, tf.equal(i, 0))
            loss = self._train_step(element, record)
            with tf.control_dependencies([loss]):
                # The step after this one (it stays put when a step was skipped,
                # e.g. by a loss-scale optimizer).
                step_after = tf.cast(self.traced.global_step.read_value(), tf.int64)
            return loss, losses.write(i, loss), steps_after.write(i, step_after)

        def body(i, last_loss, exhausted, losses, steps_after):
            if infinite:  # no end-of-input check needed on the hot path
                loss, losses, steps_after = step(i, iterator.get_next(), losses, steps_after)
                return i + 1, loss, exhausted, losses, steps_after
            element = iterator.get_next_as_optional()
            has_value = element.has_value()
            loss, losses, steps_after = tf.cond(
                has_value,
                lambda: step(i, element.get_value(), losses, steps_after),
                lambda: (last_loss, losses, steps_after),
            )
            return (
                i + tf.cast(has_value, tf.int32),
                loss,
                tf.logical_not(has_value),
                losses,
                steps_after,
            )

        start = (
            tf.constant(0),
            tf.zeros([], self._loss_dtype),
            tf.constant(False),
            losses,
            steps_after,
        )
        steps, _, exhausted, losses, steps_after = tf.while_loop(cond, body, start)
        return {
            "steps": steps,
            "losses": losses.stack()[:steps],
            "exhausted": exhausted,
            "steps_after": steps_after.stack()[:steps],
        }

    def _step(self, iterator, record, fetch_names=(), feeds=None):
        """One step that also outputs the tensors hooks asked for by name (and
        feeds input_fn's placeholders what they feed): the discovery graph's
        slice of the step and its fetches where it has one, else a trace of
        model_fn."""
        element = self.traced.next_element(iterator, feeds)
        fetching = self._fetching_slices(fetch_names) if fetch_names and not feeds else None
        if fetching is None:
            loss = self._train_step(element, record, fetch_names)
            return {"loss": loss, "fetched": fetch_by_name(fetch_names, after=loss)}
        loss, fetched = self._sliced_train_step(element, record, fetching.step, fetching.summarized)
        return {"loss": loss, "fetched": _outputs_after(loss, fetch_names, fetched)}

    def _fetching_slices(self, fetch_names):
        """The step's slices with ``fetch_names`` (train_step_slice.py), or None."""
        if self._fetching_step is None:
            return None
        slices = self._fetching_step.slices(tuple(fetch_names))
        if slices is None or (self.summaries_in_step and slices.summarized is None):
            return None
        return slices


def _loss_and_summaries(spec: EstimatorSpec) -> tuple:
    """A training step's loss after its train_op, and model_fn's v1 summaries
    merged (only replica 0 builds them: an empty ``Summary`` in the others)."""
    return loss_after_train_op(spec), v1_summaries.merged_collection()


def loss_after_train_op(spec: EstimatorSpec):
    with tf.control_dependencies([spec.train_op]):
        return tf.identity(spec.loss)


def _loss_after(loss, train_op):
    """A sliced step's loss, fetched with ``train_op``: kept as a fetch, and read
    after the update."""
    kept_like_a_fetch(loss)
    with tf.control_dependencies([train_op]):
        return tf.identity(loss)


def _read_when(condition, variables: list) -> list:
    """The values of ``variables`` when ``condition`` holds (else scalars, never
    used): a value kept past the step's update of its variable makes that update
    copy the variable, which only summary steps pay."""
    if not variables:
        return []
    by_id = {id(variable): variable for variable in variables}
    distinct = list(by_id.values())

    def read():
        return [variable.read_value() for variable in distinct]

    def skip():
        return [tf.zeros([], variable.dtype) for variable in distinct]

    values = dict(zip(by_id, tf.cond(condition, read, skip), strict=True))
    return [values[id(variable)] for variable in variables]


def _outputs_after(after, names, elements) -> dict:
    """``elements`` (fetched by ``names``) as step outputs, read after ``after`` so
    hooks see the values of the step they asked about (an op runs, and fetches
    as 0)."""
    with tf.control_dependencies([after]):
        return {
            name: _fetched_output(element) for name, element in zip(names, elements, strict=True)
        }


def _fetched_output(element) -> tf.Tensor:
    if isinstance(element, tf.Operation):
        with tf.control_dependencies([element]):
            return tf.constant(0)
    return tf.identity(element)


def fetch_by_name(names, *, after) -> dict:
    """The graph elements ``names`` as step outputs (:func:`_outputs_after`)."""
    graph = tf.compat.v1.get_default_graph()
    return _outputs_after(after, names, [graph.as_graph_element(name) for name in names])


class _SummaryScope:
    """Default writer + step + record_if: where summaries record (model_fn's TF 2
    summary ops, and the updates run on summary steps only: unfetched_updates.py)."""

    def __init__(self, writer, step, record):
        self._scopes = [writer.as_default(step=step), tf.summary.record_if(record)]

    def __enter__(self):
        for scope in self._scopes:
            scope.__enter__()

    def __exit__(self, *exc):
        for scope in reversed(self._scopes):
            scope.__exit__(*exc)


class EvalPrograms:
    """``loop(iterator, n)`` runs metric updates (``step`` one at a time for hooks);
    ``values()`` reads the metrics."""

    def __init__(self, traced: TracedModel, element_spec, *, hooked: bool = False):
        """``hooked``: hooks run around the steps, in model_fn's graph."""
        self.traced = traced
        self._element_spec = element_spec
        self._updates = traced.sliced(traced.blueprint.metric_updates, hooked=hooked)
        self._host_updates = traced.sliced(
            traced.blueprint.host_metric_updates, hooked=hooked, as_on_tpu=True
        )
        self.loop = tf.function(self._loop, autograph=False)
        self.step = tf.function(self._step, autograph=False)
        self._values = None

    def _step(self, iterator, fetch_names=(), feeds=None):
        update = self._update(self.traced.next_element(iterator, feeds), fetch_names)
        return {"fetched": fetch_by_name(fetch_names, after=update)}

    def _update(self, element, fetch_names=()):
        """The metric updates of one batch, in every replica, as one op."""
        if self._host_updates is not None and not fetch_names:
            return self._host_update(element)
        if self._updates is not None and not fetch_names:
            # The discovery graph's own ops, from the inputs: no model_fn call.
            return tf.group(
                self._updates.compute(self.traced.store, self.traced.model_inputs(element))
            )
        _, done = self.traced.run(element, on_metrics=after_updates, fetch_names=fetch_names)
        return tf.group(self.traced.replication.local_results(done))

    def _host_update(self, element):
        """The discovery graph's metric updates as TPUEstimator's host ran them:
        on every replica's host-call tensors concatenated, and replica 0's loss
        (tpu_slices.py). No model_fn call."""
        store, replication = self.traced.store, self.traced.replication
        device, host = self._host_updates.device, self._host_updates.host

        def on_replica(element):
            return device.compute(store, self.traced.model_inputs(element))

        tensors, losses = replication.run(on_replica, element)
        with on_host():
            concatenated = [replication.concatenate(tensor) for tensor in tensors]
            loss = replication.first_replica(losses)
            return tf.group(host.compute(store, [*concatenated, loss]))

    def _loop(self, iterator, num_steps):
        def cond(i, exhausted):
            return tf.logical_and(i < num_steps, tf.logical_not(exhausted))

        def body(i, exhausted):
            element = iterator.get_next_as_optional()
            has_value = element.has_value()

            def run():
                with tf.control_dependencies([self._update(element.get_value())]):
                    return tf.constant(1)

            done = tf.cond(has_value, run, lambda: tf.constant(0))
            return i + done, tf.logical_not(has_value)

        steps, exhausted = tf.while_loop(cond, body, (tf.constant(0), tf.constant(False)))
        return steps

    def values(self) -> dict:
        """Metric values, computed without running any update op."""
        if self._values is None:
            self._values = self._build_values()
        return self._values()

    def _build_values(self):
        """The metric values as a function: the discovery graph's ops that computed
        them where they read variables alone, else a model_fn call of their own."""
        metric_values = self.traced.sliced(self.traced.blueprint.metric_values, as_on_tpu=True)
        if metric_values is not None:
            store = self.traced.store
            return tf.function(lambda: metric_values.compute(store), autograph=False)
        flat_specs = tf.nest.flatten(self._element_spec)

        def build(*flat):
            element = tf.nest.pack_sequence_as(self._element_spec, list(flat))
            _, values = self.traced.run(element, on_metrics=_metric_values)
            return self.traced.replication.first_replica(values)

        wrapped = tf.compat.v1.wrap_function(build, signature=flat_specs)
        return wrapped.prune(feeds=[], fetches=wrapped.structured_outputs)


def after_updates(metrics: dict):
    updates = [update for _, (_, update) in sorted(metrics.items())]
    with tf.control_dependencies(updates):
        return tf.constant(1)


def _metric_values(metrics: dict) -> dict:
    return {name: value for name, (value, _) in metrics.items()}


def predictions_of(spec: EstimatorSpec):
    return spec.predictions


class PredictProgram:
    """``step(iterator)`` returns one batch of predictions (and what hooks fetch).

    On replicas (TPUEstimator) each element is ``(features, padding_mask)``: the
    batch padded to full size and split across replicas; the step returns the
    replicas' predictions concatenated, with the mask of the real rows.
    """

    def __init__(self, traced: TracedModel, *, hooked: bool = False):
        """``hooked``: hooks run around the steps, in model_fn's graph."""
        self.traced = traced
        self._predictions = traced.sliced(
            traced.blueprint.predictions, hooked=hooked, as_on_tpu=True
        )
        self.step = tf.function(self._step, autograph=False)

    def _step(self, iterator, fetch_names=(), feeds=None):
        element = self.traced.next_element(iterator, feeds)
        replication = self.traced.replication
        if self._predictions is not None and not fetch_names:
            # The discovery graph's own ops, from the features: no model_fn call.
            predictions = replication.run(self._sliced_predictions, element)
        else:
            predictions, _ = self.traced.run(
                element, on_replica=predictions_of, fetch_names=fetch_names
            )
        outputs = {}
        if replication.replicated:
            predictions = tf.nest.map_structure(replication.concatenate, predictions)
            outputs["padding_mask"] = replication.concatenate(element[1])
        after = tf.group(tf.nest.flatten(predictions))
        outputs.update(predictions=predictions, fetched=fetch_by_name(fetch_names, after=after))
        return outputs

    def _sliced_predictions(self, element):
        return self._predictions.compute(self.traced.store, self.traced.model_inputs(element))
