"""runtime.contrib.opt against TF 1.15's definitions, written out in numpy: one step
of each optimizer on given gradients (no forward pass, so no read races with the
decay: see docs/contrib.md)."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.contrib import opt

LR, BETA1, BETA2, EPS, WD = 0.1, 0.9, 0.999, 1e-8, 0.01
START = 1.0 + np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0  # no cancellation


def adam_step(gradient):
    """Adam's first update of a variable for ``gradient`` (zero slots before)."""
    m = (1 - BETA1) * gradient
    v = (1 - BETA2) * gradient**2
    rate = LR * np.sqrt(1 - BETA2) / (1 - BETA1)
    return rate * m / (np.sqrt(v) + EPS)


def one_step(make_optimizer, gradient_of, names=("w",), **apply_kwargs):
    """The variables after one ``apply_gradients`` in a TF 1 graph; ``gradient_of``
    maps a variable to its gradient (a tensor or IndexedSlices)."""
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        variables = [tf.compat.v1.get_variable(n, initializer=START) for n in names]
        optimizer = make_optimizer()
        decay_var_list = apply_kwargs.pop("decay", None)
        pairs = [(gradient_of(v), v) for v in variables]
        if decay_var_list is not None:
            apply_kwargs["decay_var_list"] = [variables[names.index(n)] for n in decay_var_list]
        train = optimizer.apply_gradients(pairs, **apply_kwargs)
        session.run(tf.compat.v1.global_variables_initializer())
        session.run(train)
        return {v.op.name: session.run(v) for v in variables}


GRADIENT = np.full((4, 3), 0.5, np.float32)


def test_adamw_decays_by_weight_decay_times_the_variable_then_takes_adams_step():
    after = one_step(lambda: opt.AdamWOptimizer(WD, learning_rate=LR), lambda v: GRADIENT)
    np.testing.assert_allclose(after["w"], (START - WD * START) - adam_step(GRADIENT), rtol=1e-6)


def test_decay_var_list_limits_the_decay_to_its_variables():
    after = one_step(
        lambda: opt.AdamWOptimizer(WD, learning_rate=LR),
        lambda v: GRADIENT,
        names=("kernel", "bias"),
        decay=["kernel"],
    )
    np.testing.assert_allclose(after["kernel"], START - WD * START - adam_step(GRADIENT), rtol=1e-6)
    np.testing.assert_allclose(after["bias"], START - adam_step(GRADIENT), rtol=1e-6)


def test_minimize_decays_every_variable_whatever_its_decay_var_list():
    """TF 1.15's extension kept decay_var_list per apply_gradients call, and the
    apply_gradients that minimize makes had none: every variable decayed."""
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        kernel = tf.compat.v1.get_variable("kernel", initializer=START)
        bias = tf.compat.v1.get_variable("bias", initializer=START)
        loss = 0.5 * tf.reduce_sum(kernel) + 0.5 * tf.reduce_sum(bias)  # gradients 0.5
        train = opt.AdamWOptimizer(WD, learning_rate=LR).minimize(loss, decay_var_list=[kernel])
        session.run(tf.compat.v1.global_variables_initializer())
        session.run(train)
        decayed = START - WD * START - adam_step(GRADIENT)
        np.testing.assert_allclose(session.run(bias), decayed, rtol=1e-6)


def sparse(rows, values):
    return lambda v: tf.IndexedSlices(
        tf.constant(values, tf.float32), tf.constant(rows, tf.int64), tf.constant([4, 3])
    )


@pytest.mark.parametrize("rows", [[0, 2], [2, 0, 2]], ids=["distinct rows", "a repeated row"])
def test_lazy_adam_moves_only_the_rows_a_sparse_gradient_touches(rows):
    values = np.full((len(rows), 3), 0.5, np.float32)
    after = one_step(lambda: opt.LazyAdamOptimizer(LR), sparse(rows, values))["w"]
    summed = np.zeros((4, 3), np.float32)
    np.add.at(summed, rows, values)  # TF 1 summed a repeated row's gradients first
    touched = sorted(set(rows))
    np.testing.assert_allclose(
        after[touched], START[touched] - adam_step(summed[touched]), rtol=1e-6
    )
    untouched = [1, 3]
    np.testing.assert_array_equal(after[untouched], START[untouched])


