"""The half types (float16, bfloat16) against NumPy and ml_dtypes: bfloat16 conversions bit-equal with
ml_dtypes' (TF's NumPy bfloat16), elementwise ops computed in float32 and rounded once, and the rows that
take the half types through their float32 kernels (Note [Half types through float32]: matmul, the
convolutions, pools, softmax, sparse cross-entropy), forward and gradients, refusing mixed float types.
TF's own answers are compared in tests/oracle/test_tf_oracle_half_types.py."""
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
import tapegrad as tf

BF16 = ml_dtypes.bfloat16
HALVES = ("float16", "bfloat16")


def _np(name):
    return np.dtype(BF16) if name == "bfloat16" else np.dtype(name)


def _rounded(x, name):
    """float32 values rounded to the half type once (what a through-float32 kernel returns)."""
    return np.asarray(x, np.float32).astype(_np(name))


def test_bfloat16_dtype_surface():
    d = tf.bfloat16
    assert d.name == "bfloat16" and d.size == 2 and d.is_floating and not d.is_integer
    assert d.as_numpy_dtype is BF16 and tf.as_dtype(BF16) is d and tf.as_dtype("bfloat16") is d
    assert d.as_datatype_enum == 14 and repr(d) == "tf.bfloat16"
    assert float(d.max) == float(np.finfo(BF16).max) and float(d.min) == -float(np.finfo(BF16).max)
    with pytest.raises(ValueError):
        d.limits


def test_bfloat16_casts_bit_equal_with_ml_dtypes():
    rng = np.random.default_rng(0)
    x = (rng.normal(size=4099) * 10.0 ** rng.integers(-40, 39, 4099)).astype(np.float32)
    x[:9] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 3.3961e38, 3.3962e38, -np.nan]
    x[9:12] = np.array([0x3f808000, 0x3f818000, 0x3f80ffff], np.uint32).view(np.float32)  # ties and near-ties
    got = tf.cast(tf.constant(x), tf.bfloat16).numpy()
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.view(np.uint16), x.astype(BF16).view(np.uint16))
    back = tf.cast(tf.constant(got), tf.float32).numpy()
    np.testing.assert_array_equal(back.view(np.uint32), got.astype(np.float32).view(np.uint32))
    # float16 <-> bfloat16 through float32 (exact both ways for the values each holds)
    h = rng.normal(size=100).astype(np.float16)
    np.testing.assert_array_equal(tf.cast(tf.constant(h), tf.bfloat16).numpy(), h.astype(np.float32).astype(BF16))


def test_bfloat16_from_python_floats_rounds_through_float32():
    x = 1 + 2.0 ** -8 + 2.0 ** -30  # float32 rounds it to a tie, which bfloat16 then rounds to even: 1.0
    assert float(tf.constant(x, tf.bfloat16).numpy()) == 1.0
    assert float(tf.constant([x], tf.bfloat16).numpy()[0]) == 1.0
    assert float(tf.constant(np.array([x]), tf.bfloat16).numpy()[0]) == 1.0078125  # NumPy's own cast, as TF
    assert tf.constant(np.array([1.5], BF16)).dtype == tf.bfloat16  # an ml_dtypes array keeps its dtype
    assert tf.cast(tf.constant(300.0, tf.bfloat16), tf.uint8).numpy() == 44  # wraps as from float32


@pytest.mark.parametrize("name", HALVES)
def test_elementwise_and_reductions_round_once(name):
    rng = np.random.default_rng(1)
    x = rng.normal(size=1000).astype(_np(name))
    y = rng.normal(size=1000).astype(_np(name))
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    for ours, want in [(tf.add, x32 + y32), (tf.multiply, x32 * y32), (tf.divide, x32 / y32),
                       (tf.maximum, np.maximum(x32, y32))]:
        got = ours(tf.constant(x), tf.constant(y)).numpy()
        assert got.dtype == _np(name)
        np.testing.assert_array_equal(got, _rounded(want, name))
    np.testing.assert_array_equal(tf.exp(tf.constant(x)).numpy(), _rounded(np.exp(x32), name))
    assert tf.reduce_sum(tf.constant(x)).numpy() == _rounded(x32.sum(dtype=np.float32), name)
    np.testing.assert_array_equal(tf.argmax(tf.constant(x.reshape(10, 100)), 1).numpy(), x32.reshape(10, 100).argmax(1))
    np.testing.assert_array_equal(tf.sort(tf.constant(x)).numpy(), np.sort(x32).astype(_np(name)))


@pytest.mark.parametrize("name", HALVES)
def test_matmul_through_float32(name):
    rng = np.random.default_rng(2)
    a = rng.normal(size=(2, 33, 17)).astype(_np(name))
    b = rng.normal(size=(2, 17, 9)).astype(_np(name))
    got = tf.matmul(tf.constant(a), tf.constant(b)).numpy()
    assert got.dtype == _np(name)
    want = _rounded(a.astype(np.float32) @ b.astype(np.float32), name)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=1e-2, atol=1e-2)
    assert np.mean(got == want) > 0.95  # the same float32 products, rounded once (BLAS's order may differ)
    bt = tf.matmul(tf.constant(a[0]), tf.constant(a[1]), transpose_b=True).numpy()
    np.testing.assert_allclose(bt.astype(np.float32), a[0].astype(np.float32) @ a[1].astype(np.float32).T,
                               rtol=2e-2, atol=5e-2)


