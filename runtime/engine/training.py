"""The training controller: owns the outer loop of ``Estimator.train``.

It plans how many steps each compiled loop call may run (up to the next
checkpoint, summary or stop boundary), and does between calls what the
Estimator's default hooks did: NaN check, loss logging, ``global_step/sec``,
checkpoints with their listeners. User hooks that fetch tensors switch it to one
step per call so ``before_run``/``after_run`` keep their exact meaning.
"""

from __future__ import annotations

import dataclasses
import logging
import time

import numpy as np
import tensorflow as tf

from estimator_revival.engine.cadence import Cadence
from estimator_revival.engine.hooks import HookDriver
from estimator_revival.engine.steps import TrainPrograms
from estimator_revival.saving.checkpoints import CheckpointWriter

log = logging.getLogger("tensorflow")

# The longest stretch one loop call runs when nothing else bounds it, so
# time-based checkpoints stay close to their schedule.
MAX_STEPS_PER_CALL = 1000


@dataclasses.dataclass
class TrainSettings:
    last_step: int | None
    save_summary_steps: int
    log_step_count_steps: int | None
    checkpoints: Cadence | None
    saving_listeners: list
    # TPUEstimator's iterations_per_loop on replicas: every loop call runs this
    # many steps (fewer before last_step), and hooks and checkpoints see the
    # global step jump by it.
    steps_per_run: int | None = None
    # Runs go one at a time (around before_run/after_run) even without hooks of
    # this task's own: workers training in lockstep run the same programs as the
    # chief, whose chief-only hooks make its runs one at a time.
    one_run_at_a_time: bool = False


