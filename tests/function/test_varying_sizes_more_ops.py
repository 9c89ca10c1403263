"""More ops given, inside a tf.function, a tensor whose sizes change from call to call (tf.boolean_mask's
rows; Note [Varying dimensions] in cpp/graph/varying_dims.cpp), as tests/function/test_varying_sizes_in_ops.py:
each op is traced once, called with masks keeping 1, 3, 4 and 0 rows in several orders, and compared with the same
code run eagerly, gradients included; the ops that cannot read such sizes at run time refuse them."""
import pytest

import tapegrad as tf
from tapegrad._ops.array.manipulation import _gather
from varying_rows import X, check_one_trace, check_refused

ORDERS = [(1, 3, 4, 0), (4, 1, 3), (3, 1, 0, 4)]


def _n(y):
    return tf.shape(y)[0]


def _halves(y):  # 0, 0, 1, 1, ... one per row
    return tf.range(_n(y)) // 2


def _rows(y):  # index rows [[0], [1], ...]
    return tf.reshape(tf.range(_n(y)), [-1, 1])


def _spd(y):  # a batch of symmetric positive definite 3 x 3 matrices, one per row
    return y[:, :, None] * y[:, None, :] + 3.0 * tf.eye(3)


def _images(y):  # [rows, 3, 2, 1]
    return tf.reshape(y, [-1, 3, 1, 1]) * tf.constant([1.0, -0.5])[None, None, :, None]


