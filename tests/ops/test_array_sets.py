"""tf.unique, tf.dynamic_partition, tf.dynamic_stitch and the other ops of _ops/array/unique_partition.py and
_ops/array/space_batch.py: values against NumPy, one tf.function trace serving values that give results of other
lengths (Note [Value-shaped set ops]), TF's error classes, gradients against finite differences.
TF's own answers are checked by tests/oracle/test_tf_oracle.py (rows in tests/tf_oracle/rows_sets.py)."""
import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads
from tapegrad import errors


def _np_unique(x):
    values, first, counts = np.unique(x, return_index=True, return_counts=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return values[order], rank[np.searchsorted(values, x)], counts[order]


# ---- unique


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_unique_matches_numpy(dtype, rng):
    x = rng.integers(-5, 6, size=40).astype(dtype)
    y, idx, count = tf.unique_with_counts(x)
    want_y, want_idx, want_count = _np_unique(x)
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    np.testing.assert_array_equal(count.numpy(), want_count)
    assert y.dtype == dtype and idx.dtype == tf.int32 and count.dtype == tf.int32
    np.testing.assert_array_equal(tf.gather(y, idx).numpy(), x)
    u = tf.unique(x, out_idx=tf.int64)
    assert u.idx.dtype == tf.int64 and u._fields == ("y", "idx")
    np.testing.assert_array_equal(u.y.numpy(), want_y)


def test_unique_nan_zero_bool_strings_and_empty():
    y, idx = tf.unique(tf.constant([1.0, np.nan, 2.0, np.nan, 0.0, -0.0, 1.0]))
    np.testing.assert_array_equal(y.numpy(), [1.0, np.nan, 2.0, np.nan, 0.0])  # each NaN its own value, -0 == 0
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 2, 3, 4, 4, 0])
    y, idx = tf.unique(tf.constant([True, False, True]))
    np.testing.assert_array_equal(y.numpy(), [True, False])
    y, idx, count = tf.unique_with_counts(tf.constant(["b", "a", "b"]))
    assert y.numpy().tolist() == [b"b", b"a"] and idx.numpy().tolist() == [0, 1, 0] and count.numpy().tolist() == [2, 1]
    y, idx = tf.unique(tf.zeros([0]))
    assert y.shape == (0,) and idx.shape == (0,)


