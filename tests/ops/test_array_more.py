"""roll, repeat, meshgrid, sequence_mask, linalg.band_part, ensure_shape, gather_nd, scatter_nd and
tensor_scatter_nd_*: what the op table and the TF oracle do not cover (error messages, tracing,
larger NumPy references)."""
import numpy as np
import pytest

import tapegrad as tf

X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


# ---- errors: TF's class, and a message naming the function and the argument
@pytest.mark.parametrize("call,cls,words", [
    (lambda: tf.roll(X, 1.5, 0), tf.errors.InvalidArgumentError, ["roll", "shift"]),
    (lambda: tf.roll(X, 1, 2), tf.errors.InvalidArgumentError, ["roll", "axis"]),
    (lambda: tf.roll("ab", 1, 0), tf.errors.InvalidArgumentError, ["roll", "input"]),
    (lambda: tf.repeat(X, 1.5, axis=0), TypeError, ["repeat", "repeats"]),
    (lambda: tf.repeat(X, 2, axis=2), ValueError, ["repeat", "axis"]),
    (lambda: tf.repeat(X, [1, 2], axis=0), ValueError, ["repeat", "repeats"]),
    (lambda: tf.meshgrid([1, 2], indexing="xx"), ValueError, ["meshgrid", "indexing"]),
    (lambda: tf.meshgrid([1, 2], sparse=True), TypeError, ["meshgrid", "sparse"]),
    (lambda: tf.sequence_mask([1, 2], [3]), ValueError, ["sequence_mask", "maxlen"]),
    (lambda: tf.sequence_mask([1, 2], 3, dtype="nope"), TypeError, ["sequence_mask", "dtype"]),
    (lambda: tf.linalg.band_part(X, 4, 0), tf.errors.InvalidArgumentError, ["band_part", "num_lower"]),
    (lambda: tf.linalg.band_part(X, 0, 1.0), TypeError, ["band_part", "num_upper"]),
    (lambda: tf.ensure_shape(X, [3, 5]), tf.errors.InvalidArgumentError, ["ensure_shape", "(3, 5)"]),
    (lambda: tf.gather_nd(X, [[0.0, 1.0]]), tf.errors.InvalidArgumentError, ["gather_nd", "indices"]),
    (lambda: tf.gather_nd(X, [[1]], batch_dims=-1), ValueError, ["gather_nd", "batch_dims"]),
    (lambda: tf.scatter_nd([[1]], [1.0], tf.constant([3.0])), tf.errors.InvalidArgumentError, ["scatter_nd", "shape"]),
    (lambda: tf.scatter_nd([[1]], [1.0, 2.0], [3]), tf.errors.InvalidArgumentError, ["scatter_nd", "updates"]),
    (lambda: tf.scatter_nd([[1]], [1.0], [3], bad_indices_policy="SKIP"), tf.errors.InvalidArgumentError,
     ["scatter_nd", "bad_indices_policy"]),
    (lambda: tf.tensor_scatter_nd_add(X, [[1]], tf.ones([1, 4], tf.float64)), tf.errors.InvalidArgumentError,
     ["tensor_scatter_nd_add", "updates", "float32"]),
    (lambda: tf.tensor_scatter_nd_update(X, [1], [1.0, 2.0, 3.0, 4.0]), tf.errors.InvalidArgumentError,
     ["tensor_scatter_nd_update", "indices"]),
])
def test_errors_name_the_function_and_argument(call, cls, words):
    with pytest.raises(cls) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{word!r} not in {str(info.value)!r}"


@pytest.mark.parametrize("call,row,what", [
    (lambda: tf.gather_nd(X, [[0, 0], [1, 4]]), "indices[1] = [1, 4]", "(3, 4)"),
    (lambda: tf.gather_nd(X, [[0, -1]]), "indices[0] = [0, -1]", "(3, 4)"),
    (lambda: tf.scatter_nd([[0], [5]], [1.0, 2.0], [5]), "indices[1] = [5]", "[5]"),
    (lambda: tf.tensor_scatter_nd_update(X, [[3, 0]], [1.0]), "indices[0] = [3, 0]", "[3, 4]"),
    (lambda: tf.tensor_scatter_nd_sub(X, [[-1]], np.ones((1, 4), np.float32)), "indices[0] = [-1]", "[3, 4]"),
])
def test_out_of_range_index_names_the_row(call, row, what):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    assert row in str(info.value) and what in str(info.value), str(info.value)


# ---- inside tf.function: traced once, right for other values
def test_traced_ops_take_run_time_values():
    @tf.function
    def f(x, shift, idx, lengths, lower):
        return (tf.roll(x, shift, 1), tf.gather_nd(x, idx), tf.scatter_nd(idx, tf.ones([2]), [3, 4]),
                tf.tensor_scatter_nd_update(x, idx, tf.constant([-1.0, -2.0])), tf.sequence_mask(lengths, 4),
                tf.linalg.band_part(x, lower, 0), tf.repeat(x, 2, axis=1), tf.meshgrid(lengths, lengths)[0])

    for shift, idx, lengths, lower in [(1, [[1, 2], [0, 0]], [1, 3], 1), (-3, [[2, 3], [2, 3]], [0, 4], -1)]:
        got = [t.numpy() for t in f(tf.constant(X), tf.constant(shift), tf.constant(idx), tf.constant(lengths),
                                    tf.constant(lower))]
        rows = tuple(np.moveaxis(np.asarray(idx), -1, 0))
        scattered = np.zeros((3, 4), np.float32)
        np.add.at(scattered, rows, 1.0)
        updated = X.copy()
        updated[rows] = [-1.0, -2.0]
        below = np.subtract.outer(np.arange(3), np.arange(4))
        band = np.where((lower < 0) | (below <= lower), X, 0) * (below >= 0)
        want = [np.roll(X, shift, 1), X[rows], scattered, updated, np.arange(4) < np.asarray(lengths)[:, None],
                band, np.repeat(X, 2, axis=1), np.meshgrid(lengths, lengths)[0]]
        for i, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_array_equal(g, w, err_msg=f"output {i}")
    assert f.experimental_get_tracing_count() == 1


