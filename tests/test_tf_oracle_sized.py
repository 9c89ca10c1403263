"""tf.functions whose results' sizes follow the values (tf.where, boolean_mask, range, fill, one_hot,
and the ops after them), run by TensorFlow and by tapegrad from the same code on inputs of one shape
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


def _results(tf, body):
    f = tf.function(lambda x: body(tf, x))
    return [np.asarray(f(tf.constant(x))) for x in INPUTS]


@pytest.mark.parametrize("name", sorted(BODIES))
def test_same_values_at_every_call(name):
    want, got = _results(ref, BODIES[name]), _results(tg, BODIES[name])
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
