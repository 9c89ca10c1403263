"""tapegrad.keras.ops without TensorFlow: values against NumPy, Keras's dtype rules, gradients through the ops,
the ops inside tf.function, on Keras symbolic tensors (functional models, a custom layer in fit), and the
names tapegrad has no op for raising UnimplementedError. Keras 3 itself is the oracle in
tests/oracle/test_tf_oracle_keras_ops.py."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from tapegrad.keras import ops

_rng = np.random.default_rng(0)
A = _rng.normal(size=(3, 4)).astype("float32")
A2 = _rng.normal(size=(3, 4)).astype("float32")
P = (np.abs(A) + 0.5).astype("float32")
I = _rng.integers(-5, 6, size=(3, 4)).astype("int32")

# name -> (arguments, NumPy's answer)
NUMPY_REFERENCE = {
    "sum": ((A,), A.sum()), "mean": ((A,), A.mean()), "max": ((A,), A.max()), "argmax": ((A,), A.argmax()),
    "var": ((A,), A.var()), "std": ((A,), A.std()), "exp": ((A,), np.exp(A)), "log": ((P,), np.log(P)),
    "sqrt": ((P,), np.sqrt(P)), "square": ((A,), A ** 2), "abs": ((A,), np.abs(A)),
    "clip": ((A, -0.2, 0.3), np.clip(A, -0.2, 0.3)),
    "matmul": ((A, A2.T), A @ A2.T), "concatenate": (([A, A2],), np.concatenate([A, A2])),
    "stack": (([A, A2],), np.stack([A, A2])), "transpose": ((A,), A.T), "moveaxis": ((A, 0, 1), np.moveaxis(A, 0, 1)),
    "reshape": ((A, (2, 6)), A.reshape(2, 6)), "expand_dims": ((A, 1), A[:, None]), "tile": ((A, 2), np.tile(A, 2)),
    "repeat": ((A, 2), np.repeat(A, 2)), "sort": ((A,), np.sort(A)), "argsort": ((A,), np.argsort(A, kind="stable")),
    "take": ((A, [1, -1]), np.take(A, [1, -1])), "take_along_axis": ((A, np.argsort(A, 1), 1), np.sort(A, 1)),
    "cumsum": ((A,), np.cumsum(A)), "where": ((A > 0, A, A2), np.where(A > 0, A, A2)), "tril": ((A,), np.tril(A)),
    "arange": ((1, 7, 2), np.arange(1, 7, 2)), "eye": ((3,), np.eye(3)),
    "linspace": ((0.0, 1.0, 5), np.linspace(0, 1, 5)),
    "einsum": (("ij,kj->ik", A, A2), np.einsum("ij,kj->ik", A, A2)), "diff": ((A,), np.diff(A)),
    "split": ((A, 2, 1), np.split(A, 2, 1)), "flip": ((A,), np.flip(A)), "roll": ((A, 1), np.roll(A, 1)),
    "quantile": ((A, 0.3), np.quantile(A, 0.3)), "median": ((A,), np.median(A)), "kron": ((A, A2), np.kron(A, A2)),
    "power": ((P, A), np.power(P, A)), "mod": ((I, 3), np.mod(I, 3)), "floor_divide": ((I, 3), I // 3),
    "isclose": ((A, A + 1e-9), np.isclose(A, A + 1e-9)), "tensordot": ((A, A2.T, 1), np.tensordot(A, A2.T, 1)),
}


@pytest.mark.parametrize("name", sorted(NUMPY_REFERENCE))
def test_values_match_numpy(name):
    args, want = NUMPY_REFERENCE[name]
    got = getattr(ops, name)(*args)
    if isinstance(want, list):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6)
        return
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op, args, dtype", [
    ("add", (I, 1.5), "float32"), ("add", (I, 2), "int32"), ("multiply", (I, A), "float32"),
    ("divide", (I, I), "float32"), ("sqrt", (I,), "float32"), ("mean", (I,), "float32"), ("sum", (A > 0,), "int32"),
    ("add", (I.astype("int64"), A), "float32"), ("add", (A.astype("float64"), 1.5), "float64"),
    ("arange", (5,), "int32"), ("arange", (5.0,), "float32"), ("full", ((2,), 3), "float32"),
    ("zeros_like", (I,), "int32"), ("argmax", (A,), "int32"), ("one_hot", (I + 5, 11), "float32"),
    ("hypot", (I.astype("int64"), I.astype("int64")), "float64"), ("maximum", (A > 0, I), "int32"),
])
def test_keras_dtype_rules(op, args, dtype):
    assert getattr(ops, op)(*args).dtype.name == dtype


def test_gelu_defaults_to_keras_approximation():
    x = np.linspace(-3, 3, 7).astype("float32")
    want = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(ops.gelu(x).numpy(), want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(ops.gelu(x, approximate=False).numpy(), want, rtol=1e-7, atol=1e-7)


def test_gradients_flow_through_the_ops():
    x = tf.Variable(A)
    with tf.GradientTape() as tape:
        y = ops.sum(ops.softmax(ops.matmul(x, ops.transpose(A2)), axis=-1) * ops.arange(3.0))
        z = ops.mean(ops.square(ops.where(x > 0, x, 0.5 * x))) + y
    g = tape.gradient(z, x).numpy()
    eps = 1e-3  # a central difference on one entry
    def f(v):
        s = np.exp(v @ A2.T - (v @ A2.T).max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        return (s * np.arange(3.0)).sum() + np.mean(np.where(v > 0, v, 0.5 * v) ** 2)
    bumped = A.astype("float64").copy()
    bumped[1, 2] += eps
    lowered = A.astype("float64").copy()
    lowered[1, 2] -= eps
    np.testing.assert_allclose(g[1, 2], (f(bumped) - f(lowered)) / (2 * eps), rtol=1e-3, atol=1e-4)


def test_ops_run_inside_tf_function():
    @tf.function
    def step(x):
        total = ops.fori_loop(0, 3, lambda i, v: v + ops.cast(i, "float32"), ops.zeros_like(x))
        _, ys = ops.scan(lambda c, row: (c + row, ops.sum(row)), ops.zeros((4,)), x)
        return ops.concatenate([ops.max(x, axis=0), total[0], ys], axis=0)
    got = step(tf.constant(A)).numpy()
    np.testing.assert_allclose(got, np.concatenate([A.max(0), np.full(4, 3.0), A.sum(1)]), rtol=1e-6)


def test_core_ops():
    assert ops.shape(A) == (3, 4) and ops.ndim(A) == 2 and ops.dtype(I) == "int32"
    assert ops.is_tensor(ops.convert_to_tensor(A)) and not ops.is_tensor(A)
    assert isinstance(ops.convert_to_numpy(ops.ones((2,))), np.ndarray)
    assert ops.cond(True, lambda: 1.0, lambda: 2.0) == 1.0
    i, v = ops.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * 2.0), (0, 1.0))
    assert int(i) == 4 and float(v) == 16.0
    updated = ops.slice_update(np.zeros((3, 3), "float32"), (1, 1), np.ones((2, 2), "float32")).numpy()
    np.testing.assert_array_equal(updated, np.pad(np.ones((2, 2)), ((1, 0), (1, 0))))
    np.testing.assert_array_equal(ops.slice(A, (1, 0), (2, 2)).numpy(), A[1:3, 0:2])
    np.testing.assert_allclose(ops.vectorized_map(lambda r: ops.sum(r), A).numpy(), A.sum(1), rtol=1e-6)
    x = tf.Variable(A)
    with tf.GradientTape() as tape:
        y = ops.sum(ops.stop_gradient(x) * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), A)


def test_ops_build_a_functional_model():
    x = keras.Input((3,))
    h = ops.matmul(x, np.ones((3, 4), "float32"))
    y = ops.softmax(ops.concatenate([h, ops.sum(x, axis=-1, keepdims=True)], axis=-1))
    assert isinstance(y, keras.KerasTensor) and y.shape == (None, 5)
    model = keras.Model(x, y)
    data = _rng.normal(size=(2, 3)).astype("float32")
    want = np.concatenate([data @ np.ones((3, 4)), data.sum(-1, keepdims=True)], -1)
    want = np.exp(want - want.max(-1, keepdims=True))
    np.testing.assert_allclose(model(data).numpy(), want / want.sum(-1, keepdims=True), rtol=1e-5)


def test_ops_in_a_custom_layer_train_with_fit():
    class Dense(keras.layers.Layer):
        def build(self, shape):
            self.kernel = self.add_weight(shape=(shape[-1], 2), initializer="glorot_uniform")

        def call(self, x):
            return ops.softmax(ops.matmul(x, self.kernel))
    inputs = keras.Input((3,))
    model = keras.Model(inputs, Dense()(inputs))
    model.compile(optimizer="sgd", loss="categorical_crossentropy")
    x = _rng.normal(size=(32, 3)).astype("float32")
    y = np.eye(2, dtype="float32")[(x[:, 0] > 0).astype(int)]
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_the_submodules_hold_keras_names():
    assert ops.nn.gelu is ops.gelu and ops.numpy.sum is ops.sum and ops.linalg.inv is ops.inv
    assert callable(ops.image.resize) and not hasattr(ops, "resize")
    assert "sum" in ops.numpy.__all__ and "relu" in ops.nn.__all__ and "fft" not in ops.__all__


def test_unimplemented_names_raise_naming_the_op():
    for name in ("fft", "qr", "bitwise_and", "ctc_loss"):
        with pytest.raises(tf.errors.UnimplementedError, match=f"keras.ops.{name}"):
            getattr(ops, name)(A)
    with pytest.raises(tf.errors.UnimplementedError, match="sparse"):
        ops.one_hot(I, 3, sparse=True)


def test_symbolic_tensors_answer_shape_and_dtype_and_promote_as_keras():
    x = keras.Input((3,), dtype="int32")
    assert ops.shape(x) == (None, 3) and ops.dtype(x) == "int32" and not ops.is_tensor(x)
    y = ops.add(x, 1.5)
    assert isinstance(y, keras.KerasTensor) and y.dtype == tf.float32 and y.shape == (None, 3)
    model = keras.Model(x, y)
    np.testing.assert_allclose(model(np.array([[1, 2, 3]], "int32")).numpy(), [[2.5, 3.5, 4.5]])


def test_shape_inside_tf_function():
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def rows(x):
        n, m = ops.shape(x)  # a known axis is a Python int (an unknown one would be a scalar tensor)
        assert m == 4 and (isinstance(n, int) or tf.is_tensor(n))
        return ops.reshape(x, (n * m,))
    assert rows(tf.constant(A)).shape == (12,)


from oracle.keras_ops_cases import CASES  # noqa: E402 -- the oracle's inputs (NumPy only)

_EAGER_ONLY = {"convert_to_numpy", "is_tensor", "shape", "ndim", "dtype", "histogram", "nonzero", "where"}


def _flat_values(value):
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _flat_values(item)]
    return [np.asarray(value)]


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if not callable(c) and n not in _EAGER_ONLY))
def test_each_op_traced_in_tf_function_gives_its_eager_answer(name):
    args, kwargs = CASES[name]
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    fn = ops.OPS[name]

    @tf.function
    def traced(*tensors):
        full = list(args)
        for i, t in zip(arrays, tensors):
            full[i] = t
        return fn(*full, **kwargs)
    eager = _flat_values(fn(*args, **kwargs))
    graph = _flat_values(traced(*[tf.constant(args[i]) for i in arrays]))
    assert len(eager) == len(graph)
    for e, g in zip(eager, graph):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_slice_update_and_scatter_update_are_differentiable():
    x, u = tf.Variable(np.zeros((3, 3), "float32")), tf.Variable(np.ones((2, 2), "float32"))
    with tf.GradientTape() as tape:
        y = ops.sum(ops.slice_update(x, (1, 1), u) * np.arange(9, dtype="float32").reshape(3, 3))
    gx, gu = tape.gradient(y, [x, u])
    weights = np.arange(9, dtype="float32").reshape(3, 3)
    np.testing.assert_array_equal(gx.numpy(), np.where(np.pad(np.ones((2, 2)), ((1, 0), (1, 0))) > 0, 0, weights))
    np.testing.assert_array_equal(gu.numpy(), weights[1:, 1:])


def test_a_functional_model_with_ops_saves_and_loads(tmp_path):
    inp = keras.Input((3,))
    out = keras.layers.Dense(1)(ops.softmax(ops.matmul(inp, ops.ones((3, 2)))))
    model = keras.Model(inp, out)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    x = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
