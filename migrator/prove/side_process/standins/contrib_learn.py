"""``tf.contrib.learn``'s Experiment, learn_runner, RunConfig and export
strategies for the legacy side, for a ``tf.estimator.Estimator``, written from
what TF 1.15's ``contrib/learn/python/learn/{experiment,learn_runner,monitors,
export_strategy}.py``, ``estimators/run_config.py`` and
``utils/saved_model_export_utils.py`` did
(migrator/prove/side_process/standins/README.md). The runtime side uses
runtime/contrib/learn/."""

import collections
import inspect
import json
import math
import os
import time

import tensorflow as tf

_logging = tf.compat.v1.logging


class ClusterConfig:
    """The cluster as TF 1.15's contrib read TF_CONFIG, without the core
    RunConfig's parsing or checks: ``is_chief`` by ``environment`` (no task: task
    0; ``"cloud"``: master 0; otherwise worker 0), ``master`` the task's address
    (an error for a task type the cluster lacks, unless ``master`` is given),
    ``num_worker_replicas`` the worker and master jobs."""

    def __init__(self, master=None, evaluation_master=None):
        config = json.loads(os.environ.get("TF_CONFIG") or "{}")
        task_env = config.get("task", {})
        self._task_type = task_env.get("type", None)
        self._task_id = int(task_env.get("index")) if task_env.get("index") else 0
        self._cluster_spec = tf.train.ClusterSpec(config.get("cluster", {}))
        self._master = (
            master
            if master is not None
            else _get_master(self._cluster_spec, self._task_type, self._task_id) or ""
        )
        jobs = self._cluster_spec.as_dict() if self._cluster_spec else {}
        self._num_ps_replicas = len(jobs.get("ps", []))
        self._num_worker_replicas = len(jobs.get("worker", [])) + len(jobs.get("master", []))
        self._environment = config.get("environment", "local")
        if self._task_type is None:
            self._is_chief = self._task_id == 0
        elif self._environment == "cloud":
            self._is_chief = self._task_type == "master" and self._task_id == 0
        else:
            self._is_chief = self._task_type == "worker" and self._task_id == 0
        self._evaluation_master = evaluation_master or ""


def _get_master(cluster_spec, task_type, task_id):
    if not cluster_spec:
        return ""
    jobs = cluster_spec.jobs
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return ""
    if task_type:
        if task_type not in jobs:
            raise ValueError(
                f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster_spec}\n\n"
                "Note that these values may be coming from the TF_CONFIG environment "
                "variable."
            )
        addresses = cluster_spec.job_tasks(task_type)
        if task_id >= len(addresses) or task_id < 0:
            raise ValueError(
                f"{task_id} is not a valid task_id for task_type {task_type} in the "
                f"cluster_spec:\n{cluster_spec}\n\n"
                "Note that these value may be coming from the TF_CONFIG environment "
                "variable."
            )
        return "grpc://" + addresses[task_id]
    return ""


def _get_model_dir(model_dir):
    from_tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}").get("model_dir", None)
    if from_tf_config is not None:
        if model_dir is not None and from_tf_config != model_dir:
            raise ValueError(
                "`model_dir` provided in RunConfig construct, if set, must have the same "
                f"value as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
                f'TF_CONFIG["model_dir"]: {from_tf_config}.\n'
            )
        _logging.info("Using model_dir in TF_CONFIG: %s", from_tf_config)
    return model_dir or from_tf_config