class TrainController:
    """Runs one ``train()`` call to its stop condition."""

    def __init__(
        self,
        *,
        programs: TrainPrograms,
        iterator,
        store,
        hooks: HookDriver,
        checkpoint_writer: CheckpointWriter | None,
        settings: TrainSettings,
    ) -> None:
        self._programs = programs
        self._replication = programs.traced.replication
        self._iterator = iterator
        self._store = store
        self._hooks = hooks
        self._writer = checkpoint_writer
        self._settings = settings
        self._summaries = Cadence(steps=settings.save_summary_steps or None)
        self._rate = Cadence(steps=settings.log_step_count_steps)
        # The default hooks' timers see each loop call as one run: TPUEstimator's
        # iterations_per_loop, or parallel workers' loops. Otherwise they see
        # every step, replayed after the call from its losses and global steps.
        self._calls_are_runs = bool(settings.steps_per_run) or self._replication.num_workers > 1
        # model_fn's own summaries are written inside the step, and only by a
        # call's first step: a call must start at each summary step.
        self._loops_end_at_summaries = programs.summaries_in_step or self._calls_are_runs
        self._iteration = 0
        self.last_loss = None

    def run(self) -> None:
        """Trains to the last step. Checkpointing comes first in each phase, as the
        Estimator's CheckpointSaverHook came before the user's hooks."""
        step = self._global_step()
        self._rate.mark(step)
        stop = self._save_checkpoint(step)
        self._hooks.after_create_session()
        while not stop:
            hooked = self._hooks or self._settings.one_run_at_a_time
            stop = self._run_hooked_step() if hooked else self._run_loop()
        final = self._global_step()
        if self._writer is not None and self._writer.last_saved_step != final:
            self._save_checkpoint(final)
        with self._hooks.model_graph():
            for listener in self._settings.saving_listeners:
                listener.end(None, final)
        self._hooks.end()
        if self._iteration == 0:
            log.warning(
                "Training with estimator made no steps. Perhaps input is empty or misspecified."
            )
        log.info("Loss for final step: %s.", self.last_loss)

    def _global_step(self) -> int:
        return int(self._store.global_step.numpy())

    def _record_summary_now(self, step: int) -> bool:
        return bool(self._settings.save_summary_steps) and self._summaries.due(step + 1)

    def _plan(self, step: int) -> int:
        """How many steps the next loop call may run."""
        if self._settings.steps_per_run:
            last = self._settings.last_step
            return (
                self._settings.steps_per_run
                if last is None
                else min(self._settings.steps_per_run, last - step)
            )
        limits = [MAX_STEPS_PER_CALL]
        if self._settings.last_step is not None:
            limits.append(self._settings.last_step - step)
        if self._settings.checkpoints is not None:
            limits.append(self._settings.checkpoints.steps_until_due(step) or MAX_STEPS_PER_CALL)
        if self._settings.save_summary_steps and self._loops_end_at_summaries:
            after_this = step + 1 if self._record_summary_now(step) else self._summaries.last_step
            limits.append(max(after_this + self._settings.save_summary_steps - 1 - step, 1))
        return max(min(limits), 1)

    def _run_loop(self) -> bool:
        stop = self._run_steps(self._plan(self._global_step()))
        return self._save_if_due() or stop

    def _save_if_due(self) -> bool:
        """Saves a checkpoint when one is due; True when a listener asks to stop."""
        step = self._global_step()
        if self._settings.checkpoints and self._settings.checkpoints.due(step):
            return self._save_checkpoint(step)
        return False

    def _run_steps(self, count: int) -> bool:
        """Runs up to ``count`` steps in one loop call; True when training must stop."""
        step = self._global_step()
        started = time.time()
        result = self._run_loop_calls(count, self._record_summary_now(step))
        losses, steps_after = result["losses"], result["steps_after"]
        steps_before = np.concatenate([[step], steps_after[:-1]]).astype(int)
        # Where calls end at summaries, only a call's first step could record.
        recorded = 1 if self._loops_end_at_summaries else len(losses)
        self._summaries_of(losses[:recorded], steps_before, steps_after)
        self._after_steps(losses, steps_after, started)
        return bool(result["exhausted"]) or self._reached_last_step()

    def _summaries_of(self, losses, steps_before, steps_after) -> None:
        """What SummarySaverHook did after each run: a run starting when a
        summary is due recorded (the loss summary labelled with the step before
        it + 1), and the next one is due counting from the step it ended at."""
        steps, recorded = [], []
        for loss, before, after in zip(
            list(losses), steps_before.tolist(), steps_after.tolist(), strict=False
        ):
            if self._record_summary_now(before):
                steps.append(before + 1)
                recorded.append(loss)
                self._summaries.mark(after)
        self._programs.write_loss_summaries(steps, recorded)

    def _run_loop_calls(self, count: int, record: bool) -> dict:
        """``count`` steps in loop calls: one, or on a parameter-server cluster
        one per worker, running asynchronously (the first one records the
        summaries)."""
        if self._programs.one_step_per_call:
            return self._single_step_calls(count, record)
        workers = min(self._replication.num_workers, count)
        parts = [count // workers + (index < count % workers) for index in range(workers)]
        records = [record and index == 0 for index in range(workers)]
        return self._loop_results(self._replication.call_each(self._loop_calls(parts, records)))

    def _single_step_calls(self, count: int, record: bool) -> dict:
        """What one loop call of ``count`` steps returns, from a call per step:
        the first may record, and they stop at the end of the input or after a
        non-finite loss."""
        done = {"losses": [], "steps_after": [], "exhausted": False}
        for index in range(count):
            try:
                result = self._programs.step(self._iterator, tf.constant(record and index == 0))
            except tf.errors.OutOfRangeError:
                done["exhausted"] = True
                break
            done["losses"].append(result["loss"].numpy())
            done["steps_after"].append(self._global_step())
            if not np.isfinite(done["losses"][-1]):
                break
        return self._loop_results([done])

    def _loop_calls(self, parts: list[int], records: list[bool]) -> list[tuple]:
        """Loop calls of ``parts[i]`` steps each, the ``records[i]`` ones recording."""
        return [
            (self._programs.loop, (self._iterator, tf.constant(part), tf.constant(record)))
            for part, record in zip(parts, records, strict=True)
        ]

    @staticmethod
    def _loop_results(results: list[dict]) -> dict:
        """The loop calls' losses and global steps after each step, in call order."""
        return {
            key: np.concatenate([np.asarray(result[key]) for result in results])
            for key in ("losses", "steps_after")
        } | {"exhausted": any(bool(result["exhausted"]) for result in results)}

    def _run_hooked_step(self) -> bool:
        """One step, or one run of ``steps_per_run`` steps, inside the hooks'
        ``before_run``/``after_run`` (fetches come from the run's last step). A
        hook that raises OutOfRangeError (a feed_fn out of data) ends training, as
        MonitoredSession ended its run.

        On a parameter-server cluster the other workers run a step each at the
        same time, as Estimator's workers trained while the chief ran its hooked
        steps: hooks do not make asynchronous training sequential."""
        try:
            names = self._hooks.before_run()
        except tf.errors.OutOfRangeError:
            return True
        if self._settings.steps_per_run:
            leading = self._plan(self._global_step()) - 1
            if leading > 0 and self._run_steps(leading):
                return True
        step = self._global_step()
        started = time.time()
        hooked = (
            self._programs.step,
            (self._iterator, tf.constant(self._record_summary_now(step)), names, self._hooks.feeds),
        )
        workers = self._replication.num_workers
        concurrent = min(workers, self._plan(step)) - 1 if workers > 1 else 0
        try:
            result, *loops = self._replication.call_each(
                [hooked, *self._loop_calls([1] * concurrent, [False] * concurrent)]
            )
        except tf.errors.OutOfRangeError:
            return True
        concurrent_losses = [np.asarray(loop["losses"]) for loop in loops]
        losses = np.concatenate([*concurrent_losses, [result["loss"]]])
        self._summaries_of(losses[-1:], np.asarray([step]), np.asarray([self._global_step()]))
        self._after_steps(losses, np.asarray([self._global_step()]), started)
        listener_stop = self._save_if_due()  # the saver's after_run came first
        stop = self._hooks.after_run(result["fetched"])
        exhausted = any(bool(loop["exhausted"]) for loop in loops)
        return stop or listener_stop or exhausted or self._reached_last_step()

    def _reached_last_step(self) -> bool:
        last = self._settings.last_step
        return last is not None and self._global_step() >= last

    def _after_steps(self, losses: np.ndarray, steps_after: np.ndarray, started: float) -> None:
        """What NanTensorHook, LoggingTensorHook and StepCounterHook did after each
        of the runs since ``started``; each run's end time is taken as evenly
        spread over that time."""
        every = self._settings.log_step_count_steps
        first_step = self._global_step() - len(losses)
        finite = np.isfinite(losses)
        checked = len(losses) if finite.all() else int(np.argmin(finite))
        if every:
            for offset in range(-self._iteration % every, checked, every):
                log.info("loss = %s, step = %d", losses[offset], first_step + offset)
        if checked < len(losses):
            raise tf.compat.v1.train.NanLossDuringTrainingError
        self._iteration += len(losses)
        if len(losses):
            self.last_loss = losses[-1]
        if not every:
            return
        ended = time.time()
        if self._calls_are_runs:
            steps_after = np.asarray([self._global_step()])
        due_steps, rates = [], []
        for index, step in enumerate(steps_after.tolist()):
            if self._rate.due(step) and step > self._rate.last_step:
                at = started + (ended - started) * (index + 1) / len(steps_after)
                due_steps.append(step)
                rates.append((step - self._rate.last_step) / max(at - self._rate.last_time, 1e-9))
                log.info("global_step/sec: %g", rates[-1])
                self._rate.mark(step, at=at)
        self._programs.write_rates(due_steps, rates)

    def _save_checkpoint(self, step: int) -> bool:
        """Saves through the listeners; True when a listener asks to stop."""
        if self._writer is None:
            return False
        listeners = self._settings.saving_listeners
        with self._hooks.model_graph():
            for listener in listeners:
                listener.before_save(None, step)
        self._writer.save(step)
        if self._settings.checkpoints is not None:
            self._settings.checkpoints.mark(step)
        stop = False
        with self._hooks.model_graph():
            for listener in listeners:
                if listener.after_save(None, step):
                    log.info("A CheckpointSaverListener requested that training be stopped.")
                    stop = True
        return stop
