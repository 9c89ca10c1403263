"""Elementwise fusion in traced graphs: fused graphs give the values and gradients of the ops they replace."""
import numpy as np
import pytest

import tapegrad as tf
from opinfo import elementwise, nn

# Registry ops the fusion pass can put in a fused node: the rows with block kernels (cpp/graph/fusion.cpp).
FUSABLE = set(tf._core.fusable_ops())
ROWS = [r for r in elementwise.rows + nn.rows if r.registry_op in FUSABLE]


@pytest.fixture
def fuse_all(monkeypatch):
    """Fuse groups of any size (by default small groups stay unfused)."""
    monkeypatch.setenv("TAPEGRAD_FUSION", "all")


def _fused_nodes(f, *args):
    return f.get_concrete_function(*args).graph.ops.count("Fused")


def _tensors(sample):
    return [tf.constant(a) if isinstance(a, np.ndarray) else a for a in sample.args]


def test_rows_cover_every_fusable_op():
    assert {r.registry_op for r in ROWS} == FUSABLE


@pytest.mark.parametrize("op", ROWS, ids=[r.name for r in ROWS])
def test_fused_op_matches_eager(op, rng, fuse_all):
    fused = 0
    for s in op.sample_inputs(rng, np.float64):
        args = _tensors(s)
        want = np.asarray(op.fn(*args, **s.kwargs))
        one, zero = tf.constant(1.0, tf.float64), tf.constant(0.0, tf.float64)

        def chain(*a):
            r = op.fn(*a, **s.kwargs)
            # a second member so the op has something to fuse with (exact: a negation or a select)
            return tf.where(r, one, zero) if r.dtype == tf.bool else tf.negative(r)

        f = tf.function(chain)
        want = want.astype(np.float64) if want.dtype == bool else -want
        for _ in range(2):
            np.testing.assert_array_equal(np.asarray(f(*args)), want)
        fused += _fused_nodes(f, *args)
    assert fused >= 1, f"{op.name} was never fused"


GRAD_ROWS = [r for r in ROWS if r.differentiable and "float64" in r.dtypes]


@pytest.mark.parametrize("op", GRAD_ROWS, ids=[r.name for r in GRAD_ROWS])
def test_fused_gradient_matches_eager(op, rng, fuse_all):
    # The gradient rules' ops (TanhGrad, SigmoidGrad, MulNoNan, Select, ...) fuse with the forward.
    for s in op.sample_inputs(rng, np.float64):
        args = _tensors(s)
        idx = s.grad_args if s.grad_args is not None else \
            [i for i, a in enumerate(s.args) if isinstance(a, np.ndarray) and a.dtype == np.float64]

        def loss_and_grads(*a):
            with tf.GradientTape() as tape:
                srcs = [a[i] for i in idx]
                tape.watch(srcs)
                y = tf.reduce_sum(op.fn(*a, **s.kwargs) * 1.5)
            return [y] + tape.gradient(y, srcs)

        want = loss_and_grads(*args)
        f = tf.function(loss_and_grads)
        for _ in range(2):
            for g, w in zip(f(*args), want):
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-13)


def _softplus_tanh(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.softplus(x) * tf.tanh(x))
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_loss_and_gradient_are_one_fused_pass(dtype):
    x = np.random.default_rng(0).normal(size=100_003).astype(dtype)  # not a multiple of the block
    f = tf.function(_softplus_tanh)
    y, g = f(tf.constant(x))
    graph = f.get_concrete_function(tf.constant(x)).graph
    # the gradient's seed (ones) is simplified away; one exp(-|x|) serves softplus, tanh, sigmoid
    assert graph.ops == ["Placeholder", "Fused", "FusedOutput"]
    text = str(graph)
    assert "Fused[Softplus, Tanh, Mul, Sum" in text and "TanhGrad" in text and "Sigmoid" in text
    assert "{3 share exp(-|x|)}" in text
    dot = graph.to_dot()
    assert "palegreen" in dot and "Fused[Softplus" in dot
    sp = np.logaddexp(0, x.astype(np.float64))
    th = np.tanh(x.astype(np.float64))
    want_g = sp * (1 - th * th) + th / (1 + np.exp(-x.astype(np.float64)))
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(float(y), np.sum(sp * th), rtol=tol)
    np.testing.assert_allclose(g.numpy(), want_g, rtol=tol, atol=tol)
    y2, g2 = f(tf.constant(x))  # the cached graph
    np.testing.assert_array_equal(g2.numpy(), g.numpy())
    # eager gives the same values
    ye, ge = _softplus_tanh(tf.constant(x))
    np.testing.assert_allclose(g.numpy(), ge.numpy(), rtol=tol, atol=tol)


