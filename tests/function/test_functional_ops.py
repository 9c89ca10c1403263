"""tf.map_fn, tf.scan, tf.foldl, tf.foldr, tf.vectorized_map: values against NumPy, float64
finite-difference gradients, eager against tf.function (one graph for every length), nested
structures and TF's errors."""
import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads

f64 = tf.float64


def c(x):
    return tf.constant(np.asarray(x, np.float64))


X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.5], [0.3, 0.6, -0.9]])


# -- values -------------------------------------------------------------------------------------------
def test_map_fn_values():
    np.testing.assert_allclose(tf.map_fn(lambda r: r * r, c(X)).numpy(), X * X)
    np.testing.assert_allclose(tf.map_fn(tf.reduce_sum, c(X)).numpy(), X.sum(1))
    pair = tf.map_fn(lambda p: p[0] * p[1], (c(X), c(X[::-1])), fn_output_signature=f64)
    np.testing.assert_allclose(pair.numpy(), X * X[::-1])
    out = tf.map_fn(lambda d: {"s": d["a"] + d["b"], "n": tf.cast(d["a"] > 0, tf.int32)},
                    {"a": c(X), "b": c(2 * X)}, fn_output_signature={"s": f64, "n": tf.int32})
    np.testing.assert_allclose(out["s"].numpy(), 3 * X)
    assert out["n"].dtype == tf.int32 and out["n"].numpy().tolist() == (X > 0).astype(int).tolist()
    spec = tf.map_fn(lambda r: (r[:2], tf.reduce_max(r)), c(X),
                     fn_output_signature=(tf.TensorSpec([2], f64), tf.TensorSpec([], f64)))
    np.testing.assert_allclose(spec[0].numpy(), X[:, :2])
    np.testing.assert_allclose(spec[1].numpy(), X.max(1))
    assert tf.map_fn(lambda r: 1.0, tf.ones([3])).numpy().tolist() == [1.0, 1.0, 1.0]  # Python results convert
    assert tf.map_fn(lambda r: r, c(X), dtype=f64).dtype == f64  # the older argument


def test_scan_and_folds_values():
    v = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(tf.scan(lambda a, x: a + x, c(v)).numpy(), np.cumsum(v))
    np.testing.assert_allclose(tf.scan(lambda a, x: a + x, c(v), reverse=True).numpy(), np.cumsum(v[::-1])[::-1])
    np.testing.assert_allclose(tf.scan(lambda a, x: a * 10 + x, c(v), initializer=c(0.0), reverse=True).numpy(),
                               [4321, 432, 43, 4])
    np.testing.assert_allclose(tf.scan(lambda a, r: a * 0.5 + r, c(X)).numpy(),
                               np.array([X[0], X[0] * .5 + X[1], (X[0] * .5 + X[1]) * .5 + X[2],
                                         ((X[0] * .5 + X[1]) * .5 + X[2]) * .5 + X[3]]))
    assert float(tf.foldl(lambda a, x: a * 10 + x, c(v))) == 1234.0
    assert float(tf.foldr(lambda a, x: a * 10 + x, c(v))) == 4321.0
    assert float(tf.foldl(lambda a, x: a - x, c(v), initializer=c(100.0))) == 90.0
    np.testing.assert_allclose(tf.foldr(lambda a, r: a * 2 + r, c(X)).numpy(),
                               ((X[3] * 2 + X[2]) * 2 + X[1]) * 2 + X[0])


def test_nested_structures():
    v = c([1.0, 2.0, 3.0])
    s = tf.scan(lambda a, x: {"sum": a["sum"] + x, "prod": a["prod"] * x}, v, initializer={"sum": c(0.), "prod": c(1.)})
    assert s["sum"].numpy().tolist() == [1, 3, 6] and s["prod"].numpy().tolist() == [1, 2, 6]
    t = tf.scan(lambda a, x: (a[0] + x[0], a[1] * x[1]), (v, v * 2))  # no initializer: the first rows
    assert t[0].numpy().tolist() == [1, 3, 6] and t[1].numpy().tolist() == [2, 8, 48]
    f = tf.foldl(lambda a, x: (a[0] + x["u"], a[1] + [x["w"]][0]), {"u": v, "w": v * v}, initializer=(c(0.), c(1.)))
    assert (float(f[0]), float(f[1])) == (6.0, 15.0)
    m = tf.map_fn(lambda x: [x[0] + x[1], x[0]], [v, v])
    assert isinstance(m, list) and m[0].numpy().tolist() == [2, 4, 6]


def test_vectorized_map():
    out = tf.vectorized_map(lambda r: {"a": r * 2, "b": tf.cast(r, tf.int32)}, c(X))
    np.testing.assert_allclose(out["a"].numpy(), 2 * X)
    assert out["b"].dtype == tf.int32
    np.testing.assert_allclose(tf.vectorized_map(lambda p: p[0] @ p[1], (c(X[:, None, :]), c(X[:, :, None]))).numpy(),
                               (X * X).sum(1)[:, None, None])
    assert tf.vectorized_map(lambda r: 2.0, c(X)).numpy().tolist() == [2.0] * 4