BODIES = {
    # segment ops (their gradients read the ids' and data's sizes at run time)
    "unsorted_segment_sum": lambda y: tf.math.unsorted_segment_sum(y, _halves(y), 3),
    "unsorted_segment_sum_dropped": lambda y: tf.math.unsorted_segment_sum(y, _halves(y) - 1, 3),
    "unsorted_segment_sum_2d_ids": lambda y: tf.math.unsorted_segment_sum(y, tf.cast(y > 0, tf.int32), 2),
    "unsorted_segment_max": lambda y: tf.math.unsorted_segment_max(y, _halves(y), 3),
    "unsorted_segment_min_2d_ids": lambda y: tf.math.unsorted_segment_min(y, tf.cast(y > 0, tf.int32), 2),
    "unsorted_segment_prod": lambda y: tf.math.unsorted_segment_prod(y, _halves(y), 3),
    "unsorted_segment_mean": lambda y: tf.math.unsorted_segment_mean(y, _halves(y), 3),
    "unsorted_segment_sqrt_n": lambda y: tf.math.unsorted_segment_sqrt_n(y, _halves(y), 3),
    "segment_sum": lambda y: tf.math.segment_sum(y, _halves(y)),
    "segment_mean": lambda y: tf.math.segment_mean(y, _halves(y)),
    "segment_max": lambda y: tf.math.segment_max(y, _halves(y)),
    "segment_prod": lambda y: tf.math.segment_prod(y, _halves(y)),
    # the batched GatherV2 itself (tf.gather folds a varying params' batch in Python)
    "gather_v2_batch_dims": lambda y: _gather(y, tf.fill([_n(y), 2], 1), axis=1, batch_dims=1),
    "gather_v2_batch_dims_pre": lambda y: _gather(tf.stack([y, 2 * y], 1), tf.fill([_n(y), 2], 2), axis=2,
                                                  batch_dims=1),
    # boolean_mask
    "boolean_mask_2d": lambda y: tf.boolean_mask(y, y > 0),
    "boolean_mask_2d_of_3d": lambda y: tf.boolean_mask(tf.stack([y, -y], 2), y > 0),
    "boolean_mask_axis1": lambda y: tf.boolean_mask(y, [True, False, True], axis=1),
    # reductions and normalizations along each axis
    "logsumexp_0": lambda y: tf.reduce_logsumexp(y, 0),
    "logsumexp_1": lambda y: tf.reduce_logsumexp(y, 1),
    "logsumexp_last": lambda y: tf.reduce_logsumexp(y, -1),
    "logsumexp_all": lambda y: tf.reduce_logsumexp(y),
    "logsumexp_keepdims": lambda y: tf.reduce_logsumexp(y, 0, keepdims=True),
    "softmax_0": lambda y: tf.nn.softmax(y, 0),
    "softmax_1": lambda y: tf.nn.softmax(y),
    "log_softmax_0": lambda y: tf.nn.log_softmax(y, 0),
    "log_softmax_1": lambda y: tf.nn.log_softmax(y, 1),
    "l2_normalize_0": lambda y: tf.math.l2_normalize(y, 0),
    "l2_normalize_1": lambda y: tf.math.l2_normalize(y, 1),
    "l2_normalize_all": lambda y: tf.math.l2_normalize(y, [0, 1]),
    "moments_0": lambda y: tf.stack(tf.nn.moments(y, [0]), 0),
    "moments_1": lambda y: tf.concat(tf.nn.moments(y, [1]), 0),
    "moments_all": lambda y: tf.stack(tf.nn.moments(y, [0, 1]), 0),
    "moments_keepdims": lambda y: tf.concat(tf.nn.moments(y, [0], keepdims=True), 0),
    "batch_normalization": lambda y: tf.nn.batch_normalization(y, *tf.nn.moments(y, [0]), 0.5, 2.0, 1e-3),
    "batch_normalization_1": lambda y: tf.nn.batch_normalization(y, *tf.nn.moments(y, [1], keepdims=True),
                                                                 None, None, 1e-3),
    # cumulative ops along the varying axis
    "cumsum_reverse": lambda y: tf.cumsum(y, 0, reverse=True),
    "cumsum_exclusive": lambda y: tf.cumsum(y, 0, exclusive=True),
    "cumsum_both": lambda y: tf.cumsum(y, 0, exclusive=True, reverse=True),
    "cumsum_both_cols": lambda y: tf.cumsum(y, 1, exclusive=True, reverse=True),
    "cumprod_reverse": lambda y: tf.math.cumprod(y, 0, reverse=True),
    "cumprod_exclusive": lambda y: tf.math.cumprod(y, 0, exclusive=True),
    "cumprod_both": lambda y: tf.math.cumprod(y, 0, exclusive=True, reverse=True),
    # scatter with a varying number of index rows
    "scatter_nd": lambda y: tf.scatter_nd(_rows(y), y, [5, 3]),
    "scatter_nd_elements": lambda y: tf.scatter_nd(_rows(y), y[:, 0], [6]),
    "scatter_nd_where": lambda y: tf.scatter_nd(tf.where(y > 0), tf.boolean_mask(y, y > 0), [4, 3]),
    "tensor_scatter_nd_add": lambda y: tf.tensor_scatter_nd_add(tf.ones([5, 3]), _rows(y), y),
    "tensor_scatter_nd_sub": lambda y: tf.tensor_scatter_nd_sub(tf.ones([5, 3]), _rows(y) // 2, y),
    "tensor_scatter_nd_update": lambda y: tf.tensor_scatter_nd_update(tf.zeros([5, 3]), _rows(y), y),
    "tensor_scatter_nd_update_repeated": lambda y: tf.tensor_scatter_nd_update(tf.zeros([5, 3]), _rows(y) // 2, y),
    "tensor_scatter_nd_update_elements": lambda y: tf.tensor_scatter_nd_update(
        tf.zeros([5, 3]), tf.stack([_halves(y), tf.range(_n(y)) % 3], 1), y[:, 0]),
    "gather_nd_where": lambda y: tf.gather_nd(tf.constant(X), tf.where(y > 0)) * tf.reduce_sum(y),
    # partition / stitch / top-k membership
    "dynamic_partition": lambda y: tf.dynamic_partition(y, tf.cast(y[:, 0] > 0, tf.int32), 2)[1],
    "dynamic_partition_0": lambda y: tf.dynamic_partition(y, tf.cast(y[:, 0] > 0, tf.int32), 2)[0],
    "dynamic_stitch": lambda y: tf.dynamic_stitch([tf.range(_n(y)), tf.range(_n(y), 2 * _n(y))], [y, 2 * y]),
    "in_top_k": lambda y: tf.cast(tf.math.in_top_k(tf.ones([_n(y)], tf.int32), y, 2), tf.float32) * y[:, 0],
    # matrices with a varying batch (and batch broadcasting)
    "matmul_broadcast": lambda y: tf.matmul(_spd(y), tf.ones([1, 3, 2])),
    "solve": lambda y: tf.linalg.solve(_spd(y), _spd(y)[:, :, :2]),
    "triangular_solve_broadcast": lambda y: tf.linalg.triangular_solve(tf.linalg.band_part(_spd(y), -1, 0),
                                                                       tf.ones([1, 3, 1])),
    "cholesky_solve_broadcast": lambda y: tf.linalg.cholesky_solve(tf.linalg.cholesky(_spd(y)), tf.ones([1, 3, 1])),
    "inv": lambda y: tf.linalg.inv(_spd(y)),
    "det": lambda y: tf.linalg.det(_spd(y)),
    "slogdet": lambda y: tf.linalg.slogdet(_spd(y))[1],
    "logdet": lambda y: tf.linalg.logdet(_spd(y)),
    "cholesky": lambda y: tf.linalg.cholesky(_spd(y)),
    "eigh_values": lambda y: tf.linalg.eigh(_spd(y))[0],
    "eigh_vectors": lambda y: tf.linalg.eigh(_spd(y))[1],
    "lstsq": lambda y: tf.linalg.lstsq(_spd(y), tf.ones([_n(y), 3, 1])),
    "lstsq_broadcast": lambda y: tf.linalg.lstsq(_spd(y), tf.ones([1, 3, 1])),
    # convolution and pooling with a varying batch
    "conv2d": lambda y: tf.nn.conv2d(_images(y), tf.ones([2, 1, 1, 2]) * 0.5, 1, "SAME"),
    "conv2d_valid_strided": lambda y: tf.nn.conv2d(_images(y), tf.ones([2, 2, 1, 2]) * 0.5, 2, "VALID"),
    "conv1d": lambda y: tf.nn.conv1d(y[:, :, None], tf.ones([2, 1, 2]), 1, "SAME"),
    "depthwise_conv2d": lambda y: tf.nn.depthwise_conv2d(_images(y) * tf.ones([1, 1, 1, 2]), tf.ones([2, 2, 2, 1]),
                                                         [1, 1, 1, 1], "SAME"),
    "max_pool2d": lambda y: tf.nn.max_pool2d(_images(y), 2, 1, "SAME"),
    "avg_pool2d": lambda y: tf.nn.avg_pool2d(_images(y), 2, 1, "SAME"),
}


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: "-".join(map(str, o)))
@pytest.mark.parametrize("name", sorted(BODIES))
def test_one_trace_serves_every_size(name, order):
    check_one_trace(name, BODIES[name], order, 1e-4, equal_nan=True)


REFUSED = {
    "tensor_scatter_nd_add_into": lambda y: tf.tensor_scatter_nd_add(y, [[0, 0]], [1.0]),
    "tensor_scatter_nd_update_into": lambda y: tf.tensor_scatter_nd_update(y, [[0, 0]], [5.0]),
    "cumulative_logsumexp": lambda y: tf.math.cumulative_logsumexp(y, 0, reverse=True),
    "cumulative_logsumexp_cols": lambda y: tf.math.cumulative_logsumexp(y, 1),
    "svd": lambda y: tf.linalg.svd(_spd(y), compute_uv=False),
    "svd_uv": lambda y: tf.linalg.svd(_spd(y))[1],
    "pinv": lambda y: tf.linalg.pinv(_spd(y)),
    "lstsq_varying_rows": lambda y: tf.linalg.lstsq(y, tf.ones([_n(y), 1])),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name):
    check_refused(REFUSED[name])
