"""Random inputs and attributes for every registered op, recorded and differentiated: errors are
Python exceptions, never a crash of the interpreter."""
import random

import numpy as np
import pytest

import tapegrad as tf

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]
ATTRS = ["axis", "keepdims", "shape", "perm", "begin", "end", "strides", "shrink_axis_mask", "paddings",
         "multiples", "batch_dims", "num_segments", "depth", "on_value", "off_value", "dtype", "transpose_a",
         "transpose_b", "alpha", "exclusive", "reverse", "output_type", "constant_values"]
EXPECTED = (ValueError, TypeError, RuntimeError, MemoryError, OverflowError, IndexError, NotImplementedError)


def _tensor(r, np_rng):
    shape = [r.choice([0, 1, 2, 3, 5]) for _ in range(r.choice([0, 1, 2, 3]))]
    return tf.constant((np_rng.standard_normal(shape) * 3).astype(r.choice(DTYPES)))


def _attr(r):
    c = r.random()
    if c < 0.3:
        return r.randint(-5, 5)
    if c < 0.5:
        return [r.randint(-4, 6) for _ in range(r.randint(0, 4))]
    if c < 0.6:
        return r.random()
    if c < 0.7:
        return bool(r.randint(0, 1))
    return r.choice([0, 1, -1, 2 ** 40, -2 ** 40])


@pytest.mark.parametrize("seed", range(4))
def test_random_calls_never_crash(seed):
    r, np_rng = random.Random(seed), np.random.default_rng(seed)
    ops = tf._core.registered_ops()
    for _ in range(400):
        handle = tf._core.op(r.choice(ops))
        args = [_tensor(r, np_rng) for _ in range(r.choice([1, 1, 2, 2, 3]))]
        kwargs = {n: _attr(r) for n in r.sample(ATTRS, r.randint(0, 4))}
        try:
            with tf.GradientTape(persistent=True) as tape:
                for a in args:
                    tape.watch(a)
                y = handle(*args, **kwargs)
            tape.gradient(y, args)
            tape.jacobian(y, args[0])
        except EXPECTED:
            pass


@pytest.mark.parametrize("alpha", [2.0 ** 40, -2.0 ** 40, float("nan"), float("inf")])
def test_an_integer_kernel_given_a_float_attribute_out_of_its_range(alpha):
    # the kernel converts alpha to its element type: saturated, never undefined (the sanitizer run checks)
    for dtype in (tf.int32, tf.int64):
        got = tf._core.op("Neg")(tf.constant([1, -2], dtype), alpha=alpha)
        assert got.numpy().tolist() == [-1, 2]