class RunConfig(ClusterConfig, tf.estimator.RunConfig):
    """contrib's RunConfig: as in TF 1.15, neither parent's ``__init__`` chain
    runs the core one; the fields the core properties read are set here (and the
    two TF 2.15's Estimator reads that TF 1.15's had not: ``checkpoint_save_graph_def``,
    ``experimental_distribute``, at their core defaults)."""

    def __init__(
        self,
        master=None,
        num_cores=0,
        log_device_placement=False,
        gpu_memory_fraction=1,
        tf_random_seed=None,
        save_summary_steps=100,
        save_checkpoints_secs=0,
        save_checkpoints_steps=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        protocol=None,
        evaluation_master="",
        model_dir=None,
        session_config=None,
        session_creation_timeout_secs=7200,
    ):
        ClusterConfig.__init__(self, master=master, evaluation_master=evaluation_master)
        self._train_distribute = None
        self._eval_distribute = None
        self._experimental_max_worker_delay_secs = None
        self._device_fn = None
        self._experimental_distribute = None
        self._checkpoint_save_graph_def = True
        self._tf_config = tf.compat.v1.ConfigProto(
            log_device_placement=log_device_placement,
            inter_op_parallelism_threads=num_cores,
            intra_op_parallelism_threads=num_cores,
            gpu_options=tf.compat.v1.GPUOptions(
                per_process_gpu_memory_fraction=gpu_memory_fraction
            ),
        )
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._log_step_count_steps = log_step_count_steps
        self._protocol = protocol
        self._session_config = session_config
        if save_checkpoints_secs == 0:
            self._save_checkpoints_secs = 600 if save_checkpoints_steps is None else None
        self._save_checkpoints_steps = save_checkpoints_steps
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._model_dir = _get_model_dir(model_dir)
        self._session_creation_timeout_secs = session_creation_timeout_secs

    @property
    def tf_config(self):
        return self._tf_config

    @property
    def environment(self):
        return self._environment

    def uid(self, whitelist=None):
        if whitelist is None:
            whitelist = [
                "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
                "keep_checkpoint_every_n_hours", "log_step_count_steps",
            ]  # fmt: skip
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("__")}
        for k in whitelist:
            state.pop("_" + k, None)
        ordered = collections.OrderedDict(sorted(state.items(), key=lambda t: t[0]))
        if "_cluster_spec" in ordered:
            ordered["_cluster_spec"] = collections.OrderedDict(
                sorted(ordered["_cluster_spec"].as_dict().items(), key=lambda t: t[0])
            )
        return ", ".join(f"{k}={v!r}" for k, v in ordered.items())


ExportStrategy = collections.namedtuple(
    "ExportStrategy", ["name", "export_fn", "strip_default_attrs"]
)
ExportStrategy.__new__.__defaults__ = (None,)


def _export(self, estimator, export_path, checkpoint_path=None, eval_result=None):
    args = _fn_args(self.export_fn)
    kwargs = {}
    if "checkpoint_path" in args:
        kwargs["checkpoint_path"] = checkpoint_path
    if "eval_result" in args:
        if "checkpoint_path" not in args:
            raise ValueError("An export_fn accepting eval_result must also accept checkpoint_path.")
        kwargs["eval_result"] = eval_result
    if "strip_default_attrs" in args:
        kwargs["strip_default_attrs"] = self.strip_default_attrs
    return self.export_fn(estimator, export_path, **kwargs)


ExportStrategy.export = _export


def _fn_args(fn):
    return tuple(inspect.signature(fn).parameters)


def make_export_strategy(
    serving_input_fn,
    default_output_alternative_key=None,
    assets_extra=None,
    as_text=False,
    exports_to_keep=5,
    strip_default_attrs=None,
):
    def export_fn(estimator, export_dir_base, checkpoint_path=None, strip_default_attrs=False):
        if default_output_alternative_key is not None:
            raise ValueError(
                "default_output_alternative_key is not supported in core Estimator. "
                f"Given: {default_output_alternative_key}"
            )
        export_result = estimator.export_savedmodel(
            export_dir_base,
            serving_input_fn,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs,
        )
        _garbage_collect_exports(export_dir_base, exports_to_keep)
        return export_result

    return ExportStrategy("Servo", export_fn, strip_default_attrs)


def _garbage_collect_exports(export_dir_base, exports_to_keep):
    """Deletes all but the ``exports_to_keep`` largest 10-digit version directories."""
    if exports_to_keep is None:
        return
    base = export_dir_base.decode() if isinstance(export_dir_base, bytes) else export_dir_base
    versions = sorted(
        int(name)
        for name in tf.io.gfile.listdir(base)
        if len(name.strip("/")) == 10 and name.strip("/").isdigit()
    )
    for version in versions[: max(len(versions) - exports_to_keep, 0)]:
        try:
            tf.io.gfile.rmtree(os.path.join(base, str(version)))
        except tf.errors.NotFoundError as e:
            _logging.warn("Can not delete %s recursively: %s", version, e)


