"""Ops whose Python implementation reads sizes, given inside a tf.function a tensor whose sizes change from
call to call (tf.boolean_mask's rows; Note [Varying dimensions] in cpp/graph/varying_dims.cpp): one trace serves
every call, so a size taken from the first call would give a wrong result at a later one. Each op is
called with masks keeping 1, then several, rows (and several, then 1, then 0) and compared with the same
code run eagerly, with its gradient; the ops that cannot read such a size at run time refuse it."""
import numpy as np
import pytest

import tapegrad as tf
from varying_rows import MASKS, SPEC, X, check_one_trace, check_refused

ORDERS = [(1, 3, 4, 0), (4, 1, 3), (3, 1, 0, 4), (0, 3, 1)]


def _square(y):
    return tf.matmul(y, y, transpose_b=True) + 0.5 * tf.eye(tf.shape(y)[0])


BODIES = {
    "roll_rows": lambda y: tf.roll(y, 1, 0),
    "roll_both": lambda y: tf.roll(y, [1, -1], [0, 1]),
    "roll_rows_twice": lambda y: tf.roll(y, [2, 3], [0, 0]),
    "roll_fixed_axis": lambda y: tf.roll(y, 2, 1),
    "slice_rest": lambda y: tf.slice(y, [0, 1], [-1, 2]),
    "slice_from_1": lambda y: tf.slice(tf.concat([y, y], 0), [1, 0], [-1, -1]),
    "band_upper": lambda y: tf.linalg.band_part(_square(y), 0, -1),
    "band_lower": lambda y: tf.linalg.band_part(y, -1, 0),
    "band_zero": lambda y: tf.linalg.band_part(y, 0, 1),
    "reverse_sequence": lambda y: tf.reverse_sequence(y, tf.fill([tf.shape(y)[0]], 2), seq_axis=1, batch_axis=0),
    "reverse_sequence_t": lambda y: tf.reverse_sequence(
        tf.transpose(y), tf.minimum([1, 3, 2], tf.shape(y)[0]), seq_axis=1, batch_axis=0),
    "diag_part": lambda y: tf.linalg.diag_part(_square(y)),
    "diag_part_rect": lambda y: tf.linalg.diag_part(y),
    "trace": lambda y: tf.linalg.trace(_square(y)),
    "einsum_matmul": lambda y: tf.einsum("ij,kj->ik", y, y),
    "einsum_trace": lambda y: tf.einsum("ii->", _square(y)),
    "einsum_outer": lambda y: tf.einsum("i,j->ij", y[:, 0], y[:, 1]),
    "einsum_batch": lambda y: tf.einsum("bi,bj->bij", y, y),
    "tensordot_rows": lambda y: tf.tensordot(y, y, [[1], [1]]),
    "tensordot_summed": lambda y: tf.tensordot(y, y, [[0], [0]]),
    "matvec": lambda y: tf.linalg.matvec(y, tf.constant([1.0, 2.0, 3.0])),
    "norm_rows": lambda y: tf.norm(y, axis=1),
    "pad_reflect_cols": lambda y: tf.pad(y, [[0, 0], [1, 1]], "REFLECT"),
    "pad_symmetric_rows": lambda y: tf.pad(y, [[1, 0], [0, 0]], "SYMMETRIC"),
    "pad_symmetric_both": lambda y: tf.pad(y, [[0, 1], [2, 1]], "SYMMETRIC"),
    "top_k": lambda y: tf.math.top_k(y, 2).values,
    "top_k_of_rows": lambda y: tf.math.top_k(tf.transpose(y), 1).values,
    "sort_cols": lambda y: tf.sort(y, axis=1, direction="DESCENDING"),
    "sort_rows": lambda y: tf.sort(y, axis=0),
    "gather_batch_dims": lambda y: tf.gather(y, tf.fill([tf.shape(y)[0], 2], 1), axis=1, batch_dims=1),
    "repeat_rows": lambda y: tf.repeat(y, 2, axis=0),
    "meshgrid": lambda y: tf.meshgrid(y[:, 0], tf.constant([1.0, 2.0]))[0],
    "sequence_mask": lambda y: tf.cast(tf.sequence_mask(tf.cast(tf.abs(y[:, 0]), tf.int32)), tf.float32) * y[:, :1],
}

