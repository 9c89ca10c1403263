"""tf.image.resize: values against a NumPy reference written from TF's coordinate rules (Note [Resize
coordinates] in _ops/image/resize.py), dtypes, errors, and gradients (resize is linear: its gradient is the
transpose of the matrix that resizing the unit images builds). tests/oracle/test_tf_oracle_image.py compares
with TF itself."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


def _source(in_size, out_size, method):
    """Per output index: [(source index, weight)], from the half-pixel rules, one index at a time."""
    scale = np.float32(in_size) / np.float32(out_size)
    rows = []
    for i in range(out_size):
        if method == "nearest":
            rows.append([(min(int(np.floor((np.float32(i) + np.float32(0.5)) * scale)), in_size - 1), 1.0)])
            continue
        src = (np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5)
        lo, hi = max(int(np.floor(src)), 0), min(int(np.ceil(src)), in_size - 1)
        w = float(src - np.floor(src))
        rows.append([(lo, 1.0 - w), (hi, w)])
    return rows


def _reference(images, size, method):
    b, h, w, c = images.shape
    out = np.zeros((b, size[0], size[1], c))
    for y, ys in enumerate(_source(h, size[0], method)):
        for x, xs in enumerate(_source(w, size[1], method)):
            for sy, wy in ys:
                for sx, wx in xs:
                    out[:, y, x, :] += wy * wx * images[:, sy, sx, :]
    return out


CASES = [((2, 3, 5, 2), (6, 7)), ((1, 4, 4, 3), (2, 2)), ((2, 5, 3, 1), (2, 8)), ((1, 1, 1, 2), (3, 4)),
         ((1, 6, 6, 1), (6, 6)), ((3, 7, 2, 2), (3, 5))]


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("shape,size", CASES)
def test_values_follow_the_half_pixel_rules(method, shape, size):
    images = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    got = tf.image.resize(images, size, method=method)
    assert got.shape == (shape[0],) + size + (shape[3],)
    np.testing.assert_allclose(got.numpy(), _reference(images.astype(np.float64), size, method), rtol=1e-5, atol=1e-5)


def test_dtypes_and_ranks():
    x = np.arange(30).reshape(3, 5, 2)
    assert tf.image.resize(x, [4, 4]).dtype == tf.float32  # bilinear: float32 whatever the input
    assert tf.image.resize(x.astype(np.float64), [4, 4]).dtype == tf.float32
    assert tf.image.resize(x.astype(np.int32), [6, 10], method="nearest").dtype == tf.int32
    assert tf.image.resize(x.astype(np.float64), [4, 4], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR).dtype == tf.float64
    assert tf.image.resize(x, tf.constant([6, 10])).shape == (6, 10, 2)  # 3-D in, 3-D out
    assert tf.image.resize(np.zeros((0, 2, 2, 1), np.float32), [3, 3]).shape == (0, 3, 3, 1)
    assert np.isnan(tf.image.resize(np.full((1, 2, 2, 1), np.nan, np.float32), [3, 3]).numpy()).all()


def test_preserve_aspect_ratio_rounds_the_scaled_size():
    x = np.zeros((1, 3, 5, 1), np.float32)
    assert tf.image.resize(x, [10, 4], preserve_aspect_ratio=True).shape == (1, 2, 4, 1)
    assert tf.image.resize(x, [7, 20], preserve_aspect_ratio=True).shape == (1, 7, 12, 1)


@pytest.mark.parametrize("images,size,kwargs,error,match", [
    (np.zeros((2, 2), np.float32), [4, 4], {}, ValueError, "3 or 4 dimensions"),
    (np.zeros((1, 2, 2, 1), np.float32), [4, 4, 4], {}, ValueError, "1-D Tensor of 2 elements"),
    (np.zeros((1, 2, 2, 1), np.float32), [2.5, 4], {}, ValueError, "int32"),
    (np.zeros((1, 2, 2, 1), np.float32), [0, 4], {}, tf.errors.InvalidArgumentError, "must be positive"),
    (np.zeros((1, 0, 2, 1), np.float32), [3, 3], {}, tf.errors.InvalidArgumentError, "non-zero size"),
    (np.ones((1, 2, 2, 1), bool), [3, 3], {}, tf.errors.InvalidArgumentError, "bool"),
    (np.zeros((1, 2, 2, 1), np.float32), [3, 3], {"method": "foo"}, ValueError, "not implemented: foo"),
    (np.zeros((1, 2, 2, 1), np.float32), [3, 3], {"method": "bicubic"}, tf.errors.UnimplementedError, "bicubic"),
    (np.zeros((1, 4, 4, 1), np.float32), [2, 2], {"antialias": True}, tf.errors.UnimplementedError, "antialias"),
])
def test_bad_input_raises_tf_classes(images, size, kwargs, error, match):
    with pytest.raises(error, match=match):
        tf.image.resize(images, size, **kwargs)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_gradient_is_the_transpose_of_the_resize_matrix(method):
    shape, size = (1, 3, 4, 1), (5, 2)
    n = int(np.prod(shape))
    matrix = np.stack([tf.image.resize(np.eye(n, dtype=np.float32)[k].reshape(shape), size, method=method)
                       .numpy().ravel() for k in range(n)], axis=1)  # out x in
    rng = np.random.default_rng(1)
    x = tf.constant(rng.standard_normal(shape).astype(np.float32))
    w = rng.standard_normal((1,) + size + (1,)).astype(np.float32)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(tf.image.resize(x, size, method=method) * w)
        g = inner.gradient(loss, x)
        gg = tf.reduce_sum(g * g)
    np.testing.assert_allclose(g.numpy().ravel(), matrix.T @ w.ravel(), rtol=1e-5, atol=1e-6)
    second = outer.gradient(gg, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(second.numpy(), 0)  # g does not depend on x


def test_upsampling2d_bilinear_is_resize():
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 2)).astype(np.float32)
    up = keras.layers.UpSampling2D((2, 3), interpolation="bilinear")(x)
    np.testing.assert_array_equal(up.numpy(), tf.image.resize(x, [6, 12]).numpy())


def test_resize_on_a_keras_input_builds_a_model():
    inputs = keras.Input(shape=(4, 4, 1))
    model = keras.Model(inputs, tf.image.resize(inputs, [8, 8]))
    x = np.random.default_rng(3).standard_normal((2, 4, 4, 1)).astype(np.float32)
    np.testing.assert_array_equal(model(x).numpy(), tf.image.resize(x, [8, 8]).numpy())


def test_upsampling2d_bilinear_keeps_the_dtype_and_resize_refuses_what_tf_refuses():
    x = np.random.default_rng(4).standard_normal((1, 2, 2, 1))
    up = keras.layers.UpSampling2D(2, interpolation="bilinear")
    assert up(x.astype(np.int32)).dtype == tf.int32 and up(x.astype(np.float64)).dtype == tf.float32  # Keras's
    with pytest.raises(ValueError, match="not implemented: BILINEAR"):
        tf.image.resize(x, [3, 3], method="BILINEAR")
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least one channel"):
        tf.image.resize(np.zeros((1, 2, 2, 0), np.float32), [3, 3])