class _ValidationMonitor:
    """ValidationMonitor (an EveryN monitor with first_n_steps=-1) on a core Estimator."""

    def __init__(
        self, estimator, input_fn, eval_steps, every_n_steps, check_interval_secs, name, hooks
    ):
        self._estimator = estimator
        self.input_fn, self.eval_steps, self.name, self.hooks = input_fn, eval_steps, name, hooks
        self._every_n_steps = every_n_steps
        self._check_interval_secs = check_interval_secs
        self._last_active_step = 0
        self._every_n_step_begin_called = False
        self._latest_path = None
        self._last_checkpoint_check_time = None

    def step_begin(self, step):
        if step <= -1 or step >= self._every_n_steps + self._last_active_step:
            self._every_n_step_begin_called = True
        else:
            self._every_n_step_begin_called = False

    def step_end(self, step):
        if not self._every_n_step_begin_called:
            return
        current_time = time.time()
        if (
            self._check_interval_secs is not None
            and self._last_checkpoint_check_time is not None
            and current_time - self._last_checkpoint_check_time <= self._check_interval_secs
        ):
            return
        self._last_checkpoint_check_time = current_time
        latest_path = tf.train.latest_checkpoint(self._estimator.model_dir)
        if latest_path is None or latest_path == self._latest_path:
            return
        self._latest_path = latest_path
        self._estimator.evaluate(
            input_fn=self.input_fn, steps=self.eval_steps, hooks=self.hooks, name=self.name
        )

    def post_step(self, step):
        if self._every_n_step_begin_called:
            self._last_active_step = step


class _RunHookAdapterForMonitors(tf.compat.v1.train.SessionRunHook):
    def __init__(self, monitors):
        self._monitors = monitors

    def begin(self):
        self._last_step = None
        self._global_step_tensor = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        if self._last_step is None:
            self._last_step = run_context.session.run(self._global_step_tensor) + 1
        for m in self._monitors:
            m.step_begin(self._last_step)
        return tf.compat.v1.train.SessionRunArgs(
            {self._global_step_tensor: self._global_step_tensor}
        )

    def after_run(self, run_context, run_values):
        for m in self._monitors:
            m.step_end(self._last_step)
        for m in self._monitors:
            m.post_step(self._last_step)
        self._last_step = run_values.results[self._global_step_tensor] + 1


class _EvalAndExportListener(tf.compat.v1.train.CheckpointSaverListener):
    def __init__(self, eval_fn, export_fn, model_dir):
        self._eval_fn, self._export_fn, self._model_dir = eval_fn, export_fn, model_dir
        self._latest_path = None
        self.eval_result = None
        self.export_results = None

    def after_save(self, session, global_step_value):
        latest_path = tf.train.latest_checkpoint(self._model_dir)
        if not latest_path or latest_path == self._latest_path:
            return
        self._latest_path = latest_path
        self.eval_result = self._eval_fn(name="intermediate_export", checkpoint_path=latest_path)
        self.export_results = self._export_fn(self.eval_result, checkpoint_path=latest_path)