# needs the operand to have at least one row (TF's error otherwise, checked at run time as in TF)
NON_EMPTY = {"pad_reflect_cols", "pad_symmetric_rows", "pad_symmetric_both", "slice_from_1", "top_k_of_rows"}


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: "-".join(map(str, o)))
@pytest.mark.parametrize("name", sorted(BODIES))
def test_one_trace_serves_every_size(name, order):
    check_one_trace(name, BODIES[name], order, 1e-5, needs_rows=name in NON_EMPTY)


def test_band_part_width_beyond_the_rows_raises_at_run_time():
    @tf.function(input_signature=SPEC)
    def f(mask):
        return tf.linalg.band_part(tf.boolean_mask(tf.constant(X), mask), 2, -1)
    np.testing.assert_array_equal(f(tf.constant(MASKS[3])).numpy(), np.triu(X[MASKS[3]], -2))
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(MASKS[1]))


def test_batched_gather_index_out_of_range_raises():
    @tf.function(input_signature=SPEC)
    def f(mask):
        y = tf.boolean_mask(tf.constant(X), mask)
        return tf.gather(y, tf.fill([tf.shape(y)[0], 1], 3), axis=1, batch_dims=1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(MASKS[3]))


def test_unsorted_segment_mean_with_unique_ids():
    data = tf.constant(X)

    @tf.function(input_signature=[tf.TensorSpec([4], tf.int32)])
    def f(v):
        with tf.GradientTape() as tape:
            tape.watch(data)
            u, idx = tf.unique(v)
            mean = tf.math.unsorted_segment_mean(data, idx, tf.size(u))
            root = tf.math.unsorted_segment_sqrt_n(data, idx, tf.size(u))
        return mean, root, tape.gradient([mean, root], data)
    for v in ([1, 1, 1, 1], [1, 2, 3, 4], [1, 2, 1, 2]):
        ids = np.unique(v, return_inverse=True)[1]
        counts = np.bincount(ids)
        sums = np.stack([X[ids == s].sum(0) for s in range(len(counts))])
        mean, root, grad = f(tf.constant(v))
        np.testing.assert_allclose(mean.numpy(), sums / counts[:, None], rtol=1e-6)
        np.testing.assert_allclose(root.numpy(), sums / np.sqrt(counts)[:, None], rtol=1e-6)
        np.testing.assert_allclose(grad.numpy(), np.broadcast_to((1 / counts + 1 / np.sqrt(counts))[ids][:, None],
                                                                 X.shape), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


REFUSED = {
    "diag": lambda y: tf.linalg.diag(y[:, 0]),
    "set_diag": lambda y: tf.linalg.set_diag(_square(y), y[:, 0]),
    "tensor_diag_part": lambda y: tf.linalg.tensor_diag_part(_square(y)),
    "space_to_batch_spatial": lambda y: tf.space_to_batch(y[None, :, :, None], [1, 1], [[0, 0], [0, 0]]),
    "repeat_per_row": lambda y: tf.repeat(y, [1, 2, 3], axis=0),
    "unstack_rows": lambda y: tf.unstack(y),
    "split_rows": lambda y: tf.split(y, 1, axis=0),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name):
    check_refused(REFUSED[name])


def test_space_to_batch_with_varying_batch():
    @tf.function(input_signature=SPEC)
    def f(mask):
        y = tf.reshape(tf.boolean_mask(tf.constant(X), mask), [-1, 1, 3, 1])
        z = tf.space_to_batch(tf.pad(y, [[0, 0], [0, 1], [0, 1], [0, 0]]), [2, 2], [[0, 0], [0, 0]])
        return z, tf.batch_to_space(z, [2, 2], [[0, 1], [0, 1]])
    for rows in (1, 3, 0, 4):
        y = X[MASKS[rows]].reshape(-1, 1, 3, 1)
        p = tf.pad(tf.constant(y), [[0, 0], [0, 1], [0, 1], [0, 0]])
        want = tf.space_to_batch(p, [2, 2], [[0, 0], [0, 0]])
        z, back = f(tf.constant(MASKS[rows]))
        np.testing.assert_array_equal(z.numpy(), want.numpy())
        np.testing.assert_array_equal(back.numpy(), y)
