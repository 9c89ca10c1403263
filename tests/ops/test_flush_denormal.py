"""Kernels flush subnormal floats to zero as TF's CPU kernels do, and leave the caller's float mode alone
(Note [Flush denormals] in cpp/core/flush_denormal.h)."""
import numpy as np
import pytest

import tapegrad as tf

SUBNORMAL = {np.float32: np.float32(1e-39), np.float64: np.float64(1e-310)}


def _numpy_keeps_subnormals():
    return all(dt(v) * dt(1) != 0 for dt, v in SUBNORMAL.items())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eager_op_flushes_input_and_output(dtype):
    tiny = SUBNORMAL[dtype]
    x = tf.constant(np.array([tiny, -tiny, 1.0], dtype))
    assert x.numpy()[0] == tiny  # a constant is data, not an op: kept as given
    np.testing.assert_array_equal((x * 1).numpy(), np.array([0, 0, 1], dtype))
    # a normal input whose result is subnormal: flushed on the way out
    smallest_normal = np.finfo(dtype).tiny
    assert (tf.constant(np.array([smallest_normal], dtype)) / 4).numpy()[0] == 0
    assert np.signbit((x * 1).numpy()[1])  # -subnormal reads as -0
    assert _numpy_keeps_subnormals()


def test_parallel_kernels_flush_on_every_thread():
    x = tf.constant(np.full(1 << 21, SUBNORMAL[np.float32], np.float32))  # split over the OpenMP team
    assert float(tf.reduce_max(tf.abs(x * 1.0))) == 0.0
    assert float(tf.reduce_max(tf.exp(x) - 1.0)) == 0.0
    assert _numpy_keeps_subnormals()


def test_traced_function_flushes():
    @tf.function
    def f(x):
        return x * 1.0 + 0.0

    out = f(tf.constant(np.array([SUBNORMAL[np.float64], 2.0])))
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0])
    assert _numpy_keeps_subnormals()


def test_gradient_flushes():
    x = tf.Variable(np.float32(1.0))
    with tf.GradientTape() as tape:
        y = x * tf.constant(SUBNORMAL[np.float32])
    assert float(tape.gradient(y, x)) == 0.0
    assert _numpy_keeps_subnormals()


def test_float_mode_restored_after_a_failing_op():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    assert _numpy_keeps_subnormals()