def test_empty_elems_as_tf():
    e = tf.zeros([0, 3], f64)
    assert tf.map_fn(lambda r: r * 2, e).shape == (0,)  # eagerly TF never runs fn: no row shape
    assert tf.map_fn(lambda r: r, e, fn_output_signature=tf.TensorSpec([3], f64)).shape == (0, 3)
    assert tf.scan(lambda a, r: a + r, e, initializer=tf.ones([3], f64)).shape == (0, 3)
    assert tf.foldl(lambda a, r: a + r, e, initializer=tf.ones([3], f64)).numpy().tolist() == [1.0] * 3
    assert tf.vectorized_map(lambda r: r * 2, e).shape == (0, 3)
    for op in (tf.scan, tf.foldl, tf.foldr):
        with pytest.raises(tf.errors.OutOfRangeError):
            op(lambda a, r: a + r, e)
    traced = tf.function(lambda e: tf.map_fn(lambda r: r * 2, e))(e)
    assert traced.shape == (0, 3)  # a trace knows fn's output shape, as TF's does


def test_back_prop_false_stops_gradients():
    x = c([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.map_fn(lambda r: r * r, x, back_prop=False))
    assert tape.gradient(y, x) is None


# -- gradients ------------------------------------------------------------------------------------------
def _scan_sum(x, h0):
    return tf.scan(lambda h, r: tf.tanh(h * 0.7 + r), x, initializer=h0)


GRAD_CASES = [
    ("map_fn", lambda x, h0: tf.map_fn(lambda r: tf.sin(r) * tf.reduce_sum(r * r), x) + h0),
    ("map_fn_nested", lambda x, h0: tf.map_fn(lambda p: p[0] * tf.exp(p[1]), (x, x[::-1]), fn_output_signature=f64)),
    ("scan", _scan_sum),
    ("scan_reverse", lambda x, h0: tf.scan(lambda h, r: h * r + 1.0, x, initializer=h0, reverse=True)),
    ("scan_no_init", lambda x, h0: tf.scan(lambda h, r: h * r - r, x)),
    ("foldl", lambda x, h0: tf.foldl(lambda h, r: tf.sin(h) + r * h, x, initializer=h0)),
    ("foldr", lambda x, h0: tf.foldr(lambda h, r: tf.sin(h) + r * h, x, initializer=h0)),
    ("foldl_no_init", lambda x, h0: tf.foldl(lambda h, r: h * r + r, x)),
    ("vectorized_map", lambda x, h0: tf.vectorized_map(lambda r: tf.reduce_prod(r) + r, x)),
]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[n for n, _ in GRAD_CASES])
def test_gradients_against_finite_differences(name, fn, traced):
    f = tf.function(fn) if traced else fn
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (4, 3))
    h0 = rng.uniform(-1, 1, (3,))
    uses_h0 = "no_init" not in name and name not in ("map_fn_nested", "vectorized_map")
    check_grads(f, [x, h0], {}, [0, 1] if uses_h0 else [0], rng)


def _closure_loss(x, w, b):
    h = tf.scan(lambda h, r: tf.tanh(h * w + r + b), x, initializer=tf.zeros([3], f64))
    m = tf.map_fn(lambda r: r * w, x)
    return tf.reduce_sum(h * h) + tf.reduce_sum(m) + tf.reduce_sum(tf.foldr(lambda a, r: a * w + r, x))


def _numeric(f, base, eps=1e-6):
    out = np.zeros(base.shape)
    for k in range(base.size):
        d = np.zeros(base.shape)
        d[k] = eps
        out[k] = (f(base + d) - f(base - d)) / (2 * eps)
    return out


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_gradients_reach_closed_over_variables_and_tensors(traced):
    w0, b0 = np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.2, 0.3])
    w, b, x = tf.Variable(w0), c(b0), c(X)
    f = tf.function(lambda x: _closure_loss(x, w, b)) if traced else (lambda x: _closure_loss(x, w, b))
    with tf.GradientTape() as tape:
        tape.watch(b)
        y = f(x)
    gw, gb = tape.gradient(y, [w, b])
    np.testing.assert_allclose(gw.numpy(), _numeric(lambda v: float(_closure_loss(x, c(v), b)), w0), rtol=1e-5)
    np.testing.assert_allclose(gb.numpy(), _numeric(lambda v: float(_closure_loss(x, w, c(v))), b0), rtol=1e-5)


def test_gradient_inside_the_traced_function_matches_eager():
    w = tf.Variable(np.array([0.5, -1.0, 0.25]))

    def grads(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.scan(lambda a, r: a * w + tf.sin(r), x, reverse=True))
        return tape.gradient(y, [x, w])

    traced = tf.function(grads, reduce_retracing=True)
    for n in (4, 2, 3):
        want = grads(c(X[:n]))
        got = traced(c(X[:n]))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