def test_unique_errors_and_no_gradient():
    with pytest.raises(errors.InvalidArgumentError, match="unique"):
        tf.unique(tf.zeros([2, 2]))
    with pytest.raises(errors.InvalidArgumentError, match="out_idx"):
        tf.unique([1, 2], out_idx=tf.float32)
    x = tf.constant([1.0, 2.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, _ = tf.unique(x)
        loss = tf.reduce_sum(y * y)
    assert tape.gradient(loss, x) is None  # TF has no gradient for Unique (it raises LookupError)


def test_one_trace_serves_every_unique_length():
    @tf.function
    def f(x):
        y, idx, count = tf.unique_with_counts(x)
        return y, idx, count, tf.size(y), tf.shape(y), tf.reduce_sum(tf.ones_like(y)), tf.zeros_like(count)

    for values in ([1, 2, 1, 3], [5, 5, 5, 5], [4, 3, 2, 1], [7, 7, 8, 8]):
        y, idx, count, size, shape, ones, zeros = f(tf.constant(values))
        want_y, want_idx, want_count = _np_unique(np.array(values))
        np.testing.assert_array_equal(y.numpy(), want_y)
        np.testing.assert_array_equal(idx.numpy(), want_idx)
        np.testing.assert_array_equal(count.numpy(), want_count)
        # sizes read after a value-shaped op are run-time values (Note [Sizes in traced rules])
        assert size.numpy() == len(want_y) and shape.numpy().tolist() == [len(want_y)]
        assert ones.numpy() == len(want_y) and zeros.shape == (len(want_y),)
    assert f.experimental_get_tracing_count() == 1


def test_unique_with_an_input_signature_of_unknown_length():
    f = tf.function(lambda x: tf.unique(x).y, input_signature=[tf.TensorSpec([None], tf.int64)])
    for n in (3, 8, 1):
        x = np.arange(n, dtype=np.int64) % 2
        np.testing.assert_array_equal(f(tf.constant(x)).numpy(), _np_unique(x)[0])
    assert f.experimental_get_tracing_count() == 1


# ---- dynamic_partition and dynamic_stitch


def _np_partition(data, partitions, n):
    rows = data.reshape((partitions.size,) + data.shape[partitions.ndim:])
    return [rows[partitions.reshape(-1) == i] for i in range(n)]


def test_dynamic_partition_matches_numpy(rng):
    data = rng.standard_normal((5, 3, 2))
    for partitions in (rng.integers(0, 4, size=5), rng.integers(0, 4, size=(5, 3)), np.zeros(5, int)):
        p = partitions.astype(np.int32)
        got = tf.dynamic_partition(data, p, 4)
        assert len(got) == 4
        for g, w in zip(got, _np_partition(data, p, 4)):
            np.testing.assert_array_equal(g.numpy(), w)


def test_dynamic_partition_in_one_trace_with_gradients():
    @tf.function
    def f(data, partitions):
        with tf.GradientTape() as tape:
            tape.watch(data)
            parts = tf.dynamic_partition(data, partitions, 3)
            loss = tf.reduce_sum(parts[0] * 2.0) + tf.reduce_sum(tf.square(parts[1])) + tf.reduce_mean(parts[2])
        return parts, tape.gradient(loss, data)

    data = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    for p in ([0, 1, 2, 1, 0], [2, 2, 2, 2, 2], [1, 0, 0, 0, 2], [0, 0, 0, 0, 1]):
        parts, grad = f(tf.constant(data), tf.constant(p, tf.int32))
        want = _np_partition(data, np.array(p), 3)
        for g, w in zip(parts, want):
            np.testing.assert_array_equal(g.numpy(), w)
        p = np.array(p)
        mean_w = 1.0 / max((p == 2).sum(), 1)
        np.testing.assert_allclose(grad.numpy(), np.where(p == 0, 2.0, np.where(p == 1, 2 * data, mean_w)))
    assert f.experimental_get_tracing_count() == 1


def test_gradient_of_a_function_call_under_an_eager_tape():
    f = tf.function(lambda d, p: tf.reduce_sum(tf.square(tf.dynamic_partition(d, p, 2)[1])))
    d = tf.constant([1.0, 2.0, 3.0])
    for p, want in (([0, 1, 1], [0.0, 4.0, 6.0]), ([1, 0, 0], [2.0, 0.0, 0.0])):
        with tf.GradientTape() as tape:
            tape.watch(d)
            loss = f(d, tf.constant(p, tf.int32))
        np.testing.assert_allclose(tape.gradient(loss, d).numpy(), want)


def test_dynamic_stitch_values_and_trace():
    got = tf.dynamic_stitch([[0, 4], [1, 1]], [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(got.numpy(), [1.0, 4.0, 0.0, 0.0, 2.0])  # later wins, missing rows are zeros
    rows = tf.dynamic_stitch([tf.constant(0), [[2, 1]]], [tf.ones([3]), tf.zeros([1, 2, 3])])
    np.testing.assert_array_equal(rows.numpy(), [[1, 1, 1], [0, 0, 0], [0, 0, 0]])

    @tf.function
    def f(i, d):
        with tf.GradientTape() as tape:
            tape.watch(d)
            y = tf.dynamic_stitch([i], [d])
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, d)

    for i, want_y, want_g in (([0, 1, 2], [1, 2, 3], [2, 4, 6]), ([4, 1, 0], [3, 2, 0, 0, 1], [2, 4, 6]),
                              ([2, 2, 7], [0, 0, 2, 0, 0, 0, 0, 3], [0, 4, 6])):
        y, g = f(tf.constant(i), tf.constant([1.0, 2.0, 3.0]))
        np.testing.assert_array_equal(y.numpy(), want_y)
        np.testing.assert_array_equal(g.numpy(), want_g)
    assert f.experimental_get_tracing_count() == 1


def test_partition_then_stitch_is_the_identity(rng):
    data = rng.standard_normal((6, 2))
    p = np.array([1, 0, 2, 1, 0, 1], np.int32)
    positions = tf.dynamic_partition(tf.range(6), p, 3)
    parts = tf.dynamic_partition(data, p, 3)
    np.testing.assert_array_equal(tf.dynamic_stitch(positions, parts).numpy(), data)


def test_partition_and_stitch_errors():
    d = tf.zeros([4, 3])
    with pytest.raises(errors.InvalidArgumentError, match=r"partitions\[3\] = 3 is not in \[0, 3\)"):
        tf.dynamic_partition(d, [1, 0, 1, 3], 3)
    with pytest.raises(errors.InvalidArgumentError, match="start with partitions.shape"):
        tf.dynamic_partition(d, [1, 0, 1], 3)
    with pytest.raises(errors.InvalidArgumentError):
        tf.dynamic_partition(d, tf.constant([1, 0, 1, 2], tf.int64), 3)
    with pytest.raises(errors.InvalidArgumentError, match="at least 1"):
        tf.dynamic_partition(d, [0, 0, 0, 0], 0)
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        tf.dynamic_stitch([[0, -1]], [[1.0, 2.0]])
    with pytest.raises(errors.InvalidArgumentError, match="does not start with"):
        tf.dynamic_stitch([[0, 2], [1]], [np.ones((3, 2)), np.zeros((1, 2))])
    with pytest.raises(ValueError, match="must match length"):
        tf.dynamic_stitch([[0], [1]], [[1.0]])
    # value checks run at every call of a graph, not only at the trace
    f = tf.function(lambda d, p: tf.dynamic_partition(d, p, 2))
    f(tf.zeros([2]), tf.constant([0, 1]))
    with pytest.raises(errors.InvalidArgumentError, match="is not in"):
        f(tf.zeros([2]), tf.constant([0, 2]))
    g = tf.function(lambda i, d: tf.dynamic_stitch([i], [d]))
    g(tf.constant([0, 1]), tf.zeros([2]))
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        g(tf.constant([0, -3]), tf.zeros([2]))


def test_partition_and_stitch_gradients(rng):
    def partition(data):
        return tf.concat(tf.dynamic_partition(data, np.array([2, 0, 2, 1], np.int32), 3), 0)

    check_grads(partition, [rng.standard_normal((4, 2))], {}, [0], rng)

    def stitch(a, b):
        return tf.dynamic_stitch([np.array([0, 3], np.int32), np.array([[3], [1]], np.int32)], [a, b])

    check_grads(stitch, [rng.standard_normal((2, 2)), rng.standard_normal((2, 1, 2))], {}, [0, 1], rng)


# ---- shapes


def test_broadcast_shapes():
    np.testing.assert_array_equal(tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]).numpy(), [2, 4, 3])
    assert tf.broadcast_dynamic_shape(tf.constant([5], tf.int64), tf.constant([1, 5], tf.int64)).dtype == tf.int64
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4\]"):
        tf.broadcast_dynamic_shape([2, 3], [4])
    f = tf.function(lambda a, b: tf.broadcast_dynamic_shape(a, b))
    np.testing.assert_array_equal(f(tf.constant([3, 1]), tf.constant([3])).numpy(), [3, 3])
    with pytest.raises(errors.InvalidArgumentError, match="Incompatible"):
        f(tf.constant([3, 2]), tf.constant([3]))
    # TF's answers (TF 2.21)
    s = tf.TensorShape
    assert tf.broadcast_static_shape(s([2, 1, 3]), s([4, 1])) == s([2, 4, 3])
    assert tf.broadcast_static_shape(s([None, 1, 3]), s([4, None])).as_list() == [None, 4, 3]
    assert tf.broadcast_static_shape(s([None]), s([1])).as_list() == [None]
    assert tf.broadcast_static_shape(s([None]), s([5])).as_list() == [5]
    assert tf.broadcast_static_shape(s(None), s([5])).rank is None
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tf.broadcast_static_shape(s([2]), s([3]))
    with pytest.raises(TypeError):
        tf.broadcast_static_shape([2, 1], [3])


