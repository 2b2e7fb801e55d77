"""Runs the ops of a graph tensorflow-estimator built (a MetaGraph) on this
interpreter's TensorFlow, at a trained state, for tests/helpers/kernel_drift.py to find the
kernels whose outputs changed between TensorFlow 2.15 and 2.21.

``python kernel_probe.py GRAPHS.json`` runs each graph of a list of
``{"meta", "checkpoint", "out"}`` (TensorFlow 2.15); the same with ``"against"``
(the run on 2.15's OUT.npz) and ``"report"`` in each entry, on TensorFlow 2.21,
writes each graph's changed kernels to its REPORT.json.

1. *Computed*: every numeric output of every op that does not write state, with
   the state restored from CHECKPOINT (a trained state: a model's first step,
   from zeros, is exact everywhere), in one run. Control edges into writes are cut
   (``with tf.control_dependencies(update_ops)`` puts them before the gradients),
   so no write runs and every op computes from the restored state. Every
   intermediate tensor is fetched, so Grappler fuses nothing: each op runs its own
   kernel, whatever the CPU (a training run's fusions depend on the CPU).
2. *Written*: what the training step writes (the optimizer's apply ops, assigns,
   scatters: the ops the train op runs that write variables), run from the
   restored state again with every input part 1 computed *fed* from OLD.npz (the
   outputs of the run on TensorFlow 2.15; that run feeds its own), so both
   versions apply the same numbers; then every variable those ops wrote is read.

OUT.npz holds part 1's outputs by tensor name, and part 2's variables as
``written/<variable op name>``. The train op is the one run_side.py keeps in the
collection ``legacy_replay_train_op`` (tests/programs/canned_drift_probe.py too).

REPORT.json: ``{"changed": {op type: largest relative change}, "ops": [op types]}``:
the kernels that changed (an op whose outputs differ between the two runs while all
its inputs are equal, or a write whose variable differs while every input it
computes with was fed), and every op type of the graph.
"""

import json
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

TRAIN_OP_COLLECTION = "legacy_replay_train_op"  # migrator/prove/side_process/run_side.py
WRITTEN = "written/"
# Ops that hold state (the imported Saver's, under save/, read and write checkpoints)
_HOLDS_STATE = ("VarHandleOp", "Placeholder", "VariableV2")
_VARIABLES = ("VarHandleOp", "VariableV2")
# Ops that take state (a variable, table or iterator) and only read it
_READS = (
    "ReadVariableOp",
    "ResourceGather",
    "VarIsInitializedOp",
    "VariableShape",
    "LookupTableFindV2",
    "LookupTableSizeV2",
    "LookupTableExportV2",
    "IteratorGetNext",
    "IsVariableInitialized",
)
# Outputs a kernel leaves unwritten in part: BlockLSTM's gates (i, f, o, ci, co)
# past seq_len_max are whatever memory held (its cs and h are zeroed there); only
# its gradient reads them, up to seq_len_max
_UNDEFINED_OUTPUTS = {"BlockLSTM": (0, 2, 3, 4, 5), "BlockLSTMV2": (0, 2, 3, 4, 5)}
# TF 1's control flow: the ops a cond branch or a loop body starts with
_ENTERING = ("Switch", "RefSwitch", "Enter", "RefEnter")
# and the ops that only pass a value on between frames, which compute nothing (a
# loop's Exit fetched alone runs the loop without what it waits for: a TF 1
# gradient loop's counter then fails with "has inputs from different frames")
_PASSES_ON = ("Exit", "RefExit", "Enter", "RefEnter", "NextIteration", "LoopCond")
# Ops that pass a reference variable on (TF 1 control flow) without writing it
_PASS_REFERENCES = ("RefSwitch", "RefMerge", "RefIdentity", "RefEnter", "RefExit", "RefSelect")


