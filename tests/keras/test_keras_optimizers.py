"""Each optimizer's 1-step and 3-step updates against the update rule written out in NumPy."""
import math

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

RNG = np.random.default_rng(0)
W0 = RNG.normal(size=(3, 4))
GRADS = [RNG.normal(size=(3, 4)) for _ in range(3)]


def run(opt, steps, dtype=np.float64):
    var = tf.Variable(W0.astype(dtype))
    for g in GRADS[:steps]:
        opt.apply_gradients([(tf.constant(g.astype(dtype)), var)])
    return var.numpy()


# NumPy references: each takes the gradients and returns the variable after them.
def ref_sgd(grads, lr=0.01, momentum=0.0, nesterov=False, wd=0.0):
    w, m = W0.copy(), np.zeros_like(W0)
    for g in grads:
        w = w - lr * wd * w
        if momentum:
            m = momentum * m - lr * g
            w = w + (momentum * m - lr * g if nesterov else m)
        else:
            w = w - lr * g
    return w


def ref_adam(grads, lr=0.001, b1=0.9, b2=0.999, eps=1e-7, wd=0.0, amsgrad=False):
    w, m, v, vmax = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(grads, start=1):
        w = w - lr * wd * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        # Keras raises the betas rounded to float32 to the power t (tests/keras/test_keras_adam_float64.py)
        b1t, b2t = float(np.float32(b1)) ** t, float(np.float32(b2)) ** t
        m_hat, v_hat = m / (1 - b1t), (vmax if amsgrad else v) / (1 - b2t)
        # Keras folds the bias corrections into the rate, so epsilon is scaled by sqrt(1 - b2^t).
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps / math.sqrt(1 - b2t))
    return w


def ref_nadam(grads, lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    w, m, v, prod = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), 1.0
    u = lambda t: b1 * (1 - 0.5 * 0.96 ** t)  # noqa: E731
    for t, g in enumerate(grads, start=1):
        prod_t = prod * u(t)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = u(t + 1) * m / (1 - prod_t * u(t + 1)) + (1 - u(t)) * g / (1 - prod_t)
        w = w - lr * m_hat / (np.sqrt(v / (1 - b2 ** t)) + eps)
        prod = prod_t
    return w


def ref_rmsprop(grads, lr=0.001, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    w, s, a, p = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for g in grads:
        s = rho * s + (1 - rho) * g * g
        a = rho * a + (1 - rho) * g
        inc = lr * g / np.sqrt(s - a * a + eps if centered else s + eps)
        p = momentum * p + inc
        w = w - (p if momentum else inc)
    return w


def ref_adagrad(grads, lr=0.001, acc0=0.1, eps=1e-7):
    w, acc = W0.copy(), np.full_like(W0, acc0)
    for g in grads:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + eps)  # tf.keras (Keras 3)
    return w


def F32(value):  # noqa: N802
    """A hyperparameter as a float64 update sees it in Keras: the learning rate lives in a float32
    Variable (floatx), and momentum, weight decay and Adagrad's initial accumulator pass through a
    float32 constant (checked against TF 2.21)."""
    return float(np.float32(value))


CASES = [
    ("sgd", lambda: keras.optimizers.SGD(0.1), lambda gs: ref_sgd(gs, F32(0.1))),
    ("sgd_momentum", lambda: keras.optimizers.SGD(0.1, momentum=0.9), lambda gs: ref_sgd(gs, F32(0.1), F32(0.9))),
    ("sgd_nesterov", lambda: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
     lambda gs: ref_sgd(gs, F32(0.1), F32(0.9), True)),
    ("adam", lambda: keras.optimizers.Adam(0.01), lambda gs: ref_adam(gs, F32(0.01))),
    ("adam_amsgrad", lambda: keras.optimizers.Adam(0.01, amsgrad=True), lambda gs: ref_adam(gs, F32(0.01), amsgrad=True)),
    ("adamw", lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1), lambda gs: ref_adam(gs, F32(0.01), wd=0.1)),
    ("nadam", lambda: keras.optimizers.Nadam(0.01), lambda gs: ref_nadam(gs, F32(0.01))),
    ("nadam_lr_alias", lambda: keras.optimizers.Nadam(lr=0.02), lambda gs: ref_nadam(gs, F32(0.02))),
    ("rmsprop", lambda: keras.optimizers.RMSprop(0.01), lambda gs: ref_rmsprop(gs, F32(0.01))),
    ("rmsprop_centered_momentum", lambda: keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
     lambda gs: ref_rmsprop(gs, F32(0.01), momentum=0.5, centered=True)),
    ("adagrad", lambda: keras.optimizers.Adagrad(0.1), lambda gs: ref_adagrad(gs, F32(0.1), acc0=F32(0.1))),
    ("sgd_weight_decay", lambda: keras.optimizers.SGD(0.1, weight_decay=0.2), lambda gs: ref_sgd(gs, F32(0.1), wd=F32(0.2))),
]