def test_shape_n():
    got = tf.shape_n([tf.zeros((2, 3)), tf.zeros(()), [1, 2]], out_type=tf.int64)
    assert [g.numpy().tolist() for g in got] == [[2, 3], [], [2]] and all(g.dtype == tf.int64 for g in got)
    with pytest.raises(errors.InvalidArgumentError):
        tf.shape_n([])
    with pytest.raises(errors.InvalidArgumentError):
        tf.shape_n([tf.zeros(2)], out_type=tf.float32)


def test_unravel_index():
    np.testing.assert_array_equal(tf.unravel_index([22, 41, 37], [7, 6]).numpy(),
                                  np.stack(np.unravel_index([22, 41, 37], (7, 6))))
    np.testing.assert_array_equal(tf.unravel_index(1621, [6, 7, 8, 9]).numpy(), [3, 1, 4, 1])
    # a negative index gives C's truncated coordinates, as TF
    np.testing.assert_array_equal(tf.unravel_index([-1, -13], [7, 6]).numpy(), [[0, -2], [-1, -1]])
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        tf.unravel_index([42], [7, 6])
    with pytest.raises(errors.InvalidArgumentError, match="zero"):
        tf.unravel_index([0], [7, 0])
    f = tf.function(lambda i: tf.unravel_index(i, [3, 4]))
    np.testing.assert_array_equal(f(tf.constant([5])).numpy(), [[1], [1]])
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        f(tf.constant([12]))