def probe(meta_path: str, checkpoint: str, out_path: str, old_path: str | None = None) -> dict:
    """Runs both parts and saves their outputs; with ``old_path`` (the run on
    TensorFlow 2.15), feeds its numbers and returns the changed kernels."""
    outputs = computed(meta_path, checkpoint)
    old = dict(np.load(old_path)) if old_path else outputs
    graph, writers, written_values = written(meta_path, checkpoint, old)
    outputs.update(written_values)
    np.savez(out_path, **outputs)
    if not old_path:
        return {}
    ops = sorted({op.type for op in graph.get_operations()})
    return {"changed": _changed_kernels(graph, writers, old, outputs), "ops": ops}


def computed(meta_path: str, checkpoint: str) -> dict:
    """Part 1: ``{tensor name: value}``."""
    with tf.Graph().as_default() as graph:
        _import(meta_path)
        ops = graph.get_operations()
        writes = _after_writes(ops)
        for op in ops:
            kept = [source for source in op.control_inputs if source.name not in writes]
            if len(kept) < len(op.control_inputs):
                op._remove_all_control_inputs()
                op._add_control_inputs(kept)
        unfetchable = writes | _in_control_flow(ops)
        with _session(graph, checkpoint) as session:
            unfetchable |= _downstream(ops, _unreadable_inputs(ops, session), control_edges=False)
            fetched = [
                tensor
                for op in ops
                if op.name not in unfetchable and _computes(op)
                for tensor in op.outputs
                if (tensor.dtype.is_floating or tensor.dtype.is_integer)
                and tensor.value_index not in _UNDEFINED_OUTPUTS.get(op.type, ())
            ]
            return session.run({tensor.name: tensor for tensor in fetched})


def _unreadable_inputs(ops, session) -> set:
    """The iterators whose next element this process cannot read: a dataset
    ``from_generator`` calls the program's own Python generator (a PyFunc only
    the program's process has). What they feed goes unprobed here; the
    equivalence fixtures of the same layers probe it with in-graph inputs."""
    unreadable = set()
    for op in ops:
        if op.type != "IteratorGetNext":
            continue
        try:
            session.run(op.outputs)
        except tf.errors.InvalidArgumentError as error:
            if "pyfunc" not in str(error).lower():
                raise
            unreadable.add(op.name)
    return unreadable


def written(meta_path: str, checkpoint: str, old: dict) -> tuple:
    """Part 2: ``(graph, {variable op name: its write}, {written/<variable>: value
    after the writes})``, for the variables one op writes, fed every input it
    computes with (others depend on the order of their writes, or on what part 1
    could not compute: the queue of a numpy_input_fn, which a Python thread fed);
    the writes run on their own, their control edges cut."""
    with tf.Graph().as_default() as graph:
        writers = {
            variable: ops[0]
            for variable, ops in _writers(_import(meta_path)).items()
            if len(ops) == 1 and _all_fed(ops[0], old)
        }
        if not writers:
            return graph, writers, {}
        writes = sorted(set(writers.values()), key=lambda op: op.name)
        feeds = {
            tensor: old[tensor.name]
            for op in writes
            for tensor in op.inputs
            if tensor.name in old and graph.is_feedable(tensor)
        }
        for op in writes:
            op._remove_all_control_inputs()
        reads = {WRITTEN + name: _value(graph.get_operation_by_name(name)) for name in writers}
        with _session(graph, checkpoint) as session:
            session.run(writes, feeds)
            return graph, writers, session.run(reads)


def _import(meta_path: str) -> list:
    """The MetaGraph's graph and collections, but what the import cannot find
    again: an op made in a v2 ``tf.cond`` branch (a loss-scaled train op) lives in
    a function, and tables' saveables (LinearSDCA's example states) name ops of
    their own; those tables start empty, the same on both versions. Returns the
    train ops the graph has."""
    meta_graph = tf.compat.v1.MetaGraphDef()
    with open(meta_path, "rb") as file:
        meta_graph.ParseFromString(file.read())
    meta_graph.collection_def.pop(tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS, None)
    ops = {node.name for node in meta_graph.graph_def.node}
    for collection in meta_graph.collection_def.values():
        if collection.HasField("node_list"):
            found = [name for name in collection.node_list.value if name.split(":")[0] in ops]
            del collection.node_list.value[:]
            collection.node_list.value.extend(found)
    tf.compat.v1.train.import_meta_graph(meta_graph)
    return tf.compat.v1.get_collection(TRAIN_OP_COLLECTION)


