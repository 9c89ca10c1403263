"""Convolutions large enough to run in chunks on several threads (Note [Conv threads]) match NumPy."""
import numpy as np

import tapegrad as tf
from opinfo.conv import conv2d_filter_ref, conv2d_ref, conv2d_transpose_ref


def test_chunked_convolution_and_gradients(rng):
    x = rng.standard_normal((5, 20, 19, 16))  # 5 images: chunks of unequal size
    w = rng.standard_normal((3, 3, 16, 24))
    kw = dict(strides=1, padding="SAME")
    y = tf.nn.conv2d(x, w, **kw)
    np.testing.assert_allclose(y.numpy(), conv2d_ref(x, w, **kw), rtol=1e-10, atol=1e-10)
    dy = rng.standard_normal(y.shape)
    xt, wt = tf.constant(x), tf.constant(w)
    with tf.GradientTape() as tape:
        tape.watch([xt, wt])
        out = tf.nn.conv2d(xt, wt, **kw)
    dx, dw = tape.gradient(out, [xt, wt], output_gradients=tf.constant(dy))
    np.testing.assert_allclose(dx.numpy(), conv2d_transpose_ref(dy, w, x.shape, **kw), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw.numpy(), conv2d_filter_ref(x, dy, w.shape, **kw), rtol=1e-10, atol=1e-9)
