"""tf.image.resize run by TensorFlow and by tapegrad on the same images: the same values, dtype and
gradient. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

SHAPES_AND_SIZES = [((2, 3, 5, 2), (6, 7)), ((1, 4, 4, 3), (2, 2)), ((2, 5, 3, 1), (2, 8)), ((1, 1, 1, 2), (3, 4)),
                    ((1, 6, 6, 1), (6, 6)), ((3, 7, 2, 2), (3, 5)), ((1, 9, 13, 1), (4, 17)), ((5, 4, 1), (7, 3))]


def _resize_and_gradient(lib, images, size, method, weights):
    x = lib.constant(images)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = lib.image.resize(x, size, method=method)
        loss = lib.reduce_sum(y * lib.constant(weights))
    return y, tape.gradient(loss, x)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("shape,size", SHAPES_AND_SIZES)
def test_resize_matches_tf(method, shape, size):
    rng = np.random.default_rng(0)
    images = rng.standard_normal(shape).astype(np.float32)
    out_shape = shape[:-3] + size + shape[-1:]
    weights = rng.standard_normal(out_shape).astype(np.float32)
    y, g = _resize_and_gradient(tg, images, size, method, weights)
    y_ref, g_ref = _resize_and_gradient(ref, images, size, method, weights)
    assert y.dtype.name == y_ref.dtype.name and tuple(y.shape) == tuple(y_ref.shape)
    np.testing.assert_allclose(y.numpy(), y_ref.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(g.numpy(), g_ref.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_resize_dtypes_match_tf(dtype, method):
    images = np.arange(2 * 3 * 5 * 2).reshape(2, 3, 5, 2).astype(dtype)
    y, y_ref = tg.image.resize(images, [4, 7], method=method), ref.image.resize(images, [4, 7], method=method)
    assert y.dtype.name == y_ref.dtype.name
    np.testing.assert_allclose(y.numpy(), y_ref.numpy(), rtol=1e-6)


@pytest.mark.parametrize("size", [(10, 4), (7, 20), (3, 3)])
def test_preserve_aspect_ratio_matches_tf(size):
    images = np.random.default_rng(1).standard_normal((1, 3, 5, 1)).astype(np.float32)
    y = tg.image.resize(images, size, preserve_aspect_ratio=True)
    y_ref = ref.image.resize(images, size, preserve_aspect_ratio=True)
    assert tuple(y.shape) == tuple(y_ref.shape)
    np.testing.assert_allclose(y.numpy(), y_ref.numpy(), rtol=1e-6, atol=1e-6)


def test_upsampling2d_bilinear_matches_tf_keras():
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 2)).astype(np.float32)
    y = tg.keras.layers.UpSampling2D((2, 3), interpolation="bilinear")(x)
    y_ref = ref.keras.layers.UpSampling2D((2, 3), interpolation="bilinear")(x)
    np.testing.assert_allclose(y.numpy(), np.asarray(y_ref), rtol=1e-6, atol=1e-6)
