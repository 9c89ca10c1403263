"""tf.functions whose results' sizes follow the values (tf.where, boolean_mask, range, fill, one_hot,
segment and bincount counts, shapes computed in the function, and the ops after them), run by TensorFlow and by tapegrad from the same code on inputs of one shape
whose values give other sizes: the same values, dtypes and gradients at every call. Skipped when
TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

INPUTS = [np.array(v, np.float32) for v in ([1, 1, 2, 3, 3, 4], [5, 5, 6, 6, 6, 6], [0, 9, 3, 8, 2, 7])]

# name -> body(tf, x): the same code for both libraries
BODIES = {
    "boolean_mask": lambda tf, x: tf.boolean_mask(x, x > 2.5),
    "boolean_mask_2d_axis1": lambda tf, x: tf.boolean_mask(tf.reshape(x, [2, 3]), [True, False, True], axis=1),
    "where_rows": lambda tf, x: tf.where(tf.reshape(x, [3, 2]) > 2.5),
    "gather_nd_where": lambda tf, x: tf.gather_nd(tf.reshape(x, [2, 3]), tf.where(tf.reshape(x, [2, 3]) > 2.5)),
    "range_of_count": lambda tf, x: tf.range(tf.size(tf.unique(x).y)),
    "range_float": lambda tf, x: tf.range(0.0, tf.reduce_max(x), 1.5),
    "fill_of_shape": lambda tf, x: tf.fill(tf.shape(tf.unique(x).y), 7.0),
    "zeros_rows": lambda tf, x: tf.zeros([tf.size(tf.where(x > 2.5)), 2], tf.int32),
    "one_hot_depth": lambda tf, x: tf.one_hot(tf.unique(x).idx, tf.size(tf.unique(x).y)),
    "reverse": lambda tf, x: tf.reverse(tf.unique(x).y, [0]),
    "stack_expand": lambda tf, x: tf.stack([tf.unique(x).y, tf.expand_dims(tf.unique(x).y, 0)[0]], axis=1),
    "squeeze": lambda tf, x: tf.squeeze(tf.expand_dims(tf.boolean_mask(x, x > 2.5), 1), axis=1),
    "reduce_after_mask": lambda tf, x: tf.reduce_mean(tf.boolean_mask(x, x > 2.5)),
}


# Note [Varying dimensions]: inside the trace, the static shape of each result gives None where TF
# does (a size computed from values at each call), and the sizes TF knows.
M = np.arange(12.0, dtype=np.float32).reshape(4, 3)
SHAPE_BODIES = {
    "mask_rows_then_matmul": lambda tf, x: tf.matmul(tf.boolean_mask(M, M[:, 0] > x[0]), tf.ones([3, 2])),
    "mask_rows_transpose": lambda tf, x: tf.transpose(tf.boolean_mask(M, M[:, 0] > x[0])),
    "mask_rows_reduce_0": lambda tf, x: tf.reduce_sum(tf.boolean_mask(M, M[:, 0] > x[0]), 0),
    "mask_rows_reduce_1": lambda tf, x: tf.reduce_sum(tf.boolean_mask(M, M[:, 0] > x[0]), 1, keepdims=True),
    "mask_rows_reshape": lambda tf, x: tf.reshape(tf.boolean_mask(M, M[:, 0] > x[0]), [-1, 1, 3]),
    "mask_rows_concat_0": lambda tf, x: tf.concat([tf.boolean_mask(M, M[:, 0] > x[0]), M], 0),
    "mask_rows_concat_1": lambda tf, x: tf.concat([tf.boolean_mask(M, M[:, 0] > x[0])] * 2, 1),
    "mask_rows_broadcast_add": lambda tf, x: tf.boolean_mask(M, M[:, 0] > x[0]) + tf.ones([1, 3]),
    "mask_rows_slice_cols": lambda tf, x: tf.boolean_mask(M, M[:, 0] > x[0])[:, 1:],
    "mask_rows_first_col": lambda tf, x: tf.boolean_mask(M, M[:, 0] > x[0])[:, 0],
    "mask_rows_expand": lambda tf, x: tf.expand_dims(tf.boolean_mask(M, M[:, 0] > x[0]), -1),
    "mask_rows_tile": lambda tf, x: tf.tile(tf.boolean_mask(M, M[:, 0] > x[0]), [2, 2]),
    "mask_rows_gather_cols": lambda tf, x: tf.gather(tf.boolean_mask(M, M[:, 0] > x[0]), [0, 2], axis=1),
    "where_coords": lambda tf, x: tf.where(tf.reshape(x, [2, 3]) > 2.5),
    "zeros_of_rows": lambda tf, x: tf.zeros([tf.shape(tf.boolean_mask(M, M[:, 0] > x[0]))[0], 5]),
    "zeros_of_shape": lambda tf, x: tf.zeros(tf.shape(tf.boolean_mask(M, M[:, 0] > x[0]))),
    "zeros_like_rows": lambda tf, x: tf.zeros_like(tf.boolean_mask(M, M[:, 0] > x[0])),
    "one_hot_unique": lambda tf, x: tf.one_hot(tf.cast(tf.unique(x).y, tf.int32), 4),
    "split_cols": lambda tf, x: tf.split(tf.boolean_mask(M, M[:, 0] > x[0]), 3, axis=1)[1],
    "unstack_cols": lambda tf, x: tf.unstack(tf.boolean_mask(M, M[:, 0] > x[0]), axis=1)[2],
}

# counts and lengths read from integer values (sorted ids, a batch of lengths)
IDS = [np.array(v, np.int32) for v in ([0, 0, 1, 2, 2, 2], [0, 1, 1, 1, 3, 3], [1, 1, 1, 1, 1, 4])]
DATA = np.arange(1.0, 7.0, dtype=np.float32)
INT_BODIES = {
    "segment_sum": lambda tf, i: tf.math.segment_sum(DATA, i),
    "segment_mean": lambda tf, i: tf.math.segment_mean(DATA, i),
    "segment_max": lambda tf, i: tf.math.segment_max(DATA, i),
    "unsorted_segment_sum_n": lambda tf, i: tf.math.unsorted_segment_sum(DATA, i, tf.reduce_max(i) + 1),
    "unsorted_segment_min_n": lambda tf, i: tf.math.unsorted_segment_min(DATA, i, tf.reduce_max(i) + 2),
    "bincount": lambda tf, i: tf.math.bincount(i),
    "bincount_minlength": lambda tf, i: tf.math.bincount(i, minlength=4, dtype=tf.float32),
    "confusion_matrix": lambda tf, i: tf.math.confusion_matrix(i, tf.reverse(i, [0])),
    "sequence_mask": lambda tf, i: tf.sequence_mask(i),
    "sequence_mask_maxlen": lambda tf, i: tf.sequence_mask(i, tf.reduce_max(i) + 1, dtype=tf.float32),
    "reshape_computed": lambda tf, i: tf.reshape(DATA, [tf.reduce_min(i) + 1, -1]),
    "tile_computed": lambda tf, i: tf.tile(DATA[:2], [tf.reduce_max(i)]),
    "slice_computed": lambda tf, i: tf.constant(DATA)[: tf.reduce_max(i)],
    "broadcast_computed": lambda tf, i: tf.broadcast_to(DATA[:1], [tf.reduce_max(i), 2]),
    "random_shape": lambda tf, i: tf.shape(tf.random.normal([tf.reduce_max(i), 2])),
    "top_k_computed": lambda tf, i: tf.math.top_k(DATA[::-1] * 2.0, tf.reduce_max(i)).values,
    "pad_computed": lambda tf, i: tf.pad(DATA, [[1, tf.reduce_max(i)]], constant_values=-1.0),
    "pad_2d_computed": lambda tf, i: tf.pad(tf.reshape(DATA, [2, 3]), [[tf.reduce_min(i), 1], [0, tf.reduce_max(i)]]),
    "eye_computed": lambda tf, i: tf.eye(tf.reduce_max(i)),
    "eye_rectangle": lambda tf, i: tf.eye(2, tf.reduce_max(i) + 1, dtype=tf.int32),
    "repeat_counts": lambda tf, i: tf.repeat(DATA, i),
    "repeat_scalar": lambda tf, i: tf.repeat(DATA[:2], tf.reduce_max(i)),
    "repeat_axis0": lambda tf, i: tf.repeat(tf.reshape(DATA, [3, 2]), i[:3], axis=0),
    "auto_pack": lambda tf, i: tf.convert_to_tensor([[0, tf.reduce_max(i)], [tf.reduce_min(i), 7]]),
    "zeros_of_packed": lambda tf, i: tf.zeros(tf.convert_to_tensor([tf.reduce_max(i), 2])),
    "linspace_computed": lambda tf, i: tf.linspace(0.0, 1.0, tf.reduce_max(i) + 2),
    "linspace_short": lambda tf, i: tf.linspace(2.0, 5.0, tf.reduce_min(i)),
}


@pytest.mark.parametrize("name", sorted(INT_BODIES))
def test_same_values_from_integer_inputs(name):
    run = lambda tf: [np.asarray(v) for v in map(tf.function(lambda i: INT_BODIES[name](tf, i)),  # noqa: E731
                                                   [tf.constant(i) for i in IDS])]
    for w, g in zip(run(ref), run(tg)):
        assert w.dtype == g.dtype and w.shape == g.shape, (w, g)
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _results(tf, body):
    f = tf.function(lambda x: body(tf, x))
    return [np.asarray(f(tf.constant(x))) for x in INPUTS]


@pytest.mark.parametrize("name", sorted(BODIES) + sorted(SHAPE_BODIES))
def test_same_values_at_every_call(name):
    body = BODIES.get(name) or SHAPE_BODIES[name]
    want, got = _results(ref, body), _results(tg, body)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape, (w, g)
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _mask_gradient(tf, x):
    w = tf.Variable(tf.ones([6]))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.boolean_mask(w * x, x > 2.5))) + tf.reduce_sum(
                tf.gather_nd(w, tf.where(x < 2.0)))
        return tape.gradient(loss, w)

    return [np.asarray(step(tf.constant(v))) for v in INPUTS]


def test_gradients_through_masks_match():
    for w, g in zip(_mask_gradient(ref, None), _mask_gradient(tg, None)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _traced_shape(tf, body, x):
    seen = []

    def f(v):
        y = body(tf, v)
        seen.append(y.shape.as_list())
        return y

    tf.function(f)(tf.constant(x))
    return seen[0]


@pytest.mark.parametrize("name", sorted(BODIES) + sorted(SHAPE_BODIES))
def test_static_shapes_inside_the_trace(name):
    body = BODIES.get(name) or SHAPE_BODIES[name]
    got, want = _traced_shape(tg, body, INPUTS[0]), _traced_shape(ref, body, INPUTS[0])
    if name in FOLDED:  # the mask is a constant: its count is known while tracing
        assert got == FOLDED[name] and len(want) == len(got)
    else:
        assert got == want


# Bodies whose sizes come from constants only, which TF's graph leaves None.
FOLDED = {"boolean_mask_2d_axis1": [2, 2]}


@pytest.mark.parametrize("name", sorted(INT_BODIES))
def test_static_shapes_inside_the_trace_from_integer_inputs(name):
    body = INT_BODIES[name]
    assert _traced_shape(tg, body, IDS[0]) == _traced_shape(ref, body, IDS[0])
