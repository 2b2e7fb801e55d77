"""tf.contrib.rnn's LSTMBlockCell and LayerNormBasicLSTMCell, and tf.contrib.cudnn_rnn's
CPU cells, on the runtime: the
variable names TF 1.15's checkpoints hold, one step against the LSTM equations
computed in numpy, and LSTMBlockCell's gradient (TF 2 ships the kernel without
one) against the same step built from ordinary ops. Bit for bit against TF 1.15's
cells in a whole program: fixtures/equivalence/tf1_melody_rnn_cells."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.contrib.cudnn_rnn import CudnnCompatibleGRUCell, CudnnCompatibleLSTMCell
from estimator_revival.contrib.rnn import (
    GRUBlockCell,
    GRUBlockCellV2,
    LayerNormBasicLSTMCell,
    LSTMBlockCell,
)

BATCH, INPUT, UNITS = 3, 4, 5
_random = np.random.RandomState(11)
X = _random.randn(BATCH, INPUT).astype(np.float32)
C = _random.randn(BATCH, UNITS).astype(np.float32)
H = _random.randn(BATCH, UNITS).astype(np.float32)
KERNEL = _random.randn(INPUT + UNITS, 4 * UNITS).astype(np.float32) * 0.5
BIAS = _random.randn(4 * UNITS).astype(np.float32) * 0.1
PEEPHOLES = _random.randn(3, UNITS).astype(np.float32) * 0.5


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def layer_norm(x):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-12)


@pytest.fixture
def graph():
    with tf.Graph().as_default() as graph:
        yield graph


def run_step(cell, variables: dict, *, gradients_of=()):
    """One step of ``cell`` in dynamic_rnn's scope, its variables set to ``variables``
    (by their names' last parts): ``(h, c, {name: gradient of sum(h) + sum(c)})``."""
    x, state = tf.constant(X), tf.compat.v1.nn.rnn_cell.LSTMStateTuple(tf.constant(C), H)
    with tf.compat.v1.variable_scope("rnn"):
        h, new_state = cell(x, state)
    cell_variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
    targets = {name: cell_variables[name] for name in gradients_of}
    grads = tf.gradients(tf.reduce_sum(h) + tf.reduce_sum(new_state.c), [x, *targets.values()])
    with tf.compat.v1.Session() as session:
        for name, variable in cell_variables.items():
            variable.load(variables[name.split("/", 2)[-1]], session)
        values = session.run([h, new_state.c, grads])
    return values[0], values[1], dict(zip(["x", *targets], values[2], strict=True))


def test_lstm_block_cell_names_its_variables_as_tf_1_15(graph):
    cell = LSTMBlockCell(UNITS, use_peephole=True)
    with tf.compat.v1.variable_scope("rnn"):
        cell(tf.constant(X), (tf.constant(C), tf.constant(H)))
    shapes = {v.op.name: v.shape.as_list() for v in tf.compat.v1.global_variables()}
    assert shapes == {
        "rnn/lstm_cell/kernel": [INPUT + UNITS, 4 * UNITS],
        "rnn/lstm_cell/bias": [4 * UNITS],
        "rnn/lstm_cell/w_i_diag": [UNITS],
        "rnn/lstm_cell/w_f_diag": [UNITS],
        "rnn/lstm_cell/w_o_diag": [UNITS],
    }


def test_lstm_block_cell_steps_as_the_lstm_equations_with_peepholes_and_clip(graph):
    cell = LSTMBlockCell(UNITS, forget_bias=0.7, use_peephole=True, cell_clip=0.5)
    values = {"kernel": KERNEL, "bias": BIAS, "w_i_diag": PEEPHOLES[0]}
    values.update(w_f_diag=PEEPHOLES[1], w_o_diag=PEEPHOLES[2])
    h, c, _ = run_step(cell, values)
    i, ci, f, o = np.split(np.concatenate([X, H], 1) @ KERNEL + BIAS, 4, axis=1)
    expected_c = np.clip(
        sigmoid(f + 0.7 + C * PEEPHOLES[1]) * C + sigmoid(i + C * PEEPHOLES[0]) * np.tanh(ci),
        -0.5,
        0.5,
    )
    expected_h = sigmoid(o + expected_c * PEEPHOLES[2]) * np.tanh(expected_c)
    np.testing.assert_allclose(c, expected_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, expected_h, rtol=1e-5, atol=1e-6)


def test_lstm_block_cell_gradient_is_the_gradient_of_the_same_step_in_ordinary_ops(graph):
    names = ("rnn/lstm_cell/kernel", "rnn/lstm_cell/bias")
    _, _, block = run_step(
        LSTMBlockCell(UNITS), {"kernel": KERNEL, "bias": BIAS}, gradients_of=names
    )
    with tf.Graph().as_default():
        x, kernel, bias = tf.constant(X), tf.constant(KERNEL), tf.constant(BIAS)
        gates = tf.matmul(tf.concat([x, H], 1), kernel) + bias
        i, ci, f, o = tf.split(gates, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * C + tf.sigmoid(i) * tf.tanh(ci)
        h = tf.sigmoid(o) * tf.tanh(c)
        reference = tf.gradients(tf.reduce_sum(h) + tf.reduce_sum(c), [x, kernel, bias])
        with tf.compat.v1.Session() as session:
            expected = session.run(reference)
    for got, want in zip([block["x"], *(block[name] for name in names)], expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_layer_norm_basic_lstm_cell_names_its_variables_as_tf_1_15(graph):
    cell = LayerNormBasicLSTMCell(UNITS)
    with tf.compat.v1.variable_scope("rnn"):
        cell(tf.constant(X), (tf.constant(C), tf.constant(H)))
    names = sorted(v.op.name for v in tf.compat.v1.global_variables())
    prefix = "rnn/layer_norm_basic_lstm_cell"
    assert names == sorted(
        [f"{prefix}/kernel"]
        + [
            f"{prefix}/{part}/{parameter}"
            for part in ("input", "transform", "forget", "output", "state")
            for parameter in ("gamma", "beta")
        ]
    )


def test_layer_norm_basic_lstm_cell_steps_as_its_equations(graph):
    cell = LayerNormBasicLSTMCell(UNITS, forget_bias=0.5, norm_gain=1.5, norm_shift=0.25)
    values = {"kernel": KERNEL}
    for part in ("input", "transform", "forget", "output", "state"):
        values[f"{part}/gamma"] = np.full([UNITS], 1.5, np.float32)
        values[f"{part}/beta"] = np.full([UNITS], 0.25, np.float32)
    h, c, _ = run_step(cell, values)
    i, j, f, o = (
        1.5 * layer_norm(gate) + 0.25
        for gate in np.split(np.concatenate([X, H], 1) @ KERNEL, 4, axis=1)
    )
    expected_c = 1.5 * layer_norm(C * sigmoid(f + 0.5) + sigmoid(i) * np.tanh(j)) + 0.25
    expected_h = np.tanh(expected_c) * sigmoid(o)
    np.testing.assert_allclose(c, expected_c, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, expected_h, rtol=1e-4, atol=1e-5)


def test_cudnn_compatible_lstm_cell_is_the_block_cell_without_forget_bias(graph):
    h, c, _ = run_step(CudnnCompatibleLSTMCell(UNITS), {"kernel": KERNEL, "bias": BIAS})
    names = sorted(v.op.name for v in tf.compat.v1.global_variables())
    assert names == ["rnn/cudnn_compatible_lstm_cell/bias", "rnn/cudnn_compatible_lstm_cell/kernel"]
    i, ci, f, o = np.split(np.concatenate([X, H], 1) @ KERNEL + BIAS, 4, axis=1)
    expected_c = sigmoid(f) * C + sigmoid(i) * np.tanh(ci)
    np.testing.assert_allclose(c, expected_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, sigmoid(o) * np.tanh(expected_c), rtol=1e-5, atol=1e-6)


def test_cudnn_compatible_gru_cell_resets_the_hidden_projection_as_cudnn(graph):
    """cuDNN's GRU: the reset gate scales ``h @ W_h + b_h``, not ``h``."""
    gates_kernel = KERNEL[:, : 2 * UNITS]
    input_kernel, hidden_kernel = KERNEL[:INPUT, 2 * UNITS : 3 * UNITS], KERNEL[INPUT:, 3 * UNITS :]
    input_bias, hidden_bias = BIAS[:UNITS], BIAS[UNITS : 2 * UNITS]
    values = {
        "gates/kernel": gates_kernel,
        "gates/bias": BIAS[: 2 * UNITS],
        "candidate/input_projection/kernel": input_kernel,
        "candidate/hidden_projection/kernel": hidden_kernel,
        "candidate/input_projection/bias": input_bias,
        "candidate/hidden_projection/bias": hidden_bias,
    }
    x, state = tf.constant(X), tf.constant(H)
    with tf.compat.v1.variable_scope("rnn"):
        output, new_state = CudnnCompatibleGRUCell(UNITS)(x, state)
    variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
    assert sorted(variables) == sorted(f"rnn/cudnn_compatible_gru_cell/{n}" for n in values)
    with tf.compat.v1.Session() as session:
        for name, variable in variables.items():
            variable.load(values[name.split("/", 2)[-1]], session)
        got, got_state = session.run([output, new_state])
    r, u = np.split(sigmoid(np.concatenate([X, H], 1) @ gates_kernel + BIAS[: 2 * UNITS]), 2, 1)
    candidate = np.tanh(X @ input_kernel + input_bias + r * (H @ hidden_kernel + hidden_bias))
    np.testing.assert_allclose(got, (1 - u) * candidate + u * H, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got, got_state)


GATES_KERNEL, CANDIDATE_KERNEL = KERNEL[:, : 2 * UNITS], KERNEL[:, 2 * UNITS : 3 * UNITS]
GATES_BIAS, CANDIDATE_BIAS = BIAS[: 2 * UNITS], BIAS[2 * UNITS : 3 * UNITS]


def run_gru_step(cell, names: tuple[str, str, str, str]):
    """One step of a GRU block cell from ``H``, its variables (named ``names``: gates'
    kernel and bias, candidate's kernel and bias) set to the arrays above:
    ``(h, {variable name or "x": gradient of sum(h)})``."""
    x = tf.constant(X)
    with tf.compat.v1.variable_scope("rnn"):
        h, state = cell(x, tf.constant(H))
    variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
    assert sorted(variables) == sorted(f"rnn/{cell.name}/{name}" for name in names)
    values = (GATES_KERNEL, GATES_BIAS, CANDIDATE_KERNEL, CANDIDATE_BIAS)
    targets = [variables[f"rnn/{cell.name}/{name}"] for name in names]
    gradients = tf.gradients(tf.reduce_sum(h), [x, *targets])
    with tf.compat.v1.Session() as session:
        for variable, value in zip(targets, values, strict=True):
            variable.load(value, session)
        got, got_state, got_gradients = session.run([h, state, gradients])
    np.testing.assert_array_equal(got, got_state)
    return got, dict(zip(["x", *names], got_gradients, strict=True))


@pytest.mark.parametrize(
    "make, names",
    [
        (lambda: GRUBlockCell(UNITS), ("w_ru", "b_ru", "w_c", "b_c")),
        (
            lambda: GRUBlockCellV2(UNITS),
            ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias"),
        ),
    ],
)
def test_gru_block_cell_names_its_variables_and_steps_as_the_gru_equations(graph, make, names):
    h, _ = run_gru_step(make(), names)
    gates = sigmoid(np.concatenate([X, H], 1) @ GATES_KERNEL + GATES_BIAS)
    r, u = np.split(gates, 2, axis=1)
    candidate = np.tanh(np.concatenate([X, r * H], 1) @ CANDIDATE_KERNEL + CANDIDATE_BIAS)
    np.testing.assert_allclose(h, u * H + (1 - u) * candidate, rtol=1e-5, atol=1e-6)


def test_gru_block_cell_gradient_is_the_gradient_of_the_same_step_in_ordinary_ops(graph):
    names = ("w_ru", "b_ru", "w_c", "b_c")
    _, block = run_gru_step(GRUBlockCell(UNITS), names)
    with tf.Graph().as_default():
        x = tf.constant(X)
        weights = [
            tf.constant(v) for v in (GATES_KERNEL, GATES_BIAS, CANDIDATE_KERNEL, CANDIDATE_BIAS)
        ]
        gates_kernel, gates_bias, candidate_kernel, candidate_bias = weights
        r, u = tf.split(
            tf.sigmoid(tf.matmul(tf.concat([x, H], 1), gates_kernel) + gates_bias), 2, 1
        )
        candidate = tf.tanh(tf.matmul(tf.concat([x, r * H], 1), candidate_kernel) + candidate_bias)
        h = u * H + (1 - u) * candidate
        reference = tf.gradients(tf.reduce_sum(h), [x, *weights])
        with tf.compat.v1.Session() as session:
            expected = session.run(reference)
    for name, want in zip(["x", *names], expected, strict=True):
        np.testing.assert_allclose(block[name], want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_gru_block_cell_takes_exactly_one_size_as_tf_1_15():
    with pytest.raises(ValueError, match="Exactly one of num_units or cell_size"):
        GRUBlockCell()
    with pytest.raises(ValueError, match="Exactly one of num_units or cell_size"):
        GRUBlockCell(UNITS, cell_size=UNITS)
    assert GRUBlockCell(cell_size=UNITS).state_size == UNITS