class Experiment:
    def __init__(
        self,
        estimator,
        train_input_fn,
        eval_input_fn,
        eval_metrics=None,
        train_steps=None,
        eval_steps=100,
        train_monitors=None,
        eval_hooks=None,
        local_eval_frequency=None,
        eval_delay_secs=120,
        continuous_eval_throttle_secs=60,
        min_eval_frequency=None,
        delay_workers_by_global_step=False,
        export_strategies=None,
        train_steps_per_iteration=None,
        checkpoint_and_export=False,
        saving_listeners=None,
        check_interval_secs=5,
    ):
        if not isinstance(estimator, tf.estimator.Estimator):
            raise ValueError(
                "`estimator` must implement `tf.contrib.learn.Evaluable` or `tf.estimator.Estimator`."
            )
        if eval_metrics is not None:
            raise ValueError(
                "`eval_metrics` must be `None` with `tf.estimator.Estimator`. "
                "Use `eval_metric_ops` in `tf.estimator.EstimatorSpec` instead."
            )
        self._estimator = estimator
        self._train_input_fn = train_input_fn
        self._eval_input_fn = eval_input_fn
        self._train_steps = train_steps
        self._eval_steps = eval_steps
        self._local_eval_frequency = local_eval_frequency
        self._eval_delay_secs = eval_delay_secs
        self._continuous_eval_throttle_secs = continuous_eval_throttle_secs
        self._checkpoint_and_export = checkpoint_and_export
        self._saving_listeners = saving_listeners
        self._min_eval_frequency = min_eval_frequency if min_eval_frequency is not None else 1
        self._check_interval_secs = check_interval_secs
        self._delay_workers_by_global_step = delay_workers_by_global_step
        self._train_monitors = train_monitors[:] if train_monitors else []
        self._eval_hooks = eval_hooks[:] if eval_hooks else []
        strategies = export_strategies or ()
        if isinstance(strategies, ExportStrategy):
            strategies = (strategies,)
        self._export_strategies = tuple(strategies)
        self._train_steps_per_iteration = train_steps_per_iteration
        if train_steps_per_iteration is not None and not isinstance(train_steps_per_iteration, int):
            raise ValueError("`train_steps_per_iteration` must be an integer.")

    @property
    def estimator(self):
        return self._estimator

    def train(self, delay_secs=None):
        config = self._estimator.config
        if config.environment not in ("local", "google") and config.cluster_spec and config.master:
            self._start_server()  # before the delay: the servers wait for each other
        extra_hooks = []
        if delay_secs is None:
            task_id = self._estimator.config.task_id or 0
            if self._delay_workers_by_global_step:
                extra_hooks.append(
                    tf.compat.v1.train.GlobalStepWaiterHook(int(8000.0 * math.log(task_id + 1)))
                )
                delay_secs = 0
            else:
                delay_secs = min(60, task_id * 5)
        if delay_secs > 0:
            time.sleep(delay_secs)
        return self._call_train(
            input_fn=self._train_input_fn,
            max_steps=self._train_steps,
            hooks=self._train_monitors + extra_hooks,
            saving_listeners=self._saving_listeners,
        )

    def evaluate(self, delay_secs=None, name=None):
        if delay_secs is None:
            delay_secs = self._eval_delay_secs
        if delay_secs:
            time.sleep(delay_secs)
        return self._call_evaluate(
            input_fn=self._eval_input_fn,
            steps=self._eval_steps,
            name=(name or "one_pass"),
            hooks=self._eval_hooks,
        )

    def train_and_evaluate(self):
        saved_monitors = self._train_monitors
        config = self._estimator.config
        intermediate_export = self._checkpoint_and_export and (
            config.save_checkpoints_secs or config.save_checkpoints_steps
        )
        try:
            self._train_monitors = self._train_monitors or []
            if intermediate_export:

                def eval_fn(name, checkpoint_path):
                    return self._call_evaluate(
                        input_fn=self._eval_input_fn, steps=self._eval_steps, name=name,
                        checkpoint_path=checkpoint_path, hooks=self._eval_hooks,
                    )  # fmt: skip

                export_listener = _EvalAndExportListener(
                    eval_fn, self._maybe_export, self._estimator.model_dir
                )
                # the CheckpointSaverHook it added saved as the Estimator's own would have
                saved_listeners = self._saving_listeners
                self._saving_listeners = list(saved_listeners or []) + [export_listener]
            elif self._min_eval_frequency:
                self._train_monitors = self._train_monitors + [
                    _ValidationMonitor(
                        self._estimator, self._eval_input_fn, self._eval_steps,
                        self._min_eval_frequency, self._check_interval_secs, None, self._eval_hooks,
                    )
                ]  # fmt: skip
            self.train(delay_secs=0)
        finally:
            self._train_monitors = saved_monitors
            if intermediate_export:
                self._saving_listeners = saved_listeners
        if intermediate_export:
            return export_listener.eval_result, export_listener.export_results
        eval_result = self._call_evaluate(
            input_fn=self._eval_input_fn, steps=self._eval_steps, name=None, hooks=self._eval_hooks
        )
        return eval_result, self._maybe_export(eval_result)

    def continuous_train_and_eval(self, continuous_eval_predicate_fn=None):
        predicate_fn = None
        if continuous_eval_predicate_fn is not None:
            if "checkpoint_path" in _fn_args(continuous_eval_predicate_fn):
                predicate_fn = continuous_eval_predicate_fn
            else:

                def predicate_fn(eval_results, checkpoint_path):
                    return continuous_eval_predicate_fn(eval_results)

        export_results = None
        latest_checkpoint = None
        eval_result = None
        train_steps_per_iteration = 1000
        if self._train_steps_per_iteration is not None:
            train_steps_per_iteration = self._train_steps_per_iteration
        elif self._train_steps is not None:
            train_steps_per_iteration = int(self._train_steps / 10)
        while not predicate_fn or predicate_fn(
            eval_result, checkpoint_path=latest_checkpoint if eval_result else None
        ):
            if self._has_training_stopped(eval_result):
                break
            self._call_train(
                input_fn=self._train_input_fn, steps=train_steps_per_iteration,
                hooks=self._train_monitors, saving_listeners=self._saving_listeners,
            )  # fmt: skip
            latest_checkpoint = tf.train.latest_checkpoint(self._estimator.model_dir)
            eval_result = self._call_evaluate(
                input_fn=self._eval_input_fn, steps=self._eval_steps, name="one_pass",
                checkpoint_path=latest_checkpoint, hooks=self._eval_hooks,
            )  # fmt: skip
            export_results = self._maybe_export(eval_result)
        return eval_result, export_results

    def run_std_server(self):
        self._start_server().join()

    def _start_server(self):
        config = self._estimator.config
        if (
            not (config.cluster_spec and config.task_type and config.master)
            or config.task_id is None
        ):
            raise ValueError(
                "Could not start server; be sure to specify cluster_spec, task_type, "
                "master, and task in RunConfig or set the TF_CONFIG environment variable."
            )
        server = tf.distribute.Server(
            config.cluster_spec,
            job_name=config.task_type,
            task_index=config.task_id,
            config=config.tf_config,
            start=False,
        )
        server.start()
        return server

    def test(self):
        self._call_train(
            input_fn=self._train_input_fn,
            steps=1,
            hooks=self._train_monitors,
            saving_listeners=self._saving_listeners,
        )
        eval_result = self._call_evaluate(input_fn=self._eval_input_fn, steps=1, name="one_pass")
        self._maybe_export(eval_result)
        return eval_result

    def _has_training_stopped(self, eval_result):
        if not eval_result:
            return False
        global_step = eval_result.get(tf.compat.v1.GraphKeys.GLOBAL_STEP)
        return global_step and self._train_steps and (global_step >= self._train_steps)

    def _maybe_export(self, eval_result, checkpoint_path=None):
        export_dir_base = os.path.join(
            tf.compat.as_bytes(self._estimator.model_dir), tf.compat.as_bytes("export")
        )
        return [
            strategy.export(
                self._estimator,
                os.path.join(
                    tf.compat.as_bytes(export_dir_base), tf.compat.as_bytes(strategy.name)
                ),
                checkpoint_path=checkpoint_path,
                eval_result=eval_result,
            )
            for strategy in self._export_strategies
        ]

    def _call_train(
        self, input_fn=None, steps=None, hooks=None, max_steps=None, saving_listeners=None
    ):
        hooks = list(hooks or [])
        monitors = [h for h in hooks if isinstance(h, _ValidationMonitor)]
        hooks = [h for h in hooks if not isinstance(h, _ValidationMonitor)]
        if monitors:
            hooks.append(_RunHookAdapterForMonitors(monitors))
        return self._estimator.train(
            input_fn=input_fn,
            steps=steps,
            max_steps=max_steps,
            hooks=hooks,
            saving_listeners=saving_listeners,
        )

    def _call_evaluate(
        self, input_fn=None, steps=None, name=None, checkpoint_path=None, hooks=None
    ):
        return self._estimator.evaluate(
            input_fn=input_fn, steps=steps, name=name, checkpoint_path=checkpoint_path, hooks=hooks
        )


