"""Tensor.__getitem__, iteration and the shape helpers: one behaviour per test, NumPy as the oracle."""
import numpy as np
import pytest

import tapegrad as tf

A = np.arange(24.0).reshape(2, 3, 4)

KEYS = [0, -1, (1, 2), (1, 2, 3), np.s_[:], np.s_[::-1], np.s_[1:, ::2], np.s_[:, ::-2, 1:],
        np.s_[..., 0], np.s_[0, ...], np.s_[None], np.s_[:, None, :, None], np.s_[..., None],
        np.s_[None, 1, ..., -1, None], np.s_[5:], np.s_[-100:100], np.s_[:, 3:0:-1], np.s_[1, 2, 3:1:-1],
        np.s_[::3], np.s_[np.int64(1)], np.s_[:, -1, ::-1]]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy(key):
    got = tf.constant(A)[key]
    assert got.shape == A[key].shape
    np.testing.assert_array_equal(got.numpy(), A[key])


def test_getitem_scalar_int_tensor_and_tensor_bounds():
    x = tf.constant(A)
    np.testing.assert_array_equal(x[tf.constant(1)].numpy(), A[1])
    np.testing.assert_array_equal(x[:, tf.constant(1):tf.constant(3, tf.int64)].numpy(), A[:, 1:3])


def test_getitem_index_list_and_int_tensor_gather():
    x = tf.constant(A)
    np.testing.assert_array_equal(x[[1, 0, -1],].numpy(), A[[1, 0, -1]])
    np.testing.assert_array_equal(x[tf.constant([1, 0, -1])].numpy(), A[[1, 0, -1]])
    np.testing.assert_array_equal(x[:, tf.constant([2, 0])].numpy(), A[:, [2, 0]])
    np.testing.assert_array_equal(x[::-1, 1, [3, 3]].numpy(), A[::-1, 1, [3, 3]])
    with pytest.raises(TypeError, match="separated"):
        x[1, :, [3, 3]]


def test_getitem_bool_mask():
    x = tf.constant(A)
    mask = A[..., 0] > 5
    np.testing.assert_array_equal(x[tf.constant(mask)].numpy(), A[mask])
    np.testing.assert_array_equal(x[np.array([False, True])].numpy(), A[np.array([False, True])])


def test_getitem_keeps_dtype_and_works_for_every_dtype():
    for dt in (tf.float32, tf.int32, tf.int64, tf.bool):
        x = tf.constant(A, dtype=dt)
        y = x[1, ::-1]
        assert y.dtype == dt
        np.testing.assert_array_equal(y.numpy(), A.astype(dt.as_numpy_dtype)[1, ::-1])


def test_iteration_gives_rows():
    rows = [r.numpy() for r in tf.constant(A)]
    assert len(rows) == 2
    for r, want in zip(rows, A):
        np.testing.assert_array_equal(r, want)
    assert [int(v) for v in tf.constant([3, 1, 2])] == [3, 1, 2]


def test_iteration_over_scalar_is_a_type_error():
    with pytest.raises(TypeError):
        iter(tf.constant(1.0))


def test_out_of_range_index_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="StridedSlice"):
        tf.constant(A)[2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="StridedSlice"):
        tf.constant(A)[:, -4]


def test_gradient_flows_through_indexing():
    x = tf.constant(A)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x[1, ::-2, None, 1:] * 3.0) + tf.reduce_sum(x[0][2])
    want = np.zeros_like(A)
    want[1, ::-2, 1:] += 3.0
    want[0, 2] += 1.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), want)


def test_gradient_through_iteration_and_variables():
    v = tf.Variable(np.arange(6.0).reshape(3, 2))
    with tf.GradientTape() as tape:
        y = tf.add_n([tf.reduce_sum(row * float(i)) for i, row in enumerate(v)])
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[0, 0], [1, 1], [2, 2]])


def test_second_derivative_through_indexing():
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(x[::-1][1:] ** 3)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [6.0, 12.0, 0.0])