def test_plain_adam_moves_the_untouched_rows_too():
    """What LazyAdam is for: after a first step with their momentum, TF 1's Adam keeps
    moving rows a later sparse gradient does not touch."""
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        w = tf.compat.v1.get_variable("w", initializer=START)
        steps = {}
        for name, optimizer in (("lazy", opt.LazyAdamOptimizer(LR)), ("adam", None)):
            optimizer = optimizer or tf.compat.v1.train.AdamOptimizer(LR)
            first = optimizer.apply_gradients([(sparse([1], [[0.5] * 3])(w), w)])
            second = optimizer.apply_gradients([(sparse([0], [[0.5] * 3])(w), w)])
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(first)
            before = session.run(w)[1]
            session.run(second)
            steps[name] = session.run(w)[1] - before
        np.testing.assert_array_equal(steps["lazy"], 0.0)
        assert np.all(steps["adam"] != 0.0)


def test_adamw_decays_only_the_rows_of_a_sparse_gradient():
    after = one_step(lambda: opt.AdamWOptimizer(WD, learning_rate=LR), sparse([3], [[0.5] * 3]))
    w = after["w"]
    expected_row = START[3] - WD * START[3] - adam_step(np.full(3, 0.5, np.float32))
    np.testing.assert_allclose(w[3], expected_row, rtol=1e-6)
    # Adam's own sparse update leaves the other rows' values (its moments are zero)
    np.testing.assert_array_equal(w[:3], START[:3])


def test_extend_with_decoupled_weight_decay_takes_weight_decay_first():
    momentum_w = opt.extend_with_decoupled_weight_decay(tf.compat.v1.train.MomentumOptimizer)
    after = one_step(lambda: momentum_w(WD, learning_rate=LR, momentum=0.9), lambda v: GRADIENT)
    np.testing.assert_allclose(after["w"], START - WD * START - LR * GRADIENT, rtol=1e-6)


def lars_steps(gradients, *, skipped: bool, nesterov: bool, momentum=0.9, eeta=0.001):
    """TF 1.15's LARS updates of ``START`` for each gradient in turn, in numpy."""
    w, accumulator = START.astype(np.float64), np.zeros_like(START, np.float64)
    for gradient in gradients:
        rate, gradient = LR, gradient.astype(np.float64)
        if not skipped:
            w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(gradient)
            trust = eeta * w_norm / (g_norm + WD * w_norm) if w_norm > 0 and g_norm > 0 else 1.0
            rate, gradient = LR * trust, gradient + WD * w
        step = gradient * rate
        accumulator = momentum * accumulator + step
        w = w - (step + momentum * accumulator if nesterov else accumulator)
    return w


@pytest.mark.parametrize("nesterov", [False, True])
def test_lars_scales_the_rate_by_the_trust_ratio_and_skips_listed_variables(nesterov):
    gradients = [GRADIENT, np.zeros_like(GRADIENT), 2 * GRADIENT + START / 10]
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        names = ("layer/kernel", "layer/bias", "batch_normalization/gamma")
        variables = [tf.compat.v1.get_variable(name, initializer=START) for name in names]
        gradient = tf.compat.v1.placeholder(tf.float32, START.shape)
        optimizer = opt.LARSOptimizer(
            LR, momentum=0.9, weight_decay=WD, skip_list=["batch_normalization", "bias"],
            use_nesterov=nesterov,
        )  # fmt: skip
        train = optimizer.apply_gradients([(gradient, v) for v in variables])
        session.run(tf.compat.v1.global_variables_initializer())
        for value in gradients:
            session.run(train, {gradient: value})
        after = dict(zip(names, session.run(variables), strict=True))
        slots = sorted(optimizer.get_slot(v, "momentum").op.name for v in variables)
    assert slots == sorted(f"{name}/LARSOptimizer" for name in names)
    scaled = lars_steps(gradients, skipped=False, nesterov=nesterov)
    plain = lars_steps(gradients, skipped=True, nesterov=nesterov)
    np.testing.assert_allclose(after["layer/kernel"], scaled, rtol=1e-5)
    np.testing.assert_allclose(after["layer/bias"], plain, rtol=1e-5)
    np.testing.assert_allclose(after["batch_normalization/gamma"], plain, rtol=1e-5)
    assert not np.allclose(scaled, plain)  # the trust ratio made a difference


def test_lars_refuses_negative_momentum_and_weight_decay_as_tf_1_15():
    with pytest.raises(ValueError, match="momentum should be positive: -1"):
        opt.LARSOptimizer(0.1, momentum=-1)
    with pytest.raises(ValueError, match="weight_decay should be positive: -0.5"):
        opt.LARSOptimizer(0.1, weight_decay=-0.5)
