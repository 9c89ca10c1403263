"""Rows collected by graph loops (TensorArray in a tf.function loop, map_fn, scan): values as eagerly,
writes in place (Note [Donated loop variables] in cpp/graph/executor.cpp), a dynamic_size array
growing by doubling, out-of-range writes refused, gradients through the loop."""
import numpy as np
import pytest

import tapegrad as tf

f32 = tf.float32


def _rnn_rows(x, dynamic):
    ta = tf.TensorArray(f32, size=0 if dynamic else tf.shape(x)[0], dynamic_size=dynamic)
    h = tf.zeros([x.shape[1]])
    for i in tf.range(tf.shape(x)[0]):
        h = tf.tanh(h * 0.5 + x[i])
        ta = ta.write(i, h)
    return ta.stack()


def _np_rnn_rows(x):
    h, out = np.zeros(x.shape[1], np.float32), []
    for r in x:
        h = np.tanh(h * 0.5 + r)
        out.append(h)
    return np.stack(out) if out else np.zeros((0, x.shape[1]), np.float32)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic_size"])
def test_tensor_array_in_a_graph_loop_gives_the_rows(dynamic):
    f = tf.function(lambda x: _rnn_rows(x, dynamic))
    rng = np.random.default_rng(0)
    for n in (7, 1, 2, 33):
        x = rng.standard_normal((n, 5)).astype(np.float32)
        got = f(tf.constant(x))
        assert got.shape == (n, 5)
        np.testing.assert_allclose(got.numpy(), _np_rnn_rows(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic_size"])
def test_graph_loop_writes_rows_in_place(dynamic):
    f = tf.function(lambda x: _rnn_rows(x, dynamic))
    x = tf.constant(np.random.default_rng(1).standard_normal((200, 8)).astype(np.float32))
    f(x)
    before = tf._core._in_place_writes()
    f(x)
    written = tf._core._in_place_writes() - before
    # The first iteration runs before the loop (it gives the array its element shape) and the loop's
    # first write copies the initial buffer (the caller still holds it); a growing array copies when
    # it doubles (about log2(200) times); every other write is in place.
    assert written >= 200 - 2 - (10 if dynamic else 0)


def test_map_fn_and_scan_write_in_place():
    x = tf.constant(np.random.default_rng(2).standard_normal((100, 4)))
    f = tf.function(lambda x: (tf.map_fn(lambda r: r * 2.0, x), tf.scan(lambda a, r: a + r, x)))
    f(x)
    before = tf._core._in_place_writes()
    m, s = f(x)
    assert tf._core._in_place_writes() - before >= 2 * (100 - 1) - 1
    np.testing.assert_allclose(m.numpy(), x.numpy() * 2.0)
    np.testing.assert_allclose(s.numpy(), np.cumsum(x.numpy(), axis=0))


def test_write_past_a_static_array_raises():
    @tf.function
    def f(n):
        ta = tf.TensorArray(f32, size=3)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i, f32))
        return ta.stack()

    np.testing.assert_array_equal(f(tf.constant(3)).numpy(), [0.0, 1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="SetRow: index 3 is out of range for a buffer of 3 rows"):
        f(tf.constant(5))


def test_dynamic_array_grows_past_its_initial_size():
    @tf.function
    def f(n):
        ta = tf.TensorArray(f32, size=2, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, tf.fill([2], tf.cast(i, f32)))
        return ta.stack(), ta.size()

    for n in (0, 1, 2, 3, 9):
        rows, size = f(tf.constant(n))
        want = np.repeat(np.arange(max(n, 2), dtype=np.float32)[:, None], 2, axis=1)
        want[n:] = 0.0  # never written: zeros, as TF's
        np.testing.assert_array_equal(rows.numpy(), want)
        assert int(size) == max(n, 2)


# dynamic_size: a tf.range loop gives the buffer a row per iteration before it starts (_room_ahead in
# autograph/_loops.py), so the buffer keeps one shape and the loop's backward works (it raised SumToLike)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic_size"])
def test_gradient_through_a_tensor_array_loop_matches_eager(dynamic):
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((6, 3)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((6, 3)).astype(np.float32))

    def loss(x):
        return tf.reduce_sum(_rnn_rows(x, dynamic) * w)

    def grads(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(tf.function(grads)(x).numpy(), grads(x).numpy(), rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:  # a tape outside the function
        tape.watch(x)
        y = tf.function(loss)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), grads(x).numpy(), rtol=1e-5, atol=1e-6)


def test_a_taped_graph_loop_keeps_no_history_of_its_rows():
    # Under a tape the loop keeps each iteration's loop variables for the backward, but not the
    # buffer of rows, whose gradient reads no value (Note [Histories a backward reads]): the forward
    # still writes in place (a kept history would hold every version), and so does the backward.
    n = 100
    x = tf.constant(np.random.default_rng(4).standard_normal((n, 4)))
    w = tf.Variable(np.full(4, 0.5))

    def grad(x):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.scan(lambda a, r: tf.tanh(a * w + r), x) ** 2)
        return tape.gradient(y, w)

    f = tf.function(grad)
    f(x)
    before = tf._core._in_place_writes()
    got = f(x)
    assert tf._core._in_place_writes() - before >= 2 * (n - 2)
    np.testing.assert_allclose(got.numpy(), grad(x).numpy(), rtol=1e-10)