@pytest.mark.parametrize("name", HALVES)
def test_conv_pool_softmax_through_float32(name):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 9, 9, 3)).astype(np.float32)
    w = rng.normal(size=(3, 3, 3, 4)).astype(np.float32)
    xh, wh = x.astype(_np(name)), w.astype(_np(name))
    widened = [v.astype(np.float32) for v in (xh, wh)]
    for op in (lambda a, k: tf.nn.conv2d(a, k, 1, "SAME"),
               lambda a, k: tf.nn.max_pool2d(tf.nn.conv2d(a, k, 2, "VALID"), 2, 1, "VALID"),
               lambda a, k: tf.nn.avg_pool2d(a, 3, 2, "SAME"),
               lambda a, k: tf.nn.softmax(tf.reshape(a, [2, -1])),
               lambda a, k: tf.nn.log_softmax(tf.reshape(a, [6, -1]))):
        got = op(tf.constant(xh), tf.constant(wh))
        assert got.dtype == tf.as_dtype(name)
        want = op(tf.constant(widened[0]), tf.constant(widened[1])).numpy()
        tol = 1e-2 if name == "bfloat16" else 2e-3
        np.testing.assert_allclose(got.numpy().astype(np.float32), want, rtol=tol, atol=tol * 4)
    labels = np.array([1, 0, 3, 2, 5, 4])
    logits = rng.normal(size=(6, 7)).astype(_np(name))
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, tf.constant(logits))
    assert got.dtype == tf.as_dtype(name)
    want = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, tf.constant(logits.astype(np.float32))).numpy()
    np.testing.assert_array_equal(got.numpy(), _rounded(want, name))


@pytest.mark.parametrize("name", HALVES)
def test_dense_step_gradients_in_the_half_type(name):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(8, 5)).astype(np.float32)
    w = rng.normal(size=(5, 3)).astype(np.float32)
    wv = tf.Variable(w.astype(_np(name)))
    with tf.GradientTape() as tape:
        y = tf.nn.relu(tf.matmul(tf.constant(x.astype(_np(name))), wv))
        loss = tf.reduce_sum(tf.nn.softmax(y) * y)
    g = tape.gradient(loss, wv)
    assert g.dtype == tf.as_dtype(name)
    w32 = tf.Variable(w.astype(_np(name)).astype(np.float32))
    with tf.GradientTape() as tape:
        y = tf.nn.relu(tf.matmul(tf.constant(x.astype(_np(name)).astype(np.float32)), w32))
        loss = tf.reduce_sum(tf.nn.softmax(y) * y)
    want = tape.gradient(loss, w32).numpy()
    tol = 5e-2 if name == "bfloat16" else 5e-3
    np.testing.assert_allclose(g.numpy().astype(np.float32), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", HALVES)
def test_mixed_float_types_are_refused(name):
    h = tf.constant(np.ones((3, 2, 2), _np(name)))
    other = "bfloat16" if name == "float16" else "float16"
    for second in (tf.constant(np.ones((3, 2, 2), np.float32)), tf.constant(np.ones((3, 2, 2), _np(other)))):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.matmul(h, second)
    # TF's one mixed case: a bfloat16 and a float32 matrix (rank 2) multiply in float32
    pair = tf.constant(np.ones((2, 2), _np(name))), tf.constant(np.full((2, 2), 1.5, np.float32))
    if name == "bfloat16":
        assert tf.matmul(*pair).dtype == tf.float32 and tf.matmul(*pair).numpy().tolist() == [[3.0, 3.0]] * 2
    else:
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.matmul(*pair)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.conv2d(tf.ones([1, 4, 4, 1], name), tf.ones([2, 2, 1, 1]), 1, "VALID")


def test_bfloat16_in_checkpoints_and_tensor_protos(tmp_path):
    v = tf.Variable(np.array([1.5, -2.25, 3e38], BF16))
    path = tf.train.Checkpoint(v=v).save(str(tmp_path / "ckpt"))
    w = tf.Variable(np.zeros(3, BF16))
    tf.train.Checkpoint(v=w).restore(path)
    np.testing.assert_array_equal(w.numpy().view(np.uint16), v.numpy().view(np.uint16))
    back = tf.io.parse_tensor(tf.io.serialize_tensor(v), tf.bfloat16)
    assert back.dtype == tf.bfloat16
    np.testing.assert_array_equal(back.numpy().view(np.uint16), v.numpy().view(np.uint16))
    raw = tf.io.decode_raw(tf.constant([np.array([1.5, -2.0], BF16).tobytes()]), tf.bfloat16)
    assert raw.dtype == tf.bfloat16 and raw.numpy().astype(np.float32).tolist() == [[1.5, -2.0]]
    assert tf.io.decode_raw(tf.constant([b"\x01\xff"]), tf.uint8).dtype == tf.uint8


def test_bfloat16_conversions_on_every_isa():
    code = ("import numpy as np, ml_dtypes, tapegrad as tf\n"
            "x = np.random.default_rng(5).normal(size=999).astype(np.float32) * 1e3\n"
            "x[:4] = [1e-40, 3.3962e38, np.inf, np.nan]\n"
            "b = tf.cast(tf.constant(x), tf.bfloat16).numpy()\n"
            "assert np.array_equal(b.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))\n"
            "y = tf.matmul(tf.constant(b[:990].reshape(30, 33)), tf.constant(b[:990].reshape(33, 30)))\n"
            "assert y.dtype == tf.bfloat16\n")
    for isa in ("baseline", "avx2"):
        subprocess.run([sys.executable, "-c", code], check=True, env={**__import__("os").environ, "TAPEGRAD_ISA": isa})