# -- one graph for every length --------------------------------------------------------------------------
def _all_ops(x):
    return (tf.map_fn(lambda r: tf.reduce_sum(r) * 2.0, x),
            tf.scan(lambda a, r: a * 0.5 + r, x, initializer=tf.ones([3], f64)),
            tf.foldl(lambda a, r: a + r * r, x, initializer=tf.zeros([3], f64)),
            tf.foldr(lambda a, r: a * 2.0 + r, x, initializer=tf.zeros([3], f64)),
            tf.scan(lambda a, r: a + r, x, reverse=True, initializer=tf.zeros([3], f64)),
            tf.vectorized_map(lambda r: r[::-1], x))


@pytest.mark.parametrize("make", [lambda f: tf.function(f, reduce_retracing=True),
                                  lambda f: tf.function(f, input_signature=[tf.TensorSpec([None, 3], f64)]),
                                  lambda f: tf.function(f)], ids=["reduce_retracing", "input_signature", "default"])
def test_eager_and_traced_agree_at_every_length(make):
    f = make(_all_ops)
    rng = np.random.default_rng(0)
    for n in (3, 5, 1, 0, 4):
        x = c(rng.standard_normal((n, 3)))
        got = f(x)
        want = _all_ops(x)
        for k, (a, b) in enumerate(zip(got, want)):
            if n == 0 and k == 0:
                assert a.shape == (0,)
            np.testing.assert_allclose(a.numpy().reshape(-1), b.numpy().reshape(-1), rtol=1e-12, err_msg=str(k))
            if n:
                assert a.shape == b.shape
    if not isinstance(f.input_signature, type(None)):
        assert f.experimental_get_tracing_count() == 1


def test_a_relaxed_graph_is_traced_twice_at_most():
    f = tf.function(_all_ops, reduce_retracing=True)
    for n in (2, 3, 6, 4):
        f(c(np.ones((n, 3))))
    assert f.experimental_get_tracing_count() == 2
    assert [op.type for op in f.get_concrete_function(c(np.ones((2, 3)))).graph.get_operations()].count("While") == 6


def test_python_control_flow_in_fn_inside_a_function():
    @tf.function
    def f(x):
        def clip(r):
            if tf.reduce_sum(r) > 0:  # a traced condition: converted to tf.cond as in TF
                return r
            return -r
        return tf.map_fn(clip, x)

    np.testing.assert_allclose(f(c(X)).numpy(), np.where(X.sum(1, keepdims=True) > 0, X, -X))


# -- errors ------------------------------------------------------------------------------------------------
def test_errors():
    x = c(X)
    with pytest.raises(ValueError, match="not compatible"):
        tf.map_fn(lambda p: p[0] + p[1], (c([1.0, 2.0]), c([1.0, 2.0, 3.0])))
    with pytest.raises(ValueError, match="not compatible"):
        tf.scan(lambda a, p: a + p[0] + p[1], (c([1.0, 2.0]), c([1.0, 2.0, 3.0])), initializer=c(0.))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.vectorized_map(lambda p: p[0] * p[1], (c([1.0, 2.0]), c([1.0, 2.0, 3.0])))
    with pytest.raises(ValueError, match="1\\+ dimensional"):
        tf.map_fn(lambda r: r, c(1.0))
    with pytest.raises(ValueError, match="structure"):
        tf.scan(lambda a, r: (a, a), x)  # fn returns the wrong structure
    with pytest.raises(TypeError):
        tf.scan(lambda a, r: [a[0]], x, initializer=(c(np.zeros(3)),))  # list for a tuple: TF's TypeError
    with pytest.raises(ValueError, match="structure"):
        tf.map_fn(lambda r: (r, r), x)
    with pytest.raises(ValueError, match="structure"):
        tf.map_fn(lambda r: r, x, fn_output_signature=(f64, f64))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.map_fn(lambda r: tf.cast(r, tf.int32), x)  # without a signature, outputs have elems' dtype
    with pytest.raises(ValueError, match="Incompatible shape"):
        tf.map_fn(lambda r: r, x, fn_output_signature=tf.TensorSpec([2], f64))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.scan(lambda a, r: tf.cast(a, tf.int32), x)
    with pytest.raises(ValueError, match="Incompatible shape"):
        tf.scan(lambda a, r: tf.concat([a, r], 0), x)
    with pytest.raises(TypeError, match="callable"):
        tf.map_fn(3, x)


def test_errors_inside_a_function():
    x = c(X)
    with pytest.raises(TypeError):  # a loop variable may not change its dtype (TF's TypeError)
        tf.function(lambda x: tf.scan(lambda a, r: tf.cast(a, tf.int32), x))(x)
    with pytest.raises(ValueError):
        tf.function(lambda x: tf.foldl(lambda a, r: tf.concat([a, r], 0), x))(x)
    with pytest.raises(ValueError, match="structure"):
        tf.function(lambda x: tf.map_fn(lambda r: (r, r), x))(x)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(lambda x: tf.foldr(lambda a, r: a + r, x))(tf.zeros([0, 3], f64))