def _session(graph: tf.Graph, checkpoint: str):
    """A Session with Estimator's default config, restored from ``checkpoint`` and
    set up as the Estimator's was by its Scaffold and input hook: local variables,
    tables and iterators initialized."""
    with graph.as_default():
        saver = tf.compat.v1.train.Saver()
        local_init = [
            tf.compat.v1.local_variables_initializer(),
            tf.compat.v1.tables_initializer(),
            *graph.get_collection(tf.compat.v1.GraphKeys.LOCAL_INIT_OP),
            *(op for op in graph.get_operations() if op.type == "MakeIterator"),
        ]
    rewrite = rewriter_config_pb2.RewriterConfig(
        meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE
    )
    config = tf.compat.v1.ConfigProto(
        allow_soft_placement=True, graph_options=tf.compat.v1.GraphOptions(rewrite_options=rewrite)
    )
    session = tf.compat.v1.Session(graph=graph, config=config)
    saver.restore(session, checkpoint)
    session.run(local_init)
    return session


def _computes(op) -> bool:
    """Whether part 1 fetches ``op``: it computes, or reads state something computes
    with (a variable's own snapshot, which nothing uses, is left out), outside a TF 1
    ``tf.cond`` branch or ``tf.while_loop`` body and its switches (whose tensors a run
    cannot fetch)."""
    if op.type in _HOLDS_STATE or op.type in _PASSES_ON or op.name.startswith("save"):
        return False
    if op._get_control_flow_context() is not None:
        return False
    return op.type not in _READS or any(t.consumers() for t in op.outputs)


def _after_writes(ops) -> set:
    """The names of the ops that write state, of placeholders (a hook's, which it
    fed), and of every op whose inputs come from one: fetching them would run the
    writes, or need a feed."""
    seeds = {op.name for op in ops if _writes_state(op) or op.type == "Placeholder"}
    return _downstream(ops, seeds, control_edges=False)


def _in_control_flow(ops) -> set:
    """The names of the ops of TF 1's cond branches and loop bodies: after a
    Switch or an Enter, up to the Merge or Exit that leaves them (a run cannot
    fetch them: the branch not taken is dead, a loop body's tensors live in its
    frame)."""
    seeds = {op.name for op in ops if op.type in _ENTERING}
    return _downstream(ops, seeds, control_edges=True, leaves=_leaves_control_flow)


def _leaves_control_flow(op) -> bool:
    """An Exit, or the Merge that ends a cond; a loop's Merge (fed back by its
    NextIteration) starts each iteration inside the loop's frame."""
    if op.type in ("Exit", "RefExit"):
        return True
    return op.type in ("Merge", "RefMerge") and not any(
        t.op.type in ("NextIteration", "RefNextIteration") for t in op.inputs
    )


def _downstream(ops, seeds: set, *, control_edges: bool, leaves=lambda op: False) -> set:
    """``seeds`` and the names of the ops whose inputs (and, with
    ``control_edges``, control inputs) come from one of them, but ops that
    ``leaves``."""
    marked = set(seeds)
    grew = True
    while grew:  # until no op is added (TF 1 while loops have back edges)
        before = len(marked)
        for op in ops:
            if op.name in marked or leaves(op):
                continue
            sources = [t.op for t in op.inputs]
            if control_edges:
                sources += op.control_inputs
            if any(source.name in marked for source in sources):
                marked.add(op.name)
        grew = len(marked) > before
    return marked