def test_ensure_shape_checks_the_static_shape_while_tracing():
    @tf.function
    def f(x):
        return tf.ensure_shape(x, [None, 4]) * 2.0

    assert f(tf.ones([3, 4])).shape == (3, 4)
    assert f(tf.ones([5, 4])).shape == (5, 4)
    with pytest.raises(ValueError, match="ensure_shape"):
        f(tf.ones([5, 3]))


@pytest.mark.parametrize("call", [lambda t: tf.scatter_nd([[0]], [1.0], t)])
def test_a_traced_size_is_refused(call):
    f = tf.function(call)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        f(tf.constant([2]))


def test_gradient_through_a_traced_gather_nd():
    v = tf.Variable(np.arange(6.0).reshape(2, 3))

    @tf.function
    def loss(idx):
        return tf.reduce_sum(tf.gather_nd(v, idx) ** 2)

    for idx in ([[0, 1], [0, 1], [1, 2]], [[1, 0]]):
        with tf.GradientTape() as tape:
            value = loss(tf.constant(idx))
        want = np.zeros((2, 3))
        np.add.at(want, tuple(np.moveaxis(np.asarray(idx), -1, 0)), 2 * v.numpy()[tuple(np.moveaxis(np.asarray(idx), -1, 0))])
        np.testing.assert_allclose(tape.gradient(value, v).numpy(), want)
    assert loss.experimental_get_tracing_count() == 2  # one trace per index shape


def test_out_of_range_index_raises_inside_a_function():
    f = tf.function(lambda x, idx: tf.gather_nd(x, idx))
    f(tf.constant(X), tf.constant([[1, 2]]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(X), tf.constant([[1, 5]]))


# ---- NumPy references on larger inputs
def test_tensor_scatter_nd_update_keeps_the_last_of_repeated_indices(rng):
    for n in (2, 3, 17, 1000):
        rows = rng.integers(0, 4, size=(n, 2)).astype(np.int32)
        updates = rng.standard_normal(n)
        want = np.zeros((4, 4))
        for (i, j), u in zip(rows, updates):
            want[i, j] = u
        got = tf.tensor_scatter_nd_update(tf.zeros([4, 4], tf.float64), rows, updates).numpy()
        np.testing.assert_array_equal(got, want)


def test_tensor_scatter_nd_update_ignores_nan_in_overwritten_updates():
    got = tf.tensor_scatter_nd_update(tf.zeros([3]), [[1], [1]], [np.nan, 2.0]).numpy()
    np.testing.assert_array_equal(got, [0.0, 2.0, 0.0])


def test_scatter_nd_and_gather_nd_match_numpy(rng):
    params = rng.standard_normal((4, 5, 3))
    idx = rng.integers(0, [4, 5], size=(6, 7, 2)).astype(np.int64)
    picked = tf.gather_nd(params, idx).numpy()
    np.testing.assert_array_equal(picked, params[idx[..., 0], idx[..., 1]])
    want = np.zeros((4, 5, 3))
    np.add.at(want, (idx[..., 0], idx[..., 1]), picked)
    np.testing.assert_allclose(tf.scatter_nd(idx, picked, [4, 5, 3]).numpy(), want, rtol=1e-12)
    batched = tf.gather_nd(params, rng.integers(0, 5, size=(4, 2, 1)).astype(np.int32), batch_dims=1)
    assert batched.shape == (4, 2, 3)


def test_scatter_nd_of_bools_is_an_or():
    got = tf.scatter_nd([[1], [1], [2]], [True, True, False], [3]).numpy()
    np.testing.assert_array_equal(got, [False, True, False])


def test_roll_and_repeat_match_numpy(rng):
    x = rng.standard_normal((3, 4, 5))
    np.testing.assert_array_equal(tf.roll(x, [7, -2, 1], [0, 2, 0]).numpy(), np.roll(x, [7, -2, 1], [0, 2, 0]))
    np.testing.assert_array_equal(tf.repeat(x, [3, 0, 1, 2], axis=1).numpy(), np.repeat(x, [3, 0, 1, 2], axis=1))
    np.testing.assert_array_equal(tf.repeat(x, 2).numpy(), np.repeat(x, 2))


def test_band_part_does_not_read_outside_the_band():
    x = tf.constant([[1.0, np.inf], [np.nan, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.band_part(x, 0, 0))
    assert float(y) == 3.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[1.0, 0.0], [0.0, 1.0]])


def test_namespaces_are_tfs():
    assert tf.linalg.band_part is not None and not hasattr(tf, "band_part")
    for name in ("roll", "repeat", "meshgrid", "gather_nd", "scatter_nd", "tensor_scatter_nd_add",
                 "tensor_scatter_nd_sub", "tensor_scatter_nd_update", "sequence_mask", "ensure_shape"):
        assert callable(getattr(tf, name)), name