# ---- reverse_sequence and the space/batch ops


def test_reverse_sequence(rng):
    x = np.arange(24.0).reshape(2, 4, 3)
    got = tf.reverse_sequence(x, [2, 3], seq_axis=1).numpy()
    want = x.copy()
    want[0, :2], want[1, :3] = x[0, 1::-1], x[1, 2::-1]
    np.testing.assert_array_equal(got, want)
    got = tf.reverse_sequence(np.swapaxes(x, 0, 1), tf.constant([2, 3], tf.int32), seq_axis=0, batch_axis=1)
    np.testing.assert_array_equal(got.numpy(), np.swapaxes(want, 0, 1))
    check_grads(lambda t: tf.reverse_sequence(t, [3, 0, 1], seq_axis=1), [rng.standard_normal((3, 4))], {}, [0], rng)
    with pytest.raises(TypeError):
        tf.reverse_sequence(x, [2, 3])
    with pytest.raises(errors.InvalidArgumentError):
        tf.reverse_sequence(x, [2, 5], seq_axis=1)
    with pytest.raises(errors.InvalidArgumentError):
        tf.reverse_sequence(x, [2, -1], seq_axis=1)
    # traced lengths are read at run time; one out of range makes the gather raise
    f = tf.function(lambda t, n: tf.reverse_sequence(t, n, seq_axis=1))
    np.testing.assert_array_equal(f(tf.constant(x), tf.constant([2, 3])).numpy(), want)
    np.testing.assert_array_equal(f(tf.constant(x), tf.constant([0, 0])).numpy(), x)
    for bad in ([2, 5], [-1, 2]):
        with pytest.raises(errors.InvalidArgumentError):
            f(tf.constant(x), tf.constant(bad))
    assert f.experimental_get_tracing_count() == 1


def test_space_to_batch_round_trip_and_gradients(rng):
    x = rng.standard_normal((2, 4, 5, 3))
    y = tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 1]])
    assert y.shape == (12, 3, 2, 3)
    np.testing.assert_array_equal(tf.batch_to_space(y, [2, 3], [[1, 1], [0, 1]]).numpy(), x)
    np.testing.assert_array_equal(tf.space_to_batch(x, [2, 3], [[1, 1], [0, 1]]).numpy(), y.numpy())
    assert tf.nn.space_to_batch is tf.space_to_batch
    np.testing.assert_array_equal(tf.batch_to_space(tf.ones([8, 2, 2, 1]), 2, [[0, 0], [0, 0]]).shape, [2, 4, 4, 1])
    check_grads(lambda t: tf.space_to_batch_nd(t, [2, 2], [[1, 0], [0, 1]]), [rng.standard_normal((1, 3, 3, 2))],
                {}, [0], rng)
    check_grads(lambda t: tf.batch_to_space(t, [2, 1], [[1, 0], [0, 0]]), [rng.standard_normal((4, 2, 3))], {}, [0],
                rng)
    with pytest.raises(errors.InvalidArgumentError, match="not divisible"):
        tf.space_to_batch_nd(x, [3, 3], [[0, 0], [0, 0]])
    with pytest.raises(errors.InvalidArgumentError, match="not divisible"):
        tf.batch_to_space(tf.zeros([5, 2, 2, 1]), [2, 3], [[0, 0], [0, 0]])
    f = tf.function(lambda t, b: tf.space_to_batch_nd(t, b, [[0, 0], [0, 0]]))
    with pytest.raises(errors.OperatorNotAllowedInGraphError, match="block_shape"):
        f(tf.constant(x), tf.constant([2, 1]))


# ---- histograms, saturate_cast, truncating division, nextafter


def test_histograms():
    values = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, 0.3, 4.999, np.inf, -np.inf])
    np.testing.assert_array_equal(tf.histogram_fixed_width(values, [0.0, 5.0], nbins=5).numpy(), [4, 1, 1, 0, 4])
    np.testing.assert_array_equal(tf.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5).numpy(),
                                  [0, 0, 1, 2, 4, 4, 0, 4, 4, 0])
    assert tf.histogram_fixed_width([1, 2], [0, 5], nbins=3, dtype=tf.int64).dtype == tf.int64
    with pytest.raises(errors.InvalidArgumentError, match="NaN"):
        tf.histogram_fixed_width([1.0, np.nan], [0.0, 5.0], nbins=3)
    with pytest.raises(errors.InvalidArgumentError, match="value_range"):
        tf.histogram_fixed_width([1.0], [5.0, 0.0], nbins=3)
    f = tf.function(lambda v: tf.histogram_fixed_width(v, [0.0, 1.0], nbins=4))
    np.testing.assert_array_equal(f(tf.constant([0.1, 0.9, 0.95])).numpy(), [1, 0, 0, 2])
    with pytest.raises(errors.InvalidArgumentError, match="NaN"):
        f(tf.constant([0.1, np.nan, 0.95]))