SHARED_EXP_EDGES = [-np.inf, -100.0, -20.0, -0.51, -0.5, -0.49, -1e-6, -0.0, 0.0, 1e-30, 0.3, 0.5, 20.0, 100.0,
                    np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shared_exponential_matches_the_ops(dtype, fuse_all):
    # Note [Shared exponentials]: sigmoid and softplus are the ops' own formulas given exp(-|x|)
    # (bit for bit); float32 tanh takes another route (within a few ulp), float64 tanh is tanh.
    x = np.concatenate([SHARED_EXP_EDGES, np.random.default_rng(2).normal(0, 3, 2000)]).astype(dtype)
    def three(x):
        s, p, t = tf.sigmoid(x), tf.nn.softplus(x), tf.tanh(x)
        return s, p, t * 2.0, s + p * t  # the sum joins them in one group

    f = tf.function(three)
    got = [t.numpy() for t in f(tf.constant(x))]
    assert "{3 share exp(-|x|)}" in str(f.get_concrete_function(tf.constant(x)).graph)
    np.testing.assert_array_equal(got[0], tf.sigmoid(x).numpy())
    np.testing.assert_array_equal(got[1], tf.nn.softplus(x).numpy())
    want = np.tanh(x.astype(np.float64)) * 2.0
    if dtype == np.float64:
        np.testing.assert_array_equal(got[2], tf.tanh(x).numpy() * 2.0)
    np.testing.assert_allclose(got[2], want, rtol=5e-7 if dtype == np.float32 else 1e-15, atol=0)
    assert np.signbit(got[2][7]) and not np.signbit(got[2][8])  # tanh(-0) = -0


def test_shared_exponential_under_nested_tapes(fuse_all):
    # Second derivatives replay the members' own ops eagerly: the forms never reach a tape.
    x = tf.constant(np.linspace(-3, 3, 41))
    f = tf.function(lambda x: tf.reduce_sum(tf.nn.softplus(x) * tf.tanh(x)))

    def second(fn):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)

    for got, want in zip(second(f), second(lambda x: tf.reduce_sum(tf.nn.softplus(x) * tf.tanh(x)))):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)


def test_default_leaves_small_graphs_and_off_disables(monkeypatch):
    f = tf.function(lambda x: tf.tanh(x) * 2.0 + 1.0)
    assert _fused_nodes(f, tf.constant(np.ones(8))) == 0
    assert _fused_nodes(f, tf.constant(np.ones(5000))) == 1
    monkeypatch.setenv("TAPEGRAD_FUSION", "off")
    g = tf.function(lambda x: tf.tanh(x) * 2.0 + 1.0)
    assert _fused_nodes(g, tf.constant(np.ones(5000))) == 0


def test_mean_and_several_outputs(fuse_all):
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(7, 9)), rng.normal(size=(7, 9))

    def fn(x, y):
        a = tf.sin(x) * y
        b = tf.exp(a) - x
        return tf.reduce_mean(b), a, tf.reduce_sum(b * b, axis=[0, 1], keepdims=True), b > 0.5

    f = tf.function(fn)
    got = f(tf.constant(x), tf.constant(y))
    want = fn(tf.constant(x), tf.constant(y))
    assert _fused_nodes(f, tf.constant(x), tf.constant(y)) == 1
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-13, atol=1e-13)


def test_scalar_argument_and_bool_inputs(fuse_all):
    rng = np.random.default_rng(2)
    x, s = rng.normal(size=(40,)), np.float64(0.25)
    mask = rng.uniform(size=40) > 0.5

    def fn(x, s, mask):
        return tf.where(tf.logical_and(mask, x > s), tf.tanh(x) * s, -x)

    f = tf.function(fn)
    args = (tf.constant(x), tf.constant(s, tf.float64), tf.constant(mask))
    np.testing.assert_array_equal(f(*args).numpy(), fn(*args).numpy())
    assert _fused_nodes(f, *args) == 1


def test_gradient_of_fused_function_from_outside_tape(fuse_all):
    x = tf.constant(np.linspace(-2, 2, 33))
    f = tf.function(lambda x: tf.reduce_sum(tf.nn.softplus(x) * tf.tanh(x)))
    f(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    g = tape.gradient(y, x)
    _, want = _softplus_tanh(x)
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-13)