def _writes_state(op) -> bool:
    """Whether ``op`` writes a variable, table, queue or iterator: a stateful op
    taking a resource, or one taking a reference variable as a reference (TF 1's
    Assign, AssignAdd, ApplyGradientDescent: not marked stateful, and fetching
    one's output runs its write)."""
    if op.type in _READS or op.type in _PASS_REFERENCES:
        return False
    if any(argument.is_ref for argument in op.op_def.input_arg):
        return True
    return op._is_stateful and any(map(_is_state, op.inputs))


def _writers(train_ops: list) -> dict:
    """``{variable op name: [ops writing it]}`` of what the train ops run (a train
    op may be a tensor: tf.contrib.layers.optimize_loss returns the loss after the
    update)."""
    seen, stack, found = set(), [getattr(op, "op", op) for op in train_ops], {}
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(tensor.op for tensor in op.inputs)
        stack.extend(op.control_inputs)
        if _writes_state(op):
            for tensor in filter(_is_state, op.inputs):
                variable = _variable_op(tensor)
                if variable is not None:
                    found.setdefault(variable.name, []).append(op)
    return found


def _is_state(tensor) -> bool:
    return tensor.dtype == tf.resource or tensor.dtype._is_ref_dtype


def _variable_op(tensor):
    """The variable op a handle or reference input comes from (None for other
    state: tables, iterators)."""
    op = tensor.op
    while op.type not in _HOLDS_STATE and op.inputs:
        op = op.inputs[0].op
    return op if op.type in _VARIABLES else None


def _value(variable_op):
    if variable_op.type == "VarHandleOp":
        dtype = variable_op.get_attr("dtype")
        return tf.raw_ops.ReadVariableOp(resource=variable_op.outputs[0], dtype=dtype)
    return tf.identity(variable_op.outputs[0])


def _changed_kernels(graph: tf.Graph, writers: dict, old: dict, new: dict) -> dict:
    assert sorted(old) == sorted(new), "the two runs computed other tensors"
    differing = {name for name in old if not _same_bits(old[name], new[name])}
    changed: dict = {}
    for name in differing:
        if name.startswith(WRITTEN):
            ops = [writers[name[len(WRITTEN) :]]]
        else:
            op = graph.get_tensor_by_name(name).op
            # an op fed by one that changed, or a read after an update that did
            if op.type in _READS or any(t.name in differing for t in op.inputs):
                continue
            ops = [op]
        change = _relative_change(new[name], old[name])
        for op in ops:
            changed[op.type] = max(changed.get(op.type, 0.0), change)
    return changed


def _all_fed(write, old: dict) -> bool:
    """Whether every input ``write`` computes with was fed (equal on both runs)."""
    return all(
        tensor.name in old or _is_state(tensor) or tensor.op.type in _HOLDS_STATE
        for tensor in write.inputs
    )


def _same_bits(old: np.ndarray, new: np.ndarray) -> bool:
    """Equal to the bit (a NaN equal to a NaN: a metric's 0/0 before any update),
    but for the sign of a zero: in a Session, ``0.0 * w`` for a negative ``w`` (a
    weight decay of 0) is 0.0 on TF 2.15 and -0.0 on TF 2.21, the same number to
    what follows."""
    if old.dtype != new.dtype:
        return False
    if old.tobytes() == new.tobytes():
        return True
    if old.dtype.kind != "f":
        return False
    signed_zeros = (old == 0) & (new == 0)
    return np.array_equal(
        np.where(signed_zeros, 0, old), np.where(signed_zeros, 0, new), equal_nan=True
    )


def _relative_change(new: np.ndarray, old: np.ndarray) -> float:
    new, old = np.asarray(new, np.float64), np.asarray(old, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.abs(new - old) / np.abs(old)
    return float(np.nanmax(np.where(new == old, 0.0, change)))


def main(graphs_path: str) -> None:
    with open(graphs_path) as file:
        graphs = json.load(file)
    for graph in graphs:
        changed = probe(graph["meta"], graph["checkpoint"], graph["out"], graph.get("against"))
        if "report" in graph:
            with open(graph["report"], "w") as file:
                json.dump(changed, file)


if __name__ == "__main__":
    main(sys.argv[1])