def test_a_slice_of_a_size_that_varies_is_resolved_at_run_time_not_frozen():
    # y's length changes between calls with inputs of one shape; y[1:] resolved at the trace would
    # keep the first call's length, so it is resolved from the run-time shape (_ops/array/getitem_run_time.py)
    @tf.function
    def tail(x):
        return tf.unique(x)[0][1:]

    @tf.function
    def first(x):
        return tf.unique(x)[0][0]

    assert tail(tf.constant([3, 1, 3, 2])).numpy().tolist() == [1, 2]
    assert tail(tf.constant([5, 5, 5, 5])).numpy().tolist() == []
    assert tail.experimental_get_tracing_count() == 1
    assert int(first(tf.constant([3, 1, 3, 2]))) == 3
    assert int(first(tf.constant([5, 5, 5, 5]))) == 5
    # map_fn's outputs follow elems' shape, not a value: slicing them is fine
    m = tf.function(lambda x: tf.map_fn(lambda r: r * 2.0, x)[1:])
    np.testing.assert_allclose(m(tf.constant([1.0, 2.0, 3.0])).numpy(), [4.0, 6.0])


_set_row = tf._core.op("SetRow")
_resize_rows = tf._core.op("ResizeRows")
_B = tf.zeros([3, 2])


@pytest.mark.parametrize("call,match", [
    (lambda: _set_row(tf.constant(1.0), tf.constant(0), tf.constant(1.0)), "buffer must have rank >= 1"),
    (lambda: _set_row(_B, tf.constant(0.5), tf.zeros([2])), "index must be an integer scalar"),
    (lambda: _set_row(_B, tf.constant([0, 1]), tf.zeros([2])), "index must be an integer scalar"),
    (lambda: _set_row(_B, tf.constant(0), tf.zeros([2], tf.float64)), "the dtypes differ"),
    (lambda: _set_row(_B, tf.constant(0), tf.zeros([3])), "does not have the row shape"),
    (lambda: _set_row(_B, tf.constant(-1), tf.zeros([2])), "index -1 is out of range"),
    (lambda: _set_row(_B, tf.constant(-1), tf.zeros([2]), grow=True), "index -1 is out of range"),
    (lambda: _resize_rows(_B, tf.constant(-2)), "n must be >= 0"),
    (lambda: _resize_rows(_B, tf.constant(2.0)), "n must be an integer scalar"),
    (lambda: _resize_rows(_B, tf.constant(1.0), like=True), "like must have rank >= 1"),
], ids=["scalar_buffer", "float_index", "vector_index", "dtype", "row_shape", "negative", "negative_grow",
        "negative_n", "float_n", "scalar_like"])
def test_bad_rows_inputs_raise_naming_the_op(call, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        call()
