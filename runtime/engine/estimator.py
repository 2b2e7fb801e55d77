"""``Estimator``: train, evaluate and predict an unchanged model_fn on TF 2.16+."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import logging
import math
import os
import shutil
import tempfile
from collections.abc import Iterator

import numpy as np
import tensorflow as tf

from estimator_revival.calls import iterator_input, legacy_dataset
from estimator_revival.calls.constant_input import ConstantInput
from estimator_revival.calls.input_pipeline import InputPipeline
from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import ModelFnCaller, call_input_fn, verify_model_fn_args
from estimator_revival.distribute import parameter_servers, strategy_selection
from estimator_revival.distribute.host_calls import HostCallOutfeed
from estimator_revival.distribute.replication import Replication
from estimator_revival.engine import eval_summaries
from estimator_revival.engine import predictions as predictions_lib
from estimator_revival.engine.cadence import Cadence, whole_steps
from estimator_revival.engine.call_cache import CallCache
from estimator_revival.engine.eager_mode import runs_eagerly, yields_eagerly
from estimator_revival.engine.hook_plan import (
    HookPlan,
    begin_all,
    checked_hooks,
    checked_listeners,
    with_spec_hooks,
)
from estimator_revival.engine.hooks import HookDriver
from estimator_revival.engine.run_config import RunConfig, TaskType
from estimator_revival.engine.steps import EvalPrograms, PredictProgram, TracedModel, TrainPrograms
from estimator_revival.engine.summary_writers import writer_for
from estimator_revival.engine.training import TrainController, TrainSettings
from estimator_revival.saving import checkpoints, saved_model_export, warm_start
from estimator_revival.saving.checkpoints import CheckpointWriter
from estimator_revival.saving.graph_files import GraphFiles
from estimator_revival.tf1 import (
    discovery,
    global_random,
    replicated_discovery,
    seeds,
    session_config,
)
from estimator_revival.tf1.hook_graph import DiscoveryHookGraph, HookGraph
from estimator_revival.tf1.own_saver import OwnSaver
from estimator_revival.tf1.variable_store import VariableStore

log = logging.getLogger("tensorflow")

# What the Estimator let a subclass override.
_OVERRIDABLE = frozenset({"model_fn", "latest_checkpoint"})


class Estimator:
    """Runs a TF1 ``model_fn`` (``tf.estimator.Estimator``) with tf.function + tf.distribute."""

    # Whether model_fn's specs carry host calls that a TPU runs on the host
    # (TPUEstimatorSpec's eval_metrics and host_call).
    runs_host_calls_on_host = False

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        # The Estimator's escape hatch: a subclass may override this check itself.
        self.__class__._assert_members_are_not_overridden(self)
        if config is None:
            config = RunConfig()
        elif not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
        if not model_fn:
            raise ValueError("model_fn must be provided to Estimator.")
        model_dir = os.fspath(model_dir) if model_dir is not None else None
        if model_dir is not None and config.model_dir and model_dir != config.model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with "
                f"different values. In constructor: '{model_dir}', in `RunConfig`: "
                f"'{config.model_dir}' "
            )
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            log.warning("Using temporary folder as model directory: %s", model_dir)
        if config.model_dir != model_dir:
            config = config.replace(model_dir=model_dir)
        verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._config = config
        self._model_dir = model_dir
        self._params = copy.deepcopy(params or {})
        self._training_calls = 0  # train() calls running (a hook may call another)
        self._warm_start = warm_start.settings_from(warm_start_from)
        self._replications = self._replications_for(config)
        self._store = VariableStore(
            self._replications[ModeKeys.TRAIN].strategy,
            local_strategy=self._metric_variable_strategy(),
        )
        self._call_cache = CallCache()
        self._graph_files: GraphFiles | None = None  # of the last training graph

    def _assert_members_are_not_overridden(self) -> None:
        """Rejects a subclass that overrides the Estimator's API, as the Estimator did
        (TPUEstimator excepted). Only public members are checked: the runtime's private
        ones are not the Estimator's."""
        subclass = type(self)
        if subclass.__name__ == "TPUEstimator":
            return
        overridden = [
            name
            for name in vars(subclass)
            if not name.startswith("_")
            and name not in _OVERRIDABLE
            and hasattr(Estimator, name)
            and getattr(Estimator, name) != getattr(subclass, name)
        ]
        if overridden:
            raise ValueError(
                "Subclasses of Estimator cannot override members of Estimator. "
                f"{subclass} does override {overridden}"
            )

    def _replications_for(self, config: RunConfig) -> dict[str, Replication]:
        """How each mode runs: ``train_distribute`` (or TF_CONFIG) for training,
        ``eval_distribute`` for evaluation, one device for prediction."""
        return {
            ModeKeys.TRAIN: Replication(strategy_selection.training_strategy(config)),
            ModeKeys.EVAL: Replication(config.eval_distribute),
            ModeKeys.PREDICT: Replication(),  # Estimator predicted on one device
        }

    def _metric_variable_strategy(self) -> tf.distribute.Strategy:
        """Where metric (local) variables live: in the evaluation replicas."""
        return self._replications[ModeKeys.EVAL].strategy

    @property
    def model_dir(self) -> str:
        return self._model_dir

    @property
    def config(self) -> RunConfig:
        return copy.deepcopy(self._config)

    @property
    def params(self) -> dict:
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        """``model_fn(features, labels, mode, config)`` bound to this Estimator's params."""

        def public_model_fn(features, labels, mode, config):
            return ModelFnCaller(self._model_fn, params=self._params, config=config)(
                features, labels, mode
            )

        return public_model_fn

    def latest_checkpoint(self) -> str | None:
        return checkpoints.latest(self._model_dir)

    def get_variable_names(self) -> list[str]:
        return [name for name, _ in tf.train.list_variables(self._require_checkpoint())]

    def get_variable_value(self, name: str) -> np.ndarray:
        return tf.train.load_variable(self._require_checkpoint(), name)

    def _require_checkpoint(self) -> str:
        path = self.latest_checkpoint()
        if not path:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return path

    # ----------------------------------------------------------------- train
    @runs_eagerly
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        if self._config.task_type in (TaskType.EVALUATOR, TaskType.PS):
            raise ValueError(
                "Train has been called wrong configuration. Please use "
                "tf.estimator.train_and_evaluate which calls proper API according "
                f"to given configuration. Current configuration: {self._config}."
            )
        if self._serves_parameter_servers():
            parameter_servers.serve_until_chief_leaves(self._config)
            return self
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        latest = checkpoints.to_resume(self._model_dir)
        start = checkpoints.global_step_of(latest) if latest else 0
        if max_steps is not None and start >= max_steps:
            log.info("Skipping training since max_steps has already saved.")
            return self
        hooks = checked_hooks(hooks)
        self._check_train_steps(steps, max_steps)
        saving_listeners = checked_listeners(saving_listeners)
        with self._graph_options(), self._training_output_dir() as output_dir, self._training():
            self._train(
                input_fn,
                hooks,
                latest,
                start,
                steps,
                max_steps,
                saving_listeners,
                output_dir,
            )
        return self

    def _check_train_steps(self, steps, max_steps) -> None:
        """Where the Estimator turned ``steps``/``max_steps`` into its stop hook,
        after its own checks (TPUEstimator's checks for a TPU are there)."""

    @contextlib.contextmanager
    def _training(self) -> Iterator[None]:
        """Counts the training calls running (a call a hook or listener makes
        inside one keeps its variables)."""
        self._training_calls += 1
        try:
            yield
        finally:
            self._training_calls -= 1

    @contextlib.contextmanager
    def _training_output_dir(self):
        """Where this process writes checkpoints and summaries while training.

        Under MultiWorkerMirroredStrategy every worker saves (saving reads
        variables, which can take part in collectives), but only the chief's
        files land in model_dir; the others write to a scratch directory that is
        removed afterwards.
        """
        if not self._multi_worker():
            yield self._model_dir
            return
        if not self._config.save_checkpoints_steps:
            raise ValueError(
                "Training on several workers (MultiWorkerMirroredStrategy) saves checkpoints "
                "on every worker at the same global steps, which save_checkpoints_secs "
                "cannot give: the workers' clocks disagree (docs/runtime.md, 'What the "
                "runtime refuses')."
            )
        if self._config.is_chief:
            yield self._model_dir
            return
        scratch = tempfile.mkdtemp(prefix=f"runtime-worker{self._config.task_id}-")
        try:
            yield scratch
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _serves_parameter_servers(self) -> bool:
        """Whether this task is a worker of a cluster with ps tasks: the chief's
        coordinator runs the steps here, this task's ``train()`` serves it."""
        return self._config.num_ps_replicas > 0 and not self._config.is_chief

    def _multi_worker(self) -> bool:
        """Whether this task trains in lockstep with others (MultiWorkerMirroredStrategy)."""
        return strategy_selection.is_multi_worker(self._replications[ModeKeys.TRAIN].strategy)

    def _graph_options(self):
        return session_config.estimator_graph_options(self._config.session_config)

    def _train(
        self, input_fn, hooks, latest, start, steps, max_steps, saving_listeners, output_dir
    ) -> None:
        tf.io.gfile.makedirs(output_dir)
        blueprint, pipeline = self._prepare(ModeKeys.TRAIN, input_fn, latest)
        iterator = pipeline.iterator
        summary_writer = writer_for(output_dir)
        hooked = _hooks_in_model_graph(hooks, blueprint)
        programs = self._programs(
            blueprint,
            pipeline,
            hooks,
            key=(summary_writer, pipeline.infinite),
            build=lambda traced: TrainPrograms(
                traced,
                summary_writer=summary_writer,
                infinite_input=pipeline.infinite,
                hooked=hooked,
            ),
        )
        with self._replications[ModeKeys.TRAIN].scope(), self._store.serving():
            plan = HookPlan(user_hooks=[], listeners=saving_listeners)
            chief = self._config.is_chief
            chief_hooks_elsewhere = []

            def begin(spec):
                if not chief:
                    chief_hooks_elsewhere.extend(spec.training_chief_hooks)
                plan.sort(
                    [*hooks, *spec.training_hooks, *(spec.training_chief_hooks if chief else ())]
                )
                for listener in plan.listeners:  # the checkpoint saver began first
                    listener.begin()
                begin_all(plan.user_hooks)

            if programs.hooks_in_discovery_graph:
                hook_graph = self._begin_in_discovery_graph(blueprint, hooks, begin, latest)
            else:
                hook_graph = self._trace_hooks(
                    programs.traced,
                    hooks,
                    begin,
                    lambda: programs.step.get_concrete_function(
                        iterator, tf.constant(False), (), pipeline.feedable
                    ),
                    latest,
                )
            if hook_graph is None:  # no trace ran begin(): only the listeners begin
                for listener in plan.listeners:
                    listener.begin()
            last_step = _last_step(start, steps, max_steps, plan.stop_at)
            cadence = plan.checkpoint_cadence or self._checkpoint_cadence()
            if plan.listeners and cadence is None:
                raise ValueError(
                    "There should be a CheckpointSaverHook to use saving_listeners. "
                    "Please set one of the RunConfig.save_checkpoints_steps or "
                    "RunConfig.save_checkpoints_secs."
                )
            controller = TrainController(
                programs=programs,
                iterator=iterator,
                store=self._store,
                hooks=HookDriver(
                    plan.user_hooks,
                    store=self._store,
                    hook_graph=hook_graph,
                    feedable=pipeline.feedable,
                ),
                checkpoint_writer=(
                    self._checkpoint_writer(output_dir, blueprint, summary_writer)
                    if cadence
                    else None
                ),
                settings=TrainSettings(
                    last_step=last_step,
                    save_summary_steps=whole_steps(self._config.save_summary_steps),
                    log_step_count_steps=whole_steps(self._config.log_step_count_steps),
                    checkpoints=cadence,
                    saving_listeners=plan.listeners,
                    steps_per_run=self._steps_per_run(),
                    one_run_at_a_time=bool(chief_hooks_elsewhere) and self._multi_worker(),
                ),
            )
            controller.run()
        summary_writer.flush()
        programs.traced.flush_summary_writers()

    def _steps_per_run(self) -> int | None:
        """Steps per loop call that hooks, checkpoints and the global step see as
        one run (None: one step, as a TF1 Session ran): a TPUStrategy's
        ``steps_per_run`` (``tf.contrib.distribute.TPUStrategy(resolver,
        steps_per_run=...)``), as TF 1.15's Estimator ran that many per session
        run on a strategy whose class name starts with ``TPUStrategy``."""
        strategy = self._config.train_distribute
        if strategy is None or not type(strategy).__name__.startswith("TPUStrategy"):
            return None
        steps = getattr(strategy.extended, "steps_per_run", 1)
        return steps if steps > 1 else None

    def _checkpoint_cadence(self) -> Cadence | None:
        steps, secs = self._config.save_checkpoints_steps, self._config.save_checkpoints_secs
        if not steps and not secs:
            return None
        return Cadence(steps=whole_steps(steps), secs=secs)

    def _checkpoint_writer(self, directory: str, blueprint, summary_writer) -> CheckpointWriter:
        """Saves as the Estimator's default saver did, or as the Scaffold's saver;
        writes the graph files as its CheckpointSaverHook did when training began
        (and a ``.meta`` with each checkpoint)."""
        graph_files = None
        if blueprint.graph is not None:
            if self._graph_files is None or self._graph_files.graph is not blueprint.graph:
                self._graph_files = GraphFiles(blueprint.graph, previous=self._graph_files)
            graph_files = self._graph_files
            graph_files.write_graph(directory, summary_writer)
        saver = blueprint.saver
        if saver is None:
            settings = dict(
                max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
            )
        else:
            settings = dict(
                max_to_keep=saver.max_to_keep,
                keep_checkpoint_every_n_hours=saver.keep_checkpoint_every_n_hours,
                keys=saver.keys,
                save_relative_paths=saver.save_relative_paths,
            )
        return CheckpointWriter(
            directory,
            self._store,
            graph_files=graph_files,
            own_saver=blueprint.own_saver,
            **settings,
        )

    def _trace_hooks(
        self, traced: TracedModel, hooks, begin, trace, checkpoint_path
    ) -> HookGraph | None:
        """Runs ``begin(spec)`` inside a trace of a step (``trace()`` traces, runs
        nothing), so hooks' ``begin()`` sees model_fn's graph; returns that graph,
        where the hooks' other methods look tensors up and their sessions run.
        The variables hooks made there get their values from ``checkpoint_path``
        (or their initial values), as the Estimator's Saver and init op set them.
        Skipped (None) when neither the call nor the spec has hooks."""
        if not _hooks_in_model_graph(hooks, traced.blueprint):
            return None
        began = []

        def begin_in_model_graph(spec):
            hook_graph = HookGraph(tf.compat.v1.get_default_graph(), self._store)
            with hook_graph.beginning() as made:
                begin(spec)
            began.append((hook_graph, made))

        traced.on_next_trace = begin_in_model_graph
        trace()
        hook_graph, made = began[0]
        self._set_values(self._store.records(made), checkpoint_path)
        return hook_graph

    def _begin_in_discovery_graph(
        self, blueprint, hooks, begin, checkpoint_path
    ) -> DiscoveryHookGraph | None:
        """Runs ``begin(spec)`` in the discovery graph, model_fn's graph as the
        Estimator built it, with the spec model_fn returned there; returns that
        graph (see :meth:`_trace_hooks`). Skipped (None) without hooks."""
        if not _hooks_in_model_graph(hooks, blueprint):
            return None
        hook_graph = DiscoveryHookGraph(blueprint.graph, self._store)
        with blueprint.graph.as_default(), hook_graph.beginning() as made:
            begin(blueprint.spec)
        self._set_values(self._store.records(made), checkpoint_path)
        return hook_graph

    def _set_values(self, records, checkpoint_path, own_saver: OwnSaver | None = None) -> None:
        """The variables of ``records`` as a fresh session had them: the saver
        (``own_saver``, else the Estimator's) restored the global ones from
        ``checkpoint_path``, the init ops set the others (all of them, without a
        checkpoint)."""
        if checkpoint_path:
            saved = [record for record in records if record.is_saved]
            if own_saver is None:
                values = checkpoints.read_values(checkpoint_path, saved)
            else:
                values = own_saver.restore(checkpoint_path, [record.name for record in saved])
            self._store.restore(values)
            self._store.reset([record.name for record in records if not record.is_saved])
        else:
            self._store.reset([record.name for record in records])

    def _checkpoint_for(self, purpose: str, checkpoint_path):
        """The given checkpoint, else the latest; None (fresh initialization) if none."""
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            log.info(
                "Could not find trained model in model_dir: %s, running initialization to %s.",
                self._model_dir,
                purpose,
            )
        return checkpoint_path

    # -------------------------------------------------------------- evaluate
    @runs_eagerly
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        checkpoint_path = self._checkpoint_for("evaluate", checkpoint_path)
        return self._evaluate_checkpoint(
            input_fn, steps, hooks, checkpoint_path, name, recorded=checkpoint_path
        )

    @runs_eagerly
    def _evaluate_checkpoint(self, input_fn, steps, hooks, checkpoint_path, name, *, recorded):
        """Evaluates ``checkpoint_path``; the summaries name ``recorded`` as the
        checkpoint evaluated (None: none, as the Estimator's in-memory evaluation)."""
        hooks = checked_hooks(hooks)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        with (
            self._graph_options(),
            self._store.values_kept(inside_training=self._training_calls > 0),
        ):
            values = self._evaluate(input_fn, steps, hooks, checkpoint_path)
        global_step = values["global_step"]
        eval_summaries.write_eval_summaries(self._eval_dir(name), values, global_step, recorded)
        log.info(
            "Saving dict for global step %d: %s",
            global_step,
            ", ".join(f"{k} = {v!s}" for k, v in sorted(values.items())),
        )
        return values

    def _evaluate(self, input_fn, steps, hooks, checkpoint_path) -> dict:
        blueprint, pipeline = self._prepare(ModeKeys.EVAL, input_fn, checkpoint_path)
        iterator = pipeline.iterator
        hooked = _hooks_in_model_graph(hooks, blueprint)
        programs = self._programs(
            blueprint,
            pipeline,
            hooks,
            key=(),
            build=lambda traced: EvalPrograms(traced, pipeline.element_spec, hooked=hooked),
        )
        with self._replications[ModeKeys.EVAL].scope(), self._store.serving():
            hook_graph = self._trace_hooks(
                programs.traced,
                hooks,
                with_spec_hooks(hooks, "evaluation_hooks"),
                lambda: programs.step.get_concrete_function(iterator, (), pipeline.feedable),
                checkpoint_path,
            )
            if hooks:
                driver = HookDriver(
                    hooks, store=self._store, hook_graph=hook_graph, feedable=pipeline.feedable
                )
                self._evaluate_hooked(programs, iterator, steps, driver)
            else:
                # A fractional count ran until the counter passed it, as the Estimator's hook did.
                remaining = math.ceil(steps) if steps is not None else np.iinfo(np.int32).max
                programs.loop(iterator, tf.constant(remaining, tf.int32))
            values = _numpy(programs.values())  # a metric value may be a nested structure
        if "global_step" in values:
            raise ValueError(
                "Metric with name `global_step` is not allowed, because Estimator "
                "already defines a default metric with the same name."
            )
        values["global_step"] = self._store.global_step.numpy()  # np.int64, as a Session read it
        return values

    def _evaluate_hooked(self, programs, iterator, steps, driver: HookDriver) -> None:
        """One update per call, with the hooks' before_run/after_run around it."""
        driver.after_create_session()
        done = 0
        while steps is None or done < steps:
            try:  # a hook's before_run (a feed_fn out of data) or the input may end it
                names = driver.before_run()
                result = programs.step(iterator, names, driver.feeds)
            except tf.errors.OutOfRangeError:
                break
            done += 1
            if driver.after_run(result["fetched"]):
                break
        driver.end()

    def eval_dir(self, name=None) -> str:
        return self._eval_dir(name)

    def _eval_dir(self, name) -> str:
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    # --------------------------------------------------------------- predict
    @yields_eagerly
    def predict(
        self,
        input_fn,
        predict_keys=None,
        hooks=None,
        checkpoint_path=None,
        yield_single_examples=True,
    ):
        hooks = checked_hooks(hooks)
        checkpoint_path = self._checkpoint_for("predict", checkpoint_path)
        blueprint, pipeline = self._prepare(ModeKeys.PREDICT, input_fn, checkpoint_path)
        iterator = pipeline.iterator
        hooked = _hooks_in_model_graph(hooks, blueprint)
        program = self._programs(
            blueprint,
            pipeline,
            hooks,
            key=(),
            build=lambda traced: PredictProgram(traced, hooked=hooked),
        )
        replication = program.traced.replication
        with replication.scope(), self._store.serving(), self._graph_options():
            hook_graph = self._trace_hooks(
                program.traced,
                hooks,
                with_spec_hooks(hooks, "prediction_hooks"),
                lambda: program.step.get_concrete_function(iterator, (), pipeline.feedable),
                checkpoint_path,
            )
        driver = HookDriver(
            hooks, store=self._store, hook_graph=hook_graph, feedable=pipeline.feedable
        )
        driver.after_create_session()
        while True:
            with replication.scope(), self._store.serving(), self._graph_options():
                try:  # a hook's before_run (a feed_fn out of data) or the input may end it
                    names = driver.before_run() if driver else ()
                    result = program.step(iterator, names, driver.feeds)
                except tf.errors.OutOfRangeError:
                    break
            predictions = _numpy(result["predictions"])
            if "padding_mask" in result:
                predictions = predictions_lib.real_rows(predictions, result["padding_mask"].numpy())
            predictions = predictions_lib.select_keys(predictions, predict_keys)
            stop = driver.after_run(result["fetched"]) if driver else False
            yield from predictions_lib.examples(predictions, yield_single_examples)
            if stop:
                break
        driver.end()

    # ---------------------------------------------------------------- export
    def export_saved_model(
        self,
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        experimental_mode=ModeKeys.PREDICT,
    ) -> bytes:
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export(
            export_dir_base,
            {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
        )

    def export_savedmodel(
        self,
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        strip_default_attrs=False,
    ) -> bytes:
        """The TF1 name of :meth:`export_saved_model` (PREDICT only)."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export(
            export_dir_base,
            {ModeKeys.PREDICT: serving_input_receiver_fn},
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs,
        )

    def experimental_export_all_saved_models(
        self,
        export_dir_base,
        input_receiver_fn_map,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
    ) -> bytes:
        return self._export(
            export_dir_base,
            input_receiver_fn_map,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
        )

    @runs_eagerly
    def _export(self, export_dir_base, receiver_fns, *, checkpoint_path, **options) -> bytes:
        checkpoint_path = saved_model_export.checkpoint_to_export(
            checkpoint_path,
            latest=self.latest_checkpoint(),
            warm_start=self._warm_start,
            model_dir=self._model_dir,
        )
        return saved_model_export.export_all_saved_models(
            export_dir_base,
            receiver_fns,
            checkpoint_path=checkpoint_path,
            call_model_fn=self._export_caller(),
            random_seed=self._config.tf_random_seed,
            session_config=session_config.session_config_or_default(self._config.session_config),
            **options,
        )

    def _export_caller(self) -> ModelFnCaller:
        """How model_fn is called for export (TPUEstimator drops the batch size)."""
        return self._caller()

    # ---------------------------------------------------------------- shared
    def _prepare(self, mode: str, input_fn, checkpoint_path):
        """Discovers the graph for ``mode``, sets variable values, opens the input."""
        replication = self._replications[mode]
        input_context = replication.input_context()
        input_graph = discovery.legacy_input_graph(
            mode,
            input_fn_result=lambda: self._call_input_fn(input_fn, mode, input_context),
            random_seed=self._config.tf_random_seed,
        )
        # Before model_fn adds to the graph: only the input's ops are copied. On
        # a parameter-server cluster each worker builds its own dataset.
        reopened = None if replication.scheduler is not None else _input_reopened(input_graph)
        iterated = input_graph.iterated
        blueprint = self._call_cache.blueprint(
            input_graph, lambda: self._discover(input_graph, input_fn, replication)
        )
        records = blueprint.all_variables()
        created = self._store.materialize(records)
        if replication.scheduler is not None:
            parameter_servers.log_placement(self._store[name] for name in created)
        self._store.materialize_tables(blueprint.tables)
        if checkpoint_path:
            if blueprint.saver is not None:
                blueprint.saver.check_restores_all([r for r in records if r.is_saved])
            self._set_values(records, checkpoint_path, blueprint.own_saver)
            self._store.restore_tables(checkpoints.read_tables(checkpoint_path, blueprint.tables))
        else:
            if blueprint.scaffold_init_fn:
                raise ValueError(
                    "model_fn returned a Scaffold with init_fn, which needs a "
                    "tf.compat.v1.Session to initialize a fresh model; the runtime has none "
                    "(docs/runtime.md, 'What the runtime refuses')."
                )
            self._set_values(records, checkpoint_path)
            self._store.empty_tables([table.name for table in blueprint.tables])
            if self._warm_start is not None:
                warm_start.apply(self._warm_start, self._store)

        constant_inputs = []

        def open_dataset(context=None) -> tf.data.Dataset:
            if reopened is not None and _same_pipeline(context, input_context):
                return reopened  # input_fn's own datasets: no second call
            with (
                seeds.replaying(blueprint.input_seeds, what="input_fn"),
                iterator_input.datasets_recorded() as datasets,
            ):
                result = self._call_input_fn(input_fn, mode, context)
            if isinstance(result, tf.data.Dataset):
                return result
            if iterated is not None:  # its iterators' datasets, read every step
                return iterated.element_dataset(datasets)
            constant_inputs.append(ConstantInput(result))
            return constant_inputs[-1].dataset()

        pipeline = InputPipeline.open(
            open_dataset, replication, whole_steps_only=self._on_legacy_mirrored_strategy(mode)
        )
        if iterated is not None:
            # what input_fn computed from get_next(), computed every step
            model_input = functools.partial(iterated.model_input, variables=self._store)
            pipeline = dataclasses.replace(
                pipeline, to_model_input=model_input, feedable=iterated.fed
            )
        elif constant_inputs:
            pipeline = dataclasses.replace(pipeline, to_model_input=constant_inputs[0].model_input)
        return blueprint, pipeline

    def _discover(self, input_graph, input_fn, replication: Replication) -> discovery.Blueprint:
        """The blueprint of model_fn in ``input_graph``'s mode; for training on
        MirroredStrategy, with what the legacy distributed graph drew."""
        mode = input_graph.mode
        if mode != ModeKeys.TRAIN or not self._on_legacy_mirrored_strategy(mode):
            return discovery.discover(input_graph, call_model_fn=self._caller())
        with global_random.unchanged():  # the replicas' model_fn calls draw instead
            blueprint = discovery.discover(input_graph, call_model_fn=self._caller())
        draws = replicated_discovery.replicated_draws(
            mode,
            strategy=replication.strategy,
            input_fn_result=lambda context: self._call_input_fn(input_fn, mode, context),
            call_model_fn=self._caller(),
            random_seed=self._config.tf_random_seed,
        )
        return draws.applied_to(blueprint)

    def _on_legacy_mirrored_strategy(self, mode: str) -> bool:
        """Whether Estimator ran ``mode`` on a MirroredStrategy (``train_distribute``,
        ``eval_distribute``) through ``call_for_each_replica``."""
        replication = self._replications[mode]
        return replication.replicated and replicated_discovery.builds_its_own_graph(
            replication.strategy
        )

    def _call_input_fn(self, input_fn, mode: str, input_context=None):
        """Calls the user's input_fn (TPUEstimator adds params["batch_size"])."""
        return call_input_fn(
            input_fn, mode, params=self._params, config=self._config, input_context=input_context
        )

    def _caller(self, outfeed: HostCallOutfeed | None = None) -> ModelFnCaller:
        """How model_fn is called (TPUEstimator sends host calls to ``outfeed``)."""
        return ModelFnCaller(self._model_fn, params=self._params, config=self.config)

    def _outfeed_for(self, mode: str) -> HostCallOutfeed | None:
        """Where replicas send host calls to run on the host (TPUEstimator on replicas)."""
        return None

    def _programs(self, blueprint, pipeline: InputPipeline, hooks, *, key, build):
        """``build(traced model)``, or the programs built for the same blueprint and
        ``key`` by an earlier call. Hooks need a fresh trace: their ``begin()`` runs
        in it, in model_fn's graph. So do model_fns with random ops (dropout): each
        legacy call's new session started their random streams again, and a traced
        program's kernels would go on where the last call stopped."""
        if _hooks_in_model_graph(hooks, blueprint) or blueprint.model_seeds:
            return build(self._traced(blueprint, pipeline))
        return self._call_cache.programs(
            blueprint, key, lambda: build(self._traced(blueprint, pipeline))
        )

    def _traced(self, blueprint, pipeline: InputPipeline) -> TracedModel:
        outfeed = self._outfeed_for(blueprint.mode)
        return TracedModel(
            call_model_fn=self._caller(outfeed),
            store=self._store,
            blueprint=blueprint,
            replication=self._replications[blueprint.mode],
            outfeed=outfeed,
            to_model_input=pipeline.to_model_input,
        )


def _input_reopened(input_graph) -> tf.data.Dataset | None:
    """What input_fn returned in the discovery graph, as a dataset the programs can
    iterate: its dataset, or its iterators' datasets read as one; None where one
    reads state of that graph (legacy_dataset.py)."""
    if input_graph.dataset is not None:
        return legacy_dataset.reopened(input_graph.dataset)
    if input_graph.iterated is None:
        return None
    datasets = [legacy_dataset.reopened(dataset) for dataset in input_graph.iterated.datasets]
    if any(dataset is None for dataset in datasets):
        return None
    return input_graph.iterated.element_dataset(datasets)


def _same_pipeline(context, discovered) -> bool:
    """Whether input_fn got ``discovered`` (its input context in the discovery
    graph) where it is asked for ``context`` now."""
    if context is None or discovered is None:
        return context is discovered
    return (
        context.input_pipeline_id,
        context.num_input_pipelines,
        context.num_replicas_in_sync,
    ) == (
        discovered.input_pipeline_id,
        discovered.num_input_pipelines,
        discovered.num_replicas_in_sync,
    )


def _hooks_in_model_graph(hooks, blueprint) -> bool:
    """Whether the call's hooks or the spec's run in this call, in model_fn's graph."""
    return bool(hooks) or blueprint.returns_hooks


def _last_step(start: int, steps, max_steps, stop_at) -> int | None:
    """The global step training stops at; a fractional bound (``steps=12.3``) is
    passed by the first whole step at or after it, as StopAtStepHook compared."""
    candidates = []
    if steps is not None:
        candidates.append(start + steps)
    if max_steps is not None:
        candidates.append(max_steps)
    if stop_at is not None:
        if stop_at._last_step is not None:
            candidates.append(stop_at._last_step)
        else:
            candidates.append(start + stop_at._num_steps)
    return math.ceil(min(candidates)) if candidates else None


def _numpy(structure):
    return tf.nest.map_structure(lambda t: t.numpy(), structure)