def test_relaxed_shapes_run_fused(fuse_all):
    f = tf.function(lambda x: tf.reduce_sum(tf.tanh(x) * x), input_signature=[tf.TensorSpec([None], tf.float64)])
    for n in [5, 3000, 1]:
        x = np.linspace(-1, 1, n)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.sum(np.tanh(x) * x), rtol=1e-13)
    assert "Fused" in f.get_concrete_function(tf.TensorSpec([None], tf.float64)).graph.ops


def test_broadcast_inputs_are_not_fused_across_shapes(fuse_all):
    x, b = np.ones((4, 3)), np.arange(3.0)
    f = tf.function(lambda x, b: tf.exp(x + b) * 2.0)
    np.testing.assert_allclose(f(tf.constant(x), tf.constant(b)).numpy(), np.exp(x + b) * 2.0, rtol=1e-15)


def test_in_place_reuse_keeps_arguments_and_outputs(fuse_all):
    x = np.linspace(-1, 1, 5000)
    xt = tf.constant(x)

    @tf.function
    def f(x):
        a = tf.exp(x)          # an output: must not be overwritten
        b = tf.matmul(tf.reshape(a, [1, -1]), tf.reshape(a, [-1, 1]))  # not fusable: splits groups
        c = tf.tanh(x) * tf.reshape(b, [])
        return a, c * 2.0 + 1.0

    for _ in range(3):
        a, c = f(xt)
        np.testing.assert_array_equal(xt.numpy(), x)
        np.testing.assert_allclose(a.numpy(), np.exp(x), rtol=1e-15)
        np.testing.assert_allclose(c.numpy(), np.tanh(x) * np.sum(np.exp(2 * x)) * 2 + 1, rtol=1e-12)


def test_variables_and_assignments_keep_order(fuse_all):
    v = tf.Variable(np.ones(6))

    @tf.function
    def step(x):
        a = tf.tanh(v * x)
        v.assign(v * 2.0)
        return a + v * 1.0

    x = tf.constant(np.arange(6.0))
    for k in range(3):
        before = v.numpy().copy()
        out = step(x).numpy()
        np.testing.assert_allclose(out, np.tanh(before * np.arange(6.0)) + before * 2, rtol=1e-15)


def _random_chain(rng, steps):
    unary = [tf.tanh, tf.sigmoid, tf.sin, tf.cos, tf.nn.softplus, tf.square, tf.abs, tf.negative, tf.nn.relu,
             tf.nn.elu, tf.math.erf]
    binary = [tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum, tf.math.squared_difference]
    plan = []
    for i in range(steps):
        kind = rng.integers(3)
        if kind == 0:
            plan.append(("u", int(rng.integers(len(unary))), int(rng.integers(i + 3))))
        elif kind == 1:
            plan.append(("b", int(rng.integers(len(binary))), int(rng.integers(i + 3)), int(rng.integers(i + 3))))
        else:
            plan.append(("w", int(rng.integers(i + 3)), int(rng.integers(i + 3)), int(rng.integers(i + 3))))

    def fn(x, y, s):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            pool = [x, y, x * s]
            for p in plan:
                if p[0] == "u":
                    r = unary[p[1]](pool[p[2]])
                elif p[0] == "b":
                    r = binary[p[1]](pool[p[2]], pool[p[3]])
                else:
                    r = tf.where(pool[p[1]] > pool[p[2]], pool[p[3]], s)
                pool.append(tf.tanh(r) if len(pool) % 4 == 0 else r)  # keep values bounded
            loss = tf.reduce_sum(pool[-1] * pool[-2])
        gx, gy = tape.gradient(loss, [x, y])
        return loss, pool[-3], gx, gy

    return fn


@pytest.mark.parametrize("seed", range(12))
def test_random_chains_match_eager(seed, fuse_all):
    rng = np.random.default_rng(seed)
    fn = _random_chain(rng, int(rng.integers(3, 14)))
    shape = [(37, 29), (1000,), ()][seed % 3]
    args = (tf.constant(rng.normal(size=shape)), tf.constant(rng.normal(size=shape)), tf.constant(0.7, tf.float64))
    want = fn(*args)
    f = tf.function(fn)
    for _ in range(2):
        for g, w in zip(f(*args), want):
            if w is None:
                assert g is None
                continue
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)
    assert _fused_nodes(f, *args) >= 1
