"""The narrow and unsigned integers and float16, checked against NumPy (TF's own answers are compared in
tests/oracle/test_tf_oracle_narrow_dtypes.py): integer arithmetic wraps as NumPy's does, float16 values
computed through float32 round as NumPy's float16 arithmetic does, reductions and element moves keep
the dtype, and an op whose row does not list a type refuses it before any kernel reads it."""
import subprocess
import sys

import numpy as np
import pytest

import tapegrad as tf

NARROW = ("uint8", "int8", "int16", "uint16", "uint32", "uint64")


def _operands(name, n=257):
    info = np.iinfo(name)
    rng = np.random.default_rng(0)
    x = rng.integers(int(info.min), int(info.max), n, dtype=name, endpoint=True)
    y = rng.integers(int(info.min), int(info.max), n, dtype=name, endpoint=True)
    y[y == 0] = 1
    return x, y


@pytest.mark.parametrize("name", NARROW)
def test_integer_arithmetic_wraps_as_numpy(name):
    x, y = _operands(name)
    with np.errstate(over="ignore"):
        for ours, theirs in [(tf.add, np.add), (tf.subtract, np.subtract), (tf.multiply, np.multiply),
                             (tf.maximum, np.maximum), (tf.minimum, np.minimum)]:
            got = ours(tf.constant(x), tf.constant(y)).numpy()
            assert got.dtype == np.dtype(name)
            np.testing.assert_array_equal(got, theirs(x, y))
    if np.iinfo(name).min == 0 or name != "int64":  # floor semantics without the INT_MIN / -1 lane
        keep = ~((x == np.iinfo(name).min) & (y.astype("int64") == -1)) if np.iinfo(name).min < 0 else slice(None)
        np.testing.assert_array_equal(tf.math.floordiv(tf.constant(x[keep]), tf.constant(y[keep])).numpy(),
                                      np.floor_divide(x[keep], y[keep]))
        np.testing.assert_array_equal(tf.math.floormod(tf.constant(x[keep]), tf.constant(y[keep])).numpy(),
                                      np.mod(x[keep], y[keep]))
    np.testing.assert_array_equal((tf.constant(x) < tf.constant(y)).numpy(), x < y)


@pytest.mark.parametrize("name", NARROW)
def test_reductions_keep_the_dtype(name):
    x, _ = _operands(name, 64)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(tf.reduce_sum(tf.constant(x)).numpy(), x.sum(dtype=name))
        np.testing.assert_array_equal(tf.reduce_max(tf.constant(x.reshape(8, 8)), 1).numpy(), x.reshape(8, 8).max(1))
        np.testing.assert_array_equal(tf.cumsum(tf.constant(x)).numpy(), np.cumsum(x, dtype=name))
    small = np.array([250, 251, 7], name) if np.iinfo(name).max > 251 else np.array([120, 121, 7], name)
    assert tf.reduce_mean(tf.constant(small)).numpy() == small.astype("int64").sum() // 3  # summed without wrapping


def test_float16_is_float32_rounded_once():
    rng = np.random.default_rng(1)
    x = rng.normal(size=1000).astype(np.float16)
    y = rng.normal(size=1000).astype(np.float16)
    for ours, theirs in [(tf.add, np.add), (tf.multiply, np.multiply), (tf.divide, np.divide), (tf.sqrt, None),
                         (tf.exp, np.exp)]:
        a = np.abs(x) if ours is tf.sqrt else x
        got = (ours(tf.constant(a)) if theirs in (None, np.exp) else ours(tf.constant(x), tf.constant(y))).numpy()
        want = (np.sqrt(a.astype(np.float32)) if theirs is None else
                np.exp(a.astype(np.float32)) if theirs is np.exp else theirs(x.astype(np.float32), y.astype(np.float32)))
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got, want.astype(np.float16))
    s = tf.reduce_sum(tf.constant(x)).numpy()
    assert s.dtype == np.float16 and s == x.astype(np.float32).sum(dtype=np.float32).astype(np.float16)


