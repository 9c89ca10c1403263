"""The nn row loops (softmax, log-softmax, sparse cross-entropy) agree with NumPy at every ISA level."""
import numpy as np
import pytest

import tapegrad as tf
from opinfo.nn import _log_softmax, _softmax, _sparse_xent, _sparse_xent_grad

_grad_op = tf._core.op("SparseSoftmaxCrossEntropyWithLogitsGrad")



@pytest.mark.parametrize("shape", [(3, 37), (300, 250)])  # the larger one takes the multi-threaded path
def test_rows_agree_with_numpy(shape, isa):
    rng = np.random.default_rng(2)
    for dtype, rtol in ((np.float32, 2e-5), (np.float64, 1e-12)):
        x = rng.uniform(-20, 20, shape).astype(dtype)
        labels = rng.integers(0, shape[1], shape[0]).astype(np.int64)
        x64 = x.astype(np.float64)
        t = tf.constant(x)
        np.testing.assert_allclose(tf.nn.softmax(t).numpy(), _softmax(x64), rtol=rtol, atol=1e-7)
        np.testing.assert_allclose(tf.nn.softmax(t, axis=0).numpy(), _softmax(x64, 0), rtol=rtol, atol=1e-7)
        np.testing.assert_allclose(tf.nn.log_softmax(t).numpy(), _log_softmax(x64), rtol=rtol, atol=1e-5)
        np.testing.assert_allclose(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, t).numpy(),
                                   _sparse_xent(labels, x64), rtol=rtol, atol=1e-5)
        np.testing.assert_allclose(_grad_op(t, tf.constant(labels)).numpy(), _sparse_xent_grad(x64, labels),
                                   rtol=rtol, atol=1e-7)