def test_contiguous_slice_is_not_changed_by_assign():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    row = v[1]
    v.assign([[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(row.numpy(), [3.0, 4.0])


def test_gather_grad_accumulates_repeated_indices():
    p = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.reduce_sum(tf.gather(p, [2, 2, 0, 2]))
    np.testing.assert_array_equal(tape.gradient(y, p).numpy(), [1.0, 0.0, 3.0])


def test_cast_gradient_between_float_types():
    x = tf.constant([1.0, 2.0], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.cast(x, tf.float64) * tf.constant([3.0, 4.0], tf.float64))
    g = tape.gradient(y, x)
    assert g.dtype == tf.float32
    np.testing.assert_array_equal(g.numpy(), [3.0, 4.0])


def test_cast_to_or_from_int_has_no_gradient():
    x = tf.constant([1.5, 2.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.cast(x, tf.int32), tf.float32)
    assert tape.gradient(y, x) is None


def test_unstack_split_stack_round_trip():
    x = tf.constant(A)
    np.testing.assert_array_equal(tf.stack(tf.unstack(x, axis=1), axis=1).numpy(), A)
    np.testing.assert_array_equal(tf.concat(tf.split(x, [1, -1, 2], axis=2), axis=2).numpy(), A)
    assert [t.shape.as_list() for t in tf.split(x, 2)] == [[1, 3, 4], [1, 3, 4]]
    assert len(tf.unstack(x, num=2)) == 2


def test_concat_single_value_and_python_values():
    np.testing.assert_array_equal(tf.concat([[1.0, 2.0]], 0).numpy(), [1.0, 2.0])
    y = tf.concat([tf.constant([1.0], tf.float64), [2.0]], 0)
    assert y.dtype == tf.float64


def test_one_hot_dtype_follows_on_value():
    assert tf.one_hot([0, 1], 2).dtype == tf.float32
    assert tf.one_hot([0, 1], 2, on_value=3, off_value=0).dtype == tf.int32
    np.testing.assert_array_equal(tf.one_hot([1, 9], 3, dtype=tf.int64).numpy(), [[0, 1, 0], [0, 0, 0]])


def test_gather_default_axis_is_batch_dims():
    p = np.arange(12.0).reshape(2, 3, 2)
    idx = np.array([[2, 0], [1, 1]])
    got = tf.gather(tf.constant(p), idx, batch_dims=1)
    np.testing.assert_array_equal(got.numpy(), np.stack([p[0][[2, 0]], p[1][[1, 1]]]))


def test_unsorted_segment_sum():
    got = tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0, 3.0, 4.0]), [0, 2, 0, 2], 3)
    np.testing.assert_array_equal(got.numpy(), [4.0, 0.0, 6.0])


def test_pad_int_and_bool():
    np.testing.assert_array_equal(tf.pad([[1, 2]], [[1, 0], [0, 1]], constant_values=7).numpy(), [[7, 7, 7], [1, 2, 7]])
    assert tf.pad(tf.constant([True]), [[1, 1]]).numpy().tolist() == [False, True, False]


def test_newaxis_alias():
    assert tf.newaxis is None
    assert tf.constant(A)[tf.newaxis, ..., tf.newaxis].shape == (1, 2, 3, 4, 1)


def test_strided_slice_and_slice_helpers():
    x = tf.constant(A)
    np.testing.assert_array_equal(tf.strided_slice(x, [0, 2, 0], [2, 0, 4], [1, -1, 2]).numpy(), A[0:2, 2:0:-1, 0:4:2])
    np.testing.assert_array_equal(tf.slice(x, [1, 0, 2], [1, -1, 2]).numpy(), A[1:2, :, 2:4])


def test_a_traced_scalar_index_inside_a_tuple_key_is_read_at_every_call():
    # probs[0, action] in an actor-critic step raised OperatorNotAllowedInGraphError; TF 2.21 gives these.
    probs = tf.Variable([[0.1, 0.2, 0.7]])
    f = tf.function(lambda action: probs[0, action])
    assert [round(float(f(tf.constant(a))), 6) for a in (0, 2, 1, -1)] == [0.1, 0.7, 0.2, 0.7]
    h = tf.function(lambda x, i: (x[i, 1:], x[:, i], x[i, -1]))
    got = h(tf.reshape(tf.range(6.0), [2, 3]), tf.constant(1))
    assert [g.numpy().tolist() for g in got] == [[4.0, 5.0], [1.0, 4.0], 5.0]
    with tf.GradientTape() as tape:
        y = f(tf.constant(2))
    assert tape.gradient(y, probs).numpy().tolist() == [[0.0, 0.0, 1.0]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(3))


def test_gather_params_keep_their_own_dtype():
    # Python floats are float32 and NumPy arrays keep theirs, whatever the indices' dtype (as TF)
    got = tf.gather([1.0, 2.0, 3.0], tf.constant([1, 0]))
    assert got.dtype == tf.float32 and got.numpy().tolist() == [2.0, 1.0]
    got = tf.gather(np.array([1.5, 2.5]), tf.constant([1], tf.int64))
    assert got.dtype == tf.float64 and got.numpy().tolist() == [2.5]
    assert tf.gather([[1, 2], [3, 4]], [1]).numpy().tolist() == [[3, 4]]