def test_float16_gradients_are_float16():
    x = tf.Variable(np.array([1.5, -2.0, 3.0], np.float16))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * x + tf.sin(x))
    g = tape.gradient(y, x)
    assert g.dtype == tf.float16
    want = (2 * np.array([1.5, -2.0, 3.0], np.float32) + np.cos(np.array([1.5, -2.0, 3.0], np.float32)))
    np.testing.assert_allclose(g.numpy().astype(np.float32), want, rtol=2e-3)


@pytest.mark.parametrize("name", NARROW + ("float16",))
def test_element_moves_keep_bits(name):
    x = (np.arange(60) * 7).reshape(3, 4, 5).astype(name)
    t = tf.constant(x)
    np.testing.assert_array_equal(tf.transpose(t, [2, 0, 1]).numpy(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(tf.tile(t, [2, 1, 1]).numpy() if name != "uint16" else np.tile(x, [2, 1, 1]),
                                  np.tile(x, [2, 1, 1]))
    np.testing.assert_array_equal(tf.concat([t, t], 2).numpy(), np.concatenate([x, x], 2))
    np.testing.assert_array_equal(t[:, ::-2, 1:4].numpy(), x[:, ::-2, 1:4])
    np.testing.assert_array_equal(tf.pad(t, [[1, 0], [0, 2], [1, 1]]).numpy(), np.pad(x, [[1, 0], [0, 2], [1, 1]]))
    np.testing.assert_array_equal(tf.gather(t, [3, 0, 3], axis=1).numpy(), x[:, [3, 0, 3]])


def test_casts_in_range_and_wrapping():
    v = np.array([0, 1, 127, 128, 255, 256, 65535, 65536, -1, -128, -129], "int64")
    for name in NARROW:
        np.testing.assert_array_equal(tf.cast(tf.constant(v), name).numpy(), v.astype(name))
    f = np.array([0.5, -0.5, 1.9, -1.9, 100.25], np.float32)
    for name in ("int8", "int16", "uint8"):
        np.testing.assert_array_equal(tf.cast(tf.constant(f), name).numpy(), np.trunc(f).astype("int64").astype(name))
    h = np.array([1e-8, 6e-8, 65504, 65520, 1e5, -0.0, np.nan], np.float32)
    got = tf.cast(tf.constant(h), tf.float16).numpy()
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, h.astype(np.float16))
    assert np.signbit(got[5])


@pytest.mark.parametrize("op", [tf.sin, tf.math.log, tf.nn.relu, tf.linalg.matmul])
@pytest.mark.parametrize("name", ["uint8", "int16", "uint64"])
def test_unlisted_types_are_refused(op, name):
    x = tf.constant(np.ones((2, 2), name))
    with pytest.raises((tf.errors.InvalidArgumentError, tf.errors.NotFoundError), match=name):
        op(x, x) if op is tf.linalg.matmul else op(x)


def test_float16_conversions_without_f16c():
    code = ("import numpy as np, tapegrad as tf\n"
            "x = np.random.default_rng(2).normal(size=999).astype(np.float32) * 1e3\n"
            "x[:5] = [1e-8, 6e-8, 65520, np.inf, np.nan]\n"
            "h = tf.cast(tf.constant(x), tf.float16)\n"
            "with np.errstate(over='ignore'):\n"
            "    want = x.astype(np.float16)\n"
            "assert np.array_equal(h.numpy(), want, equal_nan=True)\n"
            "back = tf.cast(h, tf.float32).numpy()\n"
            "assert np.array_equal(back, want.astype(np.float32), equal_nan=True)\n")
    for isa in ("baseline", "avx2"):
        env = {"TAPEGRAD_ISA": isa}
        subprocess.run([sys.executable, "-c", code], check=True, env={**__import__("os").environ, **env})