@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
def test_update_matches_numpy_float64(name, make, ref, steps):
    np.testing.assert_allclose(run(make(), steps), ref(GRADS[:steps]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
def test_update_matches_numpy_float32(name, make, ref):
    np.testing.assert_allclose(run(make(), 3, np.float32), ref(GRADS), rtol=1e-5, atol=1e-6)


def test_iterations_count_steps():
    opt = keras.optimizers.Adam()
    run(opt, 3)
    assert int(opt.iterations) == 3


def test_none_gradient_is_skipped_with_a_warning_naming_the_variable():
    a, b = tf.Variable([1.0, 2.0], name="alpha"), tf.Variable([3.0], name="beta")
    opt = keras.optimizers.SGD(0.5)
    with pytest.warns(UserWarning, match="beta"):
        opt.apply_gradients([(tf.constant([1.0, 1.0]), a), (None, b)])
    np.testing.assert_allclose(a.numpy(), [0.5, 1.5])
    np.testing.assert_allclose(b.numpy(), [3.0])


def test_exponential_decay_schedule():
    sched = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    opt = keras.optimizers.SGD(sched)
    var = tf.Variable(np.zeros(1))
    for _ in range(3):
        opt.apply_gradients([(tf.constant(np.ones(1)), var)])
    lrs = [0.1 * 0.5 ** (k / 2) for k in range(3)]
    np.testing.assert_allclose(var.numpy(), [-sum(lrs)], rtol=1e-12)
    stair = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
    assert [stair(k) for k in range(4)] == [0.1, 0.1, 0.05, 0.05]


def test_clipvalue_clipnorm_global_clipnorm():
    g1, g2 = np.array([3.0, -4.0]), np.array([12.0])
    cases = {"clipvalue": (1.0, [np.clip(g1, -1, 1), np.clip(g2, -1, 1)]),
             "clipnorm": (1.0, [g1 / 5.0, g2 / 12.0]),
             "global_clipnorm": (1.0, [g1 / 13.0, g2 / 13.0])}
    for arg, (limit, expect) in cases.items():
        a, b = tf.Variable(np.zeros(2)), tf.Variable(np.zeros(1))
        keras.optimizers.SGD(1.0, **{arg: limit}).apply_gradients([(tf.constant(g1), a), (tf.constant(g2), b)])
        np.testing.assert_allclose(a.numpy(), -expect[0], err_msg=arg)
        np.testing.assert_allclose(b.numpy(), -expect[1], err_msg=arg)


def test_update_in_place_keeps_old_values_seen_by_others():
    var = tf.Variable(np.ones(3))
    before = tf.identity(var)
    keras.optimizers.SGD(1.0).apply_gradients([(tf.constant(np.ones(3)), var)])
    np.testing.assert_allclose(before.numpy(), 1.0)
    np.testing.assert_allclose(var.numpy(), 0.0)


def test_minimize_and_constraint():
    var = tf.Variable([2.0, -3.0], constraint=keras.constraints.NonNeg())
    keras.optimizers.SGD(0.1).minimize(lambda: tf.reduce_sum(var * var), [var])
    np.testing.assert_allclose(var.numpy(), [1.6, 0.0], rtol=1e-6)


@pytest.mark.parametrize("bad", [dict(clipnorm=-1.0), dict(clipnorm=1.0, global_clipnorm=1.0), dict(foo=1)])
def test_bad_arguments(bad):
    with pytest.raises((ValueError, TypeError)):
        keras.optimizers.Adam(**bad)


def test_kernel_errors_name_the_optimizer():
    # The update ops' own checks are their rows' error inputs, tests/opinfo/optim_errors.py.
    var = tf.Variable(np.zeros(2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="ResourceApplyGradientDescent"):
        keras.optimizers.SGD().apply_gradients([(tf.constant(np.zeros(2)), tf.Variable(np.zeros(2, np.int32)))])
    with pytest.raises(ValueError, match="shape"):
        keras.optimizers.SGD().apply_gradients([(tf.constant(np.zeros(3)), var)])


def test_optimizer_shape_mismatch_names_the_variable():
    var = tf.Variable(np.zeros(2), name="kernel")
    with pytest.raises(ValueError, match="kernel"):
        keras.optimizers.SGD().apply_gradients([(tf.constant(np.zeros(3)), var)])


def test_learning_rate_is_a_variable_as_in_keras():
    # Keras 3: a number becomes a Variable of floatx's dtype; .assign() on it sets the rate that eager
    # and traced steps use, and get_config reports it. A schedule gives its value as a tensor.
    opt = keras.optimizers.SGD(0.5)
    lr = opt.learning_rate
    assert isinstance(lr, tf.Variable) and lr.dtype == tf.float32 and lr.numpy() == np.float32(0.5)
    var = tf.Variable([1.0])
    traced = tf.function(lambda: opt.apply_gradients([(tf.constant([1.0]), var)]))
    traced()
    opt.learning_rate.assign(0.25)
    traced()
    opt.apply_gradients([(tf.constant([1.0]), var)])
    np.testing.assert_allclose(var.numpy(), [1.0 - 0.5 - 0.25 - 0.25])
    assert opt.get_config()["learning_rate"] == 0.25
    opt.learning_rate = 0.125
    assert opt.learning_rate is lr and float(lr) == 0.125
    keras.backend.set_floatx("float64")
    try:
        assert keras.optimizers.Adam(0.01).learning_rate.dtype == tf.float64
    finally:
        keras.backend.set_floatx("float32")
    sched = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    value = keras.optimizers.SGD(sched).learning_rate
    assert isinstance(value, tf.Tensor) and value.dtype == tf.float32 and float(value) == pytest.approx(0.1)


# TF 2.21 / Keras 3 on a float64 variable [1, -2], gradients [0.3 (i + 1), -0.7 / (i + 1)], 3 steps.
TF_FLOAT64 = {
    "sgd_momentum": (lambda: keras.optimizers.SGD(0.1, momentum=0.9), [0.7146999991819262, -1.7204666680087648]),
    "sgd_nesterov": (lambda: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                     [0.5632300033836067, -1.620086672626833]),
    "sgd_weight_decay": (lambda: keras.optimizers.SGD(0.1, weight_decay=0.3), [0.7362459929380117, -1.7021996558580745]),
    "adamw": (lambda: keras.optimizers.AdamW(0.1, weight_decay=0.3), [0.6291638040153263, -1.5535216488062666]),
    "adagrad": (lambda: keras.optimizers.Adagrad(0.1), [0.773096958373717, -1.8407596328080869]),
    "rmsprop_centered_momentum": (lambda: keras.optimizers.RMSprop(0.1, rho=0.7, momentum=0.3, centered=True),
                                  [0.15508632350334955, -1.4307934305881675]),
}


@pytest.mark.parametrize("name", list(TF_FLOAT64))
def test_float64_updates_match_keras_bit_for_bit(name):
    make, want = TF_FLOAT64[name]
    var, opt = tf.Variable(np.array([1.0, -2.0])), make()
    for i in range(3):
        opt.apply_gradients([(tf.constant(np.array([0.3 * (i + 1), -0.7 / (i + 1)])), var)])
    np.testing.assert_array_equal(var.numpy(), want)


# The same on a float32 variable: Keras's Adam computes in float32 with 1 - beta rounded once (Note
# [Keras's Adam] in cpp/ops/optim.cpp); TF's fused kernel, which it ran before, differed by 3e-6.
TF_FLOAT32 = {
    "adam": (lambda: keras.optimizers.Adam(0.1), [0.7076854109764099, -1.7194693088531494]),
    "adam_amsgrad": (lambda: keras.optimizers.Adam(0.1, amsgrad=True), [0.7076854109764099, -1.7194693088531494]),
    "adamw": (lambda: keras.optimizers.AdamW(0.1, weight_decay=0.3), [0.6291638612747192, -1.5535218715667725]),
    "adam_clipnorm": (lambda: keras.optimizers.Adam(0.1, clipnorm=0.2), [0.7072091102600098, -1.7195221185684204]),
    # RMSprop: 1 - rho from the exact value, (1 - rho) * g^2 and (s - a^2) + epsilon in Keras's order
    "rmsprop": (lambda: keras.optimizers.RMSprop(0.1), [0.13899624347686768, -1.4378695487976074]),
    "rmsprop_centered_momentum": (lambda: keras.optimizers.RMSprop(0.1, rho=0.7, momentum=0.3, centered=True),
                                  [0.15508633852005005, -1.430793285369873]),
}


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", list(TF_FLOAT32))
def test_float32_updates_match_keras_bit_for_bit(name, traced):
    make, want = TF_FLOAT32[name]
    var, opt = tf.Variable(np.array([1.0, -2.0], np.float32)), make()
    step = lambda g: opt.apply_gradients([(g, var)])  # noqa: E731
    step = tf.function(step) if traced else step
    for i in range(3):
        step(tf.constant(np.array([0.3 * (i + 1), -0.7 / (i + 1)], np.float32)))
    np.testing.assert_array_equal(var.numpy(), np.array(want, np.float32))