def run(experiment_fn, output_dir=None, schedule=None, run_config=None, hparams=None):
    """learn_runner.run."""
    if output_dir is not None and run_config is not None:
        raise ValueError("Cannot provide both `output_dir` and `run_config`")
    if output_dir is None and run_config is None:
        raise ValueError("Must set value for `output_dir` or `run_config`")
    if run_config is not None:
        if not isinstance(run_config, RunConfig):
            raise ValueError("`run_config` must be `tf.contrib.learn.RunConfig` instance")
        if not run_config.model_dir:
            raise ValueError("Must specify a model directory `model_dir` in `run_config`.")
        expected_uid = run_config.uid()
        experiment = experiment_fn(run_config, hparams)
        if experiment.estimator.config.uid() != expected_uid:
            raise RuntimeError(
                "`RunConfig` instance is expected to be used by the `Estimator` inside the `Experiment`."
            )
    else:
        experiment = experiment_fn(output_dir=output_dir)
    if not isinstance(experiment, Experiment):
        raise TypeError(
            f"Experiment builder did not return an Experiment instance, got {type(experiment)} instead."
        )
    config = run_config or experiment.estimator.config
    if not schedule:
        task_count = 0
        if config.cluster_spec:
            for job in config.cluster_spec.jobs:
                task_count += len(config.cluster_spec.job_tasks(job))
        if task_count > 1 and not config.task_type:
            raise ValueError("Must specify a schedule")
        if task_count <= 1 or config.task_type == "master":
            schedule = "train_and_evaluate"
        elif config.task_type == "ps":
            schedule = "run_std_server"
        elif config.task_type == "worker":
            schedule = "train"
        else:
            raise ValueError(f"No default schedule for task type: {config.task_type}")
    return getattr(experiment, schedule)()