def test_saturate_cast():
    x = tf.constant([3e9, -3e9, np.nan, np.inf, 1.7, -1.7])
    np.testing.assert_array_equal(tf.saturate_cast(x, tf.int32).numpy(),
                                  [2147483520, -2147483648, -2147483648, 2147483520, 1, -1])
    # past int64's range the result saturates (TF's limit rounds up to 2**63 and its cast overflows)
    assert tf.saturate_cast(tf.constant([1e30, -1e30]), tf.int64).numpy().tolist() == [9223371487098961920, -2 ** 63]
    np.testing.assert_array_equal(tf.saturate_cast(x, tf.float64).numpy()[:4],
                                  [3e9, -3e9, np.nan, np.finfo(np.float32).max])
    assert tf.saturate_cast(tf.constant([2 ** 40, -5], tf.int64), tf.int32).numpy().tolist() == [2 ** 31 - 1, -5]
    with pytest.raises(TypeError):
        tf.saturate_cast(tf.constant([True]), tf.int32)
    v = tf.constant([1.5, 1e300], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(v)
        loss = tf.reduce_sum(tf.saturate_cast(v, tf.float32))
    np.testing.assert_array_equal(tape.gradient(loss, v).numpy(), [1.0, 0.0])  # zero where clamped, as TF


def test_truncating_division_and_nextafter():
    a, b = tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])
    assert tf.truncatediv(a, b).numpy().tolist() == [3, -3, -3, 3]
    assert tf.truncatemod(a, b).numpy().tolist() == [1, -1, 1, -1]
    assert tf.truncatediv(tf.constant([-2 ** 31]), -1).numpy().tolist() == [-2 ** 31]  # wraps, as TF
    np.testing.assert_array_equal(tf.truncatemod(tf.constant([5.5, -7.5]), tf.constant([2.0, 2.0])).numpy(), [1.5, -1.5])
    with pytest.raises(errors.InternalError, match="division by zero"):  # TF's class for these two kernels
        tf.truncatediv(a, tf.constant([1, 0, 1, 1]))
    assert not hasattr(tf.math, "truncatediv")  # (TF has them at the top level only)
    x = tf.constant([1.0, 0.0], tf.float64)
    np.testing.assert_array_equal(tf.math.nextafter(x, tf.constant([2.0, -1.0], tf.float64)).numpy(),
                                  np.nextafter([1.0, 0.0], [2.0, -1.0]))
    y = tf.constant([3.0, 3.0], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        n = tf.math.nextafter(x, y)
        q = tf.truncatediv(x + 5.0, y)
    gx, gy = tape.gradient(n, [x, y])
    assert gx.numpy().tolist() == [1.0, 1.0] and gy.numpy().tolist() == [0.0, 0.0]  # TF's rule
    assert tape.gradient(q, [x, y]) == [None, None]


# ---- gradients in graphs whose sizes vary with values (Note [Sizes in traced rules], mode 2)


def _partition_loss(x, w, b, s):
    h = tf.matmul(x + b, w)
    return (tf.reduce_sum(h * s) + tf.reduce_mean(tf.square(x) * s) + tf.reduce_sum(tf.reduce_max(x, axis=1))
            + tf.reduce_sum(x[:, 0] + s) + tf.reduce_prod(x[:, 1]) + tf.reduce_logsumexp(x))


def test_traced_gradients_after_a_value_shaped_op_match_eager(rng):
    # the first call's partition has one row: a size of 1 at the trace must not decide a broadcast
    d = tf.constant(rng.standard_normal((5, 3)))
    w, b, s = tf.constant(rng.standard_normal((3, 2))), tf.constant(rng.standard_normal(3)), tf.constant([0.7], tf.float64)

    def step(d, p, w, b, s):
        with tf.GradientTape() as tape:
            tape.watch([d, w, b, s])
            loss = _partition_loss(tf.dynamic_partition(d, p, 2)[0], w, b, s)
        return [loss] + tape.gradient(loss, [d, w, b, s])

    f = tf.function(step)
    for p in ([0, 1, 1, 1, 1], [0, 0, 1, 0, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1]):
        args = (d, tf.constant(p, tf.int32), w, b, s)
        for got, want in zip(f(*args), step(*args)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    assert f.experimental_get_tracing_count() == 1
